"""Lift over the students: the mean numbers the loop decides on, and how they read as text
(for the teacher's prompts and the progress lines)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from upskill_hub.formatting import NONE, interval, percent, points
from upskill_hub.generate.generate_result import IterationRecord
from upskill_hub.generate.teacher import TeacherAnswer

if TYPE_CHECKING:
    from upskill_hub.evaluation.stats.summarize import ModelStats

__all__ = ["aggregate", "ci_text", "fmt", "history_text", "results_text"]


def aggregate(
    stats: list[ModelStats],
) -> tuple[float | None, tuple[float, float] | None, float | None, float | None, float | None]:
    """Mean over students of lift, interval bounds, interval half-width and both pass rates."""

    def mean(values: list[float | None]) -> float | None:
        if not values or any(v is None for v in values):
            return None
        return sum(v for v in values if v is not None) / len(values)

    lift = mean([s.lift for s in stats])
    cis = [s.lift_ci95 for s in stats]
    ci: tuple[float, float] | None = None
    margin = None
    if cis and all(c is not None for c in cis):
        bounds = [c for c in cis if c is not None]
        ci = (sum(c[0] for c in bounds) / len(bounds), sum(c[1] for c in bounds) / len(bounds))
        margin = sum((c[1] - c[0]) / 2 for c in bounds) / len(bounds)
    base = mean([s.baseline.pass_rate if s.baseline else None for s in stats])
    with_ = mean([s.with_skill.pass_rate for s in stats])
    return lift, ci, margin, base, with_


def fmt(x: float | None, signed: bool = True) -> str:
    """A lift (``signed``: ``+33 pts``) or a pass rate (``85%``), as every surface writes it."""
    return points(x) if signed else percent(x)


def ci_text(ci: tuple[float, float] | None) -> str:
    """A lift's interval: ``[+5, +56]``."""
    return interval(ci, signed=True) or NONE


def results_text(stats: list[ModelStats]) -> str:
    lines = []
    for s in stats:
        base = s.baseline
        base_text = f"{base.passed}/{base.total}" if base else "n/a"
        lines.append(
            f"- {s.model}: baseline {base_text}, with skill {s.with_skill.passed}/"
            f"{s.with_skill.total}, lift {fmt(s.lift)} {ci_text(s.lift_ci95)}"
        )
    return "\n".join(lines)


def history_text(history: list[IterationRecord], answers: dict[int, TeacherAnswer]) -> str:
    lines = []
    for rec in history:
        verdict = "accepted" if rec.accepted else "REJECTED (lift dropped: do not repeat it)"
        line = (
            f"- iteration {rec.iteration} ({rec.origin}): lift {fmt(rec.lift)} "
            f"{ci_text(rec.lift_ci95)}, pass rate {fmt(rec.baseline_pass_rate, False)} -> "
            f"{fmt(rec.with_skill_pass_rate, False)}; {verdict}"
        )
        answer = answers.get(rec.iteration)
        if answer is not None and answer.notes.strip():
            line += f"; teacher's notes: {' '.join(answer.notes.split())}"
        lines.append(line)
    return "\n".join(lines) or "(none)"
