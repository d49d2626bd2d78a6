"""The wheel of this checkout that ``space deploy`` and ``eval --executor jobs --install wheel``
ship (building one is covered by tests/space/test_deploy_and_browse.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from upskill_hub.errors import UsageError
from upskill_hub.source_wheel import build_wheel, source_root
from upskill_hub.space_support.deploy import default_app_dir, default_skills_dir

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_source_root_is_this_checkout() -> None:
    assert source_root() == REPO_ROOT
    assert (source_root() / "pyproject.toml").is_file()
    assert default_app_dir() == REPO_ROOT / "space"
    assert default_skills_dir() == REPO_ROOT / "skills"


def test_a_folder_without_pyproject_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"no pyproject\.toml; not an upskill-hub source checkout"):
        build_wheel(tmp_path, tmp_path / "out")
