"""Pass rates, their intervals, lift, token savings and a verdict, from graded samples.

* ``wilson_interval``: Wilson score interval for one proportion (no continuity correction).
* ``newcombe_interval``: Newcombe's hybrid score interval (1998, method 10) for ``p_b - p_a``,
  built from the two Wilson intervals. It treats samples as independent; with several runs of
  few cases they are not, and ``paired_bootstrap_interval`` (resampling whole cases) is the
  more honest width, reported beside it in the extended summary.
* ``summarize``: one :class:`ModelStats` per model (first-seen order). Error samples (failed
  requests) are counted in ``errors`` but excluded from rates, tokens and latency.

Verdicts: ``helps`` / ``hurts`` when the lift interval excludes zero, else ``no measurable
effect at this n``; ``no baseline`` without a baseline arm; ``no data (every request failed)``
when an arm has no graded sample but has errors, ``no data`` when it has no sample at all (a run
cancelled early): there is no result, not a null one.
"""

from __future__ import annotations

import math
import random
import statistics as stats
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from upskill_hub.evaluation.types import Sample

NO_BASELINE = "no baseline"
HELPS, HURTS, UNCLEAR = "helps", "hurts", "no measurable effect at this n"
NO_DATA, ALL_FAILED = "no data", "no data (every request failed)"


