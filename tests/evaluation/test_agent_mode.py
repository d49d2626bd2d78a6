"""``eval --mode agent``: skills loaded through Skill and Read tools, against real local
OpenAI and Anthropic servers that answer with tool calls."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import run_cli
from tests.support.canary_skill import AGENT, FACT, answer_from, write_canary_skill
from tests.support.llm_servers import (
    FakeLLMServer,
    ToolCallReply,
    anthropic_server,
    openai_server,
    skill_agent,
    tool_results,
)
from upskill_hub.backoff import RetryPolicy
from upskill_hub.errors import UsageError
from upskill_hub.evaluation.agent import AgentSettings
from upskill_hub.evaluation.agent.usage import agent_usage
from upskill_hub.evaluation.config import EvalConfig
from upskill_hub.evaluation.providers.embedded import EmbeddedProvider
from upskill_hub.evaluation.report.table import notes
from upskill_hub.evaluation.run.folder import load_run, read_samples
from upskill_hub.evaluation.run.records import RunSummary
from upskill_hub.evaluation.runner import evaluate
from upskill_hub.evaluation.types import GenerationParams
from upskill_hub.publish.results_dataset import check_rows, sample_rows
from upskill_hub.skill.model import Skill, load_skill
from upskill_hub.skill.testcases import TestCase

SECRET = "TOP-SECRET-8c1f2e77"

Server = Callable[..., AbstractContextManager[FakeLLMServer]]
SERVERS: dict[str, tuple[Server, str]] = {
    "openai": (openai_server, "fake-model"),
    "anthropic": (anthropic_server, "anthropic:claude-fake"),
}


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    folder = write_canary_skill(tmp_path)
    (tmp_path / "secret.txt").write_text(SECRET)
    os.symlink(tmp_path / "secret.txt", folder / "references" / "leak.md")
    return load_skill(folder, with_tests=False)


def cases(n: int = 3) -> list[TestCase]:
    return [
        TestCase(
            id=f"q{i}",
            input=f"Q{i}: what is the Zorblax code?",
            assertions=({"type": "contains", "values": [FACT]},),
        )
        for i in range(n)
    ]


def config(srv: FakeLLMServer, model: str, *, retries: int = 3, **extra: Any) -> EvalConfig:
    values: dict[str, Any] = {
        "models": [model],
        "base_url": srv.base_url,
        "params": GenerationParams(max_tokens=64, timeout=5.0),
        "retry": RetryPolicy(retries=retries, base_s=0.01, max_s=0.05),
        "agent": AgentSettings(),
    }
    values.update(extra)
    return EvalConfig(**values)


@pytest.mark.parametrize("api", sorted(SERVERS))
def test_agent_mode_lift_comes_through_the_tools(api: str, skill: Skill, tmp_path: Path) -> None:
    server, model = SERVERS[api]
    with server(AGENT) as srv:
        result = evaluate(skill, cases(), config(srv, model), output_root=tmp_path / "runs")
        requests = srv.requests
    stats = result.stats[0].to_dict()
    assert stats["baseline"]["pass_rate"] == 0.0
    assert stats["with_skill"]["pass_rate"] == 1.0
    assert stats["lift"] == 1.0

    with_skill = [s for s in result.samples if s.arm == "with_skill"]
    for sample in with_skill:
        assert [(t.tool, t.input, t.ok) for t in sample.tool_calls] == [
            ("Skill", "canary-refs", True),
            ("Read", "references/answer.md", True),
        ]
        assert sample.turns == 3 and sample.stopped is None
    for sample in (s for s in result.samples if s.arm == "baseline"):
        assert sample.tool_calls == [] and sample.turns == 1
    # same tools and the same system prompt apart from the listed skill
    assert all(
        r.json
        and [t.get("name") or t["function"]["name"] for t in r.json["tools"]]
        in (["Skill", "Read"],)
        for r in requests
    )
    firsts = [r for r in requests if r.json and not tool_results(r.json)]
    listed = [r.system for r in firsts if "<name>\ncanary-refs\n</name>" in r.system]
    unlisted = [r.system for r in firsts if "<name>\ncanary-refs\n</name>" not in r.system]
    assert len(listed) == len(unlisted) == 3
    assert "<available_skills>\n</available_skills>" in unlisted[0]
    assert listed[0].split("<available_skills>")[0] == unlisted[0].split("<available_skills>")[0]
    # the opening request holds neither the skill body nor the fact: only the tools give them
    assert all(FACT not in r.text and "read it before answering" not in r.text for r in firsts)
    # tokens add up over the whole exchange
    one = with_skill[0]
    assert one.input_tokens > max(s.input_tokens for s in result.samples if s.arm == "baseline")
    stored = read_samples(result.run_dir / "samples.jsonl")
    assert all(
        [t.tool for t in s.tool_calls] == ["Skill", "Read"] for s in stored if s.arm == "with_skill"
    )
    info = json.loads((result.run_dir / "run.json").read_text())
    assert info["mode"] == "agent" and info["agent"] == {"max_turns": 8, "token_budget": 60000}
    assert "--mode agent" in info["reproduce"]
    # the results dataset's rows carry the mode and the tool calls
    rows = sample_rows(load_run(result.run_dir))
    check_rows(rows, "results_sample", result.run_dir)
    skill_rows = [r for r in rows if r["arm"] == "with_skill"]
    assert {r["mode"] for r in rows} == {"agent"} and {r["turns"] for r in skill_rows} == {3}
    assert skill_rows[0]["tool_calls"][1] == {
        "tool": "Read",
        "input": "references/answer.md",
        "ok": True,
        "error": None,
    }


def test_references_lift_shows_in_agent_mode_not_inline(skill: Skill, tmp_path: Path) -> None:
    with openai_server(AGENT) as srv:
        inline = evaluate(
            skill, cases(), config(srv, "fake-model", agent=None), output_root=tmp_path / "a"
        )
        agent = evaluate(skill, cases(), config(srv, "fake-model"), output_root=tmp_path / "b")
    assert inline.stats[0].to_dict()["lift"] == 0.0
    assert agent.stats[0].to_dict()["lift"] == 1.0
    inline_lines = (inline.run_dir / "samples.jsonl").read_text().splitlines()
    assert all("tool_calls" not in json.loads(line) for line in inline_lines)


HOSTILE_PATHS = (
    "../secret.txt",
    "references/../../secret.txt",
    "canary-refs/../../secret.txt",
    "references/leak.md",
    "/etc/passwd",
    "SECRET_PATH",
    "~/secret.txt",
    "..\\secret.txt",
)


@pytest.mark.parametrize("api", sorted(SERVERS))
def test_files_outside_the_skill_are_never_returned(api: str, skill: Skill, tmp_path: Path) -> None:
    paths = tuple(p.replace("SECRET_PATH", str(tmp_path / "secret.txt")) for p in HOSTILE_PATHS)
    hostile = skill_agent("canary-refs", reads=(*paths, "references/answer.md"), answer=answer_from)
    server, model = SERVERS[api]
    with server(hostile) as srv:
        result = evaluate(
            skill,
            cases(1),
            config(srv, model, no_baseline=True, agent=AgentSettings(max_turns=20)),
            output_root=tmp_path / "runs",
        )
        received = [r.text for r in srv.requests]
    (sample,) = result.samples
    assert sample.outcome == "pass"
    reads = [t for t in sample.tool_calls if t.tool == "Read"]
    assert [t.ok for t in reads] == [False] * len(paths) + [True]
    assert all(t.error for t in reads[:-1])
    assert not any(SECRET in text for text in received)
    assert SECRET not in (result.run_dir / "samples.jsonl").read_text()
    # every refusal reached the model as an error result
    assert sum("Error:" in text for text in received[-1:]) == 1


def test_reading_before_loading_and_unknown_tools_are_errors(skill: Skill, tmp_path: Path) -> None:
    script = iter(
        [
            ToolCallReply((("Read", {"file_path": "references/answer.md"}),)),
            ToolCallReply((("Bash", {"command": "cat /etc/passwd"}),)),
            ToolCallReply((("Skill", {"skill": "other-skill"}),)),
            ToolCallReply((("Read", {"path": "x"}),)),
        ]
    )

    def responder(request: dict[str, Any]) -> str | ToolCallReply:
        return next(script, "done")

    with openai_server(responder) as srv:
        result = evaluate(
            skill,
            cases(1),
            config(srv, "fake-model", no_baseline=True),
            output_root=tmp_path / "runs",
        )
    (sample,) = result.samples
    assert [(t.tool, t.ok) for t in sample.tool_calls] == [
        ("Read", False),
        ("Bash", False),
        ("Skill", False),
        ("Read", False),
    ]
    assert "Skill tool first" in (sample.tool_calls[0].error or "")
    assert sample.turns == 5 and sample.output == "done"


def test_turn_and_token_caps_stop_the_loop(skill: Skill, tmp_path: Path) -> None:
    def looping(request: dict[str, Any]) -> ToolCallReply:
        return ToolCallReply((("Skill", {"skill": "canary-refs"}),))

    with openai_server(looping) as srv:
        capped = config(srv, "fake-model", no_baseline=True, agent=AgentSettings(max_turns=3))
        result = evaluate(skill, cases(1), capped, output_root=tmp_path / "a")
        (sample,) = result.samples
        assert sample.turns == 3 and sample.stopped == "max_turns"
        assert sample.outcome == "fail"
        budget = AgentSettings(max_turns=50, token_budget=10)
        small = config(srv, "fake-model", no_baseline=True, agent=budget)
        (cut,) = evaluate(skill, cases(1), small, output_root=tmp_path / "b").samples
    assert cut.turns == 1 and cut.stopped == "token_budget"


def test_the_embedded_model_refuses_agent_mode(skill: Skill, tmp_path: Path) -> None:
    agent_config = EvalConfig(models=["local"], agent=AgentSettings())
    with pytest.raises(UsageError, match=r"^mode agent: local cannot call tools") as refused:
        evaluate(
            skill,
            cases(1),
            agent_config,
            output_root=tmp_path / "runs",
            providers={"local": EmbeddedProvider()},
        )
    assert refused.value.param == "mode"
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


@pytest.fixture
def cli_skill(skill: Skill) -> Iterator[Path]:
    tests = [{"id": c.id, "input": c.input, "expected": {"contains": FACT}} for c in cases(2)]
    (skill.path / "skill_meta.json").write_text(json.dumps({"tests": tests}))
    yield skill.path


@pytest.mark.slow
def test_cli_agent_mode_and_resume(cli_skill: Path, tmp_path: Path) -> None:
    with anthropic_server(AGENT) as srv:
        out = tmp_path / "runs"
        done = run_cli(
            "eval",
            str(cli_skill),
            "-m",
            "anthropic:claude-fake",
            "--base-url",
            srv.base_url,
            "--mode",
            "agent",
            "--max-turns",
            "4",
            "--format",
            "json",
            "-o",
            str(out),
        )
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        assert data["models"][0]["lift"] == 1.0
        assert data["mode"] == "agent" and len(data["agent"]) == 2
        run_dir = Path(data["run_dir"])
        assert json.loads((run_dir / "run.json").read_text())["agent"]["max_turns"] == 4
        text = run_cli("results", "show", str(run_dir))
        assert text.returncode == 0
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["mode"] == "agent"
        skill_arm = next(a for a in summary["agent"] if a["arm"] == "with_skill")
        assert skill_arm["loaded_skill"] == 2 and skill_arm["samples"] == 2
        assert skill_arm["files_read"] == {"references/answer.md": 2}
        assert skill_arm["mean_turns"] == 3
        # the runner's running tally gives what the full samples (in key order) give
        full = read_samples(run_dir / "samples.jsonl")
        full.sort(key=lambda s: (s.case_id, s.run, s.arm))
        assert summary["agent"] == agent_usage(full)
        assert any(
            "with_skill: skill loaded in 2/2 samples, 3 turns on average; files read: "
            "references/answer.md x2" in line
            for line in notes(RunSummary.from_dict(summary))
        )
        again = run_cli("eval", str(cli_skill), "--resume", str(run_dir), "--mode", "inline")
        assert again.returncode == 2 and "--mode" in again.stderr
        limits = run_cli("eval", str(cli_skill), "--resume", str(run_dir), "--mode", "agent")
        assert limits.returncode == 2 and "the run used --max-turns 4, not 8" in limits.stderr
        kept = run_cli("eval", str(cli_skill), "--resume", str(run_dir), "--base-url", srv.base_url)
        assert kept.returncode == 0, kept.stderr


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--mode", "robot"], "--mode 'robot'"),
        (["--max-turns", "3"], "--max-turns apply only with --mode agent"),
        (["--mode", "agent", "--max-turns", "0"], "--max-turns must be at least 1"),
    ],
)
def test_cli_agent_flag_errors(cli_skill: Path, flags: list[str], message: str) -> None:
    done = run_cli("eval", str(cli_skill), "--base-url", "http://127.0.0.1:9", "-m", "m", *flags)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_cli_embedded_model_in_agent_mode_is_one_line(cli_skill: Path, tmp_path: Path) -> None:
    for extra, blamed in (
        (["--mode", "agent"], "error: --mode agent: local cannot call tools"),
        (["--triggers", str(tmp_path / "q.json")], "error: --triggers: local cannot call tools"),
    ):
        (tmp_path / "q.json").write_text('[{"query": "x", "should_trigger": true}]')
        done = run_cli("eval", str(cli_skill), "-m", "local", "-o", str(tmp_path / "runs"), *extra)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(blamed)
        assert len(done.stderr.strip().splitlines()) == 1
        assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_a_turn_is_retried_and_a_failing_one_is_an_error(skill: Skill, tmp_path: Path) -> None:
    with openai_server(AGENT) as srv:
        srv.inject("429", retry_after=0)
        srv.inject("500")
        one = config(srv, "fake-model", no_baseline=True, retries=3)
        (sample,) = evaluate(skill, cases(1), one, output_root=tmp_path / "a").samples
        assert sample.outcome == "pass" and sample.turns == 3 and sample.attempts == 5
        for _ in range(3):
            srv.inject("503")
        failing = config(srv, "fake-model", no_baseline=True, retries=2)
        (broken,) = evaluate(skill, cases(1), failing, output_root=tmp_path / "b").samples
    assert broken.outcome == "error" and "503" in (broken.error or "")


def test_samples_round_trip_and_old_lines_still_load() -> None:
    from upskill_hub.evaluation.types import Sample, ToolUse

    old = {"model": "m", "case_id": "c", "run": 1, "arm": "baseline", "outcome": "pass"}
    sample = Sample.from_dict(old)
    assert sample.turns is None and sample.tool_calls == [] and sample.stopped is None
    assert not {"turns", "tool_calls", "stopped"} & set(sample.to_dict())
    sample.turns, sample.stopped = 2, "max_turns"
    sample.tool_calls = [ToolUse("Read", "../x", ok=False, error="no")]
    data = json.loads(json.dumps(sample.to_dict()))
    assert data["tool_calls"] == [{"tool": "Read", "input": "../x", "ok": False, "error": "no"}]
    assert Sample.from_dict(data) == sample
