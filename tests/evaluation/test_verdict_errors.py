"""Verdicts that errors cannot buy: ``upskill-hub eval`` against a local model server that
refuses or throttles baseline requests only.

A failure that hits one arm must never read as the skill's effect: a 429 "Too many tokens", a
400 whose text mentions the context length, a 400 with OpenAI's ``context_length_exceeded``
code, and a reply withheld with ``finish_reason: content_filter`` are all missing samples (only
the structured ones are counted as ``rejected``), left out of the lift and counted in its
worst-case bounds; a verdict the missing samples could explain reads "not comparable".
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import run_cli
from tests.support.eval_runs import FACT, canary_skill, marker, quuxium_cases, run_eval
from tests.support.llm_servers import (
    ErrorReply,
    FinishReply,
    last_user_message,
    openai_server,
    system_prompt,
)

MARKER = marker("canary-verdict")
RIGHT = f"It is {FACT}."


def case_of(request: dict[str, Any]) -> int:
    found = re.match(r"Q(\d+):", last_user_message(request))
    assert found, last_user_message(request)
    return int(found.group(1))


def with_skill(request: dict[str, Any]) -> bool:
    return MARKER in system_prompt(request)


FAULTS = {
    # a real provider's throttling message: retryable, never a rejection
    "429 too many tokens": ErrorReply(429, "Too many tokens, please wait before trying again."),
    # the words of a context overflow without its code: a final error, not a rejection
    "400 without a code": ErrorReply(400, "This model's maximum context length is 99 tokens"),
    # OpenAI's structured overflow, and a reply withheld by the content filter: rejections
    "400 context_length_exceeded": ErrorReply(
        400, "This model's maximum context length is 99 tokens", "context_length_exceeded"
    ),
    "finish_reason content_filter": FinishReply("", "content_filter"),
}
REJECTED = {"400 context_length_exceeded", "finish_reason content_filter"}


def summary_of(done: Any) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    run_dir = Path(json.loads(done.stdout)["run_dir"])
    return json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("fault", list(FAULTS))
def test_baseline_only_failures_buy_no_lift(fault: str, tmp_path: Path) -> None:
    """The skill changes nothing (both arms answer every case right); the server fails the
    baseline requests of 6 of the 8 cases. The old rule graded "too many tokens" and content
    filter errors as baseline fails: +75 pts, "helps". They are missing samples now."""
    skill = canary_skill(tmp_path, quuxium_cases(8), name="canary-verdict")

    def responder(request: dict[str, Any]) -> str | ErrorReply | FinishReply:
        if not with_skill(request) and case_of(request) < 6:
            return FAULTS[fault]
        return RIGHT

    with openai_server(responder) as srv:
        done = run_eval(
            skill, srv.base_url, "-m", "fake-model", "--retries", "0", "--format", "json",
            "-o", str(tmp_path / "runs"),
        )  # fmt: skip
    summary = summary_of(done)
    (model,) = summary["models"]
    base = model["baseline"]
    rejected = 6 if fault in REJECTED else 0
    assert (base["passed"], base["total"]) == (2, 2)  # nothing refused is graded as a fail
    assert (base["errors"], base["rejected"]) == (6 - rejected, rejected)
    assert summary["errors"] == 6 and summary["rejected"] == rejected
    # two cases graded in both arms: no lift claimed, and too few to judge one
    assert model["verdict"].startswith("too few cases: 2 cases cannot detect any lift")
    assert model["lift"] == 0.0 and model["lift_cases"] == 2 and model["excluded_cases"] == 6
    # the 6 cases are in the bounds: filled against the skill nothing changes, filled for it
    # they would be six flips
    assert model["missing"] == {"baseline": 6, "with_skill": 0}
    assert model["lift_bounds"] == [0.0, 0.75]
    assert summary["stats_version"] == 3


def test_a_lift_the_missing_samples_could_explain_is_not_comparable(tmp_path: Path) -> None:
    """4 of 6 cases flip with the skill; the content filter withholds the second baseline run
    of each of them. The observed lift is "helps" (the remaining runs fail); counted as baseline
    passes, two of the four withheld samples take it away: "not comparable"."""
    skill = canary_skill(tmp_path, quuxium_cases(6), name="canary-verdict")

    def responder(request: dict[str, Any]) -> str | FinishReply:
        case = case_of(request)
        if with_skill(request) or case >= 4:
            return RIGHT
        return FinishReply("", "content_filter") if request.get("seed") == 2 else "No idea."

    common = ["-m", "fake-model", "--runs", "2", "--seed", "1", "-o", str(tmp_path / "runs")]
    with openai_server(responder) as srv:
        done = run_eval(skill, srv.base_url, *common, "--format", "json")
        text = run_eval(skill, srv.base_url, *common)
    (model,) = summary_of(done)["models"]
    assert model["lift"] == pytest.approx(4 / 6) and model["lift_ci95"][0] > 0
    assert model["baseline"]["rejected"] == 4 and model["baseline"]["total"] == 8
    assert model["verdict"] == (
        "not comparable: 4 missing samples (baseline 4, with skill 0) could explain the lift: "
        "2 of them counted against the skill remove it"
    )
    assert model["decided_by"] == 2
    assert model["lift_bounds"] == pytest.approx([2 / 6, 4 / 6], abs=1e-6)
    # the text report says once what happened to the refused samples, and prints the bounds
    assert text.returncode == 0, text.stderr
    out = " ".join(text.stdout.split())
    assert "counted as fails" not in out
    assert (
        "refused for their prompt (context length, content filter, refusal): baseline 4; missing"
        in out
    )
    assert "counted against / for the skill: +33 pts / +67 pts" in out
    # the err column counts every sample without an answer, rejections included
    assert re.search(r"baseline\s*│\s*50%\s*│[^│]*│\s*8\s*│\s*4\s*│", text.stdout), text.stdout


def test_several_models_print_the_interval_that_goes_with_the_verdict(tmp_path: Path) -> None:
    """Alone, each model's lift (+40 pts over 10 cases) is "helps"; Holm over the two models
    takes that away, and every surface then prints the adjusted interval, which includes zero,
    beside "no measurable effect", never the unadjusted one that excludes it."""
    skill = canary_skill(tmp_path, quuxium_cases(10), name="canary-verdict")

    def responder(request: dict[str, Any]) -> str:
        return RIGHT if with_skill(request) and case_of(request) < 4 else "No idea."

    common = ["-m", "fake-model", "-m", "other-model", "-o", str(tmp_path / "runs")]
    with openai_server(responder) as srv:
        done = run_eval(skill, srv.base_url, *common, "--format", "json")
        text = run_eval(skill, srv.base_url, *common)
    models = summary_of(done)["models"]
    assert [m["verdict"] for m in models] == ["no measurable effect at this n"] * 2
    for m in models:
        assert m["lift_ci95"][0] > 0 and m["holm"]["changed_verdict"] is True
        lo, hi = m["holm"]["ci"]
        assert lo < 0 < hi
    assert text.returncode == 0, text.stderr
    assert f"[{lo * 100:+.0f}, {hi * 100:+.0f}]H" in text.stdout
    unadjusted = models[0]["lift_ci95"]
    assert (
        f"[{unadjusted[0] * 100:+.0f}, {unadjusted[1] * 100:+.0f}]"
        not in text.stdout.split("note:")[0]
    )
    # results show reads the run folder: the same, adjusted interval
    run_dir = Path(json.loads(done.stdout)["run_dir"])
    shown = run_cli("results", "show", str(run_dir), "--format", "json")
    assert shown.returncode == 0, shown.stderr
    for m in json.loads(shown.stdout)["models"]:
        assert m["lift_ci95"] == pytest.approx([lo, hi], abs=1e-6)
        assert m["verdict"] == "no measurable effect at this n"
