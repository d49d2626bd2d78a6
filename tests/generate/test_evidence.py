"""Failure evidence: complete outputs and reasons; whole cases dropped (and said so)."""

from __future__ import annotations

from upskill_hub.evaluation.types import AssertionResult, Sample
from upskill_hub.generate.failures import failure_evidence
from upskill_hub.skill import TestCase


def case(n: int) -> TestCase:
    return TestCase(
        id=f"c{n}",
        input=f"question {n}",
        files={"data.csv": f"a,b\n{n},2\n"},
        assertions=({"type": "contains", "values": [f"ANSWER-{n}"]},),
    )


def sample(n: int, run: int, arm: str, outcome: str, output: str, model: str = "m") -> Sample:
    results = (
        [AssertionResult("contains", "fail", f"missing: 'ANSWER-{n}'")]
        if outcome == "fail"
        else [AssertionResult("contains", "pass", "found")]
    )
    return Sample(
        model=model,
        case_id=f"c{n}",
        run=run,
        arm=arm,  # type: ignore[arg-type]
        prompt_hash="sha256:x",
        outcome=outcome,  # type: ignore[arg-type]
        output=output,
        assertions=results,
    )


def long_output(n: int) -> str:
    return f"START-{n} " + "x" * 3000 + f" END-{n}"


CASES = [case(1), case(2), case(3)]


def test_every_failure_whole_with_reasons_and_files() -> None:
    samples = [
        sample(1, 1, "with_skill", "fail", long_output(1)),
        sample(1, 2, "with_skill", "fail", long_output(1)),  # same output: shown once
        sample(1, 1, "baseline", "pass", "ANSWER-1"),
        sample(2, 1, "with_skill", "pass", "ANSWER-2"),
        sample(3, 1, "with_skill", "fail", long_output(3), model="other"),
        sample(3, 1, "with_skill", "error", "", model="m"),
    ]
    ev = failure_evidence(samples, CASES)
    assert not ev.shortened and ev.shown_cases == ["c1", "c3"] and ev.failed_samples == 3
    assert long_output(1) in ev.text and long_output(3) in ev.text
    assert ev.text.count(long_output(1)) == 1
    assert "#### Student `m`, runs 1, 2 (identical output)" in ev.text
    assert "Passed WITHOUT the skill in run 1" in ev.text
    assert "- contains (fail): missing: 'ANSWER-1'" in ev.text
    assert '<file name="data.csv">\na,b\n1,2\n' in ev.text
    assert "question 3" in ev.text and "Case `c2`" not in ev.text
    assert "1 with-skill request(s) failed at the API" in ev.text
    assert "NOTE" not in ev.text


def test_over_budget_drops_whole_cases_and_says_so() -> None:
    samples = [sample(n, 1, "with_skill", "fail", long_output(n)) for n in (1, 2, 3)]
    full = failure_evidence(samples, CASES)
    ev = failure_evidence(samples, CASES, budget=len(full.text) // 2)
    assert ev.shortened
    assert ev.shown_cases == ["c1"] and ev.omitted_cases == ["c2", "c3"]
    assert ev.text.startswith("NOTE: this evidence was shortened")
    assert "2 whole cases were left out" not in ev.text  # exact wording below
    assert "these whole cases were left out: c2, c3" in ev.text
    assert long_output(1) in ev.text
    # nothing of a left-out case appears: no case is cut in the middle
    for n in (2, 3):
        assert f"START-{n}" not in ev.text and f"END-{n}" not in ev.text


def test_first_case_always_shown_whole_even_over_budget() -> None:
    samples = [sample(n, 1, "with_skill", "fail", long_output(n)) for n in (1, 2)]
    ev = failure_evidence(samples, CASES, budget=100)
    assert ev.shown_cases == ["c1"] and long_output(1) in ev.text
    assert "left out: c2" in ev.text
