"""The project lock file ``upskill-hub.lock``: which skill came from which Hub commit.

JSON with sorted keys, 2-space indent, a trailing newline and no timestamps, so rewriting an
unchanged lock gives identical bytes. ``targets`` are the installed skill folders: relative to
the project root, or ``~/...`` / absolute for ``--global`` installs. ``evidence`` (optional)
is the published lift the skill was installed on (:mod:`~upskill_hub.registry.evidence.locked`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from upskill_hub.atomic_io import atomic_write_text
from upskill_hub.errors import LockError, Param
from upskill_hub.json_input import JsonInputError, parse_json
from upskill_hub.registry.evidence.locked import LockedEvidence, evidence_from_json
from upskill_hub.registry.project.targets import (
    is_project_folder,
    lock_target_entries,
    target_path,
)

LOCK_FILENAME = "upskill-hub.lock"
#: Held with ``flock`` where the project folder itself cannot be (see :func:`locked_project`).
FLOCK_FILENAME = ".upskill-hub.lock.flock"
LOCK_VERSION = 1
REPO_TYPES = ("model", "dataset", "space")

_COMMIT = re.compile(r"[0-9a-f]{40}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_CHUNK = 1 << 20


@dataclass
class LockedSkill:
    """One installed skill: where it came from, what its files hashed to, where it went."""

    name: str
    repo_id: str
    repo_type: str = "model"
    ref: str | None = None
    commit: str = ""
    subpath: str = ""
    files: dict[str, str] = field(default_factory=dict)
    targets: list[str] = field(default_factory=list)
    #: the published lift it was installed on, per model (optional; see evidence.locked)
    evidence: list[LockedEvidence] = field(default_factory=list)
    #: Who signed the locked commit's files (``trust.signing.Signer.to_dict``), when checked.
    signature: dict[str, str] | None = None

    def target_paths(self, project_root: Path) -> list[Path]:
        return [target_path(t, project_root) for t in self.targets]


@dataclass
class Lock:
    skills: dict[str, LockedSkill] = field(default_factory=dict)


def lock_path(root: Path) -> Path:
    return Path(root) / LOCK_FILENAME


def flock_path(root: Path) -> Path:
    return Path(root) / FLOCK_FILENAME


@contextlib.contextmanager
def locked_project(root: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` for the project for the whole block.

    Commands that read the lock, install and write it back (pull, install, update, remove) run
    inside this so parallel runs in one project wait for each other instead of losing entries.
    The lock is taken on the project folder itself, so nothing is written (a refused pull
    leaves the project untouched and there is nothing to gitignore); where a folder cannot be
    locked, on the side file ``.upskill-hub.lock.flock`` next to the lock file instead. Not
    re-entrant: a nested call in the same process would wait for itself.
    """
    try:
        fd = os.open(root, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        raise LockError(f"{root}: cannot open the project folder: {exc.strerror}") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:  # e.g. a filesystem without locks on folders: use the side file
        os.close(fd)
        fd = _open_side_file(root)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
    except BaseException:  # Ctrl-C while waiting
        os.close(fd)
        raise
    try:
        yield
    finally:
        os.close(fd)  # closing releases the flock


def _open_side_file(root: Path) -> int:
    path = flock_path(root)
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise LockError(f"{path}: cannot open the lock guard file: {exc.strerror}") from exc


def hash_tree(directory: Path) -> dict[str, str]:
    """sha256 of every regular file under ``directory`` (symlinks not followed), sorted."""
    return {rel: digest for rel, (digest, _) in tree_state(directory).items()}


def tree_state(directory: Path) -> dict[str, tuple[str, bool]]:
    """sha256 and owner-executable bit of every regular file under ``directory`` (symlinks not
    followed), sorted, from one walk: what two copies of a skill must share to be the same."""
    root = Path(directory)
    state: dict[str, tuple[str, bool]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fname in filenames:
            full = Path(dirpath) / fname
            mode = full.lstat().st_mode
            if not stat.S_ISREG(mode):
                continue
            state[full.relative_to(root).as_posix()] = (_sha256_file(full), bool(mode & 0o100))
    return dict(sorted(state.items()))


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def read_lock(root: Path) -> Lock:
    """Read ``<root>/upskill-hub.lock``; missing means empty, anything malformed is a LockError."""
    path = lock_path(root)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Lock()
    except (OSError, UnicodeDecodeError) as exc:
        raise LockError(f"{path}: cannot read lock file: {exc}") from exc
    try:
        data = parse_json(text)
    except JsonInputError as exc:
        raise LockError(f"{path}: {exc}") from None
    try:
        return _lock_from_json(data, root)
    except ValueError as exc:
        raise LockError(f"{path}: {exc}") from exc


def write_lock(root: Path, lock: Lock) -> None:
    """Write the lock atomically; refuses (LockError) what :func:`read_lock` would reject."""
    path = lock_path(root)
    try:
        data = _lock_to_json(lock)
        _lock_from_json(data, root)
    except ValueError as exc:
        raise LockError(f"{path}: refusing to write an invalid lock: {exc}") from exc
    atomic_write_text(path, json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n")


def _lock_to_json(lock: Lock) -> dict[str, Any]:
    skills: dict[str, Any] = {}
    for key, s in lock.skills.items():
        if key != s.name:
            raise ValueError(f"skill stored under {key!r} is named {s.name!r}")
        skills[key] = {
            "repo_id": s.repo_id,
            "repo_type": s.repo_type,
            "ref": s.ref,
            "commit": s.commit,
            "subpath": s.subpath,
            "files": dict(sorted(s.files.items())),
            "targets": list(dict.fromkeys(s.targets)),
        }
        if s.evidence:
            skills[key]["evidence"] = [e.to_json() for e in s.evidence]
        if s.signature is not None:
            skills[key]["signature"] = dict(s.signature)
    return {"version": LOCK_VERSION, "skills": skills}


def _lock_from_json(data: Any, root: Path) -> Lock:
    if not isinstance(data, dict):
        raise ValueError("top level must be a JSON object")
    if data.get("version") != LOCK_VERSION:
        raise ValueError(f"unsupported lock version {data.get('version')!r} (expected 1)")
    skills = data.get("skills", {})
    if not isinstance(skills, dict):
        raise ValueError("'skills' must be an object")
    return Lock(
        skills={name: _skill_from_json(name, entry, root) for name, entry in skills.items()}
    )


def _skill_from_json(name: str, entry: Any, root: Path) -> LockedSkill:
    where = f"skills.{name}"
    if not isinstance(entry, dict):
        raise ValueError(f"{where} must be an object")
    if not name or not _is_safe_relpath(name) or "/" in name:
        raise ValueError(f"{where}: invalid skill name")
    repo_id = _field(entry, where, "repo_id", str)
    repo_type = _field(entry, where, "repo_type", str, "model")
    ref = _field(entry, where, "ref", (str, type(None)), None)
    commit = _field(entry, where, "commit", str)
    subpath = _field(entry, where, "subpath", str, "")
    files = _field(entry, where, "files", dict, {})
    targets = _field(entry, where, "targets", list, [])
    evidence = evidence_from_json(entry.get("evidence"), f"{where}.evidence")
    if not repo_id:
        raise ValueError(f"{where}.repo_id must not be empty")
    if repo_type not in REPO_TYPES:
        raise ValueError(f"{where}.repo_type must be one of {', '.join(REPO_TYPES)}")
    if not _COMMIT.fullmatch(commit):
        raise ValueError(f"{where}.commit must be a 40-character hex commit sha, got {commit!r}")
    if subpath and not _is_safe_relpath(subpath):
        raise ValueError(f"{where}.subpath is not a safe relative path: {subpath!r}")
    for rel, digest in files.items():
        if not _is_safe_relpath(rel):
            raise ValueError(f"{where}.files: unsafe path {rel!r}")
        if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            raise ValueError(f"{where}.files[{rel!r}] must be a sha256 hex digest")
    if not all(isinstance(t, str) and t for t in targets):
        raise ValueError(f"{where}.targets must be a list of non-empty strings")
    _check_targets(where, name, targets, root)
    signature = _signature_from_json(where, entry.get("signature"))
    return LockedSkill(
        name=name,
        repo_id=repo_id,
        repo_type=repo_type,
        ref=ref,
        commit=commit,
        subpath=subpath,
        files=dict(sorted(files.items())),
        targets=list(targets),
        evidence=evidence,
        signature=signature,
    )


def _signature_from_json(where: str, value: Any) -> dict[str, str] | None:
    """The optional ``signature`` of an entry: the signing key's fingerprint and public key, or
    the signing certificate's fingerprint, subject and the CA it chained to."""
    if value is None:
        return None
    shapes = {
        "key": {"method", "signer", "public_key"},
        "certificate": {"method", "signer", "subject", "ca"},
    }
    method = value.get("method") if isinstance(value, dict) else None
    optional = {"version", "signed_at"}  # the signed statement's (registry.trust.signing)
    if not isinstance(value, dict) or set(value) - optional != shapes.get(str(method), set()):
        raise ValueError(
            f"{where}.signature must hold method 'key' with signer and public_key, or method "
            "'certificate' with signer, subject and ca (and optionally version, signed_at)"
        )
    if not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f"{where}.signature values must be strings")
    if "version" in value and not re.fullmatch(r"[1-9][0-9]{0,15}", value["version"]):
        raise ValueError(f"{where}.signature.version must be a positive whole number")
    if not re.fullmatch(r"sha256:[0-9a-f]{64}", value["signer"]):
        raise ValueError(f"{where}.signature.signer must be sha256:<64 hex>")
    if value["method"] == "certificate":
        if not value["ca"].startswith("-----BEGIN CERTIFICATE-----"):
            raise ValueError(f"{where}.signature.ca must be a PEM certificate")
        return dict(value)
    pem = value["public_key"]
    digest = hashlib.sha256(pem.encode("utf-8")).hexdigest()
    if not pem.startswith("-----BEGIN PUBLIC KEY-----") or value["signer"] != f"sha256:{digest}":
        raise ValueError(f"{where}.signature.signer is not the fingerprint of its public_key")
    return dict(value)


def _check_targets(where: str, name: str, targets: list[str], root: Path) -> None:
    """Each target must be ``<agent skills folder>/<name>``; anything else refuses the lock.

    A lock is committed to repositories other people clone: a target such as ``~/.bashrc`` or
    ``../other`` would let ``install --frozen`` write, and ``remove`` delete, anywhere.
    """
    allowed = lock_target_entries(name, root)
    for target in targets:
        if target not in allowed:
            raise ValueError(
                f"{where}.targets: {target!r} is not an agent skills folder ending in "
                f"{name!r} (e.g. .claude/skills/{name}); refusing the whole lock"
            )


def refuse_outside_project(
    skills: Iterable[LockedSkill], root: Path, *, global_: bool, action: str
) -> None:
    """A project lock acts on folders outside the project (``~/.claude/skills/NAME``, ...) only
    when the user asks with ``global_``: a lock arriving by pull request must not take over (or
    delete) a skill installed for the whole user. LockError naming each such entry."""
    if global_:
        return
    outside = [
        f"{s.name} -> {entry}"
        for s in skills
        for entry, path in zip(s.targets, s.target_paths(root), strict=True)
        if not is_project_folder(path, root)
    ]
    if outside:
        raise LockError(
            f"{lock_path(root)}: refusing to {action} outside the project: "
            f"{', '.join(outside)}; a project lock acts on user folders only with ",
            Param("global_"),
        )


_MISSING = object()


def _field(entry: dict[str, Any], where: str, key: str, kind: Any, default: Any = _MISSING) -> Any:
    if key not in entry:
        if default is _MISSING:
            raise ValueError(f"{where} is missing {key!r}")
        return default
    value = entry[key]
    if not isinstance(value, kind):
        raise ValueError(f"{where}.{key} has the wrong type ({type(value).__name__})")
    return value


def _is_safe_relpath(rel: str) -> bool:
    if not rel or "\\" in rel or "\0" in rel or rel.startswith("/") or re.match(r"[A-Za-z]:", rel):
        return False
    parts = PurePosixPath(rel).parts
    return all(p not in ("..", ".") for p in parts) and rel == PurePosixPath(rel).as_posix()
