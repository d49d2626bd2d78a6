"""Printing the published lift for ``info``, ``pull``, ``update``, ``outdated`` and ``search``.

Text only: the lines come from :mod:`upskill_hub.registry.evidence.text`; everything a repo
controls (model names, dataset ids) is escaped before rich sees it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from upskill_hub.cli.output import console, safe

if TYPE_CHECKING:
    from upskill_hub.registry.evidence.read import ModelEvidence, SkillEvidence
    from upskill_hub.registry.project.state import OutdatedSkill


def print_evidence(evidence: SkillEvidence | None, indent: str = "  ") -> None:
    """The heading (published lift, as reported) and a line per model (or that none is
    published)."""
    from upskill_hub.registry.evidence.text import HEADING, evidence_lines

    if evidence is None:
        return
    out = console()
    out.print(f"{indent}{HEADING}", highlight=False)
    for line in evidence_lines(evidence):
        out.print(f"{indent}  {safe(line)}", highlight=False)


def hit_lift(evidence: list[ModelEvidence], ranked_by: ModelEvidence | None) -> str:
    """The search table's lift cell: the ranking model's lift, else every model's, briefly."""
    from upskill_hub.registry.evidence.text import figure_text, where_text

    if ranked_by is not None:
        return f"{figure_text(ranked_by)} ({where_text(ranked_by)})"
    if not evidence:
        return "not measured"
    return "\n".join(f"{e.model}: {figure_text(e)}" for e in evidence)


def outdated_lift(row: OutdatedSkill) -> str:
    """The outdated table's lift cell: per model, locked lift → the current commit's."""
    from upskill_hub.registry.evidence.text import figure_text, lift_text

    if not row.outdated:
        return ""
    if not row.measured:
        return "current commit not measured"
    cells = []
    for c in row.lift:
        was = "?" if c.locked is None else lift_text(c.locked)
        now = "not measured" if c.new is None else figure_text(c.new)
        cells.append(f"{c.model}: {was} → {now} ({c.change})")
    return "\n".join(cells)
