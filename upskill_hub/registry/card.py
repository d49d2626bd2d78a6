"""The model card (README.md) ``push`` writes for a skill repo.

YAML metadata (``tags: [agent-skills]``, license, description) through huggingface_hub's
:class:`ModelCard` / :class:`ModelCardData`, then a body: what the skill does, how to install
it, its file tree and a ``## Results`` section. That section runs from its heading to the next
``## `` heading (or the end) and is what :func:`replace_results_section` swaps when results
are published; until then it says there are none. No HTML comments (the scan refuses them).
The metadata's ``upskill_hub`` section holds ``executable_files``, ``results`` (the
published runs, :mod:`upskill_hub.registry.evidence.index`) and ``replications`` (runs that
re-measured a published one, written by ``results reproduce``); a new push carries ``results``
and ``replications`` over.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from huggingface_hub import ModelCard, ModelCardData

#: The card file of a Hub repo.
CARD_FILE = "README.md"
SKILLS_TAG = "agent-skills"
RESULTS_HEADING = "## Results"
NO_RESULTS = (
    "No evaluation results yet. Run `upskill-hub eval` on this skill and publish the run to "
    "fill this section."
)
_KNOWN_LICENSES = frozenset(
    {
        "apache-2.0",
        "mit",
        "bsd-2-clause",
        "bsd-3-clause",
        "bsd-3-clause-clear",
        "gpl-2.0",
        "gpl-3.0",
        "lgpl-2.1",
        "lgpl-3.0",
        "agpl-3.0",
        "mpl-2.0",
        "epl-2.0",
        "cc0-1.0",
        "cc-by-4.0",
        "cc-by-sa-4.0",
        "cc-by-nc-4.0",
        "cc-by-nc-sa-4.0",
        "unlicense",
        "isc",
    }
)
_HEADING = re.compile(r"^## (?!#)", re.MULTILINE)
_HEADER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
#: ``upskill_hub.results`` in the card metadata: the published runs of the skill.
RESULTS_META_KEY = "results"
#: ``upskill_hub.replications``: runs re-measuring a published run (``{dataset, split, of}``).
REPLICATIONS_META_KEY = "replications"


@dataclass(frozen=True)
class CardSkill:
    """What the card says about one skill: its name, description, files and repo folder."""

    name: str
    description: str
    files: Sequence[str]
    subpath: str = ""
    license: str | None = None


def build_card(
    repo_id: str,
    skills: Sequence[CardSkill],
    *,
    results: str | None = None,
    executables: Sequence[str] = (),
    results_meta: Sequence[dict[str, Any]] = (),
    replications_meta: Sequence[dict[str, Any]] = (),
) -> str:
    """The README.md text for a repo holding ``skills`` (a root skill or ``skills/<name>``).

    ``results`` is the Markdown to keep under ``## Results`` (e.g. carried over from the card
    being replaced); without it the section says there are no results yet. ``executables``
    (repo paths) are recorded in the metadata as ``upskill_hub.executable_files``: the Hub
    keeps no file modes, so ``pull`` restores the executable bit from there. ``results_meta``
    (the published runs carried over from the card being replaced, see
    :mod:`upskill_hub.registry.evidence.index`) is kept as ``upskill_hub.results``, and
    ``replications_meta`` as ``upskill_hub.replications``.
    """
    license_id, license_name = _license(skills)
    description = skills[0].description if len(skills) == 1 else _multi_description(skills)
    section: dict[str, Any] = {"executable_files": sorted(executables)} if executables else {}
    if results_meta:
        section[RESULTS_META_KEY] = list(results_meta)
    if replications_meta:
        section[REPLICATIONS_META_KEY] = list(replications_meta)
    extra: dict[str, Any] = {"upskill_hub": section} if section else {}
    data = ModelCardData(
        license=license_id,
        license_name=license_name,
        tags=[SKILLS_TAG],
        description=_one_line(description),
        **extra,
    )
    body = [_title(repo_id, skills), ""]
    for skill in skills:
        if len(skills) > 1:
            body += [f"### {skill.name}", ""]
        body += [skill.description.strip() or "(no description)", ""]
    body += ["## Install", "", "```bash"]
    if len(skills) == 1:
        body.append(f"upskill-hub pull {repo_id}")
    else:
        body += [f"upskill-hub pull {repo_id} --skill {s.name}" for s in skills]
        body.append(f"upskill-hub pull {repo_id}   # all {len(skills)} skills")
    body += [
        "```",
        "",
        "Add `--agent codex` (or cursor, copilot, gemini, ...) to install for "
        "another coding agent; the lock file `upskill-hub.lock` pins the commit.",
        "",
    ]
    body += ["## Files", "", "```text", *file_tree(skills), "```", ""]
    body += [RESULTS_HEADING, "", (results or NO_RESULTS).strip(), ""]
    return str(ModelCard(f"---\n{data.to_yaml()}\n---\n\n" + "\n".join(body)))


def card_metadata(card_text: str) -> dict[str, Any]:
    """The card's YAML metadata as a dict (empty when it has none or it does not parse)."""
    import yaml

    match = _HEADER.match(card_text)
    try:
        data = yaml.safe_load(match.group(1)) if match else None
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def executable_files(card_text: str) -> set[str]:
    """The repo paths the card's metadata marks executable (empty for any other card)."""
    section = card_metadata(card_text).get("upskill_hub")
    paths = section.get("executable_files") if isinstance(section, dict) else None
    return {p for p in paths if isinstance(p, str)} if isinstance(paths, list) else set()


