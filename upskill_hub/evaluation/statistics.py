"""Pass rates, their intervals, lift, token savings and a verdict, from graded samples.

The unit of evidence is the **test case**, not the sample: runs of one case are correlated (a
case the model cannot do fails in every run), so counting case x run samples as independent
makes intervals too narrow (Miller 2024, "Adding Error Bars to Evals"; reference.md section 10).
``STATS_VERSION`` 2 (in summary.json) marks results computed this way; version 1 runs used
Newcombe's interval over samples.

* **Lift** (:func:`paired_lift`): for each case graded in both arms,
  ``d_i = rate_with(i) - rate_without(i)`` (each a pass rate over that case's graded runs);
  ``lift = mean(d_i)``; its 95% interval is ``lift +- t(0.975, n-1) * SE`` with
  ``SE = max(sd(d), s/sqrt(n)) / sqrt(n - 1)`` (paired t over cases with a few-cluster
  correction; the floor step ``s`` is a whole flip, or one run's flip ``1/runs`` when the exact
  sign-flip test over the cases rejects: :func:`paired_lift`). With 3 or more runs summary.json
  also holds a two-way clustered standard error (case; run x arm) as a diagnostic. Cases
  without a graded sample in one arm are excluded and counted.
  ``benchmarks/lift_coverage.py`` measures its coverage, false verdicts and power under a dozen
  populations, beside the previous rule and the old sample-level Newcombe interval.
* **Arm rates** (:func:`arm_stats`): the pass rate over graded samples with a Wilson interval on
  an *effective* n from the cluster-robust variance (design effect), between the number of cases
  and the number of samples, using ``t(0.975, cases-1)`` as the critical value.
* **Requests the prompt made impossible** (context length exceeded, content filter: a final
  error caused by what we sent) count as fails of their arm, with their reason (``rejected``):
  a skill that overflows the context does not help. Other errors (retries exhausted) are
  missing samples; when their counts differ materially between arms the verdict says so
  instead of claiming an effect.
* Several models: verdicts are Holm-adjusted over the models (``holm`` in the JSON).

The interval maths (t distribution, Wilson, clustered rate interval, paired t with its spread
floor, bootstrap, Holm) is in :mod:`upskill_hub.evaluation.intervals`; this module applies it to
samples and tallies and re-exports its names.

Verdicts: ``helps`` / ``hurts`` when the lift interval excludes zero, else ``no measurable
effect at this n``; ``too few cases: ...`` with one paired case, or when the design cannot show
any lift (3 or fewer cases, or a minimum detectable lift above 100 pts), with about how many
cases a 20-pt lift needs; ``no baseline`` without a baseline
arm; ``no data (every request failed)`` when an arm has no graded sample but has errors, ``no
data`` when it has no sample at all (a run cancelled early); ``not comparable: ...`` when the
arms' error counts differ materially.
"""

from __future__ import annotations

import dataclasses
import statistics as stats
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from upskill_hub.evaluation.intervals import (
    PairedLift,
    cases_needed,
    clustered_rate_interval,
    holm_adjust,
    newcombe_interval,
    paired_bootstrap_interval,
    paired_lift,
    t_cdf,
    t_quantile,
    twoway_clustered_se,
    wilson_interval,
)
from upskill_hub.evaluation.tallies import (
    ArmTally,
    ModelTally,
    graded_outcome,
    prompt_rejected,
    tally_models,
)
from upskill_hub.evaluation.types import Sample

__all__ = [  # the interval maths is re-exported: it was defined here, importers use these names
    "ArmStats",
    "ModelStats",
    "PairedLift",
    "adjust_across_models",
    "arm_stats",
    "clustered_rate_interval",
    "graded_outcome",
    "holm_adjust",
    "newcombe_interval",
    "paired_bootstrap_interval",
    "paired_lift",
    "prompt_rejected",
    "summarize",
    "summarize_tallies",
    "t_cdf",
    "t_quantile",
    "wilson_interval",
]

STATS_VERSION = 2
LIFT_METHOD = "paired_t_by_case"
ARM_CI_METHOD = "wilson_effective_n_clustered"

NO_BASELINE = "no baseline"
HELPS, HURTS, UNCLEAR = "helps", "hurts", "no measurable effect at this n"
NO_DATA, ALL_FAILED = "no data", "no data (every request failed)"
TOO_FEW = "too few cases"
NO_PAIRS = "no data (no case graded in both arms)"
NOT_COMPARABLE = "not comparable"

