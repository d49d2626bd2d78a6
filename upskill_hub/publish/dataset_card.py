"""The results dataset's card (README.md): metadata, a header, and one section per run.

The YAML keeps what ``datasets`` wrote (``configs``, ``dataset_info``) and anything else already
there, and sets ``license`` (kept if present and not ``other``, else the evaluated skill's
license from run.json when it is a Hub license id, else ``other`` with ``license_name``),
``pretty_name`` and the tags ``agent-skills`` and ``skill-evaluation``.

The body is rebuilt on every push: a header saying how to load the data, then every run's
section, newest first. A run section runs from its ``## Run `<split>``` heading to the next
``## `` heading; sections of earlier runs are carried over verbatim, and pushing the same run
again replaces only its own section.

Each run's **Reproduce** step works on another machine: the skill is named as recorded in
run.json (``ns/name@<commit>`` for a Hub skill; a local folder is said to be one, plainly), and
when the run used its own test cases (``custom_tests``) the step first downloads them from this
dataset (``tests/<split>.json``, uploaded by ``push_results``) and passes that file to
``--tests``.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from huggingface_hub import DatasetCard, DatasetCardData

from upskill_hub.evaluation.run.folder import RunRecord
from upskill_hub.evaluation.run.records import RunInfo, RunSkill
from upskill_hub.formatting import interval
from upskill_hub.publish import summary_text as fmt

TAGS = ("agent-skills", "skill-evaluation")
DEFAULT_LICENSE = "other"
_RUN_HEADING = re.compile(r"^## Run `(?P<split>\w+(?:\.\w+)*)`[ \t]*$", re.MULTILINE)
_ANY_HEADING = re.compile(r"^## (?!#)", re.MULTILINE)
_STARTED = re.compile(r"^- \*\*Started:\*\* (?P<when>\S+)", re.MULTILINE)


def run_sections(body: str) -> dict[str, str]:
    """Every run section of a card body by split, in card order (headings included)."""
    sections: dict[str, str] = {}
    for match in _RUN_HEADING.finditer(body):
        following = _ANY_HEADING.search(body, match.end())
        end = following.start() if following else len(body)
        sections[match.group("split")] = body[match.start() : end].rstrip() + "\n"
    return sections


def _newest_first(sections: dict[str, str]) -> list[str]:
    def started(item: tuple[str, str]) -> tuple[str, str]:
        found = _STARTED.search(item[1])
        return (found.group("when") if found else "", item[0])

    return [text for _, text in sorted(sections.items(), key=started, reverse=True)]


def tests_path(split: str) -> str:
    """Where a run's test cases go in the dataset repo."""
    return f"tests/{split}.json"


def used_custom_tests(info: RunInfo) -> bool:
    """Whether the run used cases other than the skill's own (run.json ``custom_tests``; older
    run folders: whether their reproduce command passes ``--tests``)."""
    if info.custom_tests is not None:
        return info.custom_tests
    return "--tests" in shlex.split(info.reproduce or "")


def portable_command(command: str, tests_file: str | None, flag: str = "--tests") -> str:
    """``command`` with its ``flag`` value (the test file) replaced by ``tests_file`` (or
    dropped: None)."""
    argv = shlex.split(command)
    out: list[str] = []
    skip = False
    for n, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if arg == flag:
            skip = n + 1 < len(argv)
            continue
        if arg.startswith(f"{flag}="):
            continue
        out.append(arg)
    if tests_file is not None:
        out += [flag, tests_file]
    return shlex.join(out)


def reproduce_lines(info: RunInfo, *, repo_id: str, split: str) -> list[str]:
    """The "Reproduce" subsection: runnable elsewhere (see the module docstring)."""
    command = info.reproduce
    if not command:
        return []
    skill = info.skill
    custom = used_custom_tests(info)
    tests = tests_path(split) if custom else None
    lines = ["### Reproduce", ""]
    if skill.repo_id:
        ref = skill.ref or skill.repo_id
        lines.append(
            f"The skill is pinned to the commit evaluated (`{ref}`); `upskill-hub eval` "
            "fetches it from the Hub."
        )
    else:
        where = skill.ref or skill.path
        lines.append(
            f"The skill was evaluated from a local folder (`{where}`), not from a Hub repo: "
            "it is not published with these results. Replace that path with your copy of the "
            "skill (its SKILL.md sha256 was "
            f"`{skill.skill_md_sha256 or '?'}`)."
        )
    if custom:
        lines.append(
            f"The run used its own test cases, not the skill's skill_meta.json: they are in this "
            f"dataset as `{tests}`, downloaded first."
        )
    else:
        lines.append("The run used the skill's own test cases (skill_meta.json).")
    lines += ["", "```bash"]
    if tests is not None:
        lines.append(
            shlex.join(["hf", "download", repo_id, tests, "--repo-type", "dataset"])
            + " --local-dir ."
        )
    lines += [portable_command(command, tests), "```", ""]
    return lines


