"""``python space/app.py`` on a machine with no Hugging Face login starts cleanly.

Gradio mocks "Sign in with Hugging Face" outside a Space with the machine's own login and
refuses to start without one, so the app only adds the login button on a Space or when a token
is available locally.
"""

from __future__ import annotations

import os
import urllib.request
from pathlib import Path

import pytest

from tests.space.conftest import REPO_ROOT, app_process, free_port

_TOKEN_VARS = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "SPACE_ID")


def _local_env(tmp_path: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _TOKEN_VARS}
    hf_home = tmp_path / "hf-home"
    hf_home.mkdir()
    env.update(
        {
            "HF_HOME": str(hf_home),  # empty: no saved `hf auth login` token
            "GRADIO_ANALYTICS_ENABLED": "False",
            "GRADIO_SERVER_PORT": str(port),
            "GRADIO_SERVER_NAME": "127.0.0.1",
            "UPSKILL_HUB_SPACE_RUNS": str(tmp_path / "runs"),
            "PYTHONPATH": str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        }
    )
    return env


def test_app_starts_locally_without_a_hugging_face_token(tmp_path: Path) -> None:
    log = tmp_path / "space.log"
    env = _local_env(tmp_path, free_port())
    with app_process(env, tmp_path, log) as url, urllib.request.urlopen(url, timeout=5) as page:
        assert page.status == 200
    err = log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in err, err
    assert "must be logged in" not in err and "OAuth" not in err, err


def test_sign_in_needs_a_space_or_a_local_token(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from upskill_hub.space_support.settings import SpaceSettings, sign_in_available

    local = SpaceSettings.for_mode(False, output_root=tmp_path)
    monkeypatch.setenv("HF_TOKEN", "hf_local_test_token")
    assert sign_in_available(local)
    monkeypatch.delenv("HF_TOKEN")
    monkeypatch.setattr("huggingface_hub.get_token", lambda: None)
    assert not sign_in_available(local)
