"""Find the skills under a path: a skill folder, its SKILL.md, or a folder of skills."""

from __future__ import annotations

import os
from pathlib import Path

from upskill_hub.errors import UsageError
from upskill_hub.skill.model import SKILL_FILENAME, is_junk, skill_dir_of

MAX_DEPTH = 8


def has_skill_md(path: Path) -> bool:
    try:
        return any(p.name.lower() == "skill.md" for p in path.iterdir())
    except OSError:
        return False


def discover_skills(path: Path) -> list[Path]:
    """Skill folders at or below ``path``, sorted. A folder without any yields itself, so that
    validation reports the missing SKILL.md. A missing path is a usage error."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"{path}: no such file or directory")
    if path.is_file() or path.name == SKILL_FILENAME:
        return [skill_dir_of(path)]
    if has_skill_md(path):
        return [path]
    found: list[Path] = []
    root_depth = str(path).rstrip(os.sep).count(os.sep)
    for dirpath, dirnames, _ in os.walk(path, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not is_junk(d) and not d.startswith("."))
        current = Path(dirpath)
        if current != path and has_skill_md(current):
            found.append(current)
            dirnames[:] = []  # a skill's own folders are not skills
        elif dirpath.count(os.sep) - root_depth >= MAX_DEPTH:
            dirnames[:] = []
    return found or [path]