def card_license(meta: dict[str, Any], info: RunInfo) -> tuple[str, str | None]:
    """``(license, license_name)`` for the card: an existing specific license is kept, else the
    skill's (a Hub license id, or ``other`` with its name), else ``other``."""
    from upskill_hub.registry.card import _KNOWN_LICENSES

    current = str(meta.get("license") or "")
    if current and current != DEFAULT_LICENSE:
        return current, meta.get("license_name")
    value = (info.skill.license or "").strip()
    if value.lower() in _KNOWN_LICENSES:
        return value.lower(), None
    slug = re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")[:64]
    if slug:
        return DEFAULT_LICENSE, slug
    return DEFAULT_LICENSE, meta.get("license_name")


def _assertion_kinds(record: RunRecord) -> list[str]:
    return sorted({str(a.get("type")) for case in record.cases for a in case.assertions})


def _source(skill: RunSkill) -> str:
    repo, revision = skill.repo_id, skill.revision
    if repo:
        return f"Hub repo `{repo}`" + (f" at revision `{revision}`" if revision else "")
    return "a local folder"


def _results_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| model | baseline (95% CI) | with skill (95% CI) | lift (95% CI) "
        "| tokens/sample (baseline → with skill) | $/pass (baseline → with skill) | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in fmt.by_model(rows):
        lines.append(
            f"| `{r.model}` | {fmt.rate_with_ci(r.baseline)} | {fmt.rate_with_ci(r.with_skill)} "
            f"| {fmt.lift_with_ci(r)} | {fmt.tokens_pair(r)} | {fmt.cost_pair(r)} | {r.verdict} |"
        )
    return lines


METHOD_V2 = (
    "- 95% intervals by test case (runs of one case are not independent): lift is the mean "
    "over cases of (pass rate with the skill - without), with a paired t interval over cases; "
    "pass rates use a Wilson interval on the clustered effective n. The verdict is *helps* / "
    "*hurts* only when the lift interval excludes zero (Holm-adjusted over models); a request "
    "refused for its prompt (context length) counts as a fail."
)
METHOD_V3 = (
    "- 95% intervals by test case (runs of one case are not independent): lift is the mean "
    "over cases of (pass rate with the skill - without), with a paired t interval over cases; "
    "pass rates use a Wilson interval on the clustered effective n. Missing samples (errors, "
    "requests refused for their prompt, samples never run) are left out of the lift and counted "
    "in worst-case bounds: the verdict is *helps* / *hurts* only when the lift interval excludes "
    "zero (Holm-adjusted over models) and still does with every missing sample counted against "
    "it; otherwise *not comparable*."
)
METHOD_V1 = (
    "- 95% intervals: Wilson score for pass rates, Newcombe's hybrid score for lift, counting "
    "every run as independent (stats_version 1: too narrow with several runs per case); the "
    "verdict is *helps* / *hurts* only when the lift interval excludes zero."
)


def _method(stats_version: int | None) -> str:
    """The method line of a run by its summary.json's ``stats_version`` (None: version 1)."""
    if not stats_version:
        return METHOD_V1
    return METHOD_V3 if stats_version >= 3 else METHOD_V2


def _prices_line(info: RunInfo) -> str:
    """The method line on costs: each model's price per million tokens and its source, or
    that it is unpriced."""
    from upskill_hub.evaluation.pricing import prices_from_json

    prices = prices_from_json(info.prices)
    parts = []
    for model in info.models:
        price = prices.get(model)
        if price is None:
            parts.append(f"`{model}` unpriced")
            continue
        cached = "" if price.cached_input is None else f", cached input ${price.cached_input:g}"
        parts.append(
            f"`{model}` ${price.input:g} in / ${price.output:g} out{cached} ({price.source})"
        )
    return (
        "- Costs in US dollars per passed sample at these prices per million tokens: "
        + "; ".join(parts)
        + ". A model without a price is *unpriced*, never $0; the $/pass interval is a case "
        "jackknife of its logarithm."
    )


