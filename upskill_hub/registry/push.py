"""Publish skills to a Hub model repo: validate, scan, upload the skill files and a model card.

A skill folder becomes a repo with the skill at its root; a folder of skills (or a skill that
ships its own README.md, which the card would replace) becomes ``skills/<name>/...``. Only
the skill's own files are uploaded (VCS and OS junk excluded); files left over from an earlier
push are deleted in the same commit. The scanned bytes are the uploaded bytes.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from huggingface_hub import CommitOperationAdd, CommitOperationDelete

from upskill_hub.errors import (
    HubError,
    InvalidSkillError,
    Param,
    RepoNotFoundError,
    SkillNotFoundError,
    UnsafeSkillError,
    UsageError,
)
from upskill_hub.hub.client import Hub, parse_spec
from upskill_hub.registry.card import (
    CARD_FILE,
    REPLICATIONS_META_KEY,
    CardSkill,
    build_card,
    results_metadata,
    results_section,
)
from upskill_hub.registry.fetch import (
    ESCAPING_RULES,
    REPO_FILES,
    ScanRefusedError,
    ValidationRefusedError,
    check_skill_dir,
)
from upskill_hub.registry.trust.scan import ScanFinding, ScanLimits, scan_tree
from upskill_hub.skill import Skill, discover_skills, list_files, load_skill, validate_skill
from upskill_hub.skill.discover import has_skill_md

if TYPE_CHECKING:
    from upskill_hub.registry.trust.signing import SigningKey

#: Findings ``--allow-unsafe`` never overrides on push: links, special files, escaping paths.
NEVER_UPLOADED = ESCAPING_RULES | {"symlink", "special-file"}
#: The Hub stores a file with LFS/Xet when its first 8 KiB hold a NUL byte or it is 10 MiB+.
_LFS_SNIFF_BYTES = 8192
_LFS_SIZE = 10 * 1024 * 1024


@dataclass(frozen=True)
class PushResult:
    """What ``push`` did: ``url`` is the pull request when one was opened, else the repo."""

    repo_id: str
    commit: str
    url: str
    tag: str | None
    skills: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    pr_url: str | None = None
    #: False when the repo already held exactly these files: no commit (and no PR) was made.
    changed: bool = True
    #: The fingerprint of the key that signed the skills (``push --sign``), else None.
    signed_by: str | None = None

    def to_dict(self) -> dict[str, str | list[str] | None]:
        out: dict[str, str | list[str] | None] = {
            "repo_id": self.repo_id,
            "commit": self.commit,
            "url": self.url,
            "tag": self.tag,
            "deleted": list(self.deleted),
        }
        if self.signed_by:
            out["signed_by"] = self.signed_by
        return out


@dataclass(frozen=True)
class _Prepared:
    name: str
    subpath: str
    staged: Path
    files: list[str]
    card: CardSkill
    #: Files the Hub would store with LFS/Xet (binary or large), as the copy found them.
    binary: tuple[str, ...] = ()


def push_skills(
    path: Path,
    *,
    repo_id: str | None = None,
    private: bool = False,
    tag: str | None = None,
    message: str | None = None,
    create_pr: bool = False,
    allow_unsafe: bool = False,
    hub: Hub | None = None,
    limits: ScanLimits | None = None,
    sign: Path | SigningKey | None = None,
) -> PushResult:
    """Validate, scan and upload the skill(s) at ``path``; tag the commit when ``tag`` is given.

    ``sign`` (a PEM EC private key, or a
    :class:`~upskill_hub.registry.trust.signing.SigningKey` with its certificate) signs each
    skill's staged files into ``skill.oms.sig`` (:mod:`~upskill_hub.registry.trust.signing`).
    Raises ValidationRefusedError / ScanRefusedError / SignatureError before any request is made.
    """
    if tag and create_pr:
        raise UsageError(
            Param("tag"),
            " cannot be combined with ",
            Param("create_pr"),
            ": tag after the PR is merged",
        )
    path = Path(path)
    hub = hub or Hub()
    limits = limits or ScanLimits()
    dirs = discover_skills(path)
    multi = len(dirs) > 1 or dirs[0].resolve() != path.resolve()
    with tempfile.TemporaryDirectory(prefix="upskill-push-") as tmp:
        prepared, warnings = _prepare_all(dirs, Path(tmp), limits, allow_unsafe)
        multi = multi or any(CARD_FILE in p.files for p in prepared)
        prepared = [_with_layout(p, multi) for p in prepared]
        _check_unique(prepared)
        if repo_id is None:
            base = prepared[0].name if not multi else path.resolve().name
            repo_id = f"{hub.whoami()}/{base}"
        repo_id, rev = parse_spec(repo_id)
        if rev:
            raise UsageError(
                Param("repo_id"), f" takes NS/NAME without a revision, got {repo_id}@{rev}"
            )
        prepared, signed_by = _signed(prepared, sign, hub, repo_id)
        result = _upload(
            hub,
            repo_id,
            prepared,
            warnings,
            private=private,
            tag=tag,
            message=message,
            create_pr=create_pr,
        )
        return replace(result, signed_by=signed_by)


def _signed(
    prepared: list[_Prepared], key: Path | SigningKey | None, hub: Hub, repo_id: str
) -> tuple[list[_Prepared], str | None]:
    """Sign each staged skill with ``key`` (or check a signature it already carries); a signed
    skill's statement names ``repo_id`` and the next version after the repo's current one."""
    from upskill_hub.registry.trust.signing import SkillStatement, prepare_upload

    out: list[_Prepared] = []
    signed_by: str | None = None
    for p in prepared:
        statement = None
        if key is not None:
            version = _next_signed_version(hub, repo_id, p.subpath)
            statement = SkillStatement(repo_id, p.name, version, _utc_now())
        files, signer = prepare_upload(p.staged, p.files, key, where=p.name, statement=statement)
        signed_by = signer.who if signer else None
        card = replace(p.card, files=files)
        out.append(replace(p, files=files, card=card))
    return out, signed_by


def _next_signed_version(hub: Hub, repo_id: str, subpath: str) -> int:
    """One more than the version of the statement on the repo's default branch (1 when the
    repo, or the statement, does not exist yet). Other Hub errors stop the push: a version
    guessed too low would read as a downgrade to everyone who installed the skill."""
    from upskill_hub.registry.trust.signing import STATEMENT_FILE, next_version

    name = f"{subpath}/{STATEMENT_FILE}" if subpath else STATEMENT_FILE
    try:
        found: Path | None = hub.download_file(repo_id, name)
    except HubError as exc:
        if exc.status != 404 and not isinstance(exc, RepoNotFoundError):
            raise
        found = None
    return next_version(found, f"{repo_id}: {name}")


def _utc_now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def scan_local(
    path: Path, limits: ScanLimits | None = None
) -> list[tuple[Path, list[ScanFinding]]]:
    """The security scan of each skill under ``path``, over exactly the files push uploads."""
    limits = limits or ScanLimits()
    results: list[tuple[Path, list[ScanFinding]]] = []
    dirs = discover_skills(Path(path))
    if dirs == [Path(path)] and not Path(path).is_file() and not has_skill_md(Path(path)):
        raise SkillNotFoundError(f"{path}: no skill here (no SKILL.md in it or its subfolders)")
    with tempfile.TemporaryDirectory(prefix="upskill-scan-") as tmp:
        for index, skill_dir in enumerate(dirs):
            staged = Path(tmp) / str(index) / skill_dir.resolve().name
            skipped, _ = _copy_files(skill_dir, staged, list_files(skill_dir))
            results.append((skill_dir, skipped + scan_tree(staged, limits)))
    return results


def _prepare_all(
    dirs: list[Path], tmp: Path, limits: ScanLimits, allow_unsafe: bool
) -> tuple[list[_Prepared], list[str]]:
    prepared: list[_Prepared] = []
    warnings: list[str] = []
    for index, skill_dir in enumerate(dirs):
        skill = _load_for_push(skill_dir)
        staged = tmp / str(index) / skill_dir.resolve().name
        where = str(skill_dir)
        skipped, binary = _copy_files(skill_dir, staged, skill.files)
        if skipped:
            raise ScanRefusedError(
                (
                    f"{where}: security scan refused the skill: {skipped[0]}; links and special "
                    "files are never uploaded, even with ",
                    Param("allow_unsafe"),
                ),
                skipped,
            )
        warnings += check_skill_dir(
            staged,
            limits=limits,
            allow_unsafe=allow_unsafe,
            where=where,
            never_allowed=NEVER_UPLOADED,
        )
        card = CardSkill(skill.name, skill.description, skill.files, "", skill.license)
        prepared.append(_Prepared(skill.name, "", staged, list(skill.files), card, binary))
    return prepared, warnings


def _load_for_push(skill_dir: Path) -> Skill:
    """The skill, or validate's own precise finding when it cannot even be loaded (a lowercase
    ``skill.md`` is ``file.name-case``, not "missing SKILL.md")."""
    try:
        return load_skill(skill_dir, with_tests=False)
    except (SkillNotFoundError, InvalidSkillError) as exc:
        report = validate_skill(skill_dir)
        if not report.errors:
            raise
        first = report.errors[0]
        raise ValidationRefusedError(
            f"{skill_dir}: {first.location()}: {first.rule}: {first.message}", report
        ) from exc


def _with_layout(p: _Prepared, multi: bool) -> _Prepared:
    subpath = f"skills/{p.name}" if multi else ""
    card = CardSkill(p.card.name, p.card.description, p.card.files, subpath, p.card.license)
    return replace(p, subpath=subpath, card=card)


def _check_unique(prepared: list[_Prepared]) -> None:
    seen: set[str] = set()
    for p in prepared:
        if p.name in seen:
            raise UsageError(f"two skills are named {p.name!r}; skill names must be unique")
        seen.add(p.name)


def _copy_files(
    src: Path, dest: Path, files: list[str]
) -> tuple[list[ScanFinding], tuple[str, ...]]:
    """Copy the regular files among ``files`` (the ones that would be uploaded) into ``dest``;
    returns the skipped ones as findings and the copied ones the Hub would store with LFS/Xet.

    Symlinks and special files are never staged, so nothing can follow them to content outside
    the skill; each one is returned as an error finding instead.
    """
    dest.mkdir(parents=True)
    skipped: list[ScanFinding] = []
    binary: list[str] = []
    for rel in files:
        source, target = src / rel, dest / rel
        st = os.lstat(source)
        if stat.S_ISLNK(st.st_mode):
            link = _printable(os.readlink(source))
            message = f"symlink to {link} (links are never uploaded)"
            skipped.append(ScanFinding("symlink", "error", message, _printable(rel)))
            continue
        if not stat.S_ISREG(st.st_mode):
            message = "not a regular file or folder (never uploaded)"
            skipped.append(ScanFinding("special-file", "error", message, _printable(rel)))
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if _copy_regular(source, target):
            binary.append(rel)
    return skipped, tuple(binary)


def _copy_regular(source: Path, target: Path) -> bool:
    """Copy one regular file without following a link swapped in since it was listed; returns
    whether the Hub would store it with LFS/Xet (a NUL byte in its first 8 KiB, or 10 MiB or
    more), judged from the bytes the copy reads."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(source, flags)
    except OSError as exc:
        raise UnsafeSkillError(
            f"{source}: cannot read it as a regular file ({exc.strerror})"
        ) from exc
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeSkillError(f"{source}: not a regular file; refusing to upload it")
        with open(target, "xb") as out:
            head = fh.read(_LFS_SNIFF_BYTES)
            out.write(head)
            shutil.copyfileobj(fh, out)
    os.chmod(target, 0o755 if st.st_mode & 0o111 else 0o644)
    return b"\0" in head or st.st_size >= _LFS_SIZE


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)


