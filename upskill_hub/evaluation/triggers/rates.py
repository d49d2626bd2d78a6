"""Trigger rates from trigger samples: per query, and recall / false-trigger rate per set.

* A query's **trigger rate** is the share of its graded runs in which the model loaded the
  skill, with a Wilson interval over those runs. It **passes** when the rate is at least 0.5
  for a should-trigger query and below 0.5 otherwise (the guide's rule); the others misfire.
* **Recall** is the trigger rate pooled over the should-trigger queries' runs; the
  **false-trigger rate** the same over the should-not queries. Runs of one query are
  correlated, so both intervals are clustered by query
  (:func:`upskill_hub.evaluation.stats.summarize.clustered_rate_interval`).
* With a split, each set (``train``, ``validation``) is reported apart, besides ``all``.

Runs that errored are left out of every rate and counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from upskill_hub.evaluation.stats.summarize import clustered_rate_interval, wilson_interval
from upskill_hub.evaluation.triggers.queries import TriggerQuery

__all__ = [
    "QueryRate",
    "SetRates",
    "TriggerSample",
    "TriggerStats",
    "stats_from_counts",
    "trigger_stats",
]


@dataclass
class TriggerSample:
    """One run of one query: whether the model loaded the skill, what it loaded in order,
    turns and tokens of the exchange, or the error that ended it."""

    model: str
    query_id: str
    run: int
    triggered: bool
    loaded: list[str] = field(default_factory=list)
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    error: str | None = None
    finished_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TriggerSample:
        return cls(
            model=str(data["model"]),
            query_id=str(data["query_id"]),
            run=int(data["run"]),
            triggered=bool(data["triggered"]),
            loaded=[str(x) for x in data.get("loaded") or []],
            turns=int(data.get("turns", 0)),
            input_tokens=int(data.get("input_tokens", 0)),
            output_tokens=int(data.get("output_tokens", 0)),
            error=data.get("error"),
            finished_at=str(data.get("finished_at", "")),
        )


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


@dataclass
class QueryRate:
    query: TriggerQuery
    runs: int
    triggered: int
    errors: int
    rate: float | None
    ci95: tuple[float, float] | None
    passed: bool | None

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.query.to_dict(),
            "runs": self.runs,
            "triggered": self.triggered,
            "errors": self.errors,
            "trigger_rate": _r(self.rate),
            "ci95": None if self.ci95 is None else [_r(v) for v in self.ci95],
            "passed": self.passed,
        }


@dataclass
class SetRates:
    """Recall and false-trigger rate of one set of queries, and its misfiring queries."""

    name: str
    queries: int
    recall: float | None
    recall_ci95: tuple[float, float] | None
    false_trigger_rate: float | None
    false_trigger_ci95: tuple[float, float] | None
    passed: int
    misfires: list[str]

    def to_dict(self) -> dict[str, Any]:
        def pair(v: tuple[float, float] | None) -> list[float | None] | None:
            return None if v is None else [_r(v[0]), _r(v[1])]

        return {
            "set": self.name,
            "queries": self.queries,
            "recall": _r(self.recall),
            "recall_ci95": pair(self.recall_ci95),
            "false_trigger_rate": _r(self.false_trigger_rate),
            "false_trigger_ci95": pair(self.false_trigger_ci95),
            "queries_passed": self.passed,
            "misfires": self.misfires,
        }


@dataclass
class TriggerStats:
    model: str
    queries: list[QueryRate]
    sets: list[SetRates]

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "sets": [s.to_dict() for s in self.sets],
            "queries": [q.to_dict() for q in self.queries],
        }


def _query_rate(query: TriggerQuery, samples: list[TriggerSample]) -> QueryRate:
    graded = [s for s in samples if s.error is None]
    hits = sum(1 for s in graded if s.triggered)
    return _rate_of(query, len(graded), hits, len(samples) - len(graded))


def _rate_of(query: TriggerQuery, runs: int, hits: int, errors: int) -> QueryRate:
    """A query's rate from its counts: ``runs`` graded runs, ``hits`` of them triggered."""
    rate = hits / runs if runs else None
    passed = None if rate is None else (rate >= 0.5) == query.should_trigger
    return QueryRate(
        query=query,
        runs=runs,
        triggered=hits,
        errors=errors,
        rate=rate,
        ci95=wilson_interval(hits, runs) if runs else None,
        passed=passed,
    )


def _pooled(rates: list[QueryRate]) -> tuple[float | None, tuple[float, float] | None]:
    per_query = [(r.triggered, r.runs) for r in rates if r.runs]
    total = sum(n for _, n in per_query)
    if not total:
        return None, None
    interval, _ = clustered_rate_interval(per_query)
    return sum(y for y, _ in per_query) / total, interval


def _set_rates(name: str, rates: list[QueryRate]) -> SetRates:
    recall, recall_ci = _pooled([r for r in rates if r.query.should_trigger])
    false_rate, false_ci = _pooled([r for r in rates if not r.query.should_trigger])
    return SetRates(
        name=name,
        queries=len(rates),
        recall=recall,
        recall_ci95=recall_ci,
        false_trigger_rate=false_rate,
        false_trigger_ci95=false_ci,
        passed=sum(1 for r in rates if r.passed),
        misfires=[r.query.id for r in rates if r.passed is False],
    )


def trigger_stats(
    queries: Sequence[TriggerQuery], samples: Iterable[TriggerSample]
) -> list[TriggerStats]:
    """Per model (in order of first sample): per-query rates and the sets' rates."""
    by_model: dict[str, dict[str, list[TriggerSample]]] = {}
    for s in samples:
        by_model.setdefault(s.model, {}).setdefault(s.query_id, []).append(s)
    return [
        _model_stats(model, [_query_rate(q, by_query.get(q.id, [])) for q in queries])
        for model, by_query in by_model.items()
    ]


def stats_from_counts(
    model: str, counts: Sequence[tuple[TriggerQuery, int, int, int]]
) -> TriggerStats:
    """One model's stats from per-query ``(query, graded runs, triggered, errors)``: what a
    published ``triggers`` split holds. Every set rate follows from these counts, so this gives
    the same figures as :func:`trigger_stats` over the samples."""
    return _model_stats(model, [_rate_of(*c) for c in counts])


def _model_stats(model: str, rates: list[QueryRate]) -> TriggerStats:
    sets = [_set_rates("all", rates)]
    for split in ("train", "validation"):
        chosen = [r for r in rates if r.query.split == split]
        if chosen:
            sets.append(_set_rates(split, chosen))
    return TriggerStats(model, rates, sets)
