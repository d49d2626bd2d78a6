"""Fixtures for runs on Jobs: a Hub that answers the Jobs API (``hub serve --jobs --token``),
a skill with cases, a deterministic fake model, the CLI pointed at that Hub.

The session's ``hub_server`` (tests/conftest.py) has no ``--jobs``: its Jobs API is off. These
tests talk to ``jobs_hub`` instead, on its own port, with its token: ``api`` is an ``HfApi``
for it, and :func:`cli` sets ``HF_ENDPOINT`` and ``HF_TOKEN`` to it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from huggingface_hub import HfApi

from tests.support.llm_servers import FakeLLMServer, last_user_message, openai_server
from upskill_hub.hub_server import RunningServer, running_server

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


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


#: The token of the Jobs Hub: only its holder may use the Jobs API.
JOBS_TOKEN = "hf_local_jobs_owner_token"
JOBS_URL = f"http://127.0.0.1:{_free_port()}"


@pytest.fixture(scope="session")
def jobs_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """``hub serve --jobs --token JOBS_TOKEN`` at :data:`JOBS_URL` for the whole session."""
    port = int(JOBS_URL.rsplit(":", 1)[1])
    data = tmp_path_factory.mktemp("jobs-hub")
    with running_server(data, port=port, token=JOBS_TOKEN, jobs=True) as server:
        yield server


@pytest.fixture
def api(jobs_hub: RunningServer) -> HfApi:
    return HfApi(endpoint=jobs_hub.url, token=JOBS_TOKEN)


def cli_env(extra_env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of an ``upskill-hub`` subprocess: no vendor keys, the Jobs Hub."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.update({"NO_COLOR": "1", "COLUMNS": "200", "UPSKILL_HUB_JOBS_POLL": "0.3"})
    env.update({"HF_ENDPOINT": JOBS_URL, "HF_TOKEN": JOBS_TOKEN})
    env.update(extra_env or {})
    return env


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
    """``upskill-hub ARGS`` in a subprocess against the Jobs Hub (:func:`cli_env`)."""
    return subprocess.run(
        [sys.executable, "-m", "upskill_hub", *args],
        cwd=REPO,
        env=cli_env(extra_env),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
