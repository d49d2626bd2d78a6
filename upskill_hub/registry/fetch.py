"""Fetch skills from a Hub repo into a local, checked folder (no agent install, no lock change).

``ns/name[@rev]`` -> the 40-hex commit -> the remote listing (scanned before any download) ->
download through huggingface_hub (cached per commit) -> a staged copy of plain files under
``$HF_HOME/upskill-hub/skills/<repo>/<commit>/<name>`` whose content is checked against the
listing, scanned and validated. Both ``pull`` and ``eval`` of a repo id come through here.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import shutil
import tempfile
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from huggingface_hub import constants

from upskill_hub.errors import HubError, InvalidSkillError, Param, UnsafeSkillError, UsageError
from upskill_hub.hub.client import Hub, RemoteFile, parse_spec
from upskill_hub.registry.card import CARD_FILE
from upskill_hub.registry.project.lock import tree_state
from upskill_hub.registry.trust.scan import (
    ScanFinding,
    ScanLimits,
    enforce,
    scan_listing,
    scan_tree,
)
from upskill_hub.skill import SkillReport, is_junk, validate_skill
from upskill_hub.skill.frontmatter import parse_skill_md

SKILL_MD = "SKILL.md"
#: Files at the root of a single-skill repo that belong to the repo, not the skill.
REPO_FILES = frozenset({"README.md", ".gitattributes"})
#: Listing rules that would write outside the skill folder: refused even with --allow-unsafe.
ESCAPING_RULES = frozenset(
    {
        "path-nul",
        "path-empty",
        "path-backslash",
        "path-absolute",
        "path-traversal",
        "path-control-char",
        "path-escape",
    }
)
_SAFE_NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")
_HEX40 = re.compile(r"[0-9a-f]{40}")
_HEX64 = re.compile(r"[0-9a-f]{64}")


class ScanRefusedError(UnsafeSkillError):
    """The security scan refused a skill; ``findings`` lists every error for the CLI to print.
    ``message`` is a string or a tuple of message parts (text and :class:`Param`)."""

    def __init__(self, message: str | tuple[object, ...], findings: Sequence[ScanFinding]) -> None:
        super().__init__(*(message if isinstance(message, tuple) else (message,)))
        self.findings = list(findings)


class ValidationRefusedError(InvalidSkillError):
    """A skill failed validation where a valid one is required; ``report`` has the findings."""

    def __init__(self, message: str, report: SkillReport) -> None:
        super().__init__(message)
        self.report = report


class SeveralSkillsError(UsageError):
    """:func:`fetch_skill` of a multi-skill repo without naming the skill."""

    def __init__(self, repo_id: str, names: Sequence[str]) -> None:
        self.repo_id = repo_id
        self.names = list(names)
        known = ", ".join(self.names)
        super().__init__(
            f"{repo_id} holds several skills ({known}); name one with ", Param("skill")
        )


@dataclass(frozen=True)
class RemoteSkill:
    """A skill found in a repo listing: its folder in the repo and its files relative to it."""

    name: str
    subpath: str
    files: tuple[RemoteFile, ...]

    def repo_path(self, rel: str) -> str:
        return f"{self.subpath}/{rel}" if self.subpath else rel


@dataclass(frozen=True)
class RemoteRepo:
    """A repo at one commit: what the listing says, before anything is downloaded."""

    repo_id: str
    ref: str | None
    commit: str
    skills: tuple[RemoteSkill, ...]
    files: tuple[RemoteFile, ...]

    def where(self, skill: RemoteSkill) -> str:
        """``ns/name@commit[:subpath]`` for messages."""
        return f"{self.repo_id}@{self.commit[:12]}" + (f":{skill.subpath}" if skill.subpath else "")

    def select(self, names: Sequence[str] | None) -> list[RemoteSkill]:
        """The skills named (all when none); unknown names are a UsageError listing the known."""
        if not self.skills:
            raise InvalidSkillError(
                f"{self.repo_id}@{self.commit[:12]}: no SKILL.md in the repository"
            )
        if not names:
            return list(self.skills)
        by_name = {s.name: s for s in self.skills}
        if len(self.skills) == 1 and self.skills[0].subpath == "":
            return list(self.skills)  # a root skill's name is only known after download
        missing = [n for n in names if n not in by_name]
        if missing:
            known = ", ".join(sorted(by_name))
            raise UsageError(f"{self.repo_id}: no skill named {', '.join(missing)} (has: {known})")
        return [by_name[n] for n in dict.fromkeys(names)]


@dataclass(frozen=True)
class FetchedSkill:
    """A checked local copy of one skill from the Hub."""

    path: Path
    repo_id: str
    commit: str
    subpath: str
    name: str = ""
    ref: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


def skills_in_listing(files: Sequence[RemoteFile]) -> list[RemoteSkill]:
    """Skills in a listing: SKILL.md at the root (one skill), else each top-most folder with one."""
    paths = {f.path for f in files}
    if SKILL_MD in paths:
        own = tuple(f for f in files if f.path not in REPO_FILES and not is_junk(f.path))
        return [RemoteSkill(name="", subpath="", files=own)]
    dirs = sorted(p[: -len(SKILL_MD) - 1] for p in paths if p.endswith("/" + SKILL_MD))
    tops = [d for d in dirs if not any(d.startswith(o + "/") for o in dirs if o != d)]
    skills: list[RemoteSkill] = []
    for d in tops:
        prefix = d + "/"
        own = tuple(
            RemoteFile(f.path[len(prefix) :], f.size, f.blob_id, f.lfs_sha256)
            for f in files
            if f.path.startswith(prefix) and not is_junk(f.path[len(prefix) :])
        )
        skills.append(RemoteSkill(name=posixpath.basename(d), subpath=d, files=own))
    _refuse_duplicate_names(skills)
    return skills


def _refuse_duplicate_names(skills: Sequence[RemoteSkill]) -> None:
    """Two folders ``a/x`` and ``b/x`` would install (and lock) as one skill ``x``: refuse."""
    seen: dict[str, str] = {}
    for skill in skills:
        if skill.name in seen:
            raise InvalidSkillError(
                f"two skills named {skill.name!r} in one repository: {seen[skill.name]} and "
                f"{skill.subpath}; rename one"
            )
        seen[skill.name] = skill.subpath


def inspect_repo(spec: str, *, hub: Hub | None = None, repo_type: str = "model") -> RemoteRepo:
    """Resolve ``ns/name[@rev]`` to a commit and read its listing (no file is downloaded)."""
    hub = hub or Hub()
    repo_id, ref = parse_spec(spec)
    commit = hub.resolve(repo_id, ref, repo_type)
    files = tuple(hub.list_files(repo_id, commit, repo_type))
    try:
        skills = tuple(skills_in_listing(files))
    except InvalidSkillError as exc:
        raise InvalidSkillError(f"{repo_id}@{commit[:12]}: {exc}") from None
    return RemoteRepo(repo_id, ref, commit, skills, files)


def fetch_skills(
    spec: str,
    names: Sequence[str] | None = None,
    *,
    hub: Hub | None = None,
    limits: ScanLimits | None = None,
    allow_unsafe: bool = False,
    repo_type: str = "model",
) -> list[FetchedSkill]:
    """Fetch the named skills (all when none) of ``spec``: scanned, downloaded, checked, staged."""
    hub = hub or Hub()
    repo = inspect_repo(spec, hub=hub, repo_type=repo_type)
    return fetch_from(
        repo, names, hub=hub, limits=limits, allow_unsafe=allow_unsafe, repo_type=repo_type
    )


def fetch_from(
    repo: RemoteRepo,
    names: Sequence[str] | None = None,
    *,
    hub: Hub,
    limits: ScanLimits | None = None,
    allow_unsafe: bool = False,
    repo_type: str = "model",
) -> list[FetchedSkill]:
    """:func:`fetch_skills` for a repo already inspected."""
    limits = limits or ScanLimits()
    chosen = repo.select(names)
    warnings = {s.subpath: check_listing(repo, s, limits, allow_unsafe) for s in chosen}
    wanted = [s.repo_path(f.path) for s in chosen for f in s.files]
    has_card = any(f.path == CARD_FILE for f in repo.files)
    snapshot = hub.download(
        repo.repo_id, repo.commit, wanted + ([CARD_FILE] if has_card else []), repo_type
    )
    executables = _card_executables(snapshot) if has_card else set()
    fetched = [
        _stage(repo, s, snapshot, limits, allow_unsafe, warnings[s.subpath], executables)
        for s in chosen
    ]
    if names and chosen[0].subpath == "" and fetched[0].name not in names:
        raise UsageError(
            f"{repo.repo_id}: no skill named {', '.join(names)} (has: {fetched[0].name})"
        )
    return fetched


def fetch_skill(spec: str, *, skill: str | None = None, hub: Hub | None = None) -> FetchedSkill:
    """One skill of ``ns/name[@rev]`` as a checked local folder (for ``eval`` of a repo id).

    A multi-skill repo needs ``skill``. ``hub`` picks the endpoint and credentials (default:
    HF_TOKEN / the saved login; ``Hub(token=False)`` is anonymous). No agent install, no lock
    change.
    """
    hub = hub or Hub()
    repo = inspect_repo(spec, hub=hub)
    if skill is None and len(repo.skills) > 1:
        raise SeveralSkillsError(repo.repo_id, [s.name for s in repo.skills])
    return fetch_from(repo, [skill] if skill else None, hub=hub)[0]


def check_listing(
    repo: RemoteRepo, skill: RemoteSkill, limits: ScanLimits, allow_unsafe: bool
) -> list[str]:
    """Scan a skill's remote listing; raises ScanRefusedError before anything is downloaded."""
    findings = listing_findings(skill, limits)
    where = repo.where(skill)
    escaping = [f for f in findings if f.rule in ESCAPING_RULES]
    if escaping:  # never downloadable, whatever --allow-unsafe says
        raise ScanRefusedError(f"{where}: unsafe path in the listing: {escaping[0]}", escaping)
    return enforce_findings(findings, allow_unsafe, where)


