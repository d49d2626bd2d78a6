"""Fixtures for runs on Jobs: a skill with cases, a deterministic fake model, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.llm_servers import FakeLLMServer, last_user_message, openai_server

REPO = Path(__file__).resolve().parents[2]
FACT = "QUUXIUM-88-ZETA"
MARKER = '<skill name="canary-jobs">'
SENTINEL = "sk-sentinel-jobs-5e4d3c2b1a09"
SKILL_MD = f"""---
name: canary-jobs
description: Knows the Quuxium code. Use when asked about Quuxium.
---

# Canary

The Quuxium code is {FACT}.
"""


def responder(request: dict[str, Any]) -> str:
    """With the skill: the fact, except for odd cases; without: the fact for case q0 only."""
    question = last_user_message(request)
    has_skill = MARKER in json.dumps(request)
    number = int(question.split(":")[0][1:])
    if has_skill and number % 3 != 1:
        return f"It is {FACT}."
    return f"It is {FACT}." if number == 0 else "No idea."


def make_skill(parent: Path, cases: int) -> Path:
    folder = parent / "canary-jobs"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    tests = [
        {"id": f"q{i}", "input": f"Q{i}: the Quuxium code?", "expected": {"contains": FACT}}
        for i in range(cases)
    ]
    (folder / "skill_meta.json").write_text(json.dumps({"metadata": {}, "tests": tests}))
    return folder


@pytest.fixture
def fake_model() -> Iterator[FakeLLMServer]:
    with openai_server(responder, api_key=SENTINEL, models=("fake-a", "fake-b")) as srv:
        yield srv


def cli(
    *args: str, extra_env: dict[str, str] | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """``upskill-hub ARGS`` in a subprocess, no vendor keys in its environment."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.update({"NO_COLOR": "1", "COLUMNS": "200", "UPSKILL_HUB_JOBS_POLL": "0.3"})
    env.update(extra_env or {})
    return subprocess.run(
        [sys.executable, "-m", "upskill_hub", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
