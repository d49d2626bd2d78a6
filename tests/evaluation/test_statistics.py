import math
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from upskill_hub.evaluation.stats.summarize import (
    ModelStats,
    newcombe_interval,
    paired_bootstrap_interval,
    summarize,
    upskill_beneficial,
    verdict_of,
    wilson_interval,
)
from upskill_hub.evaluation.types import AssertionResult, Outcome, Sample

# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Stat Med 17:857,
# Table I, method 3 (Wilson score, no continuity correction).
WILSON_PUBLISHED = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
    (29, 29, 0.8830, 1.0000),
]

# Newcombe (1998), "Interval estimation for the difference between independent proportions",
# Stat Med 17:873, Table II, method 10, as (m, m_total, n, n_total, lower, upper) for m/M - n/N.
# Note: 56/70 - 48/80 is 0.2000 with interval (0.0524, 0.3339).
NEWCOMBE_PUBLISHED = [
    (56, 70, 48, 80, 0.0524, 0.3339),
    (9, 10, 3, 10, 0.1705, 0.8090),
    (6, 7, 2, 7, 0.0582, 0.8062),
    (5, 56, 0, 29, -0.0381, 0.1926),
    (0, 10, 0, 20, -0.1611, 0.2775),
    (0, 10, 0, 10, -0.2775, 0.2775),
    (10, 10, 0, 20, 0.6791, 1.0000),
    (10, 10, 0, 10, 0.6075, 1.0000),
]


@pytest.mark.parametrize(("x", "n", "lo", "hi"), WILSON_PUBLISHED)
def test_wilson_matches_published_values(x: int, n: int, lo: float, hi: float) -> None:
    got = wilson_interval(x, n)
    assert got == pytest.approx((lo, hi), abs=1e-4)


@pytest.mark.parametrize(("m", "mt", "n", "nt", "lo", "hi"), NEWCOMBE_PUBLISHED)
def test_newcombe_matches_published_values(
    m: int, mt: int, n: int, nt: int, lo: float, hi: float
) -> None:
    # Our argument order is (a, b) for p_b - p_a: the published m/M is arm b.
    assert newcombe_interval(n, nt, m, mt) == pytest.approx((lo, hi), abs=1e-4)


def test_newcombe_is_antisymmetric_and_empty_arms_are_uninformative() -> None:
    lo, hi = newcombe_interval(56, 70, 48, 80)
    assert (lo, hi) == pytest.approx((-0.3339, -0.0524), abs=1e-4)
    assert newcombe_interval(0, 0, 3, 5) == (-1.0, 1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(4, 3)


@given(st.integers(0, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_within_unit_interval_and_contains_estimate(case: tuple[int, int]) -> None:
    x, n = case
    lo, hi = wilson_interval(x, n)
    assert 0.0 <= lo <= hi <= 1.0
    if n:
        assert lo <= x / n <= hi


arm = st.integers(1, 300).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))


@given(arm, arm)
def test_newcombe_within_bounds_and_contains_difference(
    a: tuple[int, int], b: tuple[int, int]
) -> None:
    lo, hi = newcombe_interval(a[0], a[1], b[0], b[1])
    diff = b[0] / b[1] - a[0] / a[1]
    assert -1.0 <= lo <= hi <= 1.0
    assert lo - 1e-12 <= diff <= hi + 1e-12


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=20))
def test_bootstrap_within_bounds_and_deterministic(pairs: list[tuple[float, float]]) -> None:
    first = paired_bootstrap_interval(pairs, iterations=200, seed=3)
    assert first == paired_bootstrap_interval(pairs, iterations=200, seed=3)
    lo, hi = first
    assert -1.0 - 1e-9 <= lo <= hi <= 1.0 + 1e-9


@given(
    st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=30),
    st.integers(0, 2**32),
)
def test_bootstrap_draws_what_random_choices_draws(
    pairs: list[tuple[float, float]], seed: int
) -> None:
    # the interval is the one resampling with random.choices gives (same seed, same numbers)
    rng = random.Random(seed)
    diffs = [b - a for a, b in pairs]
    means = sorted(sum(rng.choices(diffs, k=len(diffs))) / len(diffs) for _ in range(200))
    expected = (means[math.floor(0.025 * 199)], means[math.ceil(0.975 * 199)])
    assert paired_bootstrap_interval(pairs, iterations=200, seed=seed) == expected


