"""Install skills from the Hub into a project and keep them in step with ``upskill-hub.lock``.

``pull`` fetches (scan + validation happen in :mod:`~upskill_hub.registry.fetch`, before the
project is touched), installs atomically and records the commit. ``install`` restores the locked
commits.
``update`` (to the current commit of each ref) is in :mod:`.update`; reading the project's
state (``list``, ``verify``, ``outdated``) and ``remove`` are in :mod:`.state`.

``install --frozen`` fails (LockError, nothing written) whenever the lock would change:
the lock file is missing; a skill asked for on the command line is not in it (or is locked at
another ref); or the files downloaded for a locked commit do not hash to what the lock records.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from upskill_hub.errors import LocalModificationsError, LockError, Param, UsageError
from upskill_hub.hub.client import Hub, parse_spec
from upskill_hub.registry.evidence.locked import LockedEvidence
from upskill_hub.registry.evidence.read import (
    EvidenceReader,
    ResultsSignatureCheck,
    SkillEvidence,
)
from upskill_hub.registry.evidence.verification import Verifier
from upskill_hub.registry.fetch import FetchedSkill, fetch_skills
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
from upskill_hub.registry.project.place import install_skill
from upskill_hub.registry.project.state import (
    DEFAULT_WORKERS,
    locked_skills,
    project_root_for,
    skill_state,
)
from upskill_hub.registry.project.targets import is_agent_folder, skills_dirs, target_entry
from upskill_hub.registry.trust.installed import refuse_unverified
from upskill_hub.registry.trust.signing import TrustPolicy, check_fetched


class _FromFetch:
    """The ``ref`` default of :func:`_install`: record the ref the skill was fetched by."""


_FROM_FETCH = _FromFetch()


@dataclass(frozen=True)
class InstalledSkill:
    """One skill a command dealt with: ``status`` is installed, unchanged or skipped."""

    name: str
    repo_id: str
    ref: str | None
    commit: str
    status: str
    targets: list[str] = field(default_factory=list)
    previous_commit: str | None = None
    detail: str = ""
    warnings: list[str] = field(default_factory=list)
    #: the published lift of the installed commit (None: not looked up)
    evidence: SkillEvidence | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["evidence"] = self.evidence.to_dict() if self.evidence else None
        return data

    @classmethod
    def unchanged(cls, locked: LockedSkill) -> InstalledSkill:
        """A locked skill left exactly as it is."""
        return cls(
            locked.name,
            locked.repo_id,
            locked.ref,
            locked.commit,
            "unchanged",
            list(locked.targets),
        )


@dataclass(frozen=True)
class InstallReport:
    """What ``pull``, ``install`` or ``update`` did, skill by skill."""

    project_root: Path
    skills: list[InstalledSkill]

    def to_dict(self) -> dict[str, Any]:
        return {
            "project_root": str(self.project_root),
            "lock": str(lock_path(self.project_root)),
            "skills": [s.to_dict() for s in self.skills],
        }


# -- pull ---------------------------------------------------------------------------------------


def pull(
    spec: str,
    *,
    skills: Sequence[str] = (),
    agents: Sequence[str] = (),
    custom_dir: Path | None = None,
    global_: bool = False,
    force: bool = False,
    allow_unsafe: bool = False,
    project_root: Path | None = None,
    hub: Hub | None = None,
    trust: TrustPolicy | None = None,
    results_signatures: ResultsSignatureCheck | None = None,
    verifier: Verifier | None = None,
) -> InstallReport:
    """Fetch ``ns/name[@rev]`` (the named skills, or all), install them and lock the commit.

    ``trust`` checks signatures on the staged download before anything is installed
    (:mod:`~upskill_hub.registry.trust.signing`); the signer is recorded in the lock. With
    ``results_signatures`` the published lift shown says who measured it (``measured_by``);
    ``verifier`` checks it against its published samples
    (:mod:`~upskill_hub.registry.evidence.verification`).
    """
    root = project_root_for(project_root)
    with locked_project(root):
        return _pull(
            root,
            spec,
            skills=skills,
            agents=agents,
            custom_dir=custom_dir,
            global_=global_,
            force=force,
            allow_unsafe=allow_unsafe,
            hub=hub or Hub(),
            trust=trust,
            results_signatures=results_signatures,
            verifier=verifier,
        )


def _pull(
    root: Path,
    spec: str,
    *,
    skills: Sequence[str] = (),
    agents: Sequence[str] = (),
    custom_dir: Path | None = None,
    global_: bool = False,
    force: bool = False,
    allow_unsafe: bool = False,
    hub: Hub,
    trust: TrustPolicy | None = None,
    results_signatures: ResultsSignatureCheck | None = None,
    verifier: Verifier | None = None,
) -> InstallReport:
    """:func:`pull` with the project lock already held."""
    if custom_dir is not None and not is_agent_folder(custom_dir, root):
        if agents or global_:
            raise UsageError(
                Param("custom_dir"),
                " names a folder that is not an agent's skills folder, so it gets an "
                "unlocked copy; it cannot be combined with ",
                Param("agents"),
                " or ",
                Param("global_"),
            )
        return _export(root, spec, custom_dir, skills, force, allow_unsafe, hub, trust)
    dirs = skills_dirs(agents, project_root=root, global_=global_, custom_dir=custom_dir)
    lock = read_lock(root)
    fetched = fetch_skills(spec, list(skills) or None, hub=hub, allow_unsafe=allow_unsafe)
    for f in fetched:
        previous = lock.skills.get(f.name)
        if previous and previous.repo_id != f.repo_id and not force:
            raise UsageError(
                f"a skill named {f.name!r} is already installed from {previous.repo_id}; "
                f"run `upskill-hub remove {f.name}` first or use ",
                Param("force"),
            )
        if previous and previous.repo_id == f.repo_id:
            refuse_outside_project([previous], root, global_=global_, action="install")
    fetched, signed = _signatures(fetched, trust, lock)
    explicit = bool(agents) or custom_dir is not None or global_
    reader = EvidenceReader(hub, signatures=results_signatures, verifier=verifier)
    found = [reader.evidence(f.repo_id, f.commit, skill=f.name, subpath=f.subpath) for f in fetched]
    done = [
        _install(
            root,
            lock,
            f,
            dirs,
            explicit=explicit,
            force=force,
            evidence=e,
            signature=signed[f.name],
        )
        for f, e in zip(fetched, found, strict=True)
    ]
    return InstallReport(root, done)


def _signatures(
    fetched: Sequence[FetchedSkill], trust: TrustPolicy | None, lock: Lock | None
) -> tuple[list[FetchedSkill], dict[str, dict[str, str] | None]]:
    """Check every staged download's signature before anything is installed: the skills (a
    warning about an untrusted signer joins their warnings) and the lock's ``signature`` of
    each. A skill locked with a signer must stay signed by it (or by a trusted key)."""
    out: list[FetchedSkill] = []
    signed: dict[str, dict[str, str] | None] = {}
    for f in fetched:
        previous = lock.skills.get(f.name) if lock else None
        locked = previous.signature if previous and previous.repo_id == f.repo_id else None
        where = f"{f.repo_id}@{f.commit[:12]}" + (f":{f.subpath}" if f.subpath else "")
        signed[f.name], warning = check_fetched(
            f.path, trust, locked, where=where, repo_id=f.repo_id, skill=f.name
        )
        out.append(replace(f, warnings=(*f.warnings, warning)) if warning else f)
    return out, signed


def _export(
    root: Path,
    spec: str,
    folder: Path,
    skills: Sequence[str],
    force: bool,
    allow_unsafe: bool,
    hub: Hub,
    trust: TrustPolicy | None = None,
) -> InstallReport:
    """``pull --dir`` into a folder no agent reads: a checked copy, not recorded in the lock.

    The lock only records agents' skills folders (a lock is shared through git, and anything
    else in it could point an install or a ``remove`` anywhere), so such a copy is the user's
    to manage, like the output of ``cp``.
    """
    fetched = fetch_skills(spec, list(skills) or None, hub=hub, allow_unsafe=allow_unsafe)
    fetched, _ = _signatures(fetched, trust, None)
    done = []
    for f in fetched:
        paths = install_skill(f.path, f.name, [folder], previous=None, force=force, link=False)
        note = f"copied to {paths[0]}; not recorded in {LOCK_FILENAME} (not an agent folder)"
        done.append(
            InstalledSkill(
                name=f.name,
                repo_id=f.repo_id,
                ref=f.ref,
                commit=f.commit,
                status="copied",
                targets=[str(p) for p in paths],
                warnings=[*f.warnings, note],
            )
        )
    return InstallReport(root, done)


def _install(
    root: Path,
    lock: Lock,
    fetched: FetchedSkill,
    dirs: list[Path],
    *,
    explicit: bool,
    force: bool,
    ref: str | _FromFetch | None = _FROM_FETCH,
    frozen: LockedSkill | None = None,
    evidence: SkillEvidence | None = None,
    signature: dict[str, str] | None = None,
) -> InstalledSkill:
    """Install one fetched skill where asked (plus where it already was) and record it.

    ``ref`` is the ref to record (``None`` is the default branch and stays ``None``); by default
    the ref the skill was fetched by. With ``frozen`` (the locked entry) a lock entry that would
    differ from it is a LockError, raised before anything is installed. ``evidence`` (the
    published lift of this commit) is recorded; without it, an entry at the same commit keeps
    what it recorded.
    """
    previous = lock.skills.get(fetched.name)
    if previous is not None and previous.repo_id != fetched.repo_id:
        previous = None  # --force over another repo's skill: nothing of it to compare with
    recorded = fetched.ref if isinstance(ref, _FromFetch) else ref
    if frozen is not None:
        _check_frozen(frozen, fetched, recorded)
    known = [p.parent for p in previous.target_paths(root)] if previous else []
    chosen = (dirs if explicit or not known else []) + known
    paths = install_skill(
        fetched.path,
        fetched.name,
        _unique(chosen),
        previous=previous,
        force=force,
        project_root=root,
    )
    entry = LockedSkill(
        name=fetched.name,
        repo_id=fetched.repo_id,
        repo_type="model",
        ref=recorded,
        commit=fetched.commit,
        subpath=fetched.subpath,
        files=dict(fetched.files),
        targets=[target_entry(p, root) for p in paths],
        evidence=_locked_evidence(evidence, previous, fetched.commit),
        signature=frozen.signature if frozen is not None else signature,
    )
    lock.skills[fetched.name] = entry
    write_lock(root, lock)
    return InstalledSkill(
        name=entry.name,
        repo_id=entry.repo_id,
        ref=entry.ref,
        commit=entry.commit,
        status="installed",
        targets=entry.targets,
        previous_commit=previous.commit if previous else None,
        warnings=list(fetched.warnings),
        evidence=evidence,
    )


def _locked_evidence(
    evidence: SkillEvidence | None, previous: LockedSkill | None, commit: str
) -> list[LockedEvidence]:
    if evidence is not None and (evidence.found or not evidence.notes):
        return [m.locked() for m in evidence.models]
    # not looked up, or the lookup failed (offline): what was recorded for this commit stays
    return list(previous.evidence) if previous is not None and previous.commit == commit else []


def _unique(dirs: Sequence[Path]) -> list[Path]:
    seen: set[str] = set()
    out: list[Path] = []
    for d in dirs:
        key = os.path.normpath(Path(d).absolute())
        if key not in seen:
            seen.add(key)
            out.append(Path(d))
    return out


# -- install from the lock ----------------------------------------------------------------------


def install_locked(
    requests: Sequence[str] = (),
    *,
    frozen: bool = False,
    force: bool = False,
    allow_unsafe: bool = False,
    project_root: Path | None = None,
    hub: Hub | None = None,
    workers: int = DEFAULT_WORKERS,
    trust: TrustPolicy | None = None,
    global_: bool = False,
) -> InstallReport:
    """Restore the locked commits (of the requested skills, or all) into their locked folders.

    A request is a locked skill name or ``ns/name[@rev]``; without ``frozen`` a repo that is not
    locked is pulled and added. Copies that already match the lock are left alone (no request);
    edited copies are refused without ``force``. Downloads run in parallel. Locked folders
    outside the project (user folders) are refused (LockError) unless ``global_``, which also
    pulls new repos into the user folders.
    """
    root = project_root_for(project_root)
    hub = hub or Hub()
    if frozen and not lock_path(root).is_file():
        raise LockError(f"{lock_path(root)}: missing; ", Param("frozen"), " needs a lock file")
    with locked_project(root):
        return _install_locked(
            root,
            requests,
            frozen=frozen,
            force=force,
            allow_unsafe=allow_unsafe,
            hub=hub,
            workers=workers,
            trust=trust,
            global_=global_,
        )


def _install_locked(
    root: Path,
    requests: Sequence[str],
    *,
    frozen: bool,
    force: bool,
    allow_unsafe: bool,
    hub: Hub,
    workers: int,
    trust: TrustPolicy | None = None,
    global_: bool = False,
) -> InstallReport:
    """:func:`install_locked` with the project lock held (the lock is read again under it)."""
    lock = read_lock(root)
    chosen, new_specs = _resolve_requests(lock, requests)
    refuse_outside_project(chosen, root, global_=global_, action="install")
    if frozen and new_specs:
        raise LockError(
            Param("frozen"), f": the lock would change: not locked: {', '.join(new_specs)}"
        )
    states = [skill_state(root, s) for s in chosen]
    edited = [s for s in states if s.modified]
    if edited and not force:
        raise LocalModificationsError(
            "modified locally (use ",
            Param("force"),
            " to overwrite): "
            + ", ".join(f for s in edited for f in s.differing_files() if "(missing)" not in f),
        )
    todo = [lock.skills[s.name] for s in states if not s.clean or not s.targets]
    refuse_unverified(
        root, [lock.skills[s.name] for s in states if lock.skills[s.name] not in todo], trust
    )
    fetched = _fetch_parallel(todo, hub, allow_unsafe, workers)
    fetched, signed = _signatures(fetched, trust, lock)
    diffs = {
        f.name: ", ".join(_hash_diff(lock.skills[f.name].files, f.files))
        for f in fetched
        if f.files != lock.skills[f.name].files
    }
    changed = [f"{name}: {diff}" for name, diff in diffs.items()]
    if frozen and changed:
        raise LockError(
            Param("frozen"), f": the lock would change: files differ: {'; '.join(changed)}"
        )
    report: list[InstalledSkill] = []
    done = {f.name: f for f in fetched}
    for state in states:
        locked = lock.skills[state.name]
        if state.name not in done:
            report.append(InstalledSkill.unchanged(locked))
            continue
        dirs = [p.parent for p in locked.target_paths(root)] or skills_dirs((), project_root=root)
        installed = _install(
            root,
            lock,
            done[state.name],
            dirs,
            explicit=True,
            force=force,
            ref=locked.ref,
            frozen=locked if frozen else None,
            signature=signed[state.name],
        )
        if state.name in diffs:
            note = (
                f"the files of commit {locked.commit[:12]} do not match the hashes in "
                f"{LOCK_FILENAME} ({diffs[state.name]}); the lock now records what was "
                "downloaded (install --frozen refuses this)"
            )
            installed = replace(installed, warnings=[*installed.warnings, note])
        report.append(installed)
    for spec in new_specs:
        report += _pull(
            root,
            spec,
            global_=global_,
            force=force,
            allow_unsafe=allow_unsafe,
            hub=hub,
            trust=trust,
        ).skills
    return InstallReport(root, report)


def _check_frozen(locked: LockedSkill, fetched: FetchedSkill, ref: str | None) -> None:
    """--frozen: refuse an install whose lock entry would differ from the locked one."""
    new = (fetched.repo_id, ref, fetched.commit, fetched.subpath, dict(fetched.files))
    old = (locked.repo_id, locked.ref, locked.commit, locked.subpath, dict(locked.files))
    if new != old:
        fields = ("repo_id", "ref", "commit", "subpath", "files")
        diff = ", ".join(f for f, a, b in zip(fields, old, new, strict=True) if a != b)
        raise LockError(Param("frozen"), f": the lock would change: {locked.name}: {diff} differ")


def _resolve_requests(lock: Lock, requests: Sequence[str]) -> tuple[list[LockedSkill], list[str]]:
    """Split requests into locked skills and specs of repos the lock does not hold."""
    if not requests:
        return [lock.skills[n] for n in sorted(lock.skills)], []
    chosen: dict[str, LockedSkill] = {}
    new_specs: list[str] = []
    for request in requests:
        if "/" not in request:
            chosen.update({s.name: s for s in locked_skills(lock, [request])})
            continue
        repo_id, ref = parse_spec(request)
        hits = [
            s
            for s in lock.skills.values()
            if s.repo_id == repo_id and (ref is None or ref in (s.ref, s.commit))
        ]
        if hits:
            chosen.update({s.name: s for s in hits})
        else:
            new_specs.append(request)
    return [chosen[n] for n in sorted(chosen)], new_specs


def _fetch_parallel(
    locked: Sequence[LockedSkill], hub: Hub, allow_unsafe: bool, workers: int
) -> list[FetchedSkill]:
    def one(s: LockedSkill) -> FetchedSkill:
        [fetched] = fetch_skills(
            f"{s.repo_id}@{s.commit}", [s.name], hub=hub, allow_unsafe=allow_unsafe
        )
        return fetched

    if not locked:
        return []
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(locked)))) as pool:
        return list(pool.map(one, locked))


def _hash_diff(old: dict[str, str], new: dict[str, str]) -> list[str]:
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
