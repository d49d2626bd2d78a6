"""Agent mode against a hostile model: hundreds of reads in one turn, a FIFO in the skill
folder, and reads of the skill's secret files. A real local OpenAI-compatible server plays the
model; what it receives is what a provider would."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.llm_servers import ToolCallReply, openai_server, system_prompt, tool_results
from upskill_hub.evaluation.agent import AgentSettings
from upskill_hub.evaluation.config import EvalConfig
from upskill_hub.evaluation.eval_result import EvalResult
from upskill_hub.evaluation.runner import evaluate
from upskill_hub.evaluation.types import GenerationParams
from upskill_hub.skill.model import Skill, load_skill
from upskill_hub.skill.testcases import TestCase

NAME = "hostile-refs"
SECRET = "DOTENV-SECRET-5b1d9e"
SKILL_MD = f"""---
name: {NAME}
description: Knows the house answer. Use when asked for the house answer.
---

# House answer

Read references/answer.md.
"""


def make_skill(folder: Path, files: dict[str, str]) -> Skill:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return load_skill(folder, with_tests=False)


def burst(*paths: str) -> Callable[[dict[str, Any]], str | ToolCallReply]:
    """A model that loads the skill, then asks for every path of ``paths`` in one turn, then
    answers with what it got."""

    def respond(request: dict[str, Any]) -> str | ToolCallReply:
        results = tool_results(request)
        if f"<name>\n{NAME}\n</name>" not in system_prompt(request):
            return "no skill"
        if not results:
            return ToolCallReply((("Skill", {"skill": NAME}),))
        if len(results) == 1:
            return ToolCallReply(tuple(("Read", {"file_path": p}) for p in paths))
        return "answered"

    return respond


def run(skill: Skill, responder: Callable[..., Any], tmp_path: Path) -> tuple[EvalResult, list]:
    case = TestCase(id="q", input="What is the house answer?", assertions=())
    with openai_server(responder) as srv:
        config = EvalConfig(
            models=["fake-model"],
            base_url=srv.base_url,
            params=GenerationParams(max_tokens=64, timeout=10.0),
            no_baseline=True,
            agent=AgentSettings(token_budget=10_000_000),
        )
        result = evaluate(skill, [case], config, output_root=tmp_path / "runs")
        return result, srv.requests


def test_hundreds_of_reads_in_one_turn_are_capped(tmp_path: Path) -> None:
    big = "x" * (300 * 1024)  # over the 256 KiB a Read returns
    skill = make_skill(tmp_path / NAME, {"references/answer.md": big})
    result, requests = run(skill, burst(*["references/answer.md"] * 400), tmp_path)
    after_burst = requests[-1]
    body = len(json.dumps(after_burst.json))
    assert body < 1_200_000, body  # was 105 MB with 400 reads of a 256 KiB file
    results = tool_results(after_burst.json or {})
    assert len(results) == 401  # every call got its result (the Skill call's, then 400)
    assert sum(len(r) > 200_000 for r in results) == 3  # three files fit in 1 MiB
    (sample,) = result.samples
    reads = [t for t in sample.tool_calls if t.tool == "Read"]
    assert len(reads) == 400 and sum(t.ok for t in reads) == 3
    assert "at most 16 tool calls per turn" in (reads[-1].error or "")
    assert "would pass 1048576 bytes" in (reads[3].error or "")
    assert sample.output == "answered"


@pytest.mark.timeout(60)
def test_a_fifo_in_the_skill_is_refused_without_blocking(tmp_path: Path) -> None:
    skill = make_skill(tmp_path / NAME, {"references/answer.md": "42"})
    fifo = skill.path / "references" / "pipe.md"
    os.mkfifo(fifo)
    skill = load_skill(skill.path, with_tests=False)
    outcome: list[Any] = []
    worker = threading.Thread(
        target=lambda: outcome.append(run(skill, burst("references/pipe.md"), tmp_path)),
        daemon=True,
    )
    worker.start()
    worker.join(20)
    if worker.is_alive():  # the old code waits for a writer forever: release it, then fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(10)
        pytest.fail("Read of a FIFO blocked the eval")
    ((result, _),) = outcome
    (sample,) = result.samples
    (read,) = [t for t in sample.tool_calls if t.tool == "Read"]
    assert not read.ok and "not a regular file" in (read.error or "")


SECRET_FILES = (
    ".env",
    ".env.local",
    "references/.env",
    "id_rsa",
    ".ssh/id_ed25519",
    ".aws/credentials",
    "certs/server.pem",
    "references/.netrc",
    ".npmrc",
)


def test_secret_files_in_the_skill_never_reach_the_model(tmp_path: Path) -> None:
    files = {rel: f"TOKEN={SECRET}\n" for rel in SECRET_FILES}
    files[".env.example"] = "TOKEN=put-yours-here\n"
    skill = make_skill(tmp_path / NAME, files)
    result, requests = run(skill, burst(*SECRET_FILES, ".env.example"), tmp_path)
    assert not any(SECRET in json.dumps(r.json) for r in requests)
    (sample,) = result.samples
    reads = [t for t in sample.tool_calls if t.tool == "Read"]
    assert [t.ok for t in reads] == [False] * len(SECRET_FILES) + [True]
    assert "put-yours-here" in str(tool_results(requests[-1].json or {}))
    assert SECRET not in (result.run_dir / "samples.jsonl").read_text()


def test_push_never_publishes_what_read_refuses(tmp_path: Path, unique_repo_id: str) -> None:
    from huggingface_hub import HfApi

    from upskill_hub.registry.push import push_skills

    files = {rel: f"TOKEN={SECRET}\n" for rel in SECRET_FILES}
    files[".env.example"] = "TOKEN=put-yours-here\n"
    files["references/answer.md"] = "42\n"
    skill = make_skill(tmp_path / NAME, files)
    push_skills(skill.path, repo_id=unique_repo_id)
    published = set(HfApi().list_repo_files(unique_repo_id))
    assert {"SKILL.md", ".env.example", "references/answer.md"} <= published
    assert not published & set(SECRET_FILES)