def test_bootstrap_of_a_constant_difference_is_a_point() -> None:
    assert paired_bootstrap_interval([(0.2, 0.7)] * 5) == pytest.approx((0.5, 0.5))
    assert paired_bootstrap_interval([]) == (-1.0, 1.0)


def test_verdicts_and_upskill_rule() -> None:
    assert verdict_of((0.01, 0.4)) == "helps"
    assert verdict_of((-0.4, -0.01)) == "hurts"
    assert verdict_of((-0.1, 0.4)) == "no measurable effect at this n"
    assert verdict_of(None) == "no baseline"
    assert upskill_beneficial(0.06, None)
    assert not upskill_beneficial(0.05, 0.2)
    assert upskill_beneficial(0.0, 0.21)
    assert not upskill_beneficial(-0.01, 0.9)
    assert not upskill_beneficial(None, 0.9)


# --- summarize ------------------------------------------------------------------------------


def sample(
    model: str,
    case: str,
    run: int,
    arm: Any,
    outcome: Outcome,
    out_tokens: int = 100,
    latency: float = 1.0,
    skipped: int = 0,
) -> Sample:
    results = [AssertionResult("contains", "pass" if outcome == "pass" else "fail")]
    results += [AssertionResult("compiles", "skipped", "skipped: nvcc not found")] * skipped
    return Sample(
        model=model,
        case_id=case,
        run=run,
        arm=arm,
        prompt_hash="h",
        outcome=outcome,
        assertions=results if outcome != "error" else [],
        error="boom" if outcome == "error" else None,
        input_tokens=50 if outcome != "error" else 0,
        output_tokens=out_tokens if outcome != "error" else 0,
        latency_s=latency,
    )


def synthetic() -> list[Sample]:
    """Model m1: 3 cases x 2 runs; baseline 1/6 pass, with skill 5/5 pass + 1 error."""
    samples = []
    for run in (1, 2):
        for i, case in enumerate(("a", "b", "c")):
            base_pass = run == 1 and case == "a"
            samples.append(
                sample("m1", case, run, "baseline", "pass" if base_pass else "fail", 200, 2.0 + i)
            )
            if run == 2 and case == "c":
                samples.append(sample("m1", case, run, "with_skill", "error", latency=99.0))
            else:
                samples.append(sample("m1", case, run, "with_skill", "pass", 100, 1.0, skipped=1))
    samples.append(sample("m0", "a", 1, "with_skill", "fail"))
    return samples


def test_summarize_counts_errors_apart_and_computes_lift() -> None:
    m1, m0 = summarize(synthetic())[0], summarize(synthetic())[1]
    assert (m1.model, m0.model) == ("m1", "m0")  # first-seen order
    assert (m1.runs, m1.cases) == (2, 3)
    base, skill = m1.baseline, m1.with_skill
    assert base is not None
    assert (base.passed, base.total, base.errors) == (1, 6, 0)
    assert (skill.passed, skill.total, skill.errors) == (5, 5, 1)
    assert skill.pass_rate == 1.0
    # by case: d = (1 - 1/2, 1 - 0, 1 - 0): lift 5/6; spread floored at 1/sqrt(3)
    assert m1.lift == pytest.approx(5 / 6)
    half = 4.302653 * (1 / 3**0.5) * (3 / 2) ** 0.5 / 3**0.5
    assert m1.lift_ci95 == pytest.approx((5 / 6 - half, 1.0), abs=1e-5)
    # three cases cannot show any lift: "too few cases", never "no measurable effect"
    assert m1.verdict.startswith("too few cases: 3 cases cannot detect any lift at this n; about ")
    assert (m1.lift_cases, m1.excluded_cases) == (3, 0)
    assert skill.output_tokens == 100 and base.output_tokens == 200  # the error isn't averaged
    assert m1.token_savings == pytest.approx(0.5)
    assert skill.latency_s == 1.0  # median of graded samples; the error's 99 s is left out
    assert base.latency_s == 3.0
    assert skill.skipped_assertions == 5
    assert m1.beneficial


