"""Shared fixtures: a local Hub server every test talks to over real HTTP.

``huggingface_hub`` and ``datasets`` read ``HF_ENDPOINT`` and ``HF_HUB_DISABLE_XET`` when they
are imported, so the environment is set here, at conftest import, before any test module
imports them. Nothing in the test run can reach huggingface.co.

Fixtures:
- ``hub_server`` (session): the running local Hub (``.url``, ``.port``, ``.data_dir``).
- ``unique_repo_id`` (function): a fresh ``local-user/<name>`` repo id for the test.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


_HUB_PORT = _free_port()
_HUB_HOME = Path(tempfile.mkdtemp(prefix="upskill-hub-tests-"))
atexit.register(shutil.rmtree, _HUB_HOME, ignore_errors=True)

#: The dummy token every client sends (the default server accepts any token).
HUB_TOKEN = "hf_local_test_token"

os.environ.update(
    {
        "HF_ENDPOINT": f"http://127.0.0.1:{_HUB_PORT}",
        "HF_HUB_DISABLE_XET": "1",
        "HF_HOME": str(_HUB_HOME / "hf-home"),
        "HF_DATASETS_CACHE": str(_HUB_HOME / "datasets-cache"),
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_HUB_DISABLE_PROGRESS_BARS": "1",
        "HF_TOKEN": HUB_TOKEN,
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
)
os.environ.pop("HF_HUB_OFFLINE", None)
os.environ.pop("HF_DATASETS_OFFLINE", None)


@pytest.fixture(scope="session")
def hub_server() -> Iterator[object]:
    """The local Hub server at ``HF_ENDPOINT`` for the whole session (data in a temp dir)."""
    from upskill_hub.hub_server import running_server

    with running_server(_HUB_HOME / "hub-data", port=_HUB_PORT) as server:
        yield server


@pytest.fixture
def unique_repo_id(hub_server: object) -> str:
    """A repo id no other test uses (``local-user/test-<hex>``); the repo is not created."""
    return f"local-user/test-{uuid.uuid4().hex[:12]}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """With ``UPSKILL_HUB_NO_SKIPS=1`` (set by scripts/check, so in CI) a skipped test fails:
    a missing nvcc, chromium or embedded model must not pass unnoticed."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.skipped and os.environ.get("UPSKILL_HUB_NO_SKIPS") == "1":
        report.outcome = "failed"
        report.longrepr = f"skipped in a run that forbids skips: {report.longrepr}"
