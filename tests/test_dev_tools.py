"""The developer tools agree with each other: pre-commit runs the ruff the dev extra pins."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


def test_pre_commit_runs_the_pinned_ruff() -> None:
    dev = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"][
        "optional-dependencies"
    ]["dev"]
    pins = [m.group(1) for d in dev if (m := re.fullmatch(r"ruff==(\S+)", d))]
    assert len(pins) == 1, "the dev extra pins ruff to one exact version"
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text("utf-8"))
    (ruff,) = [r for r in config["repos"] if r["repo"].endswith("/ruff-pre-commit")]
    assert ruff["rev"] == f"v{pins[0]}"
    assert [h["id"] for h in ruff["hooks"]] == ["ruff-check", "ruff-format"]
    assert importlib.metadata.version("ruff") == pins[0]
    local = [h["id"] for r in config["repos"] if r["repo"] == "local" for h in r["hooks"]]
    assert local == ["mypy"]
