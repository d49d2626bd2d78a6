"""The cost frontier: which model + arm reaches a target pass rate most cheaply.

An entry is one model in one arm of one run: its pass rate with the 95% interval and its cost
per passed case with its interval (``cost.per_passed`` and ``cost.per_passed_ci95`` of
summary.json, or the same figures in a results dataset's summary rows). :func:`choose_frontier`
is pure (entries in, choice and sentence out):

- **chosen**: among priced entries with a cost per passed case, those whose pass rate's 95%
  lower bound is at least the target; the one with the lowest cost per passed case (ties: the
  higher lower bound, then the label).
- **best baseline**: among baseline arms with a cost per passed case, the cheapest whose lower
  bound reaches the target; when none does, the one with the highest pass rate (ties: the
  higher lower bound, then the cheaper).
- **saving**: the best baseline's cost per passed case minus the chosen one's, and that as a
  fraction of the baseline's (negative when the chosen costs more, which can happen only when
  the best baseline does not reach the target).

An entry without a price (``cost.usd`` null) is listed as ``unpriced`` and never chosen.
:func:`load_frontier` reads runs (folders or datasets) with
:func:`~upskill_hub.publish.results_view.load_eval_results`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from upskill_hub.errors import Param, UsageError
from upskill_hub.evaluation.report.frontier_chart import DEFAULT_TARGET, FrontierPoint
from upskill_hub.formatting import dollars, dollars_interval, percent, rate

if TYPE_CHECKING:
    from upskill_hub.publish.results_view import RunResults

__all__ = [
    "DEFAULT_TARGET",
    "Frontier",
    "FrontierEntry",
    "check_target",
    "choose_frontier",
    "entries_from_results",
    "load_frontier",
]

_ARM_TEXT = {"baseline": "without the skill", "with_skill": "with the skill"}


@dataclass(frozen=True)
class FrontierEntry:
    """One model in one arm of one run, with its rate and cost figures."""

    model: str
    arm: str  # "baseline" or "with_skill"
    pass_rate: float | None
    ci95: tuple[float, float] | None
    cost_usd: float | None
    per_passed: float | None
    per_passed_ci95: tuple[float, float] | None = None
    run: str = ""  # the run's split, when the entries span several runs

    @property
    def label(self) -> str:
        text = f"{self.model} {_ARM_TEXT.get(self.arm, self.arm)}"
        return f"{text} (run {self.run})" if self.run else text

    @property
    def lower(self) -> float | None:
        return None if self.ci95 is None else self.ci95[0]

    @property
    def priced(self) -> bool:
        return self.cost_usd is not None

    def reaches(self, target: float) -> bool:
        return self.lower is not None and self.lower >= target

    def status(self, target: float) -> str:
        """``unpriced``, ``no passes`` (priced, nothing passed), ``reaches`` or ``below``."""
        if not self.priced:
            return "unpriced"
        if self.per_passed is None:
            return "no passes"
        return "reaches" if self.reaches(target) else "below"

    def point(self) -> FrontierPoint | None:
        """This entry on the chart (None when it has no cost per passed case)."""
        if not self.priced or self.per_passed is None or self.pass_rate is None:
            return None
        return FrontierPoint(
            self.model if not self.run else f"{self.model} · {self.run}",
            self.arm,
            self.pass_rate,
            self.ci95,
            self.per_passed,
            self.per_passed_ci95,
        )

    def to_dict(self, target: float) -> dict[str, Any]:
        return {
            "model": self.model,
            "arm": self.arm,
            "run": self.run or None,
            "pass_rate": self.pass_rate,
            "ci95": None if self.ci95 is None else list(self.ci95),
            "cost_usd": self.cost_usd,
            "per_passed": self.per_passed,
            "per_passed_ci95": None if self.per_passed_ci95 is None else list(self.per_passed_ci95),
            "status": self.status(target),
        }


@dataclass(frozen=True)
class Frontier:
    """The entries, the target, the choice and the sentence that says it."""

    target: float
    entries: list[FrontierEntry]
    chosen: FrontierEntry | None
    best_baseline: FrontierEntry | None
    sentence: str

    @property
    def saving(self) -> float | None:
        """US dollars per passed case the chosen saves against the best baseline."""
        if self.chosen is None or self.best_baseline is None:
            return None
        assert self.chosen.per_passed is not None and self.best_baseline.per_passed is not None
        return self.best_baseline.per_passed - self.chosen.per_passed

    @property
    def saving_fraction(self) -> float | None:
        saving = self.saving
        if saving is None or self.best_baseline is None or not self.best_baseline.per_passed:
            return None
        return saving / self.best_baseline.per_passed

    @property
    def unpriced(self) -> list[FrontierEntry]:
        return [e for e in self.entries if not e.priced]

    def to_dict(self) -> dict[str, Any]:
        def ref(entry: FrontierEntry | None) -> dict[str, Any] | None:
            return None if entry is None else entry.to_dict(self.target)

        return {
            "target": self.target,
            "chosen": ref(self.chosen),
            "best_baseline": ref(self.best_baseline),
            "saving_per_passed": self.saving,
            "saving_fraction": self.saving_fraction,
            "sentence": self.sentence,
            "entries": [e.to_dict(self.target) for e in self.entries],
        }


def check_target(target: float) -> float:
    """``target`` if it is a pass rate in (0, 1]; a one-line error naming it otherwise."""
    if not (0 < target <= 1):  # also refuses NaN
        raise UsageError(
            Param("target"), f" must be a pass rate above 0 and at most 1 (got {target:g})"
        )
    return float(target)


def choose_frontier(entries: Sequence[FrontierEntry], target: float = DEFAULT_TARGET) -> Frontier:
    """The cheapest entry reaching ``target`` at its lower bound, the best baseline and the
    sentence (see the module's docstring for the definitions)."""
    target = check_target(target)
    entries = list(entries)
    costed = [e for e in entries if e.priced and e.per_passed is not None]
    reaching = [e for e in costed if e.reaches(target)]
    chosen = min(reaching, key=_cheapest) if reaching else None
    baselines = [e for e in costed if e.arm == "baseline"]
    base_reaching = [e for e in baselines if e.reaches(target)]
    if base_reaching:
        best_baseline: FrontierEntry | None = min(base_reaching, key=_cheapest)
    elif baselines:
        best_baseline = min(baselines, key=_best_rate)
    else:
        best_baseline = None
    sentence = _sentence(entries, target, chosen, best_baseline, costed)
    return Frontier(target, entries, chosen, best_baseline, sentence)


def _cheapest(e: FrontierEntry) -> tuple[float, float, str]:
    return (e.per_passed or 0.0, -(e.lower or 0.0), e.label)


def _best_rate(e: FrontierEntry) -> tuple[float, float, float, str]:
    return (-(e.pass_rate or 0.0), -(e.lower or 0.0), e.per_passed or 0.0, e.label)


def _figures(e: FrontierEntry) -> str:
    """``92% [85, 96] at $0.03 per passed case [$0.024, $0.039]``."""
    cost_ci = dollars_interval(e.per_passed_ci95)
    text = f"{rate(e.pass_rate, e.ci95)} at {dollars(e.per_passed)} per passed case"
    return f"{text} {cost_ci}" if cost_ci else text


def _sentence(
    entries: list[FrontierEntry],
    target: float,
    chosen: FrontierEntry | None,
    baseline: FrontierEntry | None,
    costed: list[FrontierEntry],
) -> str:
    goal = f"{percent(target)} at the lower bound of its 95% interval"
    if chosen is None:
        if not costed:
            text = (
                f"No priced model + arm to choose from for {percent(target)} (prices: "
                "eval --price MODEL=IN/OUT, or a model of the built-in table)"
            )
        else:
            closest = max(costed, key=lambda e: (e.lower or 0.0, -(e.per_passed or 0.0)))
            text = (
                f"No priced model + arm reaches {goal}; the closest is {closest.label}, "
                f"{_figures(closest)} (lower bound {percent(closest.lower)})"
            )
    else:
        text = f"Cheapest to reach {goal}: {chosen.label}, {_figures(chosen)}"
        if baseline is None:
            text += "; no priced baseline to compare with"
        elif baseline is chosen:
            text += "; it is the best baseline itself, so the skill saves nothing here"
        else:
            assert baseline.per_passed is not None and chosen.per_passed is not None
            saving = baseline.per_passed - chosen.per_passed
            share = f" ({abs(saving) / baseline.per_passed:.0%})" if baseline.per_passed else ""
            more_less = "less" if saving >= 0 else "more"
            text += (
                f", {dollars(abs(saving))}{share} {more_less} per passed case than the best "
                f"baseline, {baseline.label} ({_figures(baseline)}"
                + ("" if baseline.reaches(target) else f", below {percent(target)}")
                + ")"
            )
    unpriced = [e.label for e in entries if not e.priced]
    if unpriced:
        text += f". Unpriced, never chosen: {', '.join(unpriced)}"
    return text + "."


def _pair(value: Any) -> tuple[float, float] | None:
    if not value or len(value) < 2 or value[0] is None or value[1] is None:
        return None
    return (float(value[0]), float(value[1]))


def _cost(row: dict[str, Any]) -> dict[str, Any]:
    """The arm's cost figures: summary.json's ``cost`` object, or a dataset row's flat
    ``cost_usd`` / ``cost_per_passed`` / ``cost_per_passed_ci_low|high`` columns."""
    cost = row.get("cost")
    if isinstance(cost, dict):
        return cost
    return {
        "usd": row.get("cost_usd"),
        "per_passed": row.get("cost_per_passed"),
        "per_passed_ci95": [row.get("cost_per_passed_ci_low"), row.get("cost_per_passed_ci_high")],
    }


def entry_from_row(row: dict[str, Any], run: str = "") -> FrontierEntry:
    """A summary row (a dataset row, or a summary.json arm with ``model`` and ``arm`` added)."""
    ci = _pair(row.get("ci95")) or _pair([row.get("ci_low"), row.get("ci_high")])
    cost = _cost(row)
    pass_rate = row.get("pass_rate")
    usd_total, per_passed = cost.get("usd"), cost.get("per_passed")
    return FrontierEntry(
        str(row["model"]),
        str(row["arm"]),
        None if pass_rate is None else float(pass_rate),
        ci,
        None if usd_total is None else float(usd_total),
        None if per_passed is None else float(per_passed),
        _pair(cost.get("per_passed_ci95")),
        run,
    )


def entries_from_results(runs: Sequence[RunResults]) -> list[FrontierEntry]:
    """Every model and arm of ``runs``; each labelled with its run when there are several."""
    several = len(runs) > 1
    entries = []
    for results in runs:
        for row in results.rows:
            if row.get("pass_rate") is None:
                continue
            entries.append(entry_from_row(row, results.split if several else ""))
    return entries


def load_frontier(sources: Sequence[str | Path], target: float = DEFAULT_TARGET) -> Frontier:
    """The frontier over run folders and results datasets (``NS/NAME[:split]``)."""
    from upskill_hub.publish.results_view import load_eval_results

    check_target(target)
    if not sources:
        raise UsageError("give at least one run folder or results dataset")
    return choose_frontier(entries_from_results([load_eval_results(s) for s in sources]), target)