def listing_findings(skill: RemoteSkill, limits: ScanLimits) -> list[ScanFinding]:
    """The scan of a skill's remote listing (paths relative to the skill)."""
    return scan_listing(((f.path, f.size) for f in skill.files), limits)


def enforce_findings(findings: Sequence[ScanFinding], allow_unsafe: bool, where: str) -> list[str]:
    """:func:`~upskill_hub.registry.trust.scan.enforce` with every error kept on the raised
    error for printing."""
    try:
        return enforce(findings, allow_unsafe)
    except UnsafeSkillError as exc:
        errors = [f for f in findings if f.severity == "error"]
        raise ScanRefusedError(f"{where}: {exc}", errors) from None


def check_skill_dir(
    path: Path,
    *,
    limits: ScanLimits,
    allow_unsafe: bool,
    where: str,
    never_allowed: frozenset[str] = frozenset(),
) -> list[str]:
    """Scan and validate a local skill folder; raises ScanRefusedError / ValidationRefusedError.

    Findings whose rule is in ``never_allowed`` are refused even with ``allow_unsafe``.
    """
    findings = scan_tree(path, limits)
    never = [f for f in findings if f.rule in never_allowed and f.severity == "error"]
    if never:
        raise ScanRefusedError(
            (
                f"{where}: security scan refused the skill: {never[0]}; ",
                Param("allow_unsafe"),
                " does not override this",
            ),
            never,
        )
    warnings = enforce_findings(findings, allow_unsafe, where)
    report = validate_skill(path)
    if not report.valid:
        first = report.errors[0]
        raise ValidationRefusedError(
            f"{where}: invalid skill: {len(report.errors)} error(s); first: "
            f"{first.location()}: {first.message}",
            report,
        )
    return warnings


