"""The results dataset's card (README.md): metadata, a header, and one section per run.

The YAML keeps what ``datasets`` wrote (``configs``, ``dataset_info``) and anything else already
there, and sets ``license`` (kept if present, else ``other``), ``pretty_name`` and the tags
``agent-skills`` and ``skill-evaluation``. The body is rebuilt on every push: a header saying
how to load the data, then every run's section, newest first. A run section runs from its
``## Run `<split>``` heading to the next ``## `` heading; sections of earlier runs are carried
over verbatim, and pushing the same run again replaces only its own section.
"""

from __future__ import annotations

import re
from typing import Any

from huggingface_hub import DatasetCard, DatasetCardData

from upskill_hub.evaluation.run_dir import RunRecord
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


def _assertion_kinds(record: RunRecord) -> list[str]:
    return sorted({str(a.get("type")) for case in record.cases for a in case.assertions})


def _source(skill: dict[str, Any]) -> str:
    repo, revision = skill.get("repo_id"), skill.get("revision")
    if repo:
        return f"Hub repo `{repo}`" + (f" at revision `{revision}`" if revision else "")
    return "a local folder"


def _results_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| model | baseline (95% CI) | with skill (95% CI) | lift (95% CI) "
        "| tokens/sample (baseline → with skill) | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for r in fmt.by_model(rows):
        lines.append(
            f"| `{r.model}` | {fmt.rate_with_ci(r.baseline)} | {fmt.rate_with_ci(r.with_skill)} "
            f"| {fmt.lift_with_ci(r)} | {fmt.tokens_pair(r)} | {r.verdict} |"
        )
    return lines


def run_section(
    record: RunRecord, *, split: str, rows: list[dict[str, Any]], chart_path: str | None
) -> str:
    """The Markdown section of one run: what was evaluated, results, chart, method, command."""
    info = record.info
    skill = info.get("skill") or {}
    params = info.get("params") or {}
    models = ", ".join(f"`{m}`" for m in info.get("models") or fmt.by_model(rows))
    arms = info.get("arms") or ["baseline", "with_skill"]
    kinds = ", ".join(f"`{k}`" for k in _assertion_kinds(record)) or fmt.NONE
    complete = all(r.get("complete", True) for r in rows)
    seed = params.get("seed")
    lines = [
        f"## Run `{split}`",
        "",
        f"- **Skill:** `{skill.get('name', '?')}` from {_source(skill)}",
        f"- **Models:** {models}",
        f"- **Cases × runs:** {len(record.cases)} × {info.get('runs', '?')}",
        f"- **Started:** {info.get('started_at') or fmt.NONE}",
        f"- **Finished:** {info.get('finished_at') or fmt.NONE}"
        + ("" if complete else " (incomplete: some samples missing or failed)"),
        f"- **Tool:** upskill-hub {(info.get('tool') or {}).get('version', '?')}",
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
        f"- Assertion kinds: {kinds}. A sample passes when every assertion passes; failed "
        "requests count as errors and are left out of the rates.",
        f"- {info.get('runs', '?')} run(s) per case; temperature {params.get('temperature', '?')}"
        f", max tokens {params.get('max_tokens', '?')}, "
        + (f"seed {seed}." if seed is not None else "no seed."),
        "- 95% intervals: Wilson score for pass rates, Newcombe's hybrid score for lift; "
        "the verdict is *helps* / *hurts* only when the lift interval excludes zero.",
        "",
    ]
    if info.get("reproduce"):
        lines += ["### Reproduce", "", "```bash", str(info["reproduce"]), "```", ""]
    return "\n".join(lines)


def _header(repo_id: str, skill_name: str, latest: str, count: int) -> str:
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
            "```python",
            "from datasets import load_dataset",
            "",
            f'summary = load_dataset("{repo_id}", "summary", split="{latest}")',
            f'samples = load_dataset("{repo_id}", "samples", split="{latest}")',
            "```",
            "",
            f"{count} run(s), newest first.",
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
    old = DatasetCard(existing) if existing and existing.strip() else None
    meta = old.data.to_dict() if old is not None else {}
    sections = run_sections(old.text if old is not None else "")
    sections[split] = run_section(record, split=split, rows=rows, chart_path=chart_path)
    ordered = _newest_first(sections)
    skill_name = str((record.info.get("skill") or {}).get("name") or "skill")
    meta["license"] = meta.get("license") or DEFAULT_LICENSE
    meta["tags"] = list(dict.fromkeys([*(meta.get("tags") or []), *TAGS]))
    meta["pretty_name"] = f"{skill_name} skill evaluation results"
    latest = _RUN_HEADING.search(ordered[0])
    header = _header(repo_id, skill_name, latest.group("split") if latest else split, len(ordered))
    body = header + "\n" + "\n".join(ordered)
    data = DatasetCardData(**meta)
    return str(DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{body}"))