# --------------------------------------------------------------------------- samples


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _pair(value: tuple[float, float] | None) -> list[float | None] | None:
    return None if value is None else [_r(value[0]), _r(value[1])]


@dataclass(frozen=True)
class ArmStats:
    """One model's numbers in one arm (``baseline`` or ``with_skill``)."""

    pass_rate: float | None  # None when no sample was graded
    passed: int
    total: int  # graded samples (prompt rejections included as fails); errors excluded
    errors: int  # samples still errored after retries: missing, not graded
    ci95: tuple[float, float]
    input_tokens: float | None  # means per graded sample
    output_tokens: float | None
    latency_s: float | None  # median per graded sample
    skipped_assertions: int = 0
    rejected: int = 0  # requests refused for their prompt, counted as fails
    cases: int = 0  # cases with a graded sample
    n_effective: float = 0.0
    pass_all_runs: float | None = None  # pass^k: share of cases whose every graded run passed
    ci_method: str = ARM_CI_METHOD

    @property
    def answered(self) -> int:
        """Graded samples the model answered (not refused for their prompt)."""
        return self.total - self.rejected

    def to_dict(self, *, extended: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "pass_rate": _r(self.pass_rate),
            "passed": self.passed,
            "total": self.total,
            "errors": self.errors,
            "ci95": _pair(self.ci95),
            "tokens": {"input": _r(self.input_tokens), "output": _r(self.output_tokens)},
            "latency_s": _r(self.latency_s),
            "rejected": self.rejected,
            "cases": self.cases,
            "ci_method": self.ci_method,
            "n_effective": _r(self.n_effective),
            "pass_all_runs": _r(self.pass_all_runs),
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
            else {"p_adjusted": _r(self.lift_p_holm), "changed_verdict": self.holm_changed},
            "case_counts": dict(self.case_counts),
        }
        if extended:
            data["beneficial"] = self.beneficial
            data["lift_ci95_bootstrap"] = _pair(self.lift_ci95_bootstrap)
            data["case_table"] = [dict(row) for row in self.case_table]
        return data


def arm_stats(samples: Sequence[Sample]) -> ArmStats:
    """The numbers of one arm's samples."""
    arm = ArmTally()
    for s in samples:
        arm.add(s)
    return arm_stats_of(arm)