def test_to_dict_has_exactly_the_summary_shape() -> None:
    m1 = summarize(synthetic())[0]
    data = m1.to_dict()
    assert list(data) == [
        "model",
        "runs",
        "cases",
        "baseline",
        "with_skill",
        "lift",
        "lift_ci95",
        "token_savings",
        "verdict",
        "lift_method",
        "lift_cases",
        "excluded_cases",
        "excluded_reason",
        "lift_se",
        "lift_p",
        "mde80",
        "spread_floored",
        "sign_flip_p",
        "floor_step",
        "lift_se_twoway",
        "holm",
        "case_counts",
        "missing",
        "lift_bounds",
        "lift_bounds_ci95",
        "decided_by",
        "cost_ratio",
        "token_ratio",
    ]
    arm_keys = ["pass_rate", "passed", "total", "errors", "ci95", "tokens", "cost", "latency_s"]
    arm_keys += ["rejected", "cases", "ci_method", "n_effective", "pass_all_runs", "ungraded"]
    assert list(data["baseline"]) == arm_keys
    assert list(data["with_skill"]) == arm_keys
    assert data["with_skill"]["tokens"] == {
        "input": 50.0,
        "output": 100.0,
        "cached_input": 0.0,
        "cache_write": 0.0,
    }
    # no prices given: every cost figure is null, never 0
    assert set(data["with_skill"]["cost"].values()) == {None}
    assert data["cost_ratio"] is None
    # baseline: 1/6 over cases passing (1, 0, 0) of 2 runs each: clustered variance
    # 3/2 * ((2/3)^2 + (1/3)^2 + (1/3)^2) / 6^2 = 1/36, so n_eff = (1/6)(5/6) / (1/36) = 5
    assert data["baseline"]["n_effective"] == pytest.approx(5.0)
    assert data["baseline"]["ci_method"] == "wilson_effective_n_clustered"
    assert data["lift_method"] == "paired_t_by_case"
    assert isinstance(data["lift_ci95"], list) and len(data["lift_ci95"]) == 2
    extended = m1.to_dict(extended=True)
    assert extended["beneficial"] is True
    assert extended["with_skill"]["skipped_assertions"] == 5
    assert len(extended["lift_ci95_bootstrap"]) == 2


def test_no_baseline_run() -> None:
    samples = [s for s in synthetic() if s.arm == "with_skill"]
    m1 = summarize(samples)[0]
    assert m1.baseline is None
    assert (m1.lift, m1.lift_ci95, m1.token_savings) == (None, None, None)
    assert m1.verdict == "no baseline"
    assert not m1.beneficial
    data = m1.to_dict()
    assert data["baseline"] is None and data["lift_ci95"] is None


def test_small_n_is_not_called_a_win_and_all_errors_leave_rates_undefined() -> None:
    samples = [
        sample("m", "a", 1, "baseline", "fail"),
        sample("m", "a", 1, "with_skill", "pass"),
    ]
    (stats,) = summarize(samples)
    assert stats.lift == 1.0
    assert stats.verdict == "too few cases"
    assert stats.lift_ci95 == (-1.0, 1.0)
    errors = [
        sample("m", "a", 1, "baseline", "error"),
        sample("m", "a", 1, "with_skill", "pass"),
    ]
    (stats,) = summarize(errors)
    assert stats.baseline is not None
    assert (stats.baseline.pass_rate, stats.baseline.total, stats.baseline.errors) == (None, 0, 1)
    assert stats.lift is None and stats.token_savings is None
    assert stats.lift_ci95 == (-1.0, 1.0)
    assert set(stats.to_dict()["baseline"]["tokens"].values()) == {None}
    assert stats.verdict == "no data (every request failed)" and not stats.beneficial


@pytest.mark.parametrize("no_baseline", [False, True])
def test_an_arm_where_every_request_failed_is_no_data(no_baseline: bool) -> None:
    samples = [
        sample("m", case, run, arm, "error")
        for case in ("a", "b", "c")
        for run in (1, 2)
        for arm in (("with_skill",) if no_baseline else ("baseline", "with_skill"))
    ]
    (stats,) = summarize(samples)
    assert stats.verdict == "no data (every request failed)"
    assert (stats.with_skill.total, stats.with_skill.errors) == (0, 6)
    assert stats.lift is None and not stats.beneficial
    assert stats.to_dict()["verdict"] == "no data (every request failed)"
    # a graded baseline does not make a result of an all-error with-skill arm
    mixed = [sample("m", "a", 1, "baseline", "fail"), sample("m", "a", 1, "with_skill", "error")]
    assert summarize(mixed)[0].verdict == "no data (every request failed)"


