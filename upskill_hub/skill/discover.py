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


def _inside(real: str, root_real: str) -> bool:
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def discover_skills(
    path: Path,
    *,
    follow_links: bool = False,
    links_out: list[tuple[Path, Path]] | None = None,
) -> list[Path]:
    """Skill folders at or below ``path``, sorted. A folder without any yields itself, so that
    validation reports the missing SKILL.md. A missing path is a usage error.

    Symlinked folders are not entered unless ``follow_links``; then those that resolve inside
    ``path`` are (``hf skills add`` links ``.claude/skills/NAME`` to ``.agents/skills/NAME``),
    each real folder once, and those that resolve outside are appended to ``links_out`` as
    ``(link, resolved target)`` instead."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"{path}: no such file or directory")
    if path.is_file() or path.name == SKILL_FILENAME:
        return [skill_dir_of(path)]
    if has_skill_md(path):
        return [path]
    found: list[Path] = []
    root_real = os.path.realpath(path)
    seen = {root_real}
    pending: list[Path] = []
    _walk(path, found, seen, pending if follow_links else None)
    # links inside the folder: walked after every real folder, so a link to a skill that is
    # also there under its own name adds nothing; each real folder once (no loops)
    while pending:
        link = pending.pop(0)
        real = os.path.realpath(link)
        if not _inside(real, root_real):
            if links_out is not None:
                links_out.append((link, Path(real)))
        elif real not in seen:
            seen.add(real)
            if has_skill_md(link):
                found.append(link)
            else:
                _walk(link, found, seen, pending)
    return sorted(found) or [path]


def _walk(path: Path, found: list[Path], seen: set[str], links: list[Path] | None) -> None:
    """Add the skill folders below ``path`` to ``found``; symlinked folders go to ``links``
    (when given) instead of being entered."""
    root_depth = str(path).rstrip(os.sep).count(os.sep)
    for dirpath, dirnames, _ in os.walk(path, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not is_junk(d) and not d.startswith("."))
        linked = [Path(dirpath, d) for d in dirnames if os.path.islink(Path(dirpath, d))]
        if links is not None:
            links.extend(linked)
        seen.update(
            os.path.realpath(Path(dirpath, d)) for d in dirnames if Path(dirpath, d) not in linked
        )
        current = Path(dirpath)
        if current != path and has_skill_md(current):
            found.append(current)
            dirnames[:] = []  # a skill's own folders are not skills
        elif dirpath.count(os.sep) - root_depth >= MAX_DEPTH:
            dirnames[:] = []
