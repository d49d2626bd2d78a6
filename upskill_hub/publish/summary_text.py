"""Summary rows per model, and how their numbers are written in cards and tables.

A summary row is one model in one arm (see ``schemas/summary.schema.json``); people read them
per model: baseline beside with-skill, then the lift. Rates print as whole percents, lift as
percentage points, tokens as the mean input + output tokens per graded sample.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

NONE = "–"


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


def percent(value: float | None) -> str:
    return NONE if value is None else f"{value * 100:.0f}%"


def rate_with_ci(row: dict[str, Any] | None) -> str:
    """``85% (62–95%)`` for an arm row; ``–`` when the arm is missing or ungraded."""
    if not row or row.get("pass_rate") is None:
        return NONE
    lo, hi = row.get("ci_low"), row.get("ci_high")
    interval = "" if lo is None or hi is None else f" ({lo * 100:.0f}–{hi * 100:.0f}%)"
    return f"{percent(row['pass_rate'])}{interval}"


def points(value: float | None) -> str:
    """A difference of rates in percentage points: ``+45 pp``."""
    return NONE if value is None else f"{value * 100:+.0f} pp"


def cases_runs(cases: Any, runs: Any) -> str:
    """``10 cases × 5 runs``: the n behind a lift (its unit is the test case)."""
    c, r = int(cases or 0), int(runs or 0)
    return f"{c} case{'s' if c != 1 else ''} × {r} run{'s' if r != 1 else ''}"


def lift_with_ci(result: ModelResult) -> str:
    """``+45 pp (+15 to +65; 10 cases × 5 runs)``; ``–`` without a baseline."""
    if result.lift is None:
        return NONE
    ci = result.lift_ci
    row = result._any
    n = cases_runs(row.get("cases"), row.get("runs")) if row.get("cases") else ""
    parts = [] if ci is None else [f"{ci[0] * 100:+.0f} to {ci[1] * 100:+.0f}"]
    parts += [n] if n else []
    interval = f" ({'; '.join(parts)})" if parts else ""
    return f"{points(result.lift)}{interval}"


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
