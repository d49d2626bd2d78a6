"""A skill folder's files besides SKILL.md and skill_meta.json, and telling two folders apart."""

from __future__ import annotations

import shutil
from pathlib import Path

from upskill_hub.skill.model import SKILL_FILENAME, list_files
from upskill_hub.skill.testcases import META_FILENAME

__all__ = ["copy_extra_files", "same_path"]


def same_path(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def copy_extra_files(src: Path, dest: Path) -> None:
    """Copy a skill's files other than SKILL.md and skill_meta.json (scripts, references...)."""
    for rel in list_files(src):
        if rel in (SKILL_FILENAME, META_FILENAME):
            continue
        path = src / rel
        if path.is_symlink() or not path.is_file():
            continue
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, out)
