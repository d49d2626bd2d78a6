"""Summary rows per model, and how their numbers are written in cards and tables.

A summary row is one model in one arm (see ``schemas/summary.schema.json``); people read them
per model: baseline beside with-skill, then the lift. Numbers are written by
:mod:`upskill_hub.formatting` (``85% [62, 95]``, ``+33 pts [+5, +56]``), tokens as the mean
input + output tokens per graded sample, costs in US dollars per passed sample
(``unpriced`` in cards for a model without a price).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from upskill_hub.formatting import (
    NONE,
    cases_runs,
    dollars,
    dollars_interval,
    lift,
    percent,
    points,
    rate,
)

#: What a cost cell of a card says for a model without a price (never ``$0``).
UNPRICED = "unpriced"

__all__ = [
    "NONE",
    "UNPRICED",
    "ModelResult",
    "by_model",
    "cost_pair",
    "cost_per_pass",
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

    @property
    def cost_ratio(self) -> float | None:
        """With-skill cost per sample over the baseline's (None: unpriced or older rows)."""
        return self._any.get("cost_ratio")

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "baseline": self.baseline,
            "with_skill": self.with_skill,
            "lift": self.lift,
            "lift_ci95": None if self.lift_ci is None else list(self.lift_ci),
            "verdict": self.verdict,
            "cost_ratio": self.cost_ratio,
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


def cost_per_pass(
    row: dict[str, Any] | None, *, unpriced: str = UNPRICED, with_ci: bool = True
) -> str:
    """``$0.012 [$0.010, $0.015]``: US dollars per passed sample with its 95% interval;
    ``unpriced`` for a model without a price (or a row from before costs), ``no pass`` for a
    priced arm that passed nothing, ``NONE`` for a missing arm."""
    if not row:
        return NONE
    if row.get("cost_usd") is None:
        return unpriced
    if row.get("cost_per_passed") is None:
        return "no pass"
    ci = dollars_interval((row.get("cost_per_passed_ci_low"), row.get("cost_per_passed_ci_high")))
    text = dollars(row["cost_per_passed"])
    return f"{text} {ci}" if ci and with_ci else text


def cost_pair(result: ModelResult, *, unpriced: str = UNPRICED) -> str:
    """``$0.010 → $0.015`` (per passed sample, baseline → with skill), or ``unpriced``."""
    if all(not r or r.get("cost_usd") is None for r in (result.baseline, result.with_skill)):
        return unpriced
    with_ = cost_per_pass(result.with_skill, unpriced=unpriced, with_ci=False)
    if result.baseline is None:
        return with_
    return f"{cost_per_pass(result.baseline, unpriced=unpriced, with_ci=False)} → {with_}"


def tokens_pair(result: ModelResult) -> str:
    """``1,250 → 980`` (baseline → with skill)."""
    if result.baseline is None:
        return tokens(result.with_skill)
    return f"{tokens(result.baseline)} → {tokens(result.with_skill)}"