def results_metadata(card_text: str, key: str = RESULTS_META_KEY) -> list[dict[str, Any]]:
    """The card's ``upskill_hub.<key>`` entries (``results`` by default; raw dicts; empty for
    any other card)."""
    section = card_metadata(card_text).get("upskill_hub")
    entries = section.get(key) if isinstance(section, dict) else None
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def with_results_metadata(
    card_text: str, entries: Sequence[dict[str, Any]], key: str = RESULTS_META_KEY
) -> str:
    """``card_text`` with ``upskill_hub.<key>`` (``results`` by default) set to ``entries``;
    the body is kept as is."""
    import yaml

    data = card_metadata(card_text)
    match = _HEADER.match(card_text)
    body = card_text[match.end() :] if match else "\n" + card_text
    section = data.get("upskill_hub")
    section = dict(section) if isinstance(section, dict) else {}
    section[key] = list(entries)
    data["upskill_hub"] = section
    header = yaml.safe_dump(data, sort_keys=False, allow_unicode=True).rstrip("\n")
    return f"---\n{header}\n---\n{body}"


def results_section(card_text: str) -> str | None:
    """The Markdown under ``## Results`` (without the heading), or None when there is none."""
    span = _results_span(card_text)
    if span is None:
        return None
    start, end = span
    return card_text[start:end].split("\n", 1)[1].strip() if "\n" in card_text[start:end] else ""


def replace_results_section(card_text: str, markdown: str) -> str:
    """``card_text`` with the ``## Results`` section's content replaced (appended if absent)."""
    section = f"{RESULTS_HEADING}\n\n{markdown.strip()}\n"
    span = _results_span(card_text)
    if span is None:
        return card_text.rstrip("\n") + "\n\n" + section
    start, end = span
    rest = card_text[end:]
    return card_text[:start] + section + ("\n" + rest if rest else "")


def has_results(card_text: str) -> bool:
    section = results_section(card_text)
    return bool(section) and section != NO_RESULTS


def file_tree(skills: Sequence[CardSkill]) -> list[str]:
    """Lines of a ``tree``-style listing of the repo's skill files."""
    paths = sorted(f"{s.subpath or s.name}/{f}" for s in skills for f in s.files)
    tree: dict[str, dict] = {}
    for path in paths:
        node = tree
        for part in path.split("/"):
            node = node.setdefault(part, {})
    lines: list[str] = []
    _tree_lines(tree, "", lines)
    return lines


def _tree_lines(node: dict[str, dict], prefix: str, out: list[str]) -> None:
    items = sorted(node.items(), key=lambda kv: (not kv[1], kv[0]))
    for index, (name, child) in enumerate(items):
        last = index == len(items) - 1
        out.append(f"{prefix}{'└── ' if last else '├── '}{name}{'/' if child else ''}")
        if child:
            _tree_lines(child, prefix + ("    " if last else "│   "), out)


def _results_span(text: str) -> tuple[int, int] | None:
    match = re.search(rf"^{re.escape(RESULTS_HEADING)}[ \t]*$", text, re.MULTILINE)
    if match is None:
        return None
    following = _HEADING.search(text, match.end())
    return match.start(), following.start() if following else len(text)


def _title(repo_id: str, skills: Sequence[CardSkill]) -> str:
    if len(skills) == 1:
        return f"# {skills[0].name}"
    return f"# {repo_id.split('/')[-1]}"


def _multi_description(skills: Sequence[CardSkill]) -> str:
    return f"{len(skills)} agent skills: " + ", ".join(s.name for s in skills)


def _one_line(text: str) -> str:
    return " ".join(text.split())[:1024]


def _license(skills: Sequence[CardSkill]) -> tuple[str | None, str | None]:
    values = {s.license.strip() for s in skills if s.license and s.license.strip()}
    if len(values) != 1:
        return None, None
    value = values.pop()
    if value.lower() in _KNOWN_LICENSES:
        return value.lower(), None
    slug = re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")[:64]
    return "other", slug or None