def run_section(
    record: RunRecord,
    *,
    split: str,
    rows: list[dict[str, Any]],
    chart_path: str | None,
    repo_id: str = "NS/DATASET",
) -> str:
    """The Markdown section of one run: what was evaluated, results, chart, method, command."""
    info = record.info
    skill = info.skill
    params = info.params
    models = ", ".join(f"`{m}`" for m in info.models or fmt.by_model(rows))
    arms = info.arms or ["baseline", "with_skill"]
    kinds = ", ".join(f"`{k}`" for k in _assertion_kinds(record)) or fmt.NONE
    complete = all(r.get("complete", True) for r in rows)
    seed = params.seed
    lines = [
        f"## Run `{split}`",
        "",
        f"- **Skill:** `{skill.name or '?'}` from {_source(skill)}",
        f"- **Models:** {models}",
        f"- **Cases × runs:** {len(record.cases)} × {info.runs}",
        f"- **Started:** {info.started_at or fmt.NONE}",
        f"- **Finished:** {info.finished_at or fmt.NONE}"
        + ("" if complete else " (incomplete: some samples missing or failed)"),
        f"- **Tool:** upskill-hub {info.tool_version or '?'}",
        f"- **Split:** `{split}` of the `samples` and `summary` configs",
        "",
        "### Results",
        "",
        *_results_table(rows),
        "",
    ]
    if chart_path:
        lines += [f"![Pass rate per model with and without the skill]({chart_path})", ""]
    lines += [
        "### Method",
        "",
        "- Symmetric arms ("
        + " and ".join(f"`{a}`" for a in arms)
        + "): both send the same system prompt and user message; the with-skill arm "
        "appends only the SKILL.md text to the system prompt.",
        f"- Assertion kinds: {kinds}. A sample passes when no assertion fails or errors and "
        "at least one actually ran (skipped checks neither pass nor fail); failed requests "
        "count as errors and are left out of the rates.",
        f"- {info.runs} run(s) per case; temperature {params.temperature}"
        f", max tokens {params.max_tokens}, "
        + (f"seed {seed}." if seed is not None else "no seed."),
        _method(record.summary.stats_version if record.summary else None),
        _prices_line(info),
        "",
    ]
    lines += reproduce_lines(info, repo_id=repo_id, split=split)
    return "\n".join(lines)


def trigger_run_section(
    summary: dict[str, Any], info: RunInfo, *, split: str, queries: int, repo_id: str
) -> str:
    """The Markdown section of one trigger eval: recall and false triggers per model and set,
    the method, and a reproduce step whose queries file is downloaded from this dataset."""
    models = summary.get("models") or []
    names = ", ".join(f"`{m['model']}`" for m in models)
    lines = [
        f"## Run `{split}`",
        "",
        "- **Kind:** trigger eval (`eval --triggers`): does the model load the skill when it "
        "should, and only then?",
        f"- **Skill:** `{summary.get('skill') or info.skill.name or '?'}` from "
        f"{_source(info.skill)}",
        f"- **Models:** {names or fmt.NONE}",
        f"- **Queries × runs:** {queries} × {info.runs}",
        f"- **Started:** {info.started_at or fmt.NONE}",
        f"- **Finished:** {info.finished_at or fmt.NONE}",
        f"- **Tool:** upskill-hub {info.tool_version or '?'}",
        f"- **Split:** `{split}` of the `triggers` config",
        "",
        "### Results",
        "",
        "| model | queries | recall (95% CI) | false triggers (95% CI) | queries right |",
        "|---|---|---|---|---|",
    ]
    for model in models:
        for row in model.get("sets") or []:
            name = f"`{model['model']}`" + ("" if row["set"] == "all" else f" ({row['set']})")
            lines.append(
                f"| {name} | {row['queries']} "
                f"| {fmt.percent(row['recall'])} {interval(row['recall_ci95'])} "
                f"| {fmt.percent(row['false_trigger_rate'])} "
                f"{interval(row['false_trigger_ci95'])} "
                f"| {row['queries_passed']}/{row['queries']} |"
            )
    lines += [
        "",
        "### Method",
        "",
        "- Each query ran as an agent exchange: the skill listed among distractor skills, the "
        "`Skill` and `Read` tools; a run triggered when the model called `Skill` with this "
        "skill's name. Recall is the trigger rate over should-trigger queries, false triggers "
        "over the others; 95% intervals clustered by query. A query is right when its rate is "
        "at least 0.5 for a should-trigger query and below 0.5 otherwise. Runs that errored are "
        "left out of the rates.",
        "",
    ]
    if info.reproduce:
        queries_file = tests_path(split)
        lines += [
            "### Reproduce",
            "",
            f"The queries are in this dataset as `{queries_file}`, downloaded first.",
            "",
            "```bash",
            shlex.join(["hf", "download", repo_id, queries_file, "--repo-type", "dataset"])
            + " --local-dir .",
            portable_command(info.reproduce, queries_file, "--triggers"),
            "```",
            "",
        ]
    return "\n".join(lines)