def _card_executables(snapshot: Path) -> set[str]:
    """Repo paths the card marks executable (the Hub keeps no file modes; push records them)."""
    from upskill_hub.registry.card import executable_files

    try:
        text = (snapshot / CARD_FILE).read_text("utf-8", errors="replace")
    except OSError:
        return set()
    return executable_files(text[:65536])


def staging_root() -> Path:
    """Where checked copies of fetched skills live (under ``HF_HOME``)."""
    return Path(constants.HF_HOME) / "upskill-hub" / "skills"


def _stage(
    repo: RemoteRepo,
    skill: RemoteSkill,
    snapshot: Path,
    limits: ScanLimits,
    allow_unsafe: bool,
    listing_warnings: list[str],
    executables: Collection[str] = frozenset(),
) -> FetchedSkill:
    name = skill.name or root_skill_name(snapshot, repo.repo_id)
    where = repo.where(skill)
    if not _SAFE_NAME.fullmatch(name):
        raise InvalidSkillError(f"{where}: skill name {name!r} is not a valid skill name")
    parent = staging_root() / repo.repo_id.replace("/", "--") / repo.commit
    parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".stage-", dir=parent))
    try:
        staged = work / name
        copy_checked(skill, snapshot, staged, limits, where, allow_unsafe=allow_unsafe)
        for f in skill.files:
            if skill.repo_path(f.path) in executables:
                os.chmod(staged / f.path, 0o755)
        warnings = check_skill_dir(staged, limits=limits, allow_unsafe=allow_unsafe, where=where)
        final = parent / name
        state = tree_state(staged)
        files = {rel: digest for rel, (digest, _) in state.items()}
        if not (final.is_dir() and tree_state(final) == state):
            old = parent / f".old-{name}-{os.getpid()}"
            if final.exists():
                os.replace(final, old)
            os.replace(staged, final)
            shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return FetchedSkill(
        path=final,
        repo_id=repo.repo_id,
        commit=repo.commit,
        subpath=skill.subpath,
        name=name,
        ref=repo.ref,
        files=files,
        warnings=tuple(dict.fromkeys(listing_warnings + warnings)),  # the same finding once
    )


