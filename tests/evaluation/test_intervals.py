"""The lift's interval maths (issue 22, items 3 and 4): the exact sign-flip test over cases, the
spread floor that depends on runs, the MDE cap, "too few cases", and the two-way clustered
standard error."""

from __future__ import annotations

import itertools
import math
import random
import statistics as stats

import pytest

from tests.evaluation.test_statistics import cases_samples
from upskill_hub.evaluation.stats.intervals import (
    cases_needed,
    paired_lift,
    sign_flip_p,
    t_quantile,
    twoway_clustered_se,
)
from upskill_hub.evaluation.stats.summarize import summarize


def _brute(diffs: list[float]) -> float:
    total = abs(sum(diffs))
    hits = sum(
        1
        for signs in itertools.product((1, -1), repeat=len(diffs))
        if abs(sum(s * d for s, d in zip(signs, diffs, strict=True))) >= total - 1e-9
    )
    return hits / 2 ** len(diffs)


def test_sign_flip_p_is_exact() -> None:
    # the example: 10 of 10 cases each up by 0.2 -> 2 / 1024
    assert sign_flip_p([0.2] * 10) == 2 / 1024
    assert sign_flip_p([1.0] * 5) == 2 / 32  # 5 cases can never reach 5%
    assert sign_flip_p([0.0] * 7) == 1.0
    rng = random.Random(3)
    values = [-1, -0.6, -0.4, -0.2, 0, 0.2, 0.4, 1 / 3, -2 / 3, 0.8, 1]
    for _ in range(150):
        d = [rng.choice(values) for _ in range(rng.randint(1, 11))]
        assert sign_flip_p(d) == pytest.approx(_brute(d), abs=1e-12), d


def test_sign_flip_p_falls_back_for_values_off_any_small_lattice() -> None:
    d = [math.pi / 10, math.e / 10, 0.123456789]
    p = sign_flip_p(d)
    assert 0 < p <= 1  # normal approximation of the same randomization distribution


def test_uniform_small_gains_are_recognised_with_the_runs_floor() -> None:
    # 10 cases each up by one run of 5: the whole-flip floor hid it (t p = 0.09)
    previous = paired_lift([0.2] * 10)
    assert previous.p_value == pytest.approx(0.0903, abs=1e-3)
    assert previous.ci95[0] < 0 and previous.floor_step == 1.0
    got = paired_lift([0.2] * 10, runs=5)
    assert got.sign_flip_p == pytest.approx(0.001953, abs=1e-6)
    assert got.floor_step == pytest.approx(0.2) and got.floored
    # floor sd = (1/5)/sqrt(10); SE = floor * sqrt(10/9) / sqrt(10)
    se = 0.2 / 10**0.5 * (10 / 9) ** 0.5 / 10**0.5
    half = t_quantile(0.975, 9) * se
    assert got.ci95 == pytest.approx((0.2 - half, 0.2 + half))
    assert got.ci95[0] > 0  # "helps"
    # its p (what Holm adjusts across models) is that of both tests: the sign-flip one here
    assert got.p_value == got.sign_flip_p


def test_floor_drops_only_when_the_exact_test_agrees() -> None:
    # 50 unchanged cases at 5 runs: nothing moved together, the whole-flip floor stays
    same = paired_lift([0.0] * 50, runs=5)
    assert same.floor_step == 1.0 and same.ci95 == paired_lift([0.0] * 50).ci95
    # 3 of 3 flipped at 10 runs: p = 0.25, whole-flip floor, [-0.76, 1]
    three = paired_lift([1.0] * 3, runs=10)
    assert three.floor_step == 1.0 and three.sign_flip_p == 0.25
    assert three.ci95[0] == pytest.approx(1 - 4.302653 / 6**0.5, abs=1e-5)
    # with a spread above the floor, runs change nothing
    d = [1.0, 0, 1, 0, 1, 1, 0, 1, 1, 1]
    assert paired_lift(d, runs=5).ci95 == paired_lift(d).ci95
    with pytest.raises(ValueError):
        paired_lift([0.1, 0.2], runs=0)


def test_mde_is_capped_and_small_designs_are_not_detectable() -> None:
    three = paired_lift([1.0, 1.0, 1.0])
    assert three.mde80 == 1.0 and not three.detectable  # uncapped: 2.19
    four = paired_lift([0.0] * 4)
    assert four.mde80 == 1.0 and not four.detectable  # uncapped: 1.2
    five = paired_lift([0.0] * 5)
    assert five.mde80 is not None and five.mde80 < 1 and five.detectable
    wide = paired_lift([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])  # sd 1.1: MDE above 100 pts
    assert wide.mde80 == 1.0 and not wide.detectable


