"""Worst-case bounds: a verdict stands only if the missing samples (errors, prompt rejections,
samples never run) cannot explain it, on constructed sample sets."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest

from upskill_hub.evaluation.stats.summarize import (
    HELPS,
    NOT_GRADED,
    NOT_GRADED_JUDGE,
    UNCLEAR,
    CaseCounts,
    LiftEvidence,
    decide,
    summarize,
)
from upskill_hub.evaluation.types import AssertionResult, Sample

# a case's runs in one arm: "p" pass, "f" fail, "e" error, "r" rejected, "s" every check skipped
Runs = str


def samples(cases: Iterable[tuple[Runs, Runs]], model: str = "m") -> list[Sample]:
    """One sample per character of each case's ``(baseline, with_skill)`` runs."""
    out = []
    for i, arms in enumerate(cases):
        for arm, runs in zip(("baseline", "with_skill"), arms, strict=True):
            for run, kind in enumerate(runs, 1):
                status = {"p": "pass", "f": "fail"}.get(kind, "skipped")
                outcome = {"p": "pass", "e": "error", "r": "error"}.get(kind, "fail")
                out.append(
                    Sample(
                        model=model,
                        case_id=f"c{i}",
                        run=run,
                        arm=arm,  # type: ignore[arg-type]
                        prompt_hash="h",
                        outcome=outcome,  # type: ignore[arg-type]
                        assertions=[]
                        if outcome == "error"
                        else [AssertionResult("judge" if kind == "s" else "contains", status)],  # type: ignore[arg-type]
                        error="boom" if outcome == "error" else None,
                        rejected="content_filter" if kind == "r" else None,
                        input_tokens=10,
                        output_tokens=10,
                        latency_s=1.0,
                    )
                )
    return out


def test_without_missing_samples_the_bounds_are_the_lift() -> None:
    (m,) = summarize(samples([("fffff", "ppppp")] * 12 + [("ppppp", "ppppp")] * 8))
    assert m.verdict == HELPS and m.decided_by == 0
    assert m.missing == {"baseline": 0, "with_skill": 0}
    assert m.lift_bounds == pytest.approx((m.lift, m.lift))
    assert m.lift_bounds_ci95 == pytest.approx(m.lift_ci95)


def test_a_few_errors_that_cannot_matter_leave_the_verdict_standing() -> None:
    # 3% of the with-skill samples errored, at random: a real effect survives them (the old
    # count rule called 3% errors in one arm "not comparable" in a quarter of such evals)
    rng = random.Random(5)
    cases = [["fffff", "ppppp"] for _ in range(10)] + [["fffff", "fffff"] for _ in range(10)]
    for i in rng.sample(range(20), 3):
        run = rng.randrange(5)
        cases[i][1] = cases[i][1][:run] + "e" + cases[i][1][run + 1 :]
    (m,) = summarize(samples([(a, b) for a, b in cases]))
    assert m.verdict == HELPS
    assert m.missing == {"baseline": 0, "with_skill": 3}
    assert m.lift_bounds is not None and m.lift_bounds[0] < (m.lift or 0) < m.lift_bounds[1]
    assert m.lift_bounds_ci95 is not None and m.lift_bounds_ci95[0] > 0


def test_equal_error_counts_placed_on_the_right_samples_are_not_comparable() -> None:
    # no true effect: 3 of 5 runs pass in both arms. The errors hit 2 baseline passes and 2
    # with-skill fails of every case: equal counts in both arms (the old rule saw nothing), an
    # observed lift of +67 pts, and an interval above zero.
    (m,) = summarize(samples([("pffee", "pppee")] * 10))
    assert m.lift == pytest.approx(2 / 3) and m.lift_ci95 and m.lift_ci95[0] > 0
    assert m.missing == {"baseline": 20, "with_skill": 20}
    assert m.lift_bounds == pytest.approx((0.0, 0.8))
    assert m.verdict.startswith(
        "not comparable: 40 missing samples (baseline 20, with skill 20) could explain the lift:"
    )
    assert 0 < m.decided_by <= 40
    assert f": {m.decided_by} of them counted against the skill remove it" in m.verdict


