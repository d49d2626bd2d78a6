"""Install skill folders into agents' skills folders, atomically, without clobbering local edits.

The first folder gets the real copy (``<dir>/<name>``); the others get a relative symlink to it,
or a copy where a symlink cannot be made. Everything is staged next to its target (same
filesystem) and swapped in by renames; any failure, including Ctrl-C, puts the old state back.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import stat
from pathlib import Path

from upskill_hub.errors import LocalModificationsError, Param, UnsafeSkillError, UsageError
from upskill_hub.registry.project.lock import LOCK_FILENAME, Lock, LockedSkill, hash_tree
from upskill_hub.registry.project.targets import confinement_problem, is_project_folder

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_SHOWN = 5


def modified_files(target: Path, locked: LockedSkill) -> list[str]:
    """Files under ``target`` that differ from the lock: added, removed or changed (sorted)."""
    return sorted(_changes(Path(target), locked.files))


def _changes(target: Path, files: dict[str, str]) -> dict[str, str]:
    """``relpath -> "added" | "removed" | "changed"`` between ``target`` and ``files``."""
    current = hash_tree(target) if target.is_dir() else {}
    changes = {rel: "removed" for rel in files if rel not in current}
    for rel, digest in current.items():
        if rel not in files:
            changes[rel] = "added"
        elif files[rel] != digest:
            changes[rel] = "changed"
    return changes


def _describe(changes: dict[str, str]) -> str:
    items = [f"{rel} ({kind})" for rel, kind in sorted(changes.items())]
    more = f" (+{len(items) - _SHOWN} more)" if len(items) > _SHOWN else ""
    return ", ".join(items[:_SHOWN]) + more


def _check_targets(name: str, targets: list[Path], previous: LockedSkill | None) -> None:
    """Refuse to replace folders we did not install, or that were edited since we did."""
    for target in targets:
        if not os.path.lexists(target):
            continue
        if previous is None:
            raise LocalModificationsError(
                f"{target} already exists and is not recorded in {LOCK_FILENAME}; use ",
                Param("force"),
                " to replace it",
            )
        if target is not targets[0] and _links_to(target, targets[0]):
            continue  # our own link to the copy being installed (even if it dangles now)
        if target.is_symlink() and not target.is_dir():
            raise LocalModificationsError(
                f"{target} is a symlink to {os.readlink(target)}, not an install of skill "
                f"'{name}'; use ",
                Param("force"),
                " to replace it",
            )
        changes = _changes(target, previous.files)
        if changes:
            raise LocalModificationsError(
                f"skill '{name}' was modified locally in {target}: {_describe(changes)}; use ",
                Param("force"),
                " to overwrite",
            )


def _check_confined(targets: list[Path], project_root: Path, action: str) -> None:
    """Refuse targets whose folder leaves the project (or HOME) through a symlink."""
    for target in targets:
        problem = confinement_problem(target.parent, project_root)
        if problem:
            raise UnsafeSkillError(f"refusing to {action} {target}: {problem}")


def _links_to(link: Path, canonical: Path) -> bool:
    """Whether ``link`` is a symlink whose target is ``canonical`` (which may not exist)."""
    if not link.is_symlink():
        return False
    dest = os.path.join(os.path.realpath(link.parent), os.readlink(link))
    dest = os.path.realpath(dest) if os.path.lexists(dest) else os.path.normpath(dest)
    wanted = os.path.join(os.path.realpath(canonical.parent), canonical.name)
    return os.path.normpath(dest) == os.path.normpath(wanted) or (
        os.path.lexists(wanted) and os.path.realpath(wanted) == dest
    )


def _side_path(target: Path, kind: str) -> Path:
    """A fresh hidden name next to ``target`` for staging (``new``) or backup (``old``)."""
    return target.parent / f".{target.name}.upskill-{kind}-{secrets.token_hex(4)}"


def _side_paths(target: Path) -> list[Path]:
    pattern = re.compile(rf"\.{re.escape(target.name)}\.upskill-(new|old)-[0-9a-f]+")
    if not target.parent.is_dir():
        return []
    return sorted(p for p in target.parent.iterdir() if pattern.fullmatch(p.name))


def _recover(target: Path) -> None:
    """Clear leftovers of an install that was killed: restore a lone backup, drop staging."""
    for side in _side_paths(target):
        if ".upskill-old-" in side.name and not os.path.lexists(target):
            os.rename(side, target)
        else:
            _delete(side)


def _delete(path: Path) -> None:
    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path)


def _copy_tree(src: Path, dst: Path) -> None:
    """Copy regular files and folders; ``dst`` must not exist. Links and devices are refused."""
    os.mkdir(dst)
    for entry in sorted(os.scandir(src), key=lambda e: e.name):
        st = entry.stat(follow_symlinks=False)
        target = dst / entry.name
        if stat.S_ISDIR(st.st_mode):
            _copy_tree(Path(entry.path), target)
        elif stat.S_ISREG(st.st_mode):
            shutil.copyfile(entry.path, target, follow_symlinks=False)
            os.chmod(target, 0o755 if st.st_mode & 0o100 else 0o644)
        else:
            raise UnsafeSkillError(
                f"{entry.path}: not a regular file or folder; refusing to install it"
            )


def _mkdirs(folder: Path, created: list[Path]) -> None:
    """``mkdir -p`` that remembers which folders it made (so a rollback can remove them)."""
    missing = []
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            break
        missing.append(candidate)
    for candidate in reversed(missing):
        os.mkdir(candidate)
        created.append(candidate)


def _stage(
    staged_dir: Path,
    targets: list[Path],
    link: bool,
    created: list[Path],
    staged: list[Path],
    project_root: Path | None,
) -> None:
    """Build each target's replacement next to it, recording paths (and folders made) as it goes.

    Targets after the first link to it, but only within one scope: a project folder never
    becomes a symlink into HOME (nor a user folder one into the project); those get copies.
    """
    canonical = targets[0]
    for index, target in enumerate(targets):
        _mkdirs(target.parent, created)
        tmp = _side_path(target, "new")
        staged.append(tmp)
        same_scope = project_root is None or is_project_folder(
            target, project_root
        ) == is_project_folder(canonical, project_root)
        if index > 0 and link and same_scope:
            real_canonical = Path(os.path.realpath(canonical.parent)) / canonical.name
            relative = os.path.relpath(real_canonical, os.path.realpath(target.parent))
            try:
                os.symlink(relative, tmp, target_is_directory=True)
                continue
            except OSError:
                pass  # no symlinks here (permissions, filesystem): fall back to a copy
        _copy_tree(staged_dir, tmp)


def _swap(pairs: list[tuple[Path, Path]]) -> None:
    """Rename each staged path over its target; on any failure undo every completed swap."""
    done: list[tuple[Path, Path | None]] = []
    try:
        for tmp, target in pairs:
            backup = None
            if os.path.lexists(target):
                backup = _side_path(target, "old")
                os.rename(target, backup)
            try:
                os.rename(tmp, target)
            except BaseException:
                if backup is not None:
                    os.rename(backup, target)
                raise
            done.append((target, backup))
    except BaseException:
        for target, backup in reversed(done):
            _delete(target)
            if backup is not None:
                os.rename(backup, target)
        raise
    for _, backup in done:
        if backup is not None:
            with contextlib.suppress(OSError):
                _delete(backup)


def install_skill(
    staged_dir: Path,
    name: str,
    dirs: list[Path],
    *,
    previous: LockedSkill | None,
    force: bool,
    link: bool = True,
    project_root: Path | None = None,
) -> list[Path]:
    """Install ``staged_dir`` as ``<dir>/<name>`` for every dir; returns the installed paths.

    Without ``force`` an existing target must be our unmodified install (its files equal
    ``previous.files``), else :class:`LocalModificationsError`. With ``project_root`` every dir must
    really lie in its scope (see :func:`confinement_problem`), else :class:`UnsafeSkillError`.
    Nothing is written before these checks.
    """
    if not _NAME.fullmatch(name):
        raise UsageError(f"invalid skill name {name!r}")
    if not Path(staged_dir).is_dir():
        raise UsageError(f"{staged_dir}: not a folder")
    targets: list[Path] = []
    seen: set[str] = set()
    for d in dirs:
        key = os.path.realpath(d)
        if key not in seen:
            seen.add(key)
            targets.append(Path(d).absolute() / name)
    if not targets:
        raise UsageError("no skills folder to install into")
    if project_root is not None:
        _check_confined(targets, project_root, "install into")
    for target in targets:
        _recover(target)
    if not force:
        _check_targets(name, targets, previous)
    created: list[Path] = []
    staged: list[Path] = []
    try:
        _stage(Path(staged_dir), targets, link, created, staged, project_root)
        _swap(list(zip(staged, targets, strict=True)))
    except BaseException:
        for tmp in staged:
            if os.path.lexists(tmp):
                with contextlib.suppress(OSError):
                    _delete(tmp)
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                os.rmdir(folder)
        raise
    return targets


def remove_skill(name: str, lock: Lock, project_root: Path, *, force: bool = False) -> Lock:
    """Delete the installed folders and symlinks of ``name``; returns the lock without it.

    Refuses (LocalModificationsError) when an installed copy was edited, unless ``force``. The
    caller writes the returned lock.
    """
    if name not in lock.skills:
        raise UsageError(f"skill {name!r} is not in {LOCK_FILENAME}")
    locked = lock.skills[name]
    paths = [p for p in locked.target_paths(project_root) if os.path.lexists(p)]
    _check_confined(paths, project_root, "delete")
    if not force:
        for path in paths:
            if path.is_symlink():
                continue  # removing a link loses nothing
            changes = _changes(path, locked.files)
            if changes:
                raise LocalModificationsError(
                    f"skill '{name}' was modified locally in {path}: {_describe(changes)}; use ",
                    Param("force"),
                    " to remove it anyway",
                )
    for path in sorted(paths, key=lambda p: not p.is_symlink()):
        if path.is_symlink() or not path.is_dir():
            path.unlink()
        else:
            backup = _side_path(path, "old")
            os.rename(path, backup)
            shutil.rmtree(backup)
    return Lock(skills={k: v for k, v in lock.skills.items() if k != name})