def test_cases_needed_is_the_fewest_cases_reaching_the_mde() -> None:
    def mde(n: int, sd: float) -> float:
        se = max(sd, 1 / n**0.5) / (n - 1) ** 0.5
        return (t_quantile(0.975, n - 1) + t_quantile(0.8, n - 1)) * se

    for lift, sd in ((0.2, 0.0), (0.2, 0.5), (0.3, 1.0), (0.05, 0.3)):
        n = cases_needed(lift, sd=sd)
        assert n is not None and mde(n, sd) <= lift < mde(n - 1, sd)
    assert cases_needed(0.0, sd=0.3) is None


def test_too_few_cases_never_reads_as_no_effect() -> None:
    # the seed experiment's shape: 3 cases x 5 runs, every case fixed
    (m,) = summarize(cases_samples([(0, 5)] * 3, runs=5))
    need = cases_needed(0.2, sd=0.0)
    assert m.verdict == (
        "too few cases: 3 cases cannot detect any lift at this n; "
        f"about {need} needed for a 20-pt lift (80% power)"
    )
    data = m.to_dict()
    assert data["mde80"] == 1.0 and data["sign_flip_p"] == 0.25
    # a detectable design with no lift keeps "no measurable effect at this n"
    (m,) = summarize(cases_samples([(2, 2)] * 10, runs=5))
    assert m.verdict == "no measurable effect at this n"


def test_uniform_gain_eval_says_helps_through_summarize() -> None:
    # 10 cases, 5 runs: each passes 1 of 5 without the skill and 2 of 5 with it
    (m,) = summarize(cases_samples([(1, 2)] * 10, runs=5))
    assert m.lift == pytest.approx(0.2) and m.verdict == "helps"
    assert m.sign_flip_p == pytest.approx(2 / 1024) and m.floor_step == pytest.approx(0.2)


def _per_case(
    rows: list[tuple[str, int, bool, bool]],
) -> dict[str, tuple[list[tuple[int, bool]], list[tuple[int, bool]]]]:
    out: dict[str, tuple[list[tuple[int, bool]], list[tuple[int, bool]]]] = {}
    for case, run, with_skill, passed in rows:
        out.setdefault(case, ([], []))[1 if with_skill else 0].append((run, passed))
    return out


def test_twoway_standard_error() -> None:
    # balanced: no run effect -> the one-way (case) figure is sd(d)/sqrt(n)
    rng = random.Random(5)
    rows = []
    for c in range(12):
        p_a, p_b = rng.random(), rng.random()
        for run in range(1, 6):
            rows.append((f"c{c}", run, False, rng.random() < p_a))
            rows.append((f"c{c}", run, True, rng.random() < p_b))
    got = twoway_clustered_se(_per_case(rows))
    assert got is not None and got.cases == 12 and got.run_arm_clusters == 10
    rates: dict[tuple[str, bool], list[bool]] = {}
    for case, _run, arm, passed in rows:
        rates.setdefault((case, arm), []).append(passed)
    d = [sum(rates[(f"c{c}", True)]) / 5 - sum(rates[(f"c{c}", False)]) / 5 for c in range(12)]
    assert got.se_case == pytest.approx(stats.stdev(d) / 12**0.5)
    # a shock: run 1 of the with-skill arm passes everything, run 2 fails everything
    shocked = [
        (case, run, arm, True if (arm and run == 1) else False if (arm and run == 2) else p)
        for case, run, arm, p in rows
    ]
    s = twoway_clustered_se(_per_case(shocked))
    assert s is not None and s.se_run_arm > got.se_run_arm
    assert twoway_clustered_se(_per_case(rows[:2])) is None  # one case


def test_summary_reports_the_twoway_se_with_three_runs_or_more() -> None:
    (two,) = summarize(cases_samples([(0, 2), (1, 2), (2, 2)] * 3, runs=2))
    assert two.to_dict()["lift_se_twoway"] is None
    (three,) = summarize(cases_samples([(0, 3), (1, 3), (2, 2)] * 3, runs=3))
    found = three.to_dict()["lift_se_twoway"]
    assert set(found) == {"se", "se_case", "se_run_arm", "cases", "run_arm_clusters"}
    assert found["cases"] == 9 and found["run_arm_clusters"] == 6
