"""Space fixtures: a small skill on the local Hub, a scripted OpenAI-compatible server, and the
app itself running on a free port (real HTTP, as visitors and gradio_client reach it)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.llm_servers import FakeLLMServer, openai_server

REPO_ROOT = Path(__file__).resolve().parents[2]
APP_FILE = REPO_ROOT / "space" / "app.py"
ARTIFACTS = REPO_ROOT / "test-artifacts"
#: The visitor's API key in every test: it must never show up in a page, a log or a dataset.
SENTINEL_KEY = "sk-SENTINEL-do-not-leak-4f2a9c"
MARKER = "Always answer with the word PINEAPPLE"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def app_process(env: dict[str, str], cwd: Path, log: Path) -> Iterator[str]:
    """``python space/app.py`` with ``env`` (its port in ``GRADIO_SERVER_PORT``), its output in
    ``log``: the app's URL once it answers (its log in the AssertionError if it never does);
    stopped on exit."""
    url = f"http://127.0.0.1:{env['GRADIO_SERVER_PORT']}/"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, str(APP_FILE)], cwd=cwd, env=env, stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the Space did not start: {log.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(url, timeout=5):
                    break
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def write_demo_skill(parent: Path, name: str = "fruit-answers") -> Path:
    """A valid skill with three cases a model passes only when it follows the skill."""
    folder = parent / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Answers fruit questions the house way.\n"
        f"license: Apache-2.0\n---\n# Fruit answers\n\n{MARKER}, in capitals.\n",
        encoding="utf-8",
    )
    tests = [
        {
            "id": f"fruit-{i}",
            "input": f"Question {i}: which fruit should I buy?",
            "assertions": [{"type": "contains", "values": ["PINEAPPLE"]}],
        }
        for i in (1, 2, 3)
    ]
    (folder / "skill_meta.json").write_text(
        json.dumps({"metadata": {"version": "1.0.0"}, "tests": tests}, indent=2), encoding="utf-8"
    )
    return folder


def skill_aware_responder(request: dict[str, Any]) -> str:
    from tests.support.llm_servers import system_prompt

    if MARKER in system_prompt(request):
        return "Buy a PINEAPPLE: it is sweet <b>and</b> ripe."
    return "Buy an apple <script>alert(1)</script>."


@dataclass
class SkillRepo:
    repo_id: str
    name: str


@pytest.fixture(scope="session")
def skill_repo(hub_server: object, tmp_path_factory: pytest.TempPathFactory) -> SkillRepo:
    """The demo skill pushed to the local Hub (a single-skill model repo)."""
    from upskill_hub.registry.push import push_skills

    folder = write_demo_skill(tmp_path_factory.mktemp("skill"))
    result = push_skills(folder, repo_id="local-user/fruit-answers-space")
    return SkillRepo(result.repo_id, "fruit-answers")


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    """An OpenAI-compatible server that demands the sentinel key."""
    with openai_server(skill_aware_responder, api_key=SENTINEL_KEY, latency=0.01) as server:
        yield server


def load_app_module() -> ModuleType:
    """``space/app.py`` imported by path (it is a script, not a package module)."""
    spec = importlib.util.spec_from_file_location("upskill_space_app", APP_FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def app_module(hub_server: object) -> ModuleType:
    """``space/app.py``; importing it builds a demo whose local OAuth mock asks the Hub whoami."""
    return load_app_module()


@dataclass
class RunningApp:
    url: str
    runs_dir: Path


@pytest.fixture(scope="module")
def running_app(
    app_module: ModuleType, hub_server: object, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningApp]:
    """The app in local mode on a free port; run folders in a temp dir; ``fake-model`` priced
    by the app's owner (so its runs have costs and frontier.png)."""
    import dataclasses

    from upskill_hub.evaluation.pricing import Price
    from upskill_hub.space_support.settings import SpaceSettings

    runs_dir = tmp_path_factory.mktemp("space-runs")
    settings = SpaceSettings.for_mode(False, output_root=runs_dir)
    settings = dataclasses.replace(settings, prices={"fake-model": Price(input=1.0, output=4.0)})
    demo = app_module.build_demo(settings)
    port = free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        yield RunningApp(f"http://127.0.0.1:{port}/", runs_dir)
    finally:
        demo.close()


@pytest.fixture(scope="module")
def hosted_url(
    app_module: ModuleType, hub_server: object, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The app in hosted mode (the limits and guards of a Space) on a free port: its URL."""
    from upskill_hub.space_support.settings import SpaceSettings

    settings = SpaceSettings.for_mode(True, output_root=tmp_path_factory.mktemp("hosted-runs"))
    demo = app_module.build_demo(settings)
    port = free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        demo.close()


def sign_in(app_url: str) -> str:
    """Go through the app's "Sign in with Hugging Face" redirects as a browser would (Gradio's
    local mock, or the real flow through an OpenID provider); the ``Cookie`` header of the
    signed-in session. (The session cookie is ``Secure``: an HTTP client keeps it only when
    handed it by hand.)"""
    from urllib.parse import urljoin

    import httpx

    session = ""
    url = urljoin(app_url, "login/huggingface")
    with httpx.Client(timeout=30) as http:
        for _ in range(8):
            ours = url.startswith(app_url)
            response = http.get(url, headers={"Cookie": session} if ours and session else {})
            if ours and "session" in response.cookies:
                session = f"session={response.cookies['session']}"
            location = response.headers.get("location")
            if response.status_code not in (302, 303, 307) or not location:
                break
            url = urljoin(url, location)
            if url.rstrip("/?") == app_url.rstrip("/"):
                break
    assert session, f"no session cookie from the sign-in at {app_url}"
    return session


def files_text(root: Path) -> str:
    """Every file under ``root`` as text, for "never leaks" checks."""
    return "\n".join(
        p.read_bytes().decode("utf-8", errors="replace") for p in root.rglob("*") if p.is_file()
    )


def evaluate_on(app: RunningApp, skill_repo: SkillRepo, llm: FakeLLMServer, *mode: str) -> Any:
    """The app's ``/evaluate`` API (through ``gradio_client``) on ``skill_repo`` with the
    OpenAI-compatible ``fake-model`` at ``llm``, 1 run, seed 0 (``mode``: e.g. ``"agent"``);
    returns the client (for later calls) and the outputs."""
    from gradio_client import Client

    client = Client(app.url, verbose=False)
    outputs = client.predict(
        skill_repo.repo_id,
        "OpenAI-compatible",
        "fake-model",
        llm.base_url,
        SENTINEL_KEY,
        1,
        0,
        *mode,
        api_name="/evaluate",
    )
    return client, outputs
