"""The state of a project's installed skills against ``upskill-hub.lock``: ``list``,
``verify``, ``outdated`` and ``remove``. Installing and updating live in :mod:`.pull`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from upskill_hub.errors import HubError, LockError, UndeterminedError, UsageError
from upskill_hub.hub.client import Hub
from upskill_hub.registry.evidence.gate import LiftComparison, compare
from upskill_hub.registry.evidence.read import EvidenceReader
from upskill_hub.registry.evidence.verification import Verifier
from upskill_hub.registry.project.lock import (
    LOCK_FILENAME,
    Lock,
    LockedSkill,
    lock_path,
    locked_project,
    read_lock,
    refuse_outside_project,
    write_lock,
)
from upskill_hub.registry.project.place import modified_files, remove_skill
from upskill_hub.registry.project.targets import find_project_root

DEFAULT_REF = "main"
DEFAULT_WORKERS = 8


@dataclass(frozen=True)
class SkillState:
    """A locked skill and how its installed copies compare with the lock."""

    name: str
    repo_id: str
    ref: str | None
    commit: str
    subpath: str
    targets: list[str]
    missing: list[str]
    modified: dict[str, list[str]]

    @property
    def clean(self) -> bool:
        return not self.missing and not self.modified

    def differing_files(self) -> list[str]:
        """``<target>/<file>`` for every differing file, and each missing install folder."""
        out = [f"{t} (missing)" for t in self.missing]
        out += [f"{t}/{f}" for t, files in self.modified.items() for f in files]
        return out

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "clean": self.clean}


@dataclass(frozen=True)
class OutdatedSkill:
    name: str
    repo_id: str
    ref: str
    locked: str
    current: str
    #: for an outdated skill: per model, the locked lift against the current commit's
    lift: list[LiftComparison] = field(default_factory=list)

    @property
    def outdated(self) -> bool:
        return self.locked != self.current

    @property
    def measured(self) -> bool | None:
        """Whether the current commit has published lift (None when up to date)."""
        if not self.outdated:
            return None
        return any(c.new is not None for c in self.lift)

    def to_dict(self) -> dict[str, Any]:
        data = {**asdict(self), "outdated": self.outdated, "measured": self.measured}
        data["lift"] = [c.to_dict() for c in self.lift]
        return data


def project_root_for(path: Path | None) -> Path:
    return find_project_root(Path(path) if path else Path.cwd())


def skill_state(root: Path, locked: LockedSkill) -> SkillState:
    """Compare each installed copy of ``locked`` with the hashes in the lock."""
    missing: list[str] = []
    modified: dict[str, list[str]] = {}
    seen: set[str] = set()
    for entry, path in zip(locked.targets, locked.target_paths(root), strict=True):
        if not path.is_dir():
            missing.append(entry)
            continue
        real = os.path.realpath(path)
        if real in seen:
            continue  # a symlink to a copy already compared: its files are that copy's files
        seen.add(real)
        changed = modified_files(path, locked)
        if changed:
            modified[entry] = changed
    return SkillState(
        name=locked.name,
        repo_id=locked.repo_id,
        ref=locked.ref,
        commit=locked.commit,
        subpath=locked.subpath,
        targets=list(locked.targets),
        missing=missing,
        modified=modified,
    )


def list_installed(project_root: Path | None = None) -> list[SkillState]:
    """Every locked skill with its source, commit and modified state."""
    root = project_root_for(project_root)
    lock = read_lock(root)
    return [skill_state(root, lock.skills[name]) for name in sorted(lock.skills)]


def verify(project_root: Path | None = None) -> list[SkillState]:
    """The locked skills whose installed files differ from the lock (empty when all match)."""
    root = project_root_for(project_root)
    if not lock_path(root).is_file():
        raise UndeterminedError(f"{lock_path(root)}: no lock file to verify against")
    try:
        return [s for s in list_installed(root) if not s.clean]
    except LockError as exc:
        raise UndeterminedError(str(exc)) from None


def remove(
    name: str, *, force: bool = False, project_root: Path | None = None, global_: bool = False
) -> list[str]:
    """Uninstall ``name`` (every folder and link) and drop it from the lock; its old targets.

    Folders outside the project (user folders) are deleted only with ``global_``."""
    root = project_root_for(project_root)
    with locked_project(root):
        lock = read_lock(root)
        if name in lock.skills:
            refuse_outside_project([lock.skills[name]], root, global_=global_, action="remove")
        targets = list(lock.skills[name].targets) if name in lock.skills else []
        write_lock(root, remove_skill(name, lock, root, force=force))
    return targets


def outdated(
    names: Sequence[str] = (),
    *,
    project_root: Path | None = None,
    hub: Hub | None = None,
    verifier: Verifier | None = None,
) -> list[OutdatedSkill]:
    """Locked commit vs the current commit of each skill's ref (a pinned commit never moves).

    Every ref is asked of the Hub: when it cannot be reached (or the lock is missing or
    unreadable) this raises :class:`UndeterminedError` rather than answer from a cache.
    """
    root = project_root_for(project_root)
    hub = hub or Hub()
    if not lock_path(root).is_file():
        raise UndeterminedError(f"{lock_path(root)}: no lock file; nothing to compare")
    try:
        lock = read_lock(root)
    except LockError as exc:
        raise UndeterminedError(str(exc)) from None
    chosen = locked_skills(lock, names)
    try:
        with ThreadPoolExecutor(max_workers=DEFAULT_WORKERS) as pool:
            currents = list(
                pool.map(lambda s: hub.resolve_online(s.repo_id, s.ref or DEFAULT_REF), chosen)
            )
    except HubError as exc:
        raise UndeterminedError(f"could not tell whether skills are up to date: {exc}") from None
    reader = EvidenceReader(hub, verifier=verifier)
    return [
        OutdatedSkill(
            s.name,
            s.repo_id,
            s.ref or DEFAULT_REF,
            s.commit,
            current,
            compare(s, reader.evidence(s.repo_id, current, skill=s.name, subpath=s.subpath))
            if current != s.commit
            else [],
        )
        for s, current in zip(chosen, currents, strict=True)
    ]


def locked_skills(lock: Lock, names: Sequence[str]) -> list[LockedSkill]:
    missing = [n for n in names if n not in lock.skills]
    if missing:
        raise UsageError(f"not in {LOCK_FILENAME}: {', '.join(missing)}")
    return [lock.skills[n] for n in (names or sorted(lock.skills))]