def wilson_interval(passed: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """95% (by default) Wilson score interval for ``passed / total``; ``(0, 1)`` when total is 0."""
    if total <= 0:
        return (0.0, 1.0)
    if not 0 <= passed <= total:
        raise ValueError(f"passed={passed} outside 0..total={total}")
    p = passed / total
    z2 = z * z
    denom = 1 + z2 / total
    centre = (p + z2 / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / denom
    lo = 0.0 if passed == 0 else max(0.0, centre - half)
    hi = 1.0 if passed == total else min(1.0, centre + half)
    return (lo, hi)


def newcombe_interval(
    passed_a: int, total_a: int, passed_b: int, total_b: int, z: float = 1.96
) -> tuple[float, float]:
    """Interval for ``p_b - p_a`` (Newcombe 1998, method 10); ``(-1, 1)`` if an arm is empty."""
    if total_a <= 0 or total_b <= 0:
        return (-1.0, 1.0)
    pa, pb = passed_a / total_a, passed_b / total_b
    la, ua = wilson_interval(passed_a, total_a, z)
    lb, ub = wilson_interval(passed_b, total_b, z)
    diff = pb - pa
    lo = diff - math.sqrt((pb - lb) ** 2 + (ua - pa) ** 2)
    hi = diff + math.sqrt((ub - pb) ** 2 + (pa - la) ** 2)
    return (max(-1.0, lo), min(1.0, hi))


def paired_bootstrap_interval(
    per_case: Sequence[tuple[float, float]],
    *,
    iterations: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``mean(b) - mean(a)`` resampling whole cases.

    ``per_case`` holds ``(rate_a, rate_b)`` per case (each a pass rate over that case's runs).
    Deterministic for a given ``seed``. ``(-1, 1)`` without cases.
    """
    if not per_case:
        return (-1.0, 1.0)
    diffs = [b - a for a, b in per_case]
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(rng.choices(diffs, k=n)) / n for _ in range(iterations))
    tail = (1 - level) / 2
    lo = means[math.floor(tail * (iterations - 1))]
    hi = means[math.ceil((1 - tail) * (iterations - 1))]
    return (lo, hi)


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


@dataclass(frozen=True)
class ArmStats:
    """One model's numbers in one arm (``baseline`` or ``with_skill``)."""

    pass_rate: float | None  # None when no sample was graded
    passed: int
    total: int  # graded samples: errors excluded
    errors: int
    ci95: tuple[float, float]
    input_tokens: float | None  # means per graded sample
    output_tokens: float | None
    latency_s: float | None  # median per graded sample
    skipped_assertions: int = 0

    def to_dict(self, *, extended: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "pass_rate": _r(self.pass_rate),
            "passed": self.passed,
            "total": self.total,
            "errors": self.errors,
            "ci95": [_r(self.ci95[0]), _r(self.ci95[1])],
            "tokens": {"input": _r(self.input_tokens), "output": _r(self.output_tokens)},
            "latency_s": _r(self.latency_s),
        }
        if extended:
            data["skipped_assertions"] = self.skipped_assertions
        return data


@dataclass(frozen=True)
class ModelStats:
    """Both arms of one model, the lift between them and what it means."""

    model: str
    runs: int
    cases: int
    baseline: ArmStats | None
    with_skill: ArmStats
    lift: float | None
    lift_ci95: tuple[float, float] | None
    token_savings: float | None
    verdict: str
    beneficial: bool = False  # upskill 0.2.1's rule, for comparison
    lift_ci95_bootstrap: tuple[float, float] | None = None

    def to_dict(self, *, extended: bool = False) -> dict[str, Any]:
        """The summary.json shape; ``extended`` adds ``beneficial``, the bootstrap interval and
        skipped-assertion counts."""
        data: dict[str, Any] = {
            "model": self.model,
            "runs": self.runs,
            "cases": self.cases,
            "baseline": None if self.baseline is None else self.baseline.to_dict(extended=extended),
            "with_skill": self.with_skill.to_dict(extended=extended),
            "lift": _r(self.lift),
            "lift_ci95": None
            if self.lift_ci95 is None
            else [_r(self.lift_ci95[0]), _r(self.lift_ci95[1])],
            "token_savings": _r(self.token_savings),
            "verdict": self.verdict,
        }
        if extended:
            data["beneficial"] = self.beneficial
            boot = self.lift_ci95_bootstrap
            data["lift_ci95_bootstrap"] = None if boot is None else [_r(boot[0]), _r(boot[1])]
        return data


def arm_stats(samples: Sequence[Sample]) -> ArmStats:
    """The numbers of one arm's samples."""
    graded = [s for s in samples if s.outcome != "error"]
    passed = sum(1 for s in graded if s.outcome == "pass")
    total = len(graded)
    return ArmStats(
        pass_rate=passed / total if total else None,
        passed=passed,
        total=total,
        errors=len(samples) - total,
        ci95=wilson_interval(passed, total),
        input_tokens=stats.fmean(s.input_tokens for s in graded) if graded else None,
        output_tokens=stats.fmean(s.output_tokens for s in graded) if graded else None,
        latency_s=stats.median(s.latency_s for s in graded) if graded else None,
        skipped_assertions=sum(1 for s in graded for a in s.assertions if a.status == "skipped"),
    )


def verdict_of(lift_ci95: tuple[float, float] | None) -> str:
    if lift_ci95 is None:
        return NO_BASELINE
    if lift_ci95[0] > 0:
        return HELPS
    if lift_ci95[1] < 0:
        return HURTS
    return UNCLEAR


def _no_data(*arms: ArmStats) -> str | None:
    """The "no data" verdict when an arm has no graded sample, else None."""
    empty = [arm for arm in arms if arm.total == 0]
    if not empty:
        return None
    return ALL_FAILED if any(arm.errors for arm in empty) else NO_DATA


def upskill_beneficial(lift: float | None, token_savings: float | None) -> bool:
    """upskill 0.2.1: lift > 0.05, or lift >= 0 with token savings above 20%."""
    if lift is None:
        return False
    return lift > 0.05 or (lift >= 0 and token_savings is not None and token_savings > 0.2)


def _per_case_rates(base: Sequence[Sample], skill: Sequence[Sample]) -> list[tuple[float, float]]:
    def rates(samples: Sequence[Sample]) -> dict[str, float]:
        tally: dict[str, list[int]] = {}
        for s in samples:
            if s.outcome != "error":
                tally.setdefault(s.case_id, []).append(1 if s.outcome == "pass" else 0)
        return {case: sum(v) / len(v) for case, v in tally.items()}

    a, b = rates(base), rates(skill)
    return [(a[case], b[case]) for case in a if case in b]


def _model_stats(model: str, samples: list[Sample]) -> ModelStats:
    base = [s for s in samples if s.arm == "baseline"]
    skill = [s for s in samples if s.arm == "with_skill"]
    with_arm = arm_stats(skill)
    runs = len({s.run for s in samples})
    cases = len({s.case_id for s in samples})
    if not base:
        verdict = _no_data(with_arm) or NO_BASELINE
        return ModelStats(model, runs, cases, None, with_arm, None, None, None, verdict)
    base_arm = arm_stats(base)
    lift = None
    if base_arm.pass_rate is not None and with_arm.pass_rate is not None:
        lift = with_arm.pass_rate - base_arm.pass_rate
    ci = newcombe_interval(base_arm.passed, base_arm.total, with_arm.passed, with_arm.total)
    savings = None
    if base_arm.output_tokens and with_arm.output_tokens is not None:
        savings = 1 - with_arm.output_tokens / base_arm.output_tokens
    pairs = _per_case_rates(base, skill)
    return ModelStats(
        model=model,
        runs=runs,
        cases=cases,
        baseline=base_arm,
        with_skill=with_arm,
        lift=lift,
        lift_ci95=ci,
        token_savings=savings,
        verdict=_no_data(base_arm, with_arm) or verdict_of(ci),
        beneficial=upskill_beneficial(lift, savings),
        lift_ci95_bootstrap=paired_bootstrap_interval(pairs) if pairs else None,
    )


def summarize(samples: Iterable[Sample]) -> list[ModelStats]:
    """One :class:`ModelStats` per model, in the order models first appear."""
    by_model: dict[str, list[Sample]] = {}
    for sample in samples:
        by_model.setdefault(sample.model, []).append(sample)
    return [_model_stats(model, group) for model, group in by_model.items()]