def _upload(
    hub: Hub,
    repo_id: str,
    prepared: list[_Prepared],
    warnings: list[str],
    *,
    private: bool,
    tag: str | None,
    message: str | None,
    create_pr: bool,
) -> PushResult:
    _check_xet(hub, prepared)
    hub.create_repo(repo_id, private=private)
    existing = hub.repo_files(repo_id)
    if tag:
        _check_new_tag(hub, repo_id, tag)
    head = _head(hub, repo_id)
    previous = _existing_card(hub, repo_id) if CARD_FILE in existing else None
    results = results_section(previous) if previous is not None else None
    executables = [
        f"{p.subpath}/{rel}" if p.subpath else rel
        for p in prepared
        for rel in p.files
        if os.lstat(p.staged / rel).st_mode & 0o111
    ]
    card = build_card(
        repo_id,
        [p.card for p in prepared],
        results=results,
        executables=executables,
        results_meta=results_metadata(previous) if previous is not None else (),
        replications_meta=(
            results_metadata(previous, REPLICATIONS_META_KEY) if previous is not None else ()
        ),
    )
    operations: list[CommitOperationAdd | CommitOperationDelete] = [
        CommitOperationAdd(path_in_repo=CARD_FILE, path_or_fileobj=card.encode("utf-8"))
    ]
    uploaded: list[str] = []
    for p in prepared:
        for rel in p.files:
            repo_path = f"{p.subpath}/{rel}" if p.subpath else rel
            if not stat.S_ISREG(os.lstat(p.staged / rel).st_mode):  # _copy_files made it
                raise UnsafeSkillError(
                    f"{p.staged / rel}: not a regular file; refusing to upload it"
                )
            operations.append(
                CommitOperationAdd(path_in_repo=repo_path, path_or_fileobj=str(p.staged / rel))
            )
            uploaded.append(repo_path)
    keep = set(uploaded) | REPO_FILES
    deleted = sorted(f for f in existing if f not in keep)
    operations += [CommitOperationDelete(path_in_repo=f) for f in deleted]
    names = ", ".join(p.name for p in prepared)
    info = hub.create_commit(
        repo_id, operations, message=message or f"Upload skill {names}", create_pr=create_pr
    )
    if tag:
        try:
            hub.create_tag(repo_id, tag, revision=info.oid, message=message)
        except HubError as exc:
            if exc.status == 409:
                raise _tag_exists(repo_id, tag) from exc
            raise
    pr_url = getattr(info, "pr_url", None)
    return PushResult(
        repo_id=repo_id,
        commit=info.oid,
        url=pr_url or hub.repo_url(repo_id),
        tag=tag,
        skills=[p.name for p in prepared],
        files=sorted(uploaded),
        deleted=deleted,
        warnings=warnings,
        pr_url=pr_url,
        changed=head is None or info.oid != head,
    )


