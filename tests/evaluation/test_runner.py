"""The runner against real local OpenAI/Anthropic-compatible servers.

The canary skill teaches a made-up fact that no model can know; the fake servers answer it only
when the skill block is in the system prompt, so a correct runner measures baseline 0 and
with-skill 1, and a leaky one (skill text in the baseline) or a mis-routed one shows at once.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.llm_servers import (
    anthropic_server,
    last_user_message,
    openai_server,
    skill_aware,
    system_prompt,
)
from upskill_hub.backoff import RetryPolicy, backoff_delay
from upskill_hub.errors import UnknownModelError, UsageError
from upskill_hub.evaluation.config import EvalConfig
from upskill_hub.evaluation.eval_result import EvalResult, Progress
from upskill_hub.evaluation.prompts import BASE_SYSTEM_PROMPT, build_messages, prompt_hash
from upskill_hub.evaluation.providers.resolve import resolve_model
from upskill_hub.evaluation.run.folder import read_samples
from upskill_hub.evaluation.run.info import public_url
from upskill_hub.evaluation.runner import evaluate, run_eval
from upskill_hub.evaluation.types import GenerationParams, Sample
from upskill_hub.skill import Skill, load_skill
from upskill_hub.skill.testcases import TestCase

FACT = "ZORBLAT-7341-QX"
BODY_MARK = "canary-body-5e1d"
SKILL_MD = f"""---
name: canary-facts
description: Knows the Zorblat constant. Use when asked about Zorblat.
---

# Canary facts ({BODY_MARK})