def test_the_mirror_image_for_hurts() -> None:
    (m,) = summarize(samples([("pppee", "pffee")] * 10))
    assert m.lift == pytest.approx(-2 / 3)
    assert m.verdict.startswith("not comparable: 40 missing samples")
    assert "could explain the harm" in m.verdict and "counted for the skill" in m.verdict


def test_a_case_that_errors_in_every_run_of_one_arm_is_in_the_bounds() -> None:
    # 9 cases flip; a tenth passes without the skill and errors in every run with it. It is
    # not in the lift (no graded sample with the skill) but it is in the bounds, and here the
    # verdict survives it
    (m,) = summarize(samples([("fff", "ppp")] * 9 + [("ppp", "eee")]))
    assert m.lift == 1.0 and (m.lift_cases, m.excluded_cases) == (9, 1)
    assert m.excluded_reason == "1 case excluded: every request errored in one arm"
    assert m.verdict == HELPS
    assert m.lift_bounds == pytest.approx((0.8, 0.9))
    # three such cases beside six flips: one fail among their missing samples is enough to
    # take "helps" away, and the verdict says so
    (m,) = summarize(samples([("fff", "ppp")] * 6 + [("ppp", "eee")] * 3))
    assert m.lift == 1.0 and m.lift_ci95 and m.lift_ci95[0] > 0
    assert m.verdict == (
        "not comparable: 9 missing samples (baseline 0, with skill 9) could explain the lift: "
        "1 of them counted against the skill removes it"
    )
    assert m.to_dict()["decided_by"] == 1


def test_samples_never_run_count_as_missing() -> None:
    # the with-skill arm of case c5 never ran (a run cancelled or a shard lost): its baseline
    # runs say how many samples it should have had
    cases = [("ffff", "pppp")] * 5 + [("pppp", "")]
    (m,) = summarize(samples(cases))
    assert m.missing == {"baseline": 0, "with_skill": 4}
    assert m.excluded_reason == "1 case excluded: not run in one arm"
    assert m.lift_bounds == pytest.approx((4 / 6, 5 / 6))


def test_decide_on_case_counts() -> None:
    flips = [CaseCounts(f"c{i}", 0, 5, 0, 5, 5, 0) for i in range(8)]
    assert decide(LiftEvidence(tuple(flips), 5)).verdict == HELPS  # type: ignore[union-attr]
    assert decide(LiftEvidence((), 5)) is None
    # one case whose with-skill arm is all missing: d is -1 or 0 once filled against the skill
    gone = CaseCounts("x", 5, 5, 0, 0, 0, 5)
    evidence = LiftEvidence((*flips, gone), 5)
    assert evidence.observed == [1.0] * 8 and evidence.missing == (0, 5)
    assert evidence.filled(against=True) == [1.0] * 8 + [-1.0]
    assert evidence.filled(against=False) == [1.0] * 8 + [0.0]


def test_rejections_are_missing_like_errors() -> None:
    (m,) = summarize(samples([("rrr", "ppp")] * 2 + [("fff", "ppp")] * 8))
    assert m.baseline is not None
    assert (m.baseline.rejected, m.baseline.errors, m.baseline.total) == (6, 0, 24)
    assert m.missing == {"baseline": 6, "with_skill": 0}
    assert m.lift == 1.0 and m.lift_bounds == pytest.approx((0.8, 1.0))
    assert m.verdict == HELPS


def test_nothing_graded_is_no_data_and_names_the_judge_flag() -> None:
    (m,) = summarize(samples([("sss", "sss")] * 3))
    assert m.baseline is not None
    assert (m.baseline.pass_rate, m.baseline.total, m.baseline.ungraded) == (None, 0, 3 * 3)
    assert m.lift is None and m.verdict == NOT_GRADED_JUDGE
    assert (
        "--judge-model" in m.verdict
        and m.excluded_reason == "3 cases excluded: no check ran on them"
    )
    # checks skipped for another reason (no nvcc): nothing graded, no flag to name
    plain = samples([("sss", "sss")] * 3)
    for s in plain:
        s.assertions = [AssertionResult("compiles", "skipped", "skipped: nvcc not found")]
    assert summarize(plain)[0].verdict == NOT_GRADED
    # graded samples beside ungraded ones: only the graded count
    (m,) = summarize(samples([("ssf", "ssp")] * 10))
    assert m.baseline is not None and (m.baseline.total, m.baseline.ungraded) == (10, 20)
    assert m.with_skill.pass_rate == 1.0 and m.baseline.pass_rate == 0.0
    assert m.missing == {"baseline": 0, "with_skill": 0}


