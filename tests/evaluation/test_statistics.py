from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from upskill_hub.evaluation.statistics import (
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
    assert m1.lift == pytest.approx(1 - 1 / 6)
    assert m1.lift_ci95 == newcombe_interval(1, 6, 5, 5)
    assert m1.verdict == "helps"
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
    ]
    arm_keys = ["pass_rate", "passed", "total", "errors", "ci95", "tokens", "latency_s"]
    assert list(data["baseline"]) == arm_keys
    assert list(data["with_skill"]) == arm_keys
    assert data["with_skill"]["tokens"] == {"input": 50.0, "output": 100.0}
    assert data["baseline"]["ci95"] == [round(v, 6) for v in wilson_interval(1, 6)]
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
    assert stats.verdict == "no measurable effect at this n"
    errors = [
        sample("m", "a", 1, "baseline", "error"),
        sample("m", "a", 1, "with_skill", "pass"),
    ]
    (stats,) = summarize(errors)
    assert stats.baseline is not None
    assert (stats.baseline.pass_rate, stats.baseline.total, stats.baseline.errors) == (None, 0, 1)
    assert stats.lift is None and stats.token_savings is None
    assert stats.lift_ci95 == (-1.0, 1.0)
    assert stats.to_dict()["baseline"]["tokens"] == {"input": None, "output": None}
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
