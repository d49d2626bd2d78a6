"""Pass rates, their intervals, lift, token savings, costs and a verdict, from graded samples.

The unit of evidence is the **test case**, not the sample: runs of one case are correlated (a
case the model cannot do fails in every run), so counting case x run samples as independent
makes intervals too narrow (Miller 2024, "Adding Error Bars to Evals"; reference.md section 10).
``STATS_VERSION`` (in summary.json) is 3: prompt rejections are missing samples (not fails),
samples on which no check ran are not graded, and errors enter the verdict through worst-case
bounds; version 2 runs used the paired t interval with an error-count rule, version 1 runs
Newcombe's interval over samples.

* **Lift** (:func:`lift_interval`): for each case graded in both arms,
  ``d_i = rate_with(i) - rate_without(i)`` (each a pass rate over that case's graded runs);
  ``lift = mean(d_i)``; its 95% interval is ``lift +- t(0.975, n-1) * SE`` with
  ``SE = max(sd(d), s/sqrt(n)) / sqrt(n - 1)`` (paired t over cases with a few-cluster
  correction; the floor step ``s`` is a whole flip, or one run's flip ``1/runs`` when the exact
  sign-flip test over the cases rejects:
  :func:`~upskill_hub.evaluation.stats.intervals.paired_lift`).
  Missing samples are treated as missing there. With 3 or more runs summary.json also holds a
  two-way clustered standard error (case; run x arm) as a diagnostic.
  ``benchmarks/lift_coverage.py`` measures its coverage, false verdicts and power under a dozen
  populations, beside version 2's rule and version 1's sample-level Newcombe interval.
* **Missing samples** are errors left after retries, prompt rejections and samples never run
  (each arm of a case is counted against the larger of the two arms' sample counts).
  A **prompt rejection** is decided only from a structured, final signal of the API (HTTP
  400/413 with a context-length or content-filter code, ``finish_reason: content_filter``,
  ``stop_reason: refusal``), never from message text and never for a 429 or 5xx.
* **Worst-case bounds** (:func:`decide`): every missing sample filled as a fail with the skill
  and a pass without it (``lift_bounds[0]``), and the reverse (``lift_bounds[1]``). A ``helps``
  verdict stands only if the interval still excludes zero with the missing samples filled
  against the skill (``hurts``: filled for it); otherwise the verdict is ``not comparable`` and
  names how many missing samples sufficed (``decided_by``). A case that errored in every run of
  one arm is not in the lift but is in the bounds.
* **Arm rates** (:func:`arm_stats`): the pass rate over graded samples with a Wilson interval on
  an *effective* n from the cluster-robust variance (design effect), between the number of cases
  and the number of samples, using ``t(0.975, cases-1)`` as the critical value.
* A sample on which no check ran (every assertion skipped: a judge check without a judge
  model, no nvcc) is not graded (``ungraded``); an arm with no graded sample is "no data".
* **Costs** (:func:`arm_cost`): each arm's answered samples priced at run.json's ``prices``
  (:mod:`upskill_hub.evaluation.pricing`; every figure None for an unpriced model): the sum,
  per answered sample, and per passed sample with a 95% interval by the case jackknife of its
  logarithm (:func:`~upskill_hub.evaluation.stats.intervals.ratio_interval`); per model the
  with-skill cost per sample over the baseline's (``cost_ratio``) and the mean token ratios
  (``token_ratio``). Added in place: ``STATS_VERSION`` stays 3, and a summary without them
  still checks.
* Several models: verdicts are Holm-adjusted over the models (``holm`` in the JSON), and the
  interval at the Holm-adjusted level is ``holm.ci`` (it excludes zero exactly when the
  adjusted verdict claims an effect).

The interval maths (t distribution, Wilson, clustered rate interval, paired t with its spread
floor, bootstrap, Holm) is in :mod:`upskill_hub.evaluation.stats.intervals`; this module
applies it to samples and tallies and re-exports its names. :func:`lift_interval` is its one
call for the verdict, :func:`too_few` the one place that decides "too few cases".

Verdicts: ``helps`` / ``hurts`` when the lift interval excludes zero (and the worst-case bounds
agree), else ``no measurable effect at this n``; ``too few cases: ...`` with one paired case, or
when the design cannot show any lift (3 or fewer cases, or a minimum detectable lift above 100
pts), with about how many cases a 20-pt lift needs; ``no baseline`` without a baseline arm; ``no
data (every request failed)`` when an arm has no graded sample but has errors, ``no data
(nothing graded: ...)`` when its answers could not be graded, ``no data`` when it has no sample
at all (a run cancelled early); ``not comparable: ...`` when the missing samples could explain
the effect.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import statistics as stats
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from upskill_hub.evaluation.pricing import Price, cost_usd
from upskill_hub.evaluation.stats.intervals import (
    PairedLift,
    cases_needed,
    clustered_rate_interval,
    holm_adjust,
    least_true,
    newcombe_interval,
    paired_bootstrap_interval,
    paired_lift,
    ratio_interval,
    t_cdf,
    t_quantile,
    twoway_clustered_se,
    wilson_interval,
)
from upskill_hub.evaluation.stats.tallies import (
    ArmTally,
    ModelTally,
    graded_outcome,
    prompt_rejected,
    tally_models,
)
from upskill_hub.evaluation.types import Sample

__all__ = [  # the interval maths is re-exported: it was defined here, importers use these names
    "ArmCost",
    "ArmStats",
    "CaseCounts",
    "Decision",
    "LiftEvidence",
    "ModelStats",
    "PairedLift",
    "adjust_across_models",
    "arm_stats",
    "clustered_rate_interval",
    "decide",
    "graded_outcome",
    "holm_adjust",
    "lift_interval",
    "newcombe_interval",
    "paired_bootstrap_interval",
    "paired_lift",
    "prompt_rejected",
    "summarize",
    "summarize_tallies",
    "t_cdf",
    "t_quantile",
    "too_few",
    "wilson_interval",
]

STATS_VERSION = 3
NOMINAL_LEVEL = 0.95  # the verdict's level; Holm's step-down raises it per model
LIFT_METHOD = "paired_t_by_case"
ARM_CI_METHOD = "wilson_effective_n_clustered"

NO_BASELINE = "no baseline"
HELPS, HURTS, UNCLEAR = "helps", "hurts", "no measurable effect at this n"
NO_DATA, ALL_FAILED = "no data", "no data (every request failed)"
TOO_FEW = "too few cases"
NO_PAIRS = "no data (no case graded in both arms)"
NOT_COMPARABLE = "not comparable"
NOT_GRADED = "no data (nothing graded: every check was skipped)"
NOT_GRADED_JUDGE = (
    "no data (nothing graded: every check was skipped; judge checks need --judge-model)"
)

# --------------------------------------------------------------------------- samples


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _pair(value: tuple[float, float] | None) -> list[float | None] | None:
    return None if value is None else [_r(value[0]), _r(value[1])]


@dataclass(frozen=True)
class ArmCost:
    """What one arm's answered samples cost in US dollars (every figure None when the model
    is unpriced): the sum, per answered sample, per passed sample with its 95% interval
    (:func:`~upskill_hub.evaluation.stats.intervals.ratio_interval` over cases; None without a
    pass or with fewer than 2 cases)."""

    usd: float | None = None
    per_sample: float | None = None
    per_passed: float | None = None
    per_passed_ci95: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "usd": _r(self.usd),
            "per_sample": _r(self.per_sample),
            "per_passed": _r(self.per_passed),
            "per_passed_ci95": _pair(self.per_passed_ci95),
        }


def arm_cost(arm: ArmTally, price: Price | None) -> ArmCost:
    """:class:`ArmCost` of one arm's tally at ``price`` (None: unpriced, every figure None)."""
    if price is None:
        return ArmCost()
    usd = cost_usd(
        price,
        input_tokens=arm.input_tokens,
        output_tokens=arm.output_tokens,
        cached_input_tokens=arm.cached_input_tokens,
        cache_write_tokens=arm.cache_write_tokens,
    )
    per_case = [
        (
            cost_usd(
                price,
                input_tokens=tokens[0],
                cached_input_tokens=tokens[1],
                cache_write_tokens=tokens[2],
                output_tokens=tokens[3],
            ),
            float(arm.cases.get(case, (0, 0))[0]),
        )
        for case, tokens in arm.case_tokens.items()
    ]
    return ArmCost(
        usd=usd,
        per_sample=usd / arm.answered if arm.answered else None,
        per_passed=usd / arm.passed if arm.passed else None,
        per_passed_ci95=ratio_interval(per_case) if arm.passed else None,
    )