def test_zero_baseline_tokens_give_no_savings() -> None:
    samples = [
        sample("m", "a", 1, "baseline", "pass", out_tokens=0),
        sample("m", "a", 1, "with_skill", "pass", out_tokens=10),
    ]
    assert summarize(samples)[0].token_savings is None
    assert summarize([]) == []
    assert isinstance(summarize(samples)[0], ModelStats)


# --- lift by case (stats_version 2) -----------------------------------------------------------


def cases_samples(
    spec: list[tuple[int, int]], runs: int, model: str = "m", error: str | None = None
) -> list[Sample]:
    """Samples for cases with ``(baseline passes, with-skill passes)`` out of ``runs`` each;
    a negative with-skill count means every with-skill request errored with ``error``."""
    out = []
    for i, (base, skill) in enumerate(spec):
        for run in range(1, runs + 1):
            out.append(sample(model, f"c{i}", run, "baseline", "pass" if run <= base else "fail"))
            if skill < 0:
                s = sample(model, f"c{i}", run, "with_skill", "error")
                s.error = error
                out.append(s)
            else:
                out.append(
                    sample(model, f"c{i}", run, "with_skill", "pass" if run <= skill else "fail")
                )
    return out


def test_t_quantiles_match_tables() -> None:
    from upskill_hub.evaluation.stats.summarize import t_cdf, t_quantile

    assert t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-4)
    assert t_quantile(0.975, 2) == pytest.approx(4.3027, abs=1e-4)
    assert t_quantile(0.975, 9) == pytest.approx(2.2622, abs=1e-4)
    assert t_quantile(0.975, 39) == pytest.approx(2.0227, abs=1e-4)
    assert t_quantile(0.80, 9) == pytest.approx(0.8834, abs=1e-4)
    assert t_cdf(0.0, 5) == pytest.approx(0.5)


def test_three_deterministic_flips_are_as_wide_as_three_observations_allow() -> None:
    # 3 cases x 10 runs, every case fails every run without and passes every run with
    (m,) = summarize(cases_samples([(0, 10)] * 3, runs=10))
    assert m.lift == 1.0 and m.lift_cases == 3 and m.spread_floored
    # sd floored at 1/sqrt(3); SE = sd * sqrt(3/2) / sqrt(3) = 1/sqrt(6); t(0.975, 2) = 4.3027
    assert m.lift_ci95 == pytest.approx((1 - 4.302653 / 6**0.5, 1.0), abs=1e-5)
    assert m.verdict.startswith("too few cases: 3 cases cannot detect any lift at this n")
    # counting the 30 runs as independent would have claimed far more
    lo30, _ = newcombe_interval(0, 30, 30, 30)
    assert lo30 > 0.8 and m.lift_ci95[0] < 0


def test_intervals_never_collapse_to_a_point() -> None:
    from upskill_hub.evaluation.stats.summarize import paired_lift

    flipped = paired_lift([1.0] * 40)
    assert flipped.ci95 == pytest.approx((1 - 2.022691 / (40 * 39) ** 0.5, 1.0), abs=1e-5)
    same = paired_lift([0.0] * 50)
    half = 2.009575 / (50 * 49) ** 0.5
    assert same.ci95 == pytest.approx((-half, half), abs=1e-5)
    assert same.mde80 is not None and same.mde80 > half
    # hand-computed, spread above the floor: mean 0.7, sd sqrt(0.7*0.3*10/9)
    d = [1.0, 0, 1, 0, 1, 1, 0, 1, 1, 1]
    got = paired_lift(d)
    se = (0.7 * 0.3 * 10 / 9) ** 0.5 * (10 / 9) ** 0.5 / 10**0.5
    assert got.se == pytest.approx(se)
    assert got.ci95 == pytest.approx((0.7 - 2.262157 * se, 1.0), abs=1e-5)
    assert not got.floored
    one = paired_lift([1.0])
    assert one.ci95 == (-1.0, 1.0) and one.se is None
    with pytest.raises(ValueError):
        paired_lift([])


