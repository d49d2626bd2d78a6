"""Prompt caching: what the requests mark (Anthropic ``cache_control``) and how the cache usage
the APIs report lands in samples, through the real ``anthropic`` and ``openai`` SDKs against
local servers that keep a prompt cache (:mod:`tests.support.prompt_cache`)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.cli_runner import run_cli
from tests.support.canary_skill import AGENT, FACT, write_canary_skill
from tests.support.llm_servers import (
    FakeLLMServer,
    PromptCache,
    RecordedRequest,
    anthropic_server,
    openai_server,
)
from upskill_hub.backoff import RetryPolicy
from upskill_hub.evaluation.agent import AgentSettings
from upskill_hub.evaluation.config import EvalConfig
from upskill_hub.evaluation.providers.anthropic_messages import anthropic_usage
from upskill_hub.evaluation.providers.openai_compat import openai_usage
from upskill_hub.evaluation.run.records import RunInfo
from upskill_hub.evaluation.run.resume import config_from_run
from upskill_hub.evaluation.runner import evaluate
from upskill_hub.evaluation.types import GenerationParams, Sample, Usage
from upskill_hub.skill.model import Skill, load_skill
from upskill_hub.skill.testcases import TestCase

EPHEMERAL = {"type": "ephemeral"}
FIXTURE_0_1 = Path(__file__).resolve().parents[1] / "fixtures" / "run_folder_0_1" / "run"


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    folder = write_canary_skill(tmp_path)
    return load_skill(folder, with_tests=False)


def cases(n: int = 2) -> list[TestCase]:
    return [
        TestCase(
            id=f"q{i}",
            input=f"Q{i}: what is the Zorblax code?",
            assertions=({"type": "contains", "values": [FACT]},),
        )
        for i in range(n)
    ]


def config(srv: FakeLLMServer, model: str, **extra: Any) -> EvalConfig:
    values: dict[str, Any] = {
        "models": [model],
        "base_url": srv.base_url,
        "runs": 2,
        "concurrency": 1,  # one request at a time: which request writes the cache is known
        "params": GenerationParams(max_tokens=64, timeout=5.0),
        "retry": RetryPolicy(retries=0),
    }
    values.update(extra)
    return EvalConfig(**values)


def marks(request: RecordedRequest) -> list[str]:
    """Where a request carries ``cache_control``: ``tools[i]``, ``system[i]``,
    ``messages[i][j]``."""
    body = request.json or {}
    found = [f"tools[{i}]" for i, t in enumerate(body.get("tools") or []) if "cache_control" in t]
    system = body.get("system")
    if isinstance(system, list):
        found += [f"system[{i}]" for i, b in enumerate(system) if "cache_control" in b]
    for i, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        if isinstance(content, list):
            found += [
                f"messages[{i}][{j}]"
                for j, b in enumerate(content)
                if isinstance(b, dict) and "cache_control" in b
            ]
    return found


def served(requests: list[RecordedRequest]) -> dict[str, int]:
    """The usage the server answered, summed over ``requests``."""
    total: dict[str, int] = {}
    for request in requests:
        for name, value in request.usage.items():
            if isinstance(value, int):
                total[name] = total.get(name, 0) + value
        details = request.usage.get("prompt_tokens_details") or {}
        total["cached_tokens"] = total.get("cached_tokens", 0) + details.get("cached_tokens", 0)
    return total


def recorded(samples: list[Sample]) -> dict[str, int]:
    return {
        "input": sum(s.input_tokens for s in samples),
        "cached": sum(s.cached_input_tokens for s in samples),
        "written": sum(s.cache_write_tokens for s in samples),
    }


def stored_lines(run_dir: Path) -> list[dict[str, Any]]:
    text = (run_dir / "samples.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_inline_anthropic_caches_each_arms_system_prompt(skill: Skill, tmp_path: Path) -> None:
    with anthropic_server(AGENT, prompt_cache=PromptCache()) as srv:
        result = evaluate(
            skill, cases(), config(srv, "anthropic:claude-fake"), output_root=tmp_path
        )
        requests = srv.requests
    # both arms mark their system prompt (SKILL.md in the with-skill arm), nothing else
    assert len(requests) == 8 and all(marks(r) == ["system[0]"] for r in requests)
    assert all((r.json or {})["system"][0]["cache_control"] == EPHEMERAL for r in requests)
    prefix = {("# Canary" in r.system): len(r.system.split()) for r in requests}
    assert len(prefix) == 2  # SKILL.md in one arm's system prompt only
    for arm in ("baseline", "with_skill"):
        samples = [s for s in result.samples if s.arm == arm]
        tokens = prefix[arm == "with_skill"]
        # the first of the arm's 4 requests writes its prefix, the 3 others read it
        assert sorted(s.cache_write_tokens for s in samples) == [0, 0, 0, tokens]
        assert sorted(s.cached_input_tokens for s in samples) == [0, tokens, tokens, tokens]
    # what the API reported is what the samples hold: input is all of it
    api = served(requests)
    assert recorded(result.samples) == {
        "input": api["input_tokens"]
        + api["cache_read_input_tokens"]
        + api["cache_creation_input_tokens"],
        "cached": api["cache_read_input_tokens"],
        "written": api["cache_creation_input_tokens"],
    }
    lines = stored_lines(result.run_dir)
    assert (
        sum(line.get("cached_input_tokens", 0) for line in lines) == api["cache_read_input_tokens"]
    )
    assert (
        sum(line.get("cache_write_tokens", 0) for line in lines)
        == api["cache_creation_input_tokens"]
    )
    info = json.loads((result.run_dir / "run.json").read_text())
    assert info["cache"] is True and "--no-cache" not in info["reproduce"]


def test_no_cache_marks_nothing(skill: Skill, tmp_path: Path) -> None:
    settings = AgentSettings()
    with anthropic_server(AGENT, prompt_cache=PromptCache()) as srv:
        result = evaluate(
            skill,
            cases(),
            config(srv, "anthropic:claude-fake", cache=False, agent=settings),
            output_root=tmp_path,
        )
        requests = srv.requests
    assert requests and not any("cache_control" in json.dumps(r.json) for r in requests)
    assert all(isinstance((r.json or {})["system"], str) for r in requests)
    assert recorded(result.samples)["cached"] == recorded(result.samples)["written"] == 0
    assert not any("cached_input_tokens" in line for line in stored_lines(result.run_dir))
    info = json.loads((result.run_dir / "run.json").read_text())
    assert info["cache"] is False and info["reproduce"].endswith("--no-cache")
    assert config_from_run(result.run_dir)[0].cache is False


def test_agent_mode_marks_tools_system_and_the_exchange(skill: Skill, tmp_path: Path) -> None:
    with anthropic_server(AGENT, prompt_cache=PromptCache()) as srv:
        result = evaluate(
            skill,
            cases(),
            config(srv, "anthropic:claude-fake", agent=AgentSettings()),
            output_root=tmp_path,
        )
        requests = srv.requests
    assert all(s.outcome == "pass" for s in result.samples if s.arm == "with_skill")
    for request in requests:
        body = request.json or {}
        found = marks(request)
        assert len(found) <= 4  # the API's limit of breakpoints
        assert found[:2] == ["tools[1]", "system[0]"]  # the last tool, the system block
        turns = len(body["messages"])
        # from the second turn on, the last block of the exchange so far
        expected = [] if turns == 1 else [f"messages[{turns - 1}][0]"]
        assert found[2:] == expected
    # both arms cache: the baseline's opening prefix is read back on its later samples too
    for arm in ("baseline", "with_skill"):
        assert recorded([s for s in result.samples if s.arm == arm])["cached"] > 0
    # later turns read the exchange so far from the cache, not only the opening prefix
    reads = {
        n: [r.usage["cache_read_input_tokens"] for r in requests if len(r.json["messages"]) == n]  # type: ignore[index]
        for n in (1, 5)
    }
    assert min(reads[5]) > max(reads[1]) > 0
    # every turn is counted: the samples sum what the API reported over all turns
    api = served(requests)
    assert recorded(result.samples) == {
        "input": api["input_tokens"]
        + api["cache_read_input_tokens"]
        + api["cache_creation_input_tokens"],
        "cached": api["cache_read_input_tokens"],
        "written": api["cache_creation_input_tokens"],
    }


def test_openai_cached_tokens_land_as_cached_input(skill: Skill, tmp_path: Path) -> None:
    with openai_server(AGENT, prompt_cache=PromptCache()) as srv:
        result = evaluate(skill, cases(), config(srv, "fake-model"), output_root=tmp_path)
        requests = srv.requests
    assert not any("cache_control" in json.dumps(r.json) for r in requests)  # nothing to send
    api = served(requests)
    got = recorded(result.samples)
    assert got == {"input": api["prompt_tokens"], "cached": api["cached_tokens"], "written": 0}
    assert got["cached"] > 0
    # a repeated prompt (run 2 of a case) is cached whole
    again = [s for s in result.samples if s.run == 2]
    assert all(s.cached_input_tokens == s.input_tokens for s in again)
    info = json.loads((result.run_dir / "run.json").read_text())
    assert info["cache"] is True


def test_usage_from_a_hostile_server_stays_sane() -> None:
    usage = SimpleNamespace(
        prompt_tokens=10,
        completion_tokens="many",
        prompt_tokens_details=SimpleNamespace(cached_tokens=10**9),
    )
    assert openai_usage(usage) == Usage(input_tokens=10, output_tokens=0, cached_input_tokens=10)
    assert openai_usage(None) == Usage()
    reported = SimpleNamespace(
        input_tokens=5,
        output_tokens=2,
        cache_read_input_tokens=-7,
        cache_creation_input_tokens=None,
    )
    assert anthropic_usage(reported) == Usage(input_tokens=5, output_tokens=2)
    both = SimpleNamespace(
        input_tokens=5, output_tokens=2, cache_read_input_tokens=30, cache_creation_input_tokens=4
    )
    assert anthropic_usage(both) == Usage(
        input_tokens=39, output_tokens=2, cached_input_tokens=30, cache_write_tokens=4
    )


def test_run_json_from_before_caching_reads_unknown() -> None:
    data = json.loads((FIXTURE_0_1 / "run.json").read_text())
    assert "cache" not in data
    info = RunInfo.from_dict(data)
    assert info.cache is None and "cache" not in info.to_dict()
    # it marked nothing, and a resume of it marks nothing either
    assert config_from_run(FIXTURE_0_1)[0].cache is False


def test_cli_no_cache_and_resume(skill: Skill, tmp_path: Path) -> None:
    (skill.path / "skill_meta.json").write_text(
        json.dumps({"tests": [{"id": "q", "input": "Zorblax?", "expected": {"contains": FACT}}]})
    )
    common = ["--model", "anthropic:claude-fake", "--max-tokens", "64", "--format", "json"]
    with anthropic_server(AGENT, prompt_cache=PromptCache()) as srv:
        base = ["eval", str(skill.path), *common, "--base-url", srv.base_url]
        off = run_cli(*base, "--no-cache", "--output", str(tmp_path / "off"))
        assert off.returncode == 0, off.stderr
        assert not any("cache_control" in json.dumps(r.json) for r in srv.requests)
        srv.clear()
        on = run_cli(*base, "--output", str(tmp_path / "on"))
        assert on.returncode == 0, on.stderr
        assert srv.requests and all(marks(r) == ["system[0]"] for r in srv.requests)
    (off_dir,) = (tmp_path / "off").iterdir()
    (on_dir,) = (tmp_path / "on").iterdir()
    off_info = json.loads((off_dir / "run.json").read_text())
    assert off_info["cache"] is False and "--no-cache" in off_info["reproduce"]
    assert json.loads((on_dir / "run.json").read_text())["cache"] is True
    # a resume keeps the run's setting: switching it is one line naming the flag
    flipped = run_cli("eval", str(skill.path), "--resume", str(on_dir), "--no-cache")
    assert flipped.returncode == 2
    assert flipped.stderr.strip().splitlines() == [
        f"error: --resume {on_dir}: the run marked its prompts for caching; resume it with --cache"
    ]


@pytest.mark.parametrize("cache", [True, False])
def test_trigger_evals_take_the_setting(cache: bool, skill: Skill, tmp_path: Path) -> None:
    from upskill_hub.evaluation.triggers.measure import evaluate_triggers
    from upskill_hub.evaluation.triggers.queries import TriggerQuery

    queries = [TriggerQuery("q1", "What is the Zorblax code?", True)]
    with anthropic_server(AGENT, prompt_cache=PromptCache()) as srv:
        cfg = config(srv, "anthropic:claude-fake", runs=1, agent=AgentSettings(), cache=cache)
        result = evaluate_triggers(skill, queries, [], cfg, output_root=tmp_path)
        requests = srv.requests
    assert requests and all(
        marks(r) == (["tools[1]", "system[0]"] if cache else []) for r in requests
    )
    info = json.loads((result.run_dir / "run.json").read_text())
    assert info["cache"] is cache
    assert info["reproduce"].endswith("--no-cache") is not cache


def test_scheduled_evals_keep_no_cache() -> None:
    from upskill_hub.jobs.recurring import eval_command

    models = ["anthropic:claude-fake"]
    off = eval_command("ns/skill", EvalConfig(models=models, cache=False), "ns/evals", "none")
    on = eval_command("ns/skill", EvalConfig(models=models), "ns/evals", "none")
    assert "--no-cache" in off and "--no-cache" not in on