The Zorblat constant is {FACT}. Always state it exactly.
"""
MARKER = '<skill name="canary-facts">'
RESPONDER = skill_aware(MARKER, with_skill=f"The Zorblat constant is {FACT}.", without="Unknown.")
SENTINEL = "sk-sentinel-0123456789abcdef"


def cases(n: int = 2) -> list[TestCase]:
    return [
        TestCase(
            id=f"case-{i}",
            input=f"Question {i}: what is the Zorblat constant?",
            files={"notes.txt": f"note {i}"} if i == 0 else {},
            assertions=({"type": "contains", "values": [FACT]},),
        )
        for i in range(n)
    ]


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    folder = tmp_path / "canary-facts"
    folder.mkdir()
    (folder / "SKILL.md").write_text(SKILL_MD)
    return load_skill(folder)


def fast(
    *, retries: int = 3, base_s: float = 0.01, max_s: float = 0.05, **overrides: Any
) -> EvalConfig:
    """A config for the fake servers: short waits between retries."""
    values: dict[str, Any] = {
        "models": ["fake-model"],
        "runs": 1,
        "concurrency": 4,
        "params": GenerationParams(temperature=0.0, max_tokens=64, seed=None, timeout=5.0),
        "retry": RetryPolicy(retries=retries, base_s=base_s, max_s=max_s),
    }
    values.update(overrides)
    return EvalConfig(**values)


def only(result: EvalResult) -> dict[str, Any]:
    assert len(result.stats) == 1
    return result.stats[0].to_dict()


def test_canary_lift_with_symmetric_arms(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER) as srv:
        params = GenerationParams(temperature=0.3, max_tokens=64, seed=11, timeout=5.0)
        config = fast(base_url=srv.base_url, runs=2, params=params)
        result = evaluate(skill, cases(), config, output_root=tmp_path / "runs")
        requests = srv.requests
    stats = only(result)
    assert stats["baseline"]["pass_rate"] == 0.0 and stats["baseline"]["total"] == 4
    assert stats["with_skill"]["pass_rate"] == 1.0 and stats["with_skill"]["total"] == 4
    # two cases that both flip: by case, too few to call it a win
    assert stats["lift"] == 1.0 and stats["verdict"].startswith("too few cases: 2 cases")
    assert stats["lift_cases"] == 2
    assert len(requests) == 8

    base = [r.json for r in requests if r.json and MARKER not in system_prompt(r.json)]
    with_skill = [r.json for r in requests if r.json and MARKER in system_prompt(r.json)]
    assert len(base) == len(with_skill) == 4
    assert not any(BODY_MARK in json.dumps(r) or FACT in json.dumps(r) for r in base)
    assert all(BODY_MARK in system_prompt(r) for r in with_skill)
    assert {system_prompt(r) for r in base} == {BASE_SYSTEM_PROMPT}
    assert all(system_prompt(r).startswith(BASE_SYSTEM_PROMPT + "\n\n") for r in with_skill)
    assert sorted(last_user_message(r) for r in base) == sorted(
        last_user_message(r) for r in with_skill
    )
    assert all(r["temperature"] == 0.3 for r in base + with_skill)
    # run N samples with seed + N - 1: repeated runs differ yet stay reproducible
    assert (
        sorted(r["seed"] for r in base) == sorted(r["seed"] for r in with_skill) == [11, 11, 12, 12]
    )
    assert all(r["max_tokens"] == 64 and r["model"] == "fake-model" for r in base + with_skill)

    by_case = {c.id: c for c in cases()}
    for s in result.samples:
        text = skill.skill_md_text if s.arm == "with_skill" else None
        expected = build_messages(by_case[s.case_id], text, skill_name="canary-facts")
        assert s.prompt_hash == prompt_hash(expected)
        assert s.input_tokens > 0 and s.output_tokens > 0
    assert [s.key for s in result.samples] == sorted(
        (s.key for s in result.samples), key=lambda k: (k[1], k[2], k[3] != "baseline")
    )
    on_disk = read_samples(result.run_dir / "samples.jsonl")
    assert sorted(s.key for s in on_disk) == sorted(s.key for s in result.samples)


def test_run_folder_contents_and_no_secret(
    skill: Skill, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOME_SERVICE_API_KEY", SENTINEL + "-env")
    with openai_server(RESPONDER, api_key=SENTINEL) as srv:
        config = fast(base_url=srv.base_url, api_key=SENTINEL, judge_model="fake-model")
        judged = [
            TestCase(
                id="judged",
                input="Zorblat?",
                assertions=({"type": "judge", "rubric": "mentions the constant"},),
            )
        ]
        result = evaluate(skill, cases() + judged, config, output_root=tmp_path / "runs")
    names = sorted(p.name for p in result.run_dir.iterdir())
    assert names == [
        "benchmark.json",
        "lift.png",
        "run.json",
        "samples.jsonl",
        "summary.json",
        "tests.json",
    ]
    for path in result.run_dir.iterdir():
        data = path.read_bytes()
        assert SENTINEL.encode() not in data, path.name
    assert (result.run_dir / "lift.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    info = json.loads((result.run_dir / "run.json").read_text())
    assert info["status"] == "complete" and info["models"] == ["fake-model"]
    assert info["case_ids"] == ["case-0", "case-1", "judged"]
    assert info["params"] == {"temperature": 0.0, "max_tokens": 64, "seed": None, "timeout": 5.0}
    assert info["reproduce"].startswith("upskill-hub eval ")
    assert "--model fake-model" in info["reproduce"] and "--base-url" in info["reproduce"]
    tests = json.loads((result.run_dir / "tests.json").read_text())
    assert [t["id"] for t in tests["upskill_hub"]["tests"]] == ["case-0", "case-1", "judged"]
    summary = json.loads((result.run_dir / "summary.json").read_text())
    assert summary["complete"] is True and summary["samples"] == 6
    # the judge (the same fake model, called without the skill) answers "Unknown." -> error
    judged_samples = [s for s in result.samples if s.case_id == "judged"]
    assert {a.status for s in judged_samples for a in s.assertions} == {"error"}


def test_judge_model_grades_judge_assertions(skill: Skill, tmp_path: Path) -> None:
    def responder(request: dict[str, Any]) -> str:
        if "<rubric>" in last_user_message(request):
            return (
                "PASS\nIt states the constant."
                if FACT in last_user_message(request)
                else ("FAIL\nNo constant.")
            )
        return RESPONDER(request)

    judged = TestCase(
        id="judged",
        input="Zorblat?",
        assertions=({"type": "judge", "rubric": "states the Zorblat constant"},),
    )
    with openai_server(responder) as srv:
        config = fast(base_url=srv.base_url, judge_model="fake-model")
        result = evaluate(skill, [judged], config, output_root=tmp_path, write_chart=False)
    assert {s.arm: s.outcome for s in result.samples} == {"baseline": "fail", "with_skill": "pass"}
    assert all(s.assertions[0].reason.startswith("judge:") for s in result.samples)


def test_judge_without_a_model_is_skipped_when_only_a_spec_names_one(
    skill: Skill, tmp_path: Path
) -> None:
    def responder(request: dict[str, Any]) -> str:
        if "<rubric>" in last_user_message(request):
            return "PASS\nIt states the constant."
        return RESPONDER(request)

    judged = TestCase(
        id="judged",
        input="Zorblat?",
        assertions=(
            {"type": "judge", "rubric": "states the Zorblat constant", "model": "fake-model"},
            {"type": "judge", "rubric": "is polite"},
        ),
    )
    with openai_server(responder) as srv:
        config = fast(base_url=srv.base_url, no_baseline=True)  # no --judge-model
        result = evaluate(skill, [judged], config, output_root=tmp_path, write_chart=False)
        rubric_calls = [
            r for r in srv.requests if r.json and "<rubric>" in last_user_message(r.json)
        ]
    [sample] = result.samples
    named, unnamed = sample.assertions
    assert (named.status, named.reason) == ("pass", "judge: It states the constant.")
    assert (unnamed.status, unnamed.reason) == (
        "skipped",
        "skipped: no judge model configured (--judge-model)",
    )
    assert sample.outcome == "pass" and len(rubric_calls) == 1


def test_outputs_echoing_a_key_are_redacted_before_they_are_written(
    skill: Skill, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_secret = "env-secret-value-7f3a9c2e"
    monkeypatch.setenv("SOME_SERVICE_TOKEN", env_secret)
    leak = (
        f"{FACT}; key {SENTINEL}, env {env_secret}, other sk-ant-api03-abcdefXYZ and hf_abcdefghij"
    )

    with openai_server(lambda _request: leak, api_key=SENTINEL) as srv:
        config = fast(base_url=srv.base_url, api_key=SENTINEL, no_baseline=True)
        result = evaluate(skill, cases(1), config, output_root=tmp_path, write_chart=False)
    [sample] = result.samples
    assert sample.outcome == "pass"  # the assertions saw the real output
    assert sample.output == f"{FACT}; key ***, env ***, other *** and ***"
    data = (result.run_dir / "samples.jsonl").read_text()
    for secret in (SENTINEL, env_secret, "sk-ant-api03", "hf_abcdefghij"):
        assert secret not in data
    [on_disk] = read_samples(result.run_dir / "samples.jsonl")
    assert on_disk.output == sample.output


def test_429_retry_after_is_honoured(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER) as srv:
        srv.inject("429", retry_after=1)
        config = fast(base_url=srv.base_url, concurrency=1, no_baseline=True)
        result = evaluate(skill, cases(1), config, output_root=tmp_path, write_chart=False)
        requests = srv.requests
    assert [r.fault for r in requests] == ["429", None]
    waited = requests[1].received_at - requests[0].received_at
    assert 1.0 <= waited < 2.5, waited
    assert [(s.outcome, s.attempts) for s in result.samples] == [("pass", 2)]


@pytest.mark.parametrize("faults", [["500"], ["malformed"], ["drop"], ["503", "drop", "malformed"]])
def test_retryable_faults_then_success(skill: Skill, tmp_path: Path, faults: list[str]) -> None:
    with openai_server(RESPONDER) as srv:
        for fault in faults:
            srv.inject(fault)
        config = fast(base_url=srv.base_url, concurrency=1, no_baseline=True)
        result = evaluate(skill, cases(1), config, output_root=tmp_path, write_chart=False)
        assert [r.fault for r in srv.requests] == [*faults, None]
    assert [(s.outcome, s.attempts) for s in result.samples] == [("pass", len(faults) + 1)]
    assert result.samples[0].error is None


def test_hang_times_out_and_is_retried(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER) as srv:
        srv.inject("hang", seconds=10)
        params = GenerationParams(timeout=0.5, max_tokens=64)
        config = fast(base_url=srv.base_url, concurrency=1, no_baseline=True, params=params)
        start = time.monotonic()
        result = evaluate(skill, cases(1), config, output_root=tmp_path, write_chart=False)
        elapsed = time.monotonic() - start
    assert [(s.outcome, s.attempts) for s in result.samples] == [("pass", 2)]
    assert 0.5 <= elapsed < 4, elapsed


def test_failing_samples_are_errors_excluded_from_rates(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER) as good, openai_server(RESPONDER, api_key="right-key") as bad:
        for _ in range(20):
            good.inject("500")  # the first case's requests exhaust their retries
        providers = {
            "fake-model": resolve_model("fake-model", base_url=good.base_url),
            "other-model": resolve_model("other-model", base_url=bad.base_url, api_key=SENTINEL),
        }
        # no backoff: a failed request's retry is due at once, so it goes before the next key
        config = fast(
            models=["fake-model", "other-model"],
            retries=1,
            concurrency=1,
            base_s=0.0,
            max_s=0.0,
        )
        result = evaluate(
            skill, cases(12), config, output_root=tmp_path, providers=providers, write_chart=False
        )
    good_stats, bad_stats = (s.to_dict() for s in result.stats)
    assert good_stats["model"] == "fake-model" and bad_stats["model"] == "other-model"
    # bad: 401 is final, every sample errors, no rate at all
    assert bad_stats["with_skill"]["total"] == 0 and bad_stats["with_skill"]["errors"] == 12
    assert bad_stats["with_skill"]["pass_rate"] is None and bad_stats["lift"] is None
    assert bad_stats["verdict"] == "no data (every request failed)"
    line = result.unmeasured() or ""
    assert line.startswith("other-model: every request of the baseline arm failed (12 errors)")
    assert "first error: other-model: authentication failed (401)" in line
    assert "\n" not in line and SENTINEL not in line
    bad_samples = [s for s in result.samples if s.model == "other-model"]
    assert all(s.outcome == "error" and s.attempts == 1 for s in bad_samples)
    assert all("401" in (s.error or "") and SENTINEL not in (s.error or "") for s in bad_samples)
    # good: 20 faults, 2 tries per sample -> the first 10 samples error, the rest are graded
    errored = [s for s in result.samples if s.model == "fake-model" and s.outcome == "error"]
    assert len(errored) == 10 and all(s.attempts == 2 for s in errored)
    assert all("server error (500)" in (s.error or "") for s in errored)
    assert good_stats["baseline"]["errors"] + good_stats["with_skill"]["errors"] == 10
    assert good_stats["baseline"]["total"] + good_stats["with_skill"]["total"] == 14
    assert good_stats["with_skill"]["pass_rate"] == 1.0
    assert good_stats["baseline"]["pass_rate"] == 0.0
    assert result.summary.errors == 34 and result.missing == 34


def test_each_request_goes_to_its_own_model(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER) as oai, anthropic_server(RESPONDER) as ant:
        providers = {
            "openai:gpt-test": resolve_model("openai:gpt-test", base_url=oai.base_url, api_key="x"),
            "anthropic:claude-test": resolve_model(
                "anthropic:claude-test", base_url=ant.base_url, api_key="x"
            ),
        }
        config = fast(models=list(providers), runs=2)
        result = evaluate(
            skill, cases(), config, output_root=tmp_path, providers=providers, write_chart=False
        )
        assert {r.json["model"] for r in oai.requests if r.json} == {"gpt-test"}
        assert {r.json["model"] for r in ant.requests if r.json} == {"claude-test"}
        assert len(oai.requests) == len(ant.requests) == 8
        ant_systems = [r.json.get("system") for r in ant.requests if r.json]
    assert all(ant_systems)  # the system prompt reaches Anthropic too
    assert [s.model for s in result.stats] == ["openai:gpt-test", "anthropic:claude-test"]
    assert all(m.lift == 1.0 for m in result.stats)
    assert result.unmeasured() is None
    # the installed anthropic SDK may take no temperature: then the result says it was not sent
    if "temperature" in providers["anthropic:claude-test"].unsupported_params:
        assert len(result.warnings) == 1
        assert result.warnings[0].startswith("anthropic:claude-test: temperature not sent")
        assert "temperature=0" in result.warnings[0]
    else:
        assert result.warnings == []
    counts: dict[str, int] = {}
    for s in result.samples:
        counts[s.model] = counts.get(s.model, 0) + 1
    assert counts == {"openai:gpt-test": 8, "anthropic:claude-test": 8}


def test_progress_callback_once_per_sample(skill: Skill, tmp_path: Path) -> None:
    seen: list[tuple[tuple[str, str, int, str], Progress]] = []
    with openai_server(RESPONDER) as srv:
        config = fast(base_url=srv.base_url, runs=3)
        result = evaluate(
            skill,
            cases(),
            config,
            output_root=tmp_path,
            on_sample=lambda s, p: seen.append((s.key, p)),
            write_chart=False,
        )
    assert len(seen) == len(result.samples) == 12
    assert len({key for key, _ in seen}) == 12
    assert [p.done for _, p in seen] == list(range(1, 13))
    last = seen[-1][1]
    assert (last.total, last.passed, last.failed, last.errors) == (12, 6, 6, 0)


def test_cancel_event_stops_and_resume_finishes(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER, latency=0.15) as srv:
        config = fast(base_url=srv.base_url, concurrency=2, runs=5)

        async def go() -> EvalResult:
            cancel = asyncio.Event()

            def on_sample(_s: Sample, p: Progress) -> None:
                if p.done == 3:
                    cancel.set()

            return await run_eval(
                skill,
                cases(),
                config,
                output_root=tmp_path,
                on_sample=on_sample,
                cancel=cancel,
                write_chart=False,
            )

        first = asyncio.run(go())
        assert first.cancelled and 3 <= len(first.samples) <= 4
        assert len(read_samples(first.run_dir / "samples.jsonl")) == len(first.samples)
        info = json.loads((first.run_dir / "run.json").read_text())
        assert info["status"] == "cancelled"
        assert json.loads((first.run_dir / "summary.json").read_text())["complete"] is False
        before = len(srv.requests)
        second = evaluate(skill, cases(), config, resume_from=first.run_dir, write_chart=False)
        asked = len(srv.requests) - before
    assert second.run_dir == first.run_dir and not second.cancelled
    # a sample whose other arm was not finished runs again with it (both arms together)
    arms: dict[tuple[str, int], int] = {}
    for s in first.samples:
        arms[(s.case_id, s.run)] = arms.get((s.case_id, s.run), 0) + 1
    kept = sum(n for n in arms.values() if n == 2)
    assert asked == 20 - kept
    on_disk = read_samples(first.run_dir / "samples.jsonl")
    assert len(on_disk) == 20 and len({s.key for s in on_disk}) == 20
    assert only(second)["lift"] == 1.0
    assert len(json.loads((first.run_dir / "run.json").read_text())["sessions"]) == 2


def test_threading_event_cancels_the_sync_wrapper(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER, latency=0.2) as srv:
        cancel = threading.Event()
        threading.Timer(0.5, cancel.set).start()
        start = time.monotonic()
        result = evaluate(
            skill,
            cases(),
            fast(base_url=srv.base_url, runs=20, concurrency=2),
            output_root=tmp_path,
            cancel=cancel,
            write_chart=False,
        )
        elapsed = time.monotonic() - start
    assert result.cancelled and 0 < len(result.samples) < 80
    assert elapsed < 3, elapsed


def test_resume_reruns_only_errored_samples(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER) as srv:
        srv.inject("500")
        srv.inject("500")
        config = fast(base_url=srv.base_url, retries=0, concurrency=1)
        first = evaluate(skill, cases(), config, output_root=tmp_path, write_chart=False)
        assert first.errors == 2
        srv.clear()
        second = evaluate(skill, cases(), config, resume_from=first.run_dir, write_chart=False)
        rerun = {(r.json or {}).get("messages", [{}])[-1].get("content") for r in srv.requests}
    # scheduling is run, model, arm, case: the two failures were the baseline of both cases;
    # each runs again together with its with-skill partner (both arms of a case and run)
    assert len(srv.requests) == 4 and len(rerun) == 2
    assert sum(MARKER in system_prompt(r.json or {}) for r in srv.requests) == 2
    assert second.errors == 0 and len(second.samples) == 4
    on_disk = read_samples(first.run_dir / "samples.jsonl")
    assert sorted(s.key for s in on_disk) == sorted(s.key for s in second.samples)


def test_resume_refuses_a_different_config(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER) as srv:
        config = fast(base_url=srv.base_url)
        first = evaluate(skill, cases(), config, output_root=tmp_path, write_chart=False)
        with pytest.raises(UsageError, match="models"):
            evaluate(
                skill,
                cases(),
                fast(base_url=srv.base_url, models=["other-model"]),
                resume_from=first.run_dir,
            )
        with pytest.raises(UsageError, match="test cases differ"):
            evaluate(skill, cases(3), config, resume_from=first.run_dir)
        with pytest.raises(UsageError, match="runs"):
            evaluate(skill, cases(), fast(base_url=srv.base_url, runs=2), resume_from=first.run_dir)


def test_bad_config_fails_before_any_folder(skill: Skill, tmp_path: Path) -> None:
    root = tmp_path / "runs"
    with pytest.raises(UnknownModelError):
        evaluate(skill, cases(), fast(models=["no-such-model"]), output_root=root)
    with pytest.raises(UsageError, match="runs"):
        evaluate(skill, cases(), fast(runs=0), output_root=root)
    with pytest.raises(UsageError, match="no test cases"):
        evaluate(skill, [], fast(), output_root=root)
    for url in ("ftp://example.com/v1", "127.0.0.1:8000/v1", "http:///v1"):
        with pytest.raises(UsageError, match=r"^base_url ") as info:
            evaluate(skill, cases(), fast(base_url=url), output_root=root)
        assert info.value.param == "base_url"
    assert not root.exists()


def test_two_runs_get_two_folders(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER) as srv:
        config = fast(base_url=srv.base_url)
        one = evaluate(skill, cases(1), config, output_root=tmp_path, write_chart=False)
        two = evaluate(skill, cases(1), config, output_root=tmp_path, write_chart=False)
    assert one.run_dir != two.run_dir and one.run_dir.parent == two.run_dir.parent


def test_backoff_delay() -> None:
    assert backoff_delay(1, 2.0, rng=_Fixed(0.0)) == 2.0
    assert backoff_delay(1, 2.0, rng=_Fixed(1.0)) == pytest.approx(2.2)
    assert backoff_delay(1, 1000.0, rng=_Fixed(0.0), retry_after_max=60) == 60
    assert backoff_delay(1, None, base=1, rng=_Fixed(0.0)) == 0.5
    assert backoff_delay(3, None, base=1, rng=_Fixed(1.0)) == 4.0
    assert backoff_delay(10, None, base=1, cap=5, rng=_Fixed(1.0)) == 5.0


def test_retry_policy_says_when_to_stop_and_how_long_to_wait() -> None:
    policy = RetryPolicy(retries=2, base_s=1.0, max_s=3.0, retry_after_max_s=5.0)
    assert policy.attempts == 3
    assert policy.next_delay(1, False, None) is None  # a final error is never retried
    assert policy.next_delay(3, True, None) is None  # the retries are used up
    assert 0.5 <= (policy.next_delay(1, True, None) or 0) <= 1.0
    assert 5.0 <= (policy.next_delay(2, True, 60.0) or 0) <= 5.5  # Retry-After, capped
    assert policy.delay(10, None, rng=_Fixed(1.0)) == 3.0  # max_s caps the backoff
    assert EvalConfig().retry == RetryPolicy()


def test_public_url_drops_credentials() -> None:
    url = "https://user:pw@example.test:8443/v1?key=abc#frag"
    assert public_url(url) == "https://example.test:8443/v1"
    assert public_url(None) is None


class _Fixed:
    def __init__(self, value: float) -> None:
        self.value = value

    def random(self) -> float:
        return self.value
