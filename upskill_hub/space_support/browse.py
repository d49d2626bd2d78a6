"""The "Browse skills" tab: search Hub skills tagged ``agent-skills`` (ranked by measured lift
on a chosen model: the code behind ``search --model``) and show one skill's page (its measured
lift per model next to the ``upskill-hub pull`` command, then card, files, scan findings and
validation). Markdown built here escapes what the repository controls, and the card itself is
rendered by :mod:`.card_html` (an allowlist: no raw HTML, no forms or frames, no image loaded
without a click)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from upskill_hub.hub.client import Hub, parse_spec
from upskill_hub.registry.evidence.read import ModelEvidence, SkillEvidence
from upskill_hub.space_support.card_html import card_html

SEARCH_HEADERS = ["Repository", "Description", "Downloads", "Likes", "Measured lift"]
_CARD_MAX = 4000
_BACKTICKS = re.compile(r"`+")
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n?", re.DOTALL)
_RESULTS_SECTION = re.compile(r"^## Results\n.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)


def md_escape(text: str) -> str:
    """``text`` as literal Markdown (no links, HTML or formatting), on one line."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def md_code(text: str) -> str:
    """``text`` as one inline code span (on one line) that no backtick in it can close."""
    flat = " ".join(str(text).split())
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def search_rows(
    query: str, *, hub: Hub | None = None, limit: int = 30, model: str | None = None
) -> list[list[str]]:
    """Search results as table rows; with ``model``, ranked by the measured lift on it."""
    from upskill_hub.registry.search import search

    chosen = (model or "").strip() or None
    hits = search(query.strip(), limit=limit, hub=hub, model=chosen)
    return [
        [
            h.repo_id,
            " ".join(h.description.split())[:200],
            str(h.downloads),
            str(h.likes),
            _hit_lift(h.evidence, h.ranked_by, chosen),
        ]
        for h in hits
    ]


def _hit_lift(
    evidence: list[ModelEvidence], ranked_by: ModelEvidence | None, model: str | None
) -> str:
    from upskill_hub.registry.evidence.text import figure_text

    if model:
        if ranked_by is None:
            return f"not measured on {model}"
        return f"{figure_text(ranked_by)} on {model}"
    if not evidence:
        return "not measured"
    return "; ".join(f"{e.model}: {figure_text(e)}" for e in evidence)


#: The badge of each verification level (plain text and emoji: nothing a repo controls).
BADGES = {
    "verified": "✅ verified",
    "reported": "ℹ️ reported",
    "inconsistent": "❌ inconsistent",
}
REPLICATED = "🔁 replicated"


def badges(e: ModelEvidence) -> str:
    """``✅ verified`` / ``ℹ️ reported`` / ``❌ inconsistent``, and ``🔁 replicated`` when an
    agreeing replication is listed."""
    out = [BADGES.get(e.verification, BADGES["reported"])]
    replications = e.replications
    if any(_agrees(r) for r in replications):
        out.append(REPLICATED)
    return " ".join(out)


def _agrees(replication: Any) -> bool:
    value = replication.get("agrees") if isinstance(replication, dict) else None
    return bool(getattr(replication, "agrees", value))


def reproduce_command(e: ModelEvidence) -> str:
    """The command that re-runs ``e``'s published run and publishes the replication."""
    import shlex

    return shlex.join(
        [
            "upskill-hub",
            "results",
            "reproduce",
            f"{e.dataset}:{e.split}",
            "--model",
            e.model,
            "--repo",
            "NS/DATASET",
        ]
    )