def test_context_length_errors_in_one_arm_do_not_manufacture_lift() -> None:
    # the server: 5 cases pass in both arms, 5 fail without and overflow with the skill.
    # A rejection is known from the provider's structured signal (``rejected``), never from the
    # message text; either way it is a missing sample, counted in the bounds.
    err = "fake-model: request rejected (400) - This model's maximum context length is 99 tokens"
    samples = cases_samples([(5, 5)] * 5 + [(0, -1)] * 5, runs=5, error=err)
    for s in samples:
        if s.outcome == "error":
            s.rejected = "context_length"
    (m,) = summarize(samples)
    assert m.with_skill.rejected == 25 and m.with_skill.errors == 0
    assert (m.with_skill.passed, m.with_skill.total) == (25, 25)  # rejections: not graded
    assert (m.lift, m.lift_cases, m.excluded_cases) == (0.0, 5, 5)
    assert m.excluded_reason == "5 cases excluded: every request errored in one arm"
    assert m.verdict == "no measurable effect at this n"
    # the excluded cases are in the bounds: filled against the skill they change nothing (the
    # baseline fails them), filled for it they are five flips
    assert m.missing == {"baseline": 0, "with_skill": 25}
    assert m.lift_bounds == pytest.approx((0.0, 0.5))
    # the same text without the structured signal is an error, not a rejection
    samples = cases_samples([(5, 5)] * 5 + [(0, -1)] * 5, runs=5, error=err)
    (m,) = summarize(samples)
    assert m.with_skill.errors == 25 and m.with_skill.rejected == 0
    assert (m.lift, m.lift_cases, m.excluded_cases) == (0.0, 5, 5)
    assert m.lift_bounds == pytest.approx((0.0, 0.5))


def test_no_case_graded_in_both_arms_and_all_errors() -> None:
    samples = [sample("m", "a", 1, "baseline", "pass"), sample("m", "b", 1, "with_skill", "pass")]
    (m,) = summarize(samples)
    assert m.lift is None and m.verdict == "no data (no case graded in both arms)"
    assert m.excluded_cases == 2
    errors = cases_samples([(1, -1)] * 3, runs=1, error="boom")
    (m,) = summarize(errors)
    assert m.verdict == "no data (every request failed)" and m.lift is None


def test_holm_adjustment_across_models_is_reported() -> None:
    spec = [(0, 1)] * 4 + [(0, 0)] * 6  # d: four 1s, six 0s: lift 0.4, p ~ 0.045
    (alone,) = summarize(cases_samples(spec, runs=1))
    assert alone.verdict == "helps" and alone.lift_p is not None and alone.lift_p < 0.05
    assert alone.to_dict()["holm"] is None
    two = summarize(cases_samples(spec, runs=1, model="a") + cases_samples(spec, runs=1, model="b"))
    for m in two:
        assert m.verdict == "no measurable effect at this n"
        assert m.holm_changed and m.lift_p_holm == pytest.approx(2 * (alone.lift_p or 0))
        holm = m.to_dict()["holm"]
        assert holm["changed_verdict"] is True
        # the printed interval is the one at the adjusted level: it includes zero, as the
        # verdict says, while the unadjusted 95% interval does not
        assert holm["ci"][0] < 0 < holm["ci"][1] and m.lift_ci95 and m.lift_ci95[0] > 0
        assert holm["level"] == pytest.approx(1 - 0.05 / 2)


def test_case_table_categories_and_pass_all_runs() -> None:
    spec = [(0, 3), (3, 0), (3, 3), (0, 0), (1, 3)]
    (m,) = summarize(cases_samples(spec, runs=3))
    assert m.case_counts == {
        "fixed": 1,
        "broken": 1,
        "always_pass": 1,
        "always_fail": 1,
        "flaky": 1,
        "excluded": 0,
    }
    assert [r["category"] for r in m.case_table] == [
        "fixed",
        "broken",
        "always_pass",
        "always_fail",
        "flaky",
    ]
    assert m.baseline is not None
    assert m.baseline.pass_all_runs == pytest.approx(2 / 5)  # c1 and c2 pass every run
    assert m.with_skill.pass_all_runs == pytest.approx(3 / 5)


def test_mde_reads_no_effect_with_what_this_n_can_see() -> None:
    (m,) = summarize(cases_samples([(1, 1)] * 8 + [(0, 0)] * 8, runs=2))
    assert m.verdict == "no measurable effect at this n" and m.lift == 0.0
    # all d = 0: sd floored at 1/4; SE = 0.25 * sqrt(16/15) / 4; MDE = (t.975 + t.80, df 15) SE
    se = 0.25 * (16 / 15) ** 0.5 / 4
    assert m.mde80 == pytest.approx((2.131450 + 0.866120) * se, abs=1e-4)