def arm_stats_of(arm: ArmTally) -> ArmStats:
    """The numbers of one arm from its tally."""
    total = arm.graded
    answered = arm.answered  # rejections carry no tokens
    tally = arm.tally()
    ci, n_eff = clustered_rate_interval(list(tally.values()))
    return ArmStats(
        pass_rate=arm.passed / total if total else None,
        passed=arm.passed,
        total=total,
        errors=arm.samples - total,
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
    """The "no data" verdict when an arm has no answered sample, else None: an arm whose every
    request was refused for its prompt (context length...) measures the setup, not the skill."""
    empty = [arm for arm in arms if arm.answered == 0]
    if not empty:
        return None
    return ALL_FAILED if any(arm.errors or arm.rejected for arm in empty) else NO_DATA


def upskill_beneficial(lift: float | None, token_savings: float | None) -> bool:
    """upskill 0.2.1: lift > 0.05, or lift >= 0 with token savings above 20%."""
    if lift is None:
        return False
    return lift > 0.05 or (lift >= 0 and token_savings is not None and token_savings > 0.2)


def errors_differ(base: ArmStats, skill: ArmStats) -> bool:
    """Whether the arms' unresolved error counts differ materially: by at least 2 samples and
    by at least 5% of an arm's samples. Then a difference in pass rates may be the errors'."""
    diff = abs(base.errors - skill.errors)
    size = max(base.total + base.errors, skill.total + skill.errors, 1)
    return diff >= 2 and diff / size >= 0.05


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
    base: dict[str, tuple[int, int]], skill: dict[str, tuple[int, int]], order: list[str]
) -> list[dict[str, Any]]:
    rows = []
    for case in order:
        a, b = base.get(case), skill.get(case)
        row: dict[str, Any] = {
            "case_id": case,
            "baseline": None if a is None else {"passed": a[0], "graded": a[1]},
            "with_skill": None if b is None else {"passed": b[0], "graded": b[1]},
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
    missing = sum(1 for c in excluded if c not in base.seen or c not in skill.seen)
    n = len(excluded)
    what = "every request errored in one arm" if not missing else "not run in one arm"
    return f"{n} case{'s' if n != 1 else ''} excluded: {what}"


def _model_stats(model: str, tally: ModelTally) -> ModelStats:
    base = tally.arms.get("baseline")
    skill = tally.arms.get("with_skill") or ArmTally()
    with_arm = arm_stats_of(skill)
    runs = len(tally.runs)
    order = tally.case_order()
    cases = len(order)
    if base is None or not base.samples:
        verdict = _no_data(with_arm) or NO_BASELINE
        return ModelStats(model, runs, cases, None, with_arm, None, None, None, verdict)
    base_arm = arm_stats_of(base)
    base_tally, skill_tally = base.tally(), skill.tally()
    table = _case_table(base_tally, skill_tally, order)
    counts = {c: sum(1 for r in table if r["category"] == c) for c in CASE_CATEGORIES}
    paired = [c for c in order if c in base_tally and c in skill_tally]
    excluded = [c for c in order if c not in paired]
    diffs = [
        skill_tally[c][0] / skill_tally[c][1] - base_tally[c][0] / base_tally[c][1] for c in paired
    ]
    savings = None
    if base_arm.output_tokens and with_arm.output_tokens is not None:
        savings = 1 - with_arm.output_tokens / base_arm.output_tokens
    common: dict[str, Any] = {
        "model": model,
        "runs": runs,
        "cases": cases,
        "baseline": base_arm,
        "with_skill": with_arm,
        "token_savings": savings,
        "excluded_cases": len(excluded),
        "excluded_reason": _excluded_reason(excluded, base, skill),
        "case_counts": counts,
        "case_table": table,
    }
    no_data = _no_data(base_arm, with_arm)
    if no_data or not diffs:  # no result, not a null one
        return ModelStats(lift=None, lift_ci95=(-1.0, 1.0), verdict=no_data or NO_PAIRS, **common)
    runs_floor = min(min(base_tally[c][1], skill_tally[c][1]) for c in paired)
    result = paired_lift(diffs, runs=runs_floor)
    if result.n < 2:
        verdict = TOO_FEW
    elif errors_differ(base_arm, with_arm):
        verdict = (
            f"{NOT_COMPARABLE}: errors differ between arms "
            f"(baseline {base_arm.errors}, with skill {with_arm.errors})"
        )
    else:
        verdict = verdict_of(result.ci95)
        if verdict == UNCLEAR and not result.detectable:
            verdict = too_few_verdict(result)
    return ModelStats(
        lift=result.lift,
        lift_ci95=result.ci95,
        verdict=verdict,
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
    seen here, :func:`~upskill_hub.evaluation.intervals.cases_needed`), never "no measurable
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


def _holm(models: list[ModelStats]) -> list[ModelStats]:
    """Holm-adjust the verdicts of the models that have one (two or more of them)."""
    tested = [
        i
        for i, m in enumerate(models)
        if m.lift_p is not None and m.verdict in (HELPS, HURTS, UNCLEAR)
    ]
    if len(tested) < 2:
        return models
    adjusted = holm_adjust([models[i].lift_p or 0.0 for i in tested])
    out = list(models)
    for i, p_adj in zip(tested, adjusted, strict=True):
        m = models[i]
        changed = m.verdict in (HELPS, HURTS) and p_adj >= 0.05
        out[i] = dataclasses.replace(
            m, lift_p_holm=p_adj, holm_changed=changed, verdict=UNCLEAR if changed else m.verdict
        )
    return out


def summarize(samples: Iterable[Sample]) -> list[ModelStats]:
    """One :class:`ModelStats` per model, in the order models first appear; verdicts
    Holm-adjusted when several models were measured."""
    return summarize_tallies(tally_models(samples))


def summarize_tallies(models: dict[str, ModelTally]) -> list[ModelStats]:
    """:func:`summarize` from running tallies (models and cases ordered by first position)."""
    order = sorted(models, key=lambda m: models[m].first)
    return _holm([_model_stats(model, models[model]) for model in order])


def adjust_across_models(models: list[ModelStats]) -> list[ModelStats]:
    """Holm-adjust the verdicts of models summarized one at a time (``summarize`` of each
    model's samples), exactly as :func:`summarize` does over all of them at once."""
    return _holm(models)
