"""How published lift reads in the terminal and the Space: ``+33 pts [+5, +56]``.

:func:`lift_text` is the one formatter of a lift with its interval for the evidence surfaces
(``info``, ``pull``, ``search``, ``outdated``, ``update``, the Space); the rest builds the
per-model lines around it. Each line says how far its figure is checked (``verified``,
``reported``; an ``inconsistent`` figure is not shown, a note says why) and who published it
(:func:`where_text`: the results dataset's owner, and the skill's when they differ), never
"measured": nobody re-ran it. Plain text: callers escape it for their medium.
"""

from __future__ import annotations

from upskill_hub import formatting
from upskill_hub.registry.evidence.read import ModelEvidence, Replication, SkillEvidence

NO_RESULTS = (
    "no published results for this skill (publish a run with "
    "`upskill-hub results push RUN --repo NS/RESULTS --update-skill-card`)"
)


def lift_text(lift: float | None, low: float | None = None, high: float | None = None) -> str:
    """``+33 pts [+5, +56]`` (lift and bounds are fractions); ``+33 pts`` without bounds."""
    if lift is None:
        return "no lift"
    return formatting.lift(lift, (low, high) if low is not None and high is not None else None)


#: The heading above the per-model lines (CLI and Space).
HEADING = (
    "published lift (verified: recomputed and re-graded from the published samples; "
    "reported: as its publisher says; neither re-measured):"
)


def where_text(e: ModelEvidence) -> str:
    """Who reported the figure, and for which commit against the one asked about."""
    short = (e.commit or "?")[:7]
    who = f"reported by {e.reported_by}"
    if e.skill_owner and e.skill_owner != e.reported_by:
        who += f" (skill by {e.skill_owner})"
    who += " for"
    if e.relation == "exact":
        return f"{who} this commit ({short})"
    if e.relation == "same_files":
        behind = _commits(e.behind)
        return f"{who} {short}, {behind} behind with the same skill files"
    if e.relation == "behind":
        return f"{who} {short}, {_commits(e.behind)} behind"
    if e.relation == "unrelated":
        return f"{who} {short}, not in this commit's history"
    return f"{who} {short}"


def _commits(n: int | None) -> str:
    return "? commits" if n is None else f"{n} commit{'' if n == 1 else 's'}"


def figure_text(e: ModelEvidence) -> str:
    """``+33 pts [+5, +56] · verified``; an inconsistent figure is not shown."""
    if e.verification == "inconsistent":
        return "lift not shown · inconsistent"
    return f"{lift_text(e.lift, e.ci_low, e.ci_high)} · {e.verification}"


def model_line(e: ModelEvidence) -> str:
    """``MODEL  +33 pts [+5, +56] · verified · 3 cases × 2 runs · inline · reported by …``."""
    parts = [
        figure_text(e),
        formatting.cases_runs(e.cases, e.runs),
        e.mode,
        where_text(e),
    ]
    if e.measured_by:
        parts.append(f"measured by {e.measured_by}")
    source = f"{e.dataset}:{e.split}" + (" (skill card digest)" if e.source == "card" else "")
    return f"{e.model}  " + " · ".join(parts) + f" · {source}"


def signature_line(e: ModelEvidence) -> str | None:
    """Why a figure whose results signature was checked is not measured by a trusted key."""
    if e.measured_by or not e.signature_note:
        return None
    return f"  {e.model}: {e.signature_note}"


def replication_line(e: ModelEvidence, r: Replication) -> str:
    """``  replicated: agrees · +30 pts [+5, +56] · NS/DS:split`` under a model's line; a
    replication signed by another trusted key than the figure's says ``independent key``."""
    word = "agrees" if r.agrees else "disagrees"
    low, high = r.lift_ci95 if r.lift_ci95 else (None, None)
    parts = [f"replicated: {word}", lift_text(r.lift, low, high)]
    if r.model and r.model != e.model:
        parts.append(f"on {r.model}")
    if r.measured_by:
        independent = r.independent_of(e.measured_by)
        parts.append(f"measured by {r.measured_by}" + (" (independent key)" if independent else ""))
    return "  " + " · ".join(parts) + f" · {r.dataset}:{r.split}"


def evidence_lines(evidence: SkillEvidence | None) -> list[str]:
    """Lines for one skill: a line per model (and one per replication of it), notes, or that
    nothing is published."""
    if evidence is None:
        return []
    lines = []
    for m in evidence.models:
        lines.append(model_line(m))
        why = signature_line(m)
        if why:
            lines.append(why)
        lines += [replication_line(m, r) for r in m.replications]
    if not lines:
        lines.append(NO_RESULTS)
    lines += [
        f"note: {m.model}: {m.verification_note}"
        for m in evidence.models
        if m.verification == "inconsistent" and m.verification_note
    ]
    lines += [f"note: {n}" for n in evidence.notes]
    return lines
