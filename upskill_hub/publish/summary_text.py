"""Summary rows per model, and how their numbers are written in cards and tables.

A summary row is one model in one arm (see ``schemas/summary.schema.json``); people read them
per model: baseline beside with-skill, then the lift. Numbers are written by
:mod:`upskill_hub.formatting` (``85% [62, 95]``, ``+33 pts [+5, +56]``), tokens as the mean
input + output tokens per graded sample.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from upskill_hub.formatting import NONE, cases_runs, lift, percent, points, rate

__all__ = [
    "NONE",
    "ModelResult",
    "by_model",
    "lift_with_ci",
    "percent",
    "points",
    "rate_with_ci",
    "tokens",
    "tokens_pair",
]


@dataclass(frozen=True)
class ModelResult:
    """One model's two summary rows (either may be missing) and its lift."""

    model: str
    baseline: dict[str, Any] | None
    with_skill: dict[str, Any] | None

    @property
    def _any(self) -> dict[str, Any]:
        return self.with_skill or self.baseline or {}

    @property
    def lift(self) -> float | None:
        return self._any.get("lift")

    @property
    def lift_ci(self) -> tuple[float, float] | None:
        lo, hi = self._any.get("lift_ci_low"), self._any.get("lift_ci_high")
        return None if lo is None or hi is None else (float(lo), float(hi))

    @property
    def verdict(self) -> str:
        return str(self._any.get("verdict") or NONE)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "baseline": self.baseline,
            "with_skill": self.with_skill,
            "lift": self.lift,
            "lift_ci95": None if self.lift_ci is None else list(self.lift_ci),
            "verdict": self.verdict,
        }


def by_model(rows: Iterable[dict[str, Any]]) -> list[ModelResult]:
    """Group summary rows per model, in the order models first appear."""
    arms: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        arms.setdefault(str(row["model"]), {})[str(row["arm"])] = row
    return [ModelResult(m, a.get("baseline"), a.get("with_skill")) for m, a in arms.items()]


def rate_with_ci(row: dict[str, Any] | None) -> str:
    """``85% [62, 95]`` for an arm row; ``NONE`` when the arm is missing or ungraded."""
    if not row or row.get("pass_rate") is None:
        return NONE
    return rate(row["pass_rate"], (row.get("ci_low"), row.get("ci_high")))


def lift_with_ci(result: ModelResult) -> str:
    """``+45 pts [+15, +65] (10 cases × 5 runs)``; ``NONE`` without a baseline."""
    if result.lift is None:
        return NONE
    row = result._any
    cases, runs = int(row.get("cases") or 0), int(row.get("runs") or 0)
    n = cases_runs(cases, runs) if cases else ""
    return lift(result.lift, result.lift_ci) + (f" ({n})" if n else "")


def tokens(row: dict[str, Any] | None) -> str:
    """Mean input + output tokens per graded sample: ``1,250``."""
    if not row or row.get("input_tokens") is None or row.get("output_tokens") is None:
        return NONE
    return f"{row['input_tokens'] + row['output_tokens']:,.0f}"


def tokens_pair(result: ModelResult) -> str:
    """``1,250 → 980`` (baseline → with skill)."""
    if result.baseline is None:
        return tokens(result.with_skill)
    return f"{tokens(result.baseline)} → {tokens(result.with_skill)}"