def _check_xet(hub: Hub, prepared: list[_Prepared]) -> None:
    """Refuse, before anything is created, a binary upload that would go through Xet to a
    server that is not the Hugging Face Hub.

    With ``hf_xet`` installed huggingface_hub uploads binary files through Xet and has no
    fallback; a server without Xet (``upskill-hub hub serve``, a mirror) fails mid-push with a
    raw ``xet-write-token`` error, after the repo was created. ``HF_HUB_DISABLE_XET=0`` says
    the server does speak Xet.
    """
    from huggingface_hub import constants
    from huggingface_hub.utils._runtime import is_xet_available

    host = urlsplit(hub.endpoint).hostname or ""
    on_the_hub = host == "huggingface.co" or host.endswith(".huggingface.co")
    if on_the_hub or not is_xet_available() or os.environ.get("HF_HUB_DISABLE_XET") == "0":
        return
    binary = next((rel for p in prepared for rel in p.binary), None)
    if binary is not None and not constants.HF_HUB_DISABLE_XET:
        raise UsageError(
            f"{binary} is binary and would be uploaded through Xet, which {hub.endpoint} does "
            "not serve; set HF_HUB_DISABLE_XET=1 (or HF_HUB_DISABLE_XET=0 if it does)"
        )


def _tag_exists(repo_id: str, tag: str) -> HubError:
    """A refusal (exit 1, like any push the Hub refuses), not a bad flag: the tag is taken."""
    return HubError(
        f"{repo_id}: tag {tag!r} already exists; push with a new version (",
        Param("tag"),
        f") or delete the tag first (hf repos tag delete {repo_id} {tag})",
        status=409,
        repo_id=repo_id,
    )


def _check_new_tag(hub: Hub, repo_id: str, tag: str) -> None:
    """Refuse before committing when ``tag`` already names a commit of the repo."""
    if tag in hub.tags(repo_id):
        raise _tag_exists(repo_id, tag)


def _head(hub: Hub, repo_id: str) -> str | None:
    """The commit ``main`` is at before the push (None for a repo without one)."""
    try:
        return hub.resolve(repo_id, "main")
    except HubError:
        return None


def _existing_card(hub: Hub, repo_id: str) -> str:
    """The card being replaced: a new version keeps its Results section and published runs."""
    return hub.download_file(repo_id, CARD_FILE).read_text("utf-8", errors="replace")