def root_skill_name(snapshot: Path, repo_id: str) -> str:
    """The frontmatter name of a root skill (falls back to the repo name)."""
    try:
        parsed = parse_skill_md((snapshot / SKILL_MD).read_text("utf-8", errors="replace"))
    except OSError as exc:
        raise HubError(f"{repo_id}: SKILL.md missing from the download ({exc})") from None
    name = (parsed.frontmatter or {}).get("name")
    return name if isinstance(name, str) and name else repo_id.split("/")[-1]


def copy_checked(
    skill: RemoteSkill,
    snapshot: Path,
    dest: Path,
    limits: ScanLimits,
    where: str,
    *,
    allow_unsafe: bool = False,
) -> None:
    """Copy the downloaded files as plain files, refusing any that differ from the listing.

    The per-file size cap is a scan rule like the others: ``allow_unsafe`` lifts it, as it does
    on ``push``.
    """
    base = dest.resolve()
    for f in skill.files:
        src = snapshot / skill.repo_path(f.path)
        cap = -1 if allow_unsafe else limits.max_file_bytes + 1
        data = _read_capped(src, cap, where, f.path)
        if not allow_unsafe and len(data) > limits.max_file_bytes:
            raise ScanRefusedError(
                f"{where}: {f.path} is larger than {limits.max_file_bytes} bytes",
                [ScanFinding("file-too-large", "error", "downloaded file over the limit", f.path)],
            )
        if not _matches_listing(f, data):
            raise ScanRefusedError(
                f"{where}: {f.path} does not match the repository listing (size or hash)",
                [ScanFinding("content-mismatch", "error", "differs from the listing", f.path)],
            )
        target = dest / f.path
        if not target.resolve().is_relative_to(base):
            raise ScanRefusedError(f"{where}: unsafe path {f.path!r}", [])
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _read_capped(path: Path, cap: int, where: str, rel: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(cap)
    except OSError as exc:
        raise HubError(f"{where}: {rel} missing from the download ({exc.strerror})") from None


def _matches_listing(f: RemoteFile, data: bytes) -> bool:
    """Whether downloaded ``data`` is the file the listing names, LFS or not.

    An LFS file is checked by its sha256 when the listing carries it. A listing read back from
    huggingface_hub's tree cache has no ``lfs`` part, only the git blob id, which for an LFS file
    is the id of its pointer (``oid sha256:<hex>`` + ``size <n>``), not of the content: so the
    blob id is compared with both the content's id and the id of the pointer the content would
    have. Either way size and hash are bound; where the listing came from does not matter.
    """
    if f.lfs_sha256 and _HEX64.fullmatch(f.lfs_sha256):
        return hashlib.sha256(data).hexdigest() == f.lfs_sha256
    if f.blob_id and _HEX40.fullmatch(f.blob_id):
        if _git_blob_id(data) == f.blob_id:
            return True
        pointer = (
            "version https://git-lfs.github.com/spec/v1\n"
            f"oid sha256:{hashlib.sha256(data).hexdigest()}\nsize {len(data)}\n"
        )
        return _git_blob_id(pointer.encode()) == f.blob_id
    return len(data) == f.size


def _git_blob_id(data: bytes) -> str:
    header = f"blob {len(data)}\0".encode()
    return hashlib.sha1(header + data, usedforsecurity=False).hexdigest()