def test_the_printed_interval_agrees_with_the_verdict_after_holm() -> None:
    rng = random.Random(11)
    for _ in range(40):
        models = []
        for name in ("a", "b", "c"):
            spec = []
            for _case in range(rng.randint(4, 12)):
                base = "".join(rng.choice("pf") for _ in range(2))
                skill = "".join(rng.choice("ppf") for _ in range(2))
                spec.append((base, skill))
            models += samples(spec, model=name)
        for m in summarize(models):
            if m.lift_p_holm is None:
                continue
            assert m.lift_ci95_holm is not None
            lo, hi = m.lift_ci95_holm
            excludes = lo > 0 or hi < 0
            assert excludes == (m.verdict != UNCLEAR), m  # tested: never "too few" after Holm
            assert excludes == (m.lift_p_holm < 0.05)


def test_the_report_prints_the_holm_adjusted_interval_next_to_the_verdict() -> None:
    from rich.console import Console

    from upskill_hub.evaluation.report.table import build_tables, model_notes

    spec = [("f", "p")] * 4 + [("f", "f")] * 6  # alone: lift +40 pts, "helps" (p ~ 0.045)
    models = [m.to_dict(extended=True) for m in summarize(samples(spec, "a") + samples(spec, "b"))]
    console = Console(width=200, record=True, color_system=None)
    for table in build_tables(models):
        console.print(table)
    text = console.export_text()
    lo, hi = models[0]["holm"]["ci"]
    assert lo < 0 < hi and models[0]["lift_ci95"][0] > 0
    assert f"[{lo * 100:+.0f}, {hi * 100:+.0f}]H" in text  # the interval that goes with the verdict
    assert "no measurable effect at this n" in text
    (note,) = [n for n in model_notes(models[0]) if "Holm" in n]
    assert (
        "97.5% level" in note and "verdict adjusted" in note and "unadjusted 95% interval" in note
    )


def test_old_summaries_read_as_what_they_meant() -> None:
    """A stats_version 2 summary.json graded refusals as fails: its notes say so, once; a
    version 3 one says they are missing."""
    from upskill_hub.evaluation.report.table import notes
    from upskill_hub.evaluation.run.records import RunSummary

    model = {
        "model": "m",
        "baseline": {"rejected": 0},
        "with_skill": {"rejected": 3},
        "holm": {"p_adjusted": 0.08, "changed_verdict": True},
    }
    old = {"stats_version": 2, "errors": 5, "rejected": 3, "models": [model]}
    text = " ".join(notes(RunSummary.from_dict(old)))
    assert "counted as fails: with skill 3" in text and "missing" not in text
    assert "2 sample(s) failed after retries" in text and "3 refused" in text
    assert "not after Holm adjustment" in text  # no adjusted interval in version 2
    new = {"stats_version": 3, "errors": 5, "rejected": 3, "models": [{**model, "missing": {}}]}
    text = " ".join(notes(RunSummary.from_dict(new)))
    assert "counted as fails" not in text and "missing like errors" in text
    assert "5 sample(s) without an answer (outcome error, 3 of them refused" in text


def test_holm_never_turns_a_tested_model_into_too_few_cases() -> None:
    """ "Too few cases" is decided by the design at the nominal 95%: 5 cases at 2 runs can show
    a lift there (MDE 83 pts), so the model is in Holm's family; at its adjusted level (98.3%,
    3 models) the MDE passes 100 pts, yet the verdict is "no measurable effect", not "too few
    cases" (which would read as a model that was never tested)."""
    lifted = samples([("ff", "fp")] * 3 + [("ff", "pp")] * 2, model="a")
    flat = [samples([("pf", "pf")] * 6, model=name) for name in ("b", "c")]
    a, *_ = summarize(lifted + flat[0] + flat[1])
    assert a.mde80 is not None and a.mde80 < 1 and a.lift_p is not None and a.lift_p < 0.05
    assert a.holm_level == pytest.approx(0.9833, abs=1e-3)
    assert a.verdict == UNCLEAR and a.holm_changed