@dataclass(frozen=True)
class ArmStats:
    """One model's numbers in one arm (``baseline`` or ``with_skill``)."""

    pass_rate: float | None  # None when no sample was graded
    passed: int
    total: int  # graded samples: answers on which a check ran (errors, rejections excluded)
    errors: int  # samples still errored after retries (rejections not included): missing
    ci95: tuple[float, float]
    input_tokens: float | None  # means per graded sample
    output_tokens: float | None
    latency_s: float | None  # median per graded sample
    skipped_assertions: int = 0
    rejected: int = 0  # requests refused for their prompt: missing, like errors
    cases: int = 0  # cases with a graded sample
    n_effective: float = 0.0
    pass_all_runs: float | None = None  # pass^k: share of cases whose every graded run passed
    ci_method: str = ARM_CI_METHOD
    ungraded: int = 0  # answers on which no check ran (every assertion skipped): not graded
    judge_skipped: int = 0  # of those, answers whose skipped checks include a judge check
    cached_input_tokens: float | None = None  # means per answered sample, parts of input
    cache_write_tokens: float | None = None
    cost: ArmCost = field(default_factory=ArmCost)

    @property
    def answered(self) -> int:
        """Samples with an answer: graded ones and those on which no check ran."""
        return self.total + self.ungraded

    def to_dict(self, *, extended: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "pass_rate": _r(self.pass_rate),
            "passed": self.passed,
            "total": self.total,
            "errors": self.errors,
            "ci95": _pair(self.ci95),
            "tokens": {
                "input": _r(self.input_tokens),
                "output": _r(self.output_tokens),
                "cached_input": _r(self.cached_input_tokens),
                "cache_write": _r(self.cache_write_tokens),
            },
            "cost": self.cost.to_dict(),
            "latency_s": _r(self.latency_s),
            "rejected": self.rejected,
            "cases": self.cases,
            "ci_method": self.ci_method,
            "n_effective": _r(self.n_effective),
            "pass_all_runs": _r(self.pass_all_runs),
            "ungraded": self.ungraded,
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
    lift_cases: int = 0  # cases graded in both arms: the n of the lift
    excluded_cases: int = 0
    excluded_reason: str | None = None
    lift_se: float | None = None
    lift_p: float | None = None
    lift_p_holm: float | None = None
    mde80: float | None = None
    spread_floored: bool = False
    holm_changed: bool = False
    sign_flip_p: float | None = None  # exact sign-flip test over the cases
    floor_step: float | None = None  # 1 (a whole flip) or 1/runs (one run's flip)
    lift_se_twoway: dict[str, Any] | None = None  # diagnostic, 3 or more runs
    case_counts: dict[str, int] = field(default_factory=dict)
    case_table: list[dict[str, Any]] = field(default_factory=list)
    missing: dict[str, int] = field(default_factory=dict)  # per arm: in the bounds, not the lift
    lift_bounds: tuple[float, float] | None = None
    lift_bounds_ci95: tuple[float, float] | None = None
    decided_by: int = 0
    lift_ci95_holm: tuple[float, float] | None = None
    holm_level: float | None = None
    evidence: LiftEvidence | None = field(default=None, compare=False, repr=False)
    #: with-skill cost per answered sample over the baseline's (None: unpriced or no baseline)
    cost_ratio: float | None = None
    #: with-skill mean input / output tokens over the baseline's
    token_ratio: dict[str, float | None] = field(default_factory=dict)

    def to_dict(self, *, extended: bool = False) -> dict[str, Any]:
        """The summary.json shape; ``extended`` adds ``beneficial``, the bootstrap interval,
        skipped-assertion counts and the per-case table."""
        data: dict[str, Any] = {
            "model": self.model,
            "runs": self.runs,
            "cases": self.cases,
            "baseline": None if self.baseline is None else self.baseline.to_dict(extended=extended),
            "with_skill": self.with_skill.to_dict(extended=extended),
            "lift": _r(self.lift),
            "lift_ci95": _pair(self.lift_ci95),
            "token_savings": _r(self.token_savings),
            "verdict": self.verdict,
            "lift_method": LIFT_METHOD if self.lift is not None else None,
            "lift_cases": self.lift_cases,
            "excluded_cases": self.excluded_cases,
            "excluded_reason": self.excluded_reason,
            "lift_se": _r(self.lift_se),
            "lift_p": _r(self.lift_p),
            "mde80": _r(self.mde80),
            "spread_floored": self.spread_floored,
            "sign_flip_p": _r(self.sign_flip_p),
            "floor_step": _r(self.floor_step),
            "lift_se_twoway": self.lift_se_twoway,
            "holm": None
            if self.lift_p_holm is None
            else {
                "p_adjusted": _r(self.lift_p_holm),
                "changed_verdict": self.holm_changed,
                "level": _r(self.holm_level),
                "ci": _pair(self.lift_ci95_holm),
            },
            "case_counts": dict(self.case_counts),
            "missing": dict(self.missing),
            "lift_bounds": _pair(self.lift_bounds),
            "lift_bounds_ci95": _pair(self.lift_bounds_ci95),
            "decided_by": self.decided_by,
            "cost_ratio": _r(self.cost_ratio),
            "token_ratio": {
                "input": _r(self.token_ratio.get("input")),
                "output": _r(self.token_ratio.get("output")),
            },
        }
        if extended:
            data["beneficial"] = self.beneficial
            data["lift_ci95_bootstrap"] = _pair(self.lift_ci95_bootstrap)
            data["case_table"] = [dict(row) for row in self.case_table]
        return data


def arm_stats(samples: Sequence[Sample], price: Price | None = None) -> ArmStats:
    """The numbers of one arm's samples (costs at ``price``; None: unpriced)."""
    arm = ArmTally()
    for s in samples:
        arm.add(s)
    return arm_stats_of(arm, price)


def arm_stats_of(arm: ArmTally, price: Price | None = None) -> ArmStats:
    """The numbers of one arm from its tally (costs at ``price``; None: unpriced)."""
    total = arm.graded
    answered = arm.answered  # errors and rejections carry no tokens
    tally = arm.tally()
    ci, n_eff = clustered_rate_interval(list(tally.values()))
    return ArmStats(
        pass_rate=arm.passed / total if total else None,
        passed=arm.passed,
        total=total,
        errors=arm.errors,
        ci95=ci,
        # fmean of ints: the exact sum rounded once, over n
        input_tokens=float(arm.input_tokens) / answered if answered else None,
        output_tokens=float(arm.output_tokens) / answered if answered else None,
        latency_s=stats.median(arm.latencies) if answered else None,
        skipped_assertions=arm.skipped,
        rejected=arm.rejected,
        cases=len(tally),
        n_effective=n_eff,
        pass_all_runs=sum(1 for p, g in tally.values() if p == g) / len(tally) if tally else None,
        ungraded=arm.ungraded,
        judge_skipped=arm.judge_skipped,
        cached_input_tokens=float(arm.cached_input_tokens) / answered if answered else None,
        cache_write_tokens=float(arm.cache_write_tokens) / answered if answered else None,
        cost=arm_cost(arm, price),
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
    """The "no data" verdict when an arm has no graded sample, else None: an arm whose every
    request was refused for its prompt (context length...) measures the setup, not the skill;
    one whose answers no check could grade (judge checks without a judge model) says so."""
    empty = [arm for arm in arms if arm.total == 0]
    if not empty:
        return None
    if any(arm.ungraded for arm in empty):
        return NOT_GRADED_JUDGE if any(arm.judge_skipped for arm in empty) else NOT_GRADED
    return ALL_FAILED if any(arm.errors or arm.rejected for arm in empty) else NO_DATA


def upskill_beneficial(lift: float | None, token_savings: float | None) -> bool:
    """upskill 0.2.1: lift > 0.05, or lift >= 0 with token savings above 20%."""
    if lift is None:
        return False
    return lift > 0.05 or (lift >= 0 and token_savings is not None and token_savings > 0.2)


def case_category(base: tuple[int, int], skill: tuple[int, int]) -> str:
    """``fixed`` (fails every run without, passes every run with), ``broken`` (the reverse),
    ``always_pass``, ``always_fail``, or ``flaky`` (some arm both passed and failed)."""
    (pa, ga), (pb, gb) = base, skill
    a = "pass" if pa == ga else "fail" if pa == 0 else "mixed"
    b = "pass" if pb == gb else "fail" if pb == 0 else "mixed"
    if "mixed" in (a, b):
        return "flaky"
    if a == b:
        return f"always_{a}"
    return "fixed" if b == "pass" else "broken"


CASE_CATEGORIES = ("fixed", "broken", "always_pass", "always_fail", "flaky", "excluded")


def _case_table(
    base: dict[str, tuple[int, int]],
    skill: dict[str, tuple[int, int]],
    order: list[str],
    evidence: LiftEvidence,
) -> list[dict[str, Any]]:
    missing = {c.case_id: (c.base_missing, c.skill_missing) for c in evidence.cases}
    rows = []
    for case in order:
        a, b = base.get(case), skill.get(case)
        gone = missing.get(case, (0, 0))
        row: dict[str, Any] = {
            "case_id": case,
            "baseline": None if a is None else {"passed": a[0], "graded": a[1]},
            "with_skill": None if b is None else {"passed": b[0], "graded": b[1]},
            "missing": {"baseline": gone[0], "with_skill": gone[1]},
        }
        if a is None or b is None:
            row["category"], row["diff"] = "excluded", None
        else:
            row["category"] = case_category(a, b)
            row["diff"] = _r(b[0] / b[1] - a[0] / a[1])
        rows.append(row)
    return rows


def _excluded_reason(excluded: list[str], base: ArmTally, skill: ArmTally) -> str | None:
    if not excluded:
        return None
    not_run = any(c not in base.seen or c not in skill.seen for c in excluded)
    errored = all(
        (c not in base.cases and base.missing.get(c))
        or (c not in skill.cases and skill.missing.get(c))
        for c in excluded
    )
    unchecked = all(
        c not in base.cases
        and c not in skill.cases
        and not base.missing.get(c)
        and not skill.missing.get(c)
        for c in excluded
    )
    n = len(excluded)
    if not_run:
        what = "not run in one arm"
    elif unchecked:
        what = "no check ran on them"
    elif errored:
        what = "every request errored in one arm"
    else:
        what = "no check ran in one arm"
    return f"{n} case{'s' if n != 1 else ''} excluded: {what}"


# --------------------------------------------------------------------------- the verdict


@dataclass(frozen=True)
class CaseCounts:
    """One case in both arms: passes and graded samples, and the samples missing in each arm
    (errors, prompt rejections, samples never run), each arm counted against the same number
    of samples (the larger of the arms' graded + missing)."""

    case_id: str
    base_passed: int
    base_graded: int
    base_missing: int
    skill_passed: int
    skill_graded: int
    skill_missing: int

    def diff(
        self, base_fill: int = 0, skill_fill: int = 0, *, against: bool = True
    ) -> float | None:
        """``rate_with - rate_without`` with ``base_fill`` / ``skill_fill`` missing samples
        filled in: against the skill (a pass without it, a fail with it) or for it (the
        reverse); None while an arm has nothing to rate."""
        base_n, skill_n = self.base_graded + base_fill, self.skill_graded + skill_fill
        if not base_n or not skill_n:
            return None
        base = self.base_passed + (base_fill if against else 0)
        skill = self.skill_passed + (0 if against else skill_fill)
        return skill / skill_n - base / base_n


@dataclass(frozen=True)
class LiftEvidence:
    """What a lift verdict is decided from: every case's counts, and the fewest graded runs of
    a case graded in both arms (the interval's floor step)."""

    cases: tuple[CaseCounts, ...]
    runs: int

    @property
    def observed(self) -> list[float]:
        """One difference per case graded in both arms: missing samples treated as missing."""
        return [d for d in (c.diff() for c in self.cases) if d is not None]

    def filled(self, *, against: bool) -> list[float]:
        """One difference per case, every missing sample filled against (or for) the skill."""
        return [
            d
            for d in (c.diff(c.base_missing, c.skill_missing, against=against) for c in self.cases)
            if d is not None
        ]

    @property
    def missing(self) -> tuple[int, int]:
        """(baseline, with skill) samples missing."""
        return (
            sum(c.base_missing for c in self.cases),
            sum(c.skill_missing for c in self.cases),
        )


def lift_interval(diffs: Sequence[float], *, runs: int, level: float = NOMINAL_LEVEL) -> PairedLift:
    """The lift of per-case differences and its interval: the one place the verdict calls into
    :mod:`~upskill_hub.evaluation.stats.intervals` (``runs``: the fewest graded runs of a case, for
    the floor step one run's flip can cause)."""
    return paired_lift(diffs, runs=max(runs, 1), level=level)


def too_few(result: PairedLift) -> str | None:
    """The verdict when the design cannot judge a lift at all, else None: one paired case, or a
    design that cannot detect any lift (3 or fewer cases, or a minimum detectable lift above
    100 pts) whose interval did not exclude zero either (:func:`too_few_verdict`)."""
    if result.n < 2:
        return TOO_FEW
    if not result.detectable and verdict_of(result.ci95) == UNCLEAR:
        return too_few_verdict(result)
    return None


def _greedy_fills(cases: Sequence[CaseCounts], against: bool) -> Iterator[tuple[int, int]]:
    """The missing samples as (case index, arm: 0 baseline, 1 with skill), each next one the
    fill that moves the mean lift most against (``against``) or for the skill."""
    fills = [[0, 0] for _ in cases]
    values = [c.diff() for c in cases]
    while True:
        present = [v for v in values if v is not None]
        base_sum, base_n = math.fsum(present), len(present)
        best: tuple[float, int, int] | None = None
        for i, c in enumerate(cases):
            for arm, room in ((0, c.base_missing), (1, c.skill_missing)):
                if fills[i][arm] >= room:
                    continue
                f = list(fills[i])
                f[arm] += 1
                new = c.diff(f[0], f[1], against=against)
                old = values[i]
                n = base_n - (old is not None) + (new is not None)
                mean = (base_sum - (old or 0.0) + (new or 0.0)) / n if n else 0.0
                score = mean if against else -mean
                if best is None or score < best[0]:
                    best = (score, i, arm)
        if best is None:
            return
        _, i, arm = best
        fills[i][arm] += 1
        values[i] = cases[i].diff(fills[i][0], fills[i][1], against=against)
        yield i, arm


def _fills_to_overturn(evidence: LiftEvidence, verdict: str, level: float) -> int:
    """How few missing samples, filled against ``verdict``, take it away: the missing samples
    in :func:`_greedy_fills` order, the shortest prefix of it that leaves no ``verdict``
    (checked at 1, 2, 4... fills, then by bisection: :func:`least_true`). A witness: the least
    number is at most this. The caller knows that filling every missing sample takes the
    verdict away."""
    against = verdict == HELPS
    cases = evidence.cases
    fills = _greedy_fills(cases, against)
    order: list[tuple[int, int]] = []

    def gone(k: int) -> bool:
        order.extend(itertools.islice(fills, max(0, k - len(order))))
        done = [[0, 0] for _ in cases]
        for i, arm in order[:k]:
            done[i][arm] += 1
        diffs = [
            d
            for d in (c.diff(a, b, against=against) for c, (a, b) in zip(cases, done, strict=True))
            if d is not None
        ]
        if len(diffs) < 2:
            return True
        return verdict_of(lift_interval(diffs, runs=evidence.runs, level=level).ci95) != verdict

    found = least_true(gone, 0, sum(evidence.missing))
    assert found is not None  # every missing sample filled takes the verdict away
    return found


@dataclass(frozen=True)
class Decision:
    """A verdict at one confidence level: the observed lift's interval, and the worst-case
    bounds (every missing sample filled against, then for, the skill)."""

    verdict: str
    result: PairedLift
    bounds: tuple[float, float] | None  # lift with missing filled against / for the skill
    bounds_ci: tuple[float, float] | None  # the interval's ends under those fills
    decided_by: int = 0  # missing samples whose fill took the verdict away (not comparable)


def decide(evidence: LiftEvidence, *, level: float = NOMINAL_LEVEL) -> Decision | None:
    """The verdict of the lift at ``level``, None without a case graded in both arms.

    ``helps`` / ``hurts`` when the observed interval excludes zero **and** the interval still
    does with every missing sample (error, prompt rejection, sample never run, a case that
    errored in every run of one arm) filled against that claim: a fail with the skill and a pass
    without it (the reverse for ``hurts``). When it does not survive, the verdict is ``not
    comparable`` and names how many missing samples sufficed to take it away. ``too few
    cases`` (:func:`too_few`) is judged at :data:`NOMINAL_LEVEL` only (another ``level`` is
    Holm's, for a model that was tested at the nominal one)."""
    observed = evidence.observed
    if not observed:
        return None
    result = lift_interval(observed, runs=evidence.runs, level=level)
    # whether the design can show a lift is judged at the nominal level only: at a Holm level
    # the model was tested already, and the adjustment changes its significance, not its design
    few = too_few(result) if level == NOMINAL_LEVEL else None
    low, high = evidence.filled(against=True), evidence.filled(against=False)
    bounds = bounds_ci = None
    worst: dict[bool, PairedLift | None] = {}
    for against, diffs in ((True, low), (False, high)):
        worst[against] = (
            lift_interval(diffs, runs=evidence.runs, level=level) if len(diffs) >= 2 else None
        )
    if low and high:
        bounds = (math.fsum(low) / len(low), math.fsum(high) / len(high))
        lo_fit, hi_fit = worst[True], worst[False]
        if lo_fit is not None and hi_fit is not None:
            bounds_ci = (lo_fit.ci95[0], hi_fit.ci95[1])
    if few:
        return Decision(few, result, bounds, bounds_ci)
    verdict = verdict_of(result.ci95)
    if verdict not in (HELPS, HURTS) or not sum(evidence.missing):
        return Decision(verdict, result, bounds, bounds_ci)
    check = worst[verdict == HELPS]
    if check is not None and verdict_of(check.ci95) == verdict:
        return Decision(verdict, result, bounds, bounds_ci)
    n = _fills_to_overturn(evidence, verdict, level)
    base_missing, skill_missing = evidence.missing
    what = "lift" if verdict == HELPS else "harm"
    side = "against" if verdict == HELPS else "for"
    text = (
        f"{NOT_COMPARABLE}: {base_missing + skill_missing} missing samples (baseline "
        f"{base_missing}, with skill {skill_missing}) could explain the {what}: {n} of them "
        f"counted {side} the skill {'removes' if n == 1 else 'remove'} it"
    )
    return Decision(text, result, bounds, bounds_ci, decided_by=n)


def _evidence(order: list[str], base: ArmTally, skill: ArmTally, runs: int) -> LiftEvidence:
    base_tally, skill_tally = base.tally(), skill.tally()
    cases = []
    for case in order:
        bp, bg = base_tally.get(case, (0, 0))
        sp, sg = skill_tally.get(case, (0, 0))
        size = max(bg + base.missing.get(case, 0), sg + skill.missing.get(case, 0))
        if size == 0:
            continue  # no check ran in either arm: nothing to rate, nothing missing
        cases.append(CaseCounts(case, bp, bg, size - bg, sp, sg, size - sg))
    # the floor step is one run's flip for the case graded on the fewest runs (either arm)
    graded = [min(c.base_graded, c.skill_graded) for c in cases if c.base_graded and c.skill_graded]
    return LiftEvidence(tuple(cases), min(graded, default=runs))


def _ratio(with_: float | None, without: float | None) -> float | None:
    return None if not without or with_ is None else with_ / without


def _model_stats(model: str, tally: ModelTally, price: Price | None = None) -> ModelStats:
    base = tally.arms.get("baseline")
    skill = tally.arms.get("with_skill") or ArmTally()
    with_arm = arm_stats_of(skill, price)
    runs = len(tally.runs)
    order = tally.case_order()
    cases = len(order)
    if base is None or not base.samples:
        verdict = _no_data(with_arm) or NO_BASELINE
        return ModelStats(model, runs, cases, None, with_arm, None, None, None, verdict)
    base_arm = arm_stats_of(base, price)
    base_tally, skill_tally = base.tally(), skill.tally()
    evidence = _evidence(order, base, skill, runs)
    table = _case_table(base_tally, skill_tally, order, evidence)
    counts = {c: sum(1 for r in table if r["category"] == c) for c in CASE_CATEGORIES}
    paired = [c for c in order if c in base_tally and c in skill_tally]
    excluded = [c for c in order if c not in paired]
    savings = None
    if base_arm.output_tokens and with_arm.output_tokens is not None:
        savings = 1 - with_arm.output_tokens / base_arm.output_tokens
    missing_base, missing_skill = evidence.missing
    common: dict[str, Any] = {
        "model": model,
        "runs": runs,
        "cases": cases,
        "baseline": base_arm,
        "with_skill": with_arm,
        "token_savings": savings,
        "cost_ratio": _ratio(with_arm.cost.per_sample, base_arm.cost.per_sample),
        "token_ratio": {
            "input": _ratio(with_arm.input_tokens, base_arm.input_tokens),
            "output": _ratio(with_arm.output_tokens, base_arm.output_tokens),
        },
        "excluded_cases": len(excluded),
        "excluded_reason": _excluded_reason(excluded, base, skill),
        "case_counts": counts,
        "case_table": table,
        "missing": {"baseline": missing_base, "with_skill": missing_skill},
    }
    no_data = _no_data(base_arm, with_arm)
    decision = None if no_data else decide(evidence)
    if decision is None:  # no result, not a null one
        return ModelStats(lift=None, lift_ci95=(-1.0, 1.0), verdict=no_data or NO_PAIRS, **common)
    result = decision.result
    return ModelStats(
        lift=result.lift,
        lift_ci95=result.ci95,
        verdict=decision.verdict,
        beneficial=upskill_beneficial(result.lift, savings),
        lift_ci95_bootstrap=paired_bootstrap_interval(
            [
                (base_tally[c][0] / base_tally[c][1], skill_tally[c][0] / skill_tally[c][1])
                for c in paired
            ]
        ),
        lift_cases=result.n,
        lift_se=result.se,
        lift_p=result.p_value,
        mde80=result.mde80,
        spread_floored=result.floored,
        lift_bounds=decision.bounds,
        lift_bounds_ci95=decision.bounds_ci,
        decided_by=decision.decided_by,
        evidence=evidence,
        sign_flip_p=result.sign_flip_p,
        floor_step=result.floor_step,
        lift_se_twoway=_twoway(base, skill) if runs >= 3 else None,
        **common,
    )


#: The lift the "too few cases" verdict says how many cases would need (20 points).
PLAN_LIFT = 0.20


def too_few_verdict(result: PairedLift, lift: float = PLAN_LIFT) -> str:
    """``too few cases`` for a design that cannot show any lift (3 or fewer cases, or an MDE
    above 100 pts), with about how many cases a ``lift`` would need at 80% power (the spread
    seen here, :func:`~upskill_hub.evaluation.stats.intervals.cases_needed`), never "no measurable
    effect": that reads as "the skill does nothing"."""
    need = cases_needed(lift, sd=result.sd or 0.0)
    n = f"{result.n} case{'s' if result.n != 1 else ''}"
    want = f"about {need} needed for a {lift * 100:.0f}-pt lift" if need else "many more needed"
    return f"{TOO_FEW}: {n} cannot detect any lift at this n; {want} (80% power)"


def _twoway(base: ArmTally, skill: ArmTally) -> dict[str, Any] | None:
    """The two-way clustered standard error (case; run x arm) of the lift, as summary.json
    stores it: a diagnostic of shocks shared by one run of one arm, not used in the verdict."""
    without, with_ = base.run_outcomes(), skill.run_outcomes()
    found = twoway_clustered_se({c: (without[c], with_[c]) for c in without if c in with_})
    return None if found is None else found.to_dict()


HOLM_TESTED = (HELPS, HURTS, UNCLEAR)


def _holm(models: list[ModelStats]) -> list[ModelStats]:
    """Holm-adjust the verdicts of the models that have one (two or more of them).

    Each model's verdict and interval are recomputed at the level Holm's step-down gives it:
    ``1 - 0.05 * p / p_holm``, the level at which its interval excludes zero exactly when its
    adjusted p-value is below 0.05; so the printed (adjusted) interval always agrees with the
    verdict, and the worst-case bounds are checked at that level too."""
    tested = [
        i
        for i, m in enumerate(models)
        if m.lift_p is not None
        and m.evidence is not None
        and (m.verdict in HOLM_TESTED or m.verdict.startswith(NOT_COMPARABLE))
    ]
    if len(tested) < 2:
        return models
    adjusted = holm_adjust([models[i].lift_p or 0.0 for i in tested])
    out = list(models)
    for i, p_adj in zip(tested, adjusted, strict=True):
        m = models[i]
        p = m.lift_p or 0.0
        level = 1 - 0.05 * (p / p_adj if p_adj > 0 else 1.0)
        assert m.evidence is not None
        decision = decide(m.evidence, level=level)
        assert decision is not None
        out[i] = dataclasses.replace(
            m,
            lift_p_holm=p_adj,
            holm_changed=decision.verdict != m.verdict,
            verdict=decision.verdict,
            lift_ci95_holm=decision.result.ci95,
            holm_level=level,
            decided_by=decision.decided_by,
        )
    return out


def summarize(
    samples: Iterable[Sample], prices: Mapping[str, Price | None] | None = None
) -> list[ModelStats]:
    """One :class:`ModelStats` per model, in the order models first appear; verdicts
    Holm-adjusted when several models were measured; costs at ``prices`` (model id -> price,
    run.json's ``prices``; a model not in it is unpriced)."""
    return summarize_tallies(tally_models(samples), prices)


def summarize_tallies(
    models: dict[str, ModelTally], prices: Mapping[str, Price | None] | None = None
) -> list[ModelStats]:
    """:func:`summarize` from running tallies (models and cases ordered by first position)."""
    order = sorted(models, key=lambda m: models[m].first)
    prices = prices or {}
    return _holm([_model_stats(model, models[model], prices.get(model)) for model in order])


def adjust_across_models(models: list[ModelStats]) -> list[ModelStats]:
    """Holm-adjust the verdicts of models summarized one at a time (``summarize`` of each
    model's samples), exactly as :func:`summarize` does over all of them at once."""
    return _holm(models)