_TRIGGER_SECTION = "of the `triggers` config"


def _load_example(repo_id: str, sections: list[str]) -> list[str]:
    """How to load the newest run: its configs, as the newest eval run (else trigger run) has."""
    evals = [t for t in sections if _TRIGGER_SECTION not in t]
    newest = _RUN_HEADING.search((evals or sections)[0])
    split = newest.group("split") if newest else "train"
    configs = ("summary", "samples") if evals else ("triggers",)
    return [
        "```python",
        "from datasets import load_dataset",
        "",
        *(f'{c} = load_dataset("{repo_id}", "{c}", split="{split}")' for c in configs),
        "```",
    ]


def _header(repo_id: str, skill_name: str, sections: list[str]) -> str:
    return "\n".join(
        [
            f"# {skill_name}: skill evaluation results",
            "",
            f"Evaluation runs of the Agent Skill `{skill_name}`, made with "
            "upskill-hub. Each model answered every test case without the "
            "skill (`baseline`) and with it (`with_skill`); **lift** is the difference in "
            "pass rate.",
            "",
            "Every run is one split (named after its run id) of two configs:",
            "",
            "- `samples`: one row per model, case, run and arm: input, output, each "
            "assertion's result, outcome, tokens, latency, skill revision, prompt hash.",
            "- `summary`: one row per model and arm: pass rate with its 95% interval, lift "
            "with its interval, tokens and verdict.",
            "",
            "Trigger evals (`eval --triggers`), when pushed here, are splits of a third config, "
            "`triggers`: one row per model and query with its trigger rate and interval.",
            "",
            *_load_example(repo_id, sections),
            "",
            f"{len(sections)} run(s), newest first.",
            "",
        ]
    )


def build_dataset_card(
    existing: str | None,
    record: RunRecord,
    *,
    repo_id: str,
    split: str,
    rows: list[dict[str, Any]],
    chart_path: str | None,
) -> str:
    """The new README.md: ``existing`` (as datasets left it) plus this run's section."""
    section = run_section(record, split=split, rows=rows, chart_path=chart_path, repo_id=repo_id)
    return card_with_section(existing, record.info, repo_id=repo_id, split=split, section=section)


def card_with_section(
    existing: str | None, info: RunInfo, *, repo_id: str, split: str, section: str
) -> str:
    """The new README.md: ``existing`` (as datasets left it) with ``section`` as the run
    ``split``'s (an eval's or a trigger eval's), metadata and header set as the module says."""
    old = DatasetCard(existing) if existing and existing.strip() else None
    meta = old.data.to_dict() if old is not None else {}
    sections = run_sections(old.text if old is not None else "")
    sections[split] = section
    ordered = _newest_first(sections)
    skill_name = info.skill.name or "skill"
    meta["license"], license_name = card_license(meta, info)
    if meta["license"] == DEFAULT_LICENSE and license_name:
        meta["license_name"] = license_name
    else:
        meta.pop("license_name", None)
    meta["tags"] = list(dict.fromkeys([*(meta.get("tags") or []), *TAGS]))
    meta["pretty_name"] = f"{skill_name} skill evaluation results"
    header = _header(repo_id, skill_name, ordered)
    body = header + "\n" + "\n".join(ordered)
    data = DatasetCardData(**meta)
    return str(DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{body}"))
