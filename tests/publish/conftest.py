"""Fixtures for publish tests: hand-built run folders (see ``run_folders``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.publish.run_folders import make_run_folder


@pytest.fixture
def run_folder(tmp_path: Path) -> Path:
    return make_run_folder(tmp_path / "runs")