def evidence_markdown(evidence: SkillEvidence | None) -> list[str]:
    """A table of the published lift per model (escaped; each row says who reported it), or
    that none is published."""
    from upskill_hub.formatting import cases_runs
    from upskill_hub.registry.evidence.text import NO_RESULTS, lift_text, where_text

    if evidence is None:
        return []
    if not evidence.models:
        lines = [md_escape(NO_RESULTS[0].upper() + NO_RESULTS[1:])]
    else:
        lines = [
            "| model | lift (95% interval) | checked | cases × runs | mode "
            "| reported by, for commit | results |",
            "|---|---|---|---|---|---|---|",
        ]
        for e in evidence.models:
            shown = "not shown" if e.verification == "inconsistent" else None
            cells = [
                md_escape(e.model),
                md_escape(shown or lift_text(e.lift, e.ci_low, e.ci_high)),
                badges(e),
                md_escape(cases_runs(e.cases, e.runs)),
                md_escape(e.mode),
                md_escape(where_text(e)),
                md_escape(f"{e.dataset} ({e.split})"),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines += [
            f"- note: {md_escape(e.model)}: {md_escape(e.verification_note)}"
            for e in evidence.models
            if e.verification_note and e.verification != "verified"
        ]
        runs = [e for e in evidence.models if e.source == "dataset"]
        if runs:
            lines += ["", "Re-run a published run yourself and publish the replication:", ""]
            lines += [f"- {md_code(reproduce_command(e))}" for e in runs]
    lines += [f"- note: {md_escape(n)}" for n in evidence.notes]
    return lines


@dataclass(frozen=True)
class SkillPage:
    """What the tab shows for one repo."""

    markdown: str
    pull_command: str


def _card_text(hub: Hub, repo_id: str, commit: str) -> str | None:
    from upskill_hub.errors import HubError

    try:
        path = hub.download_file(repo_id, "README.md", revision=commit)
    except HubError:
        return None
    return path.read_text("utf-8", errors="replace")


def skill_page(spec: str, *, hub: Hub | None = None) -> SkillPage:
    """The page of ``ns/name[@rev]`` (nothing is installed; downloads go to the HF cache)."""
    from upskill_hub.publish.readers import info
    from upskill_hub.registry.card import has_results, results_section

    hub = hub or Hub()
    repo_id, ref = parse_spec(spec)
    details = info(spec, hub=hub)
    pull = f"upskill-hub pull {repo_id}" + (f"@{ref}" if ref else "")
    lines = [
        f"## {md_escape(repo_id)}",
        f"Commit `{details.commit[:12]}` · [open on the Hub]({details.url})",
        "",
        "Install it into your project:",
        "",
        f"```bash\n{pull}\n```",
    ]
    for s in details.skills:
        heading = "Measured lift" + (f" of {md_code(s.name)}" if len(details.skills) > 1 else "")
        lines += ["", f"**{heading}** (at commit `{details.commit[:12]}`)", ""]
        lines += evidence_markdown(s.evidence)
    for s in details.skills:
        description = s.frontmatter.get("description", "")
        lines += ["", f"### Skill {md_code(s.name)}", md_escape(description) if description else ""]
        lines += ["", "**Files**", ""]
        lines += [f"- {md_code(path)} ({size:,} bytes)" for path, size in s.files[:200]]
        errors = [f for f in s.findings if f.severity == "error"]
        warnings = [f for f in s.findings if f.severity != "error"]
        lines += ["", "**Security scan**", ""]
        if not s.findings:
            lines.append("✓ no findings")
        lines += [f"- ✗ error: {md_escape(str(f))}" for f in errors]
        lines += [f"- ⚠ warning: {md_escape(str(f))}" for f in warnings]
        if s.validation_errors:
            lines += ["", "**Validation**", ""]
            lines += [f"- ✗ {md_escape(e)}" for e in s.validation_errors]
    card = _card_text(hub, repo_id, details.commit)
    results = results_section(card) if card and has_results(card) else None
    if results:
        lines += ["", "### Results section of the card", "", card_html(results), ""]
    if card:
        body = _FRONT_MATTER.sub("", card, count=1).strip()
        body = _RESULTS_SECTION.sub("", body).strip()
        clipped = body if len(body) <= _CARD_MAX else body[:_CARD_MAX] + "\n\n…"
        lines += ["", "### Card", "", card_html(clipped)]
    return SkillPage(markdown="\n".join(lines), pull_command=pull)


def selected_repo(table: Any, index: Any) -> str:
    """The repo id of the search-result row a visitor clicked (``index`` is [row, column])."""
    if isinstance(table, dict):
        rows = table.get("data", [])
    elif hasattr(table, "to_numpy"):  # the pandas DataFrame Gradio hands to handlers
        rows = table.to_numpy().tolist()
    else:
        rows = table or []
    try:
        row = int(index[0]) if isinstance(index, (list, tuple)) else int(index)
        return str(rows[row][0])
    except (IndexError, TypeError, ValueError):
        return ""
