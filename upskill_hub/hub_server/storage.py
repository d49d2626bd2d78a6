"""On-disk, content-addressed storage for the local Hub server.

Layout under the data directory::

    blobs/git/ab/<sha1>         regular file contents, by git blob sha1
    blobs/lfs/ab/<sha256>       LFS file contents, by sha256
    repos/<type>s/<ns>/<name>/repo.json       type, id, private, sdk, createdAt
    repos/<type>s/<ns>/<name>/refs.json       {"heads": {}, "tags": {}, "pulls": {}}
    repos/<type>s/<ns>/<name>/commits/<oid>.json
        {"id", "parents", "tree": {path: {"oid", "size", "lfs"?}}, "title", "message", "date"}

Every file is written atomically; writes are serialized by one lock (one server process).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from upskill_hub.atomic_io import atomic_write_bytes, atomic_write_text
from upskill_hub.hub_server.api_errors import (
    HubApiError,
    entry_not_found,
    repo_not_found,
    revision_not_found,
)
from upskill_hub.hub_server.hashing import LFS_POINTER_SIZE, git_blob_oid, json_oid, lfs_pointer

RepoType = Literal["model", "dataset", "space"]
REPO_TYPES: tuple[RepoType, ...] = ("model", "dataset", "space")
DEFAULT_BRANCH = "main"
LOCAL_USER = "local-user"

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
_OID_RE = re.compile(r"^[0-9a-f]{40}$")
_SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
_PR_RE = re.compile(r"^refs/pr/(\d+)$")

#: What a new repo's first commit holds, as on the Hub.
INITIAL_GITATTRIBUTES = b"""\
*.7z filter=lfs diff=lfs merge=lfs -text
*.arrow filter=lfs diff=lfs merge=lfs -text
*.bin filter=lfs diff=lfs merge=lfs -text
*.ckpt filter=lfs diff=lfs merge=lfs -text
*.gguf filter=lfs diff=lfs merge=lfs -text
*.gz filter=lfs diff=lfs merge=lfs -text
*.h5 filter=lfs diff=lfs merge=lfs -text
*.npy filter=lfs diff=lfs merge=lfs -text
*.npz filter=lfs diff=lfs merge=lfs -text
*.onnx filter=lfs diff=lfs merge=lfs -text
*.parquet filter=lfs diff=lfs merge=lfs -text
*.pickle filter=lfs diff=lfs merge=lfs -text
*.pkl filter=lfs diff=lfs merge=lfs -text
*.pt filter=lfs diff=lfs merge=lfs -text
*.pth filter=lfs diff=lfs merge=lfs -text
*.safetensors filter=lfs diff=lfs merge=lfs -text
*.tar filter=lfs diff=lfs merge=lfs -text
*.zip filter=lfs diff=lfs merge=lfs -text
"""


@dataclass(frozen=True)
class RepoRef:
    """A repo address: type plus ``namespace/name``."""

    type: RepoType
    id: str

    @property
    def url_prefix(self) -> str:
        return "" if self.type == "model" else f"{self.type}s/"


@dataclass(frozen=True)
class Commit:
    id: str
    parents: tuple[str, ...]
    tree: dict[str, dict[str, Any]]
    title: str
    message: str
    date: str
    author: str


@dataclass(frozen=True)
class FileOp:
    """One commit operation: ``file``, ``lfs`` (by sha256), ``delete_file`` or ``delete_folder``."""

    kind: Literal["file", "lfs", "delete_file", "delete_folder"]
    path: str
    content: bytes = b""
    sha256: str = ""


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def check_repo_id(repo_id: str) -> None:
    parts = repo_id.split("/")
    if len(parts) != 2 or not all(_NAME_RE.match(p) and ".." not in p for p in parts):
        raise HubApiError(400, f"Invalid repo id: {repo_id!r}")
    if parts[1].endswith(".git"):
        raise HubApiError(400, f"Invalid repo id: {repo_id!r}")


def check_path(path: str) -> str:
    """Reject paths that are absolute, empty, or climb out of the repo."""
    parts = path.split("/")
    if not path or path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise HubApiError(400, f"Invalid path in repo: {path!r}")
    if parts[0] == ".git":
        raise HubApiError(400, f"Invalid path in repo: {path!r}")
    return path


_SHORT_OID_RE = re.compile(r"[0-9a-f]{7,39}")


def is_commit_oid(value: str) -> bool:
    return bool(_OID_RE.match(value))


class HubStore:
    """Repos, commits, refs and blobs under one data directory."""

    def __init__(self, data_dir: Path) -> None:
        self.root = Path(data_dir)
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "tmp").mkdir(exist_ok=True)
        self.lock = threading.RLock()
        self._commits: dict[tuple[str, str], Commit] = {}

    # ---- paths -------------------------------------------------------------------------------
    def _repo_dir(self, repo: RepoRef) -> Path:
        check_repo_id(repo.id)
        return self.root / "repos" / f"{repo.type}s" / repo.id

    def git_blob_path(self, oid: str) -> Path:
        return self.root / "blobs" / "git" / oid[:2] / oid

    def lfs_blob_path(self, sha256: str) -> Path:
        return self.root / "blobs" / "lfs" / sha256[:2] / sha256

    def blob_path(self, entry: dict[str, Any]) -> Path:
        if entry.get("lfs"):
            return self.lfs_blob_path(entry["lfs"])
        return self.git_blob_path(entry["oid"])

    # ---- repos -------------------------------------------------------------------------------
    def repo_meta(self, repo: RepoRef) -> dict[str, Any] | None:
        path = self._repo_dir(repo) / "repo.json"
        try:
            meta: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        return meta

    def require_repo(self, repo: RepoRef) -> dict[str, Any]:
        meta = self.repo_meta(repo)
        if meta is None:
            raise repo_not_found(repo.id)
        return meta

    def list_repos(self, repo_type: RepoType) -> Iterator[tuple[RepoRef, dict[str, Any]]]:
        base = self.root / "repos" / f"{repo_type}s"
        for meta_path in sorted(base.glob("*/*/repo.json")):
            repo = RepoRef(repo_type, f"{meta_path.parent.parent.name}/{meta_path.parent.name}")
            meta = self.repo_meta(repo)
            if meta is not None:
                yield repo, meta

    def create_repo(self, repo: RepoRef, private: bool, sdk: str | None = None) -> bool:
        """Create ``repo`` with an initial commit; False if it already exists."""
        with self.lock:
            if self.repo_meta(repo) is not None:
                return False
            repo_dir = self._repo_dir(repo)
            meta = {
                "type": repo.type,
                "id": repo.id,
                "private": private,
                "sdk": sdk,
                "createdAt": now_iso(),
            }
            initial = [FileOp("file", ".gitattributes", INITIAL_GITATTRIBUTES)]
            oid = self._write_commit(repo, (), {}, initial, "initial commit", "")
            self._write_refs(repo, {"heads": {DEFAULT_BRANCH: oid}, "tags": {}, "pulls": {}})
            atomic_write_text(repo_dir / "repo.json", json.dumps(meta, indent=1))
            return True

    def delete_repo(self, repo: RepoRef) -> None:
        with self.lock:
            self.require_repo(repo)
            repo_dir = self._repo_dir(repo)
            trash = Path(tempfile.mkdtemp(dir=self.root / "tmp", prefix="deleted-")) / "repo"
            os.replace(repo_dir, trash)  # one rename: the repo is gone for readers at once
            shutil.rmtree(trash, ignore_errors=True)
            for key in [k for k in self._commits if k[0] == str(repo_dir)]:
                del self._commits[key]

    def update_settings(self, repo: RepoRef, private: bool | None) -> None:
        with self.lock:
            meta = self.require_repo(repo)
            if private is not None:
                meta["private"] = private
            atomic_write_text(self._repo_dir(repo) / "repo.json", json.dumps(meta, indent=1))

    # ---- refs --------------------------------------------------------------------------------
    def refs(self, repo: RepoRef) -> dict[str, dict[str, str]]:
        self.require_repo(repo)
        data: dict[str, dict[str, str]] = json.loads(
            (self._repo_dir(repo) / "refs.json").read_text(encoding="utf-8")
        )
        data.setdefault("pulls", {})
        return data

    def _write_refs(self, repo: RepoRef, refs: dict[str, dict[str, str]]) -> None:
        atomic_write_text(self._repo_dir(repo) / "refs.json", json.dumps(refs, indent=1))

    def resolve(self, repo: RepoRef, revision: str) -> str:
        """The commit oid ``revision`` (branch, tag, ``refs/...`` or commit oid) points to."""
        refs = self.refs(repo)
        rev = revision
        if rev.startswith("refs/heads/"):
            found = refs["heads"].get(rev[len("refs/heads/") :])
        elif rev.startswith("refs/tags/"):
            found = refs["tags"].get(rev[len("refs/tags/") :])
        elif match := _PR_RE.match(rev):
            found = refs["pulls"].get(match.group(1))
        else:
            found = refs["heads"].get(rev) or refs["tags"].get(rev)
            if found is None and is_commit_oid(rev) and self._commit_file(repo, rev).exists():
                found = rev
            if found is None and _SHORT_OID_RE.fullmatch(rev):
                found = self._unique_prefix(repo, rev)
        if found is None:
            raise revision_not_found(revision)
        return found

    def _unique_prefix(self, repo: RepoRef, prefix: str) -> str | None:
        """The one commit whose id starts with ``prefix`` (7+ hex digits), as the Hub resolves."""
        folder = self._repo_dir(repo) / "commits"
        hits = [p.stem for p in folder.glob(f"{prefix}*.json")] if folder.is_dir() else []
        return hits[0] if len(hits) == 1 else None

    def create_branch(self, repo: RepoRef, branch: str, starting_point: str | None) -> None:
        _check_ref_name(branch)
        with self.lock:
            refs = self.refs(repo)
            if branch in refs["heads"]:
                raise HubApiError(409, f"Reference already exists: refs/heads/{branch}")
            refs["heads"][branch] = self.resolve(repo, starting_point or DEFAULT_BRANCH)
            self._write_refs(repo, refs)

    def delete_branch(self, repo: RepoRef, branch: str) -> None:
        with self.lock:
            refs = self.refs(repo)
            if branch == DEFAULT_BRANCH:
                raise HubApiError(403, "Cannot delete the default branch")
            if refs["heads"].pop(branch, None) is None:
                raise revision_not_found(branch)
            self._write_refs(repo, refs)

    def create_tag(self, repo: RepoRef, revision: str, tag: str) -> None:
        _check_ref_name(tag)
        with self.lock:
            refs = self.refs(repo)
            if tag in refs["tags"]:
                raise HubApiError(409, f"Tag already exists: {tag}")
            refs["tags"][tag] = self.resolve(repo, revision)
            self._write_refs(repo, refs)

    def delete_tag(self, repo: RepoRef, tag: str) -> None:
        with self.lock:
            refs = self.refs(repo)
            if refs["tags"].pop(tag, None) is None:
                raise revision_not_found(tag)
            self._write_refs(repo, refs)

    # ---- commits -----------------------------------------------------------------------------
    def _commit_file(self, repo: RepoRef, oid: str) -> Path:
        return self._repo_dir(repo) / "commits" / f"{oid}.json"

    def commit(self, repo: RepoRef, oid: str) -> Commit:
        key = (str(self._repo_dir(repo)), oid)
        cached = self._commits.get(key)
        if cached is not None:
            return cached
        try:
            raw = json.loads(self._commit_file(repo, oid).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise revision_not_found(oid) from None
        commit = Commit(
            id=raw["id"],
            parents=tuple(raw["parents"]),
            tree=raw["tree"],
            title=raw["title"],
            message=raw["message"],
            date=raw["date"],
            author=raw.get("author", LOCAL_USER),
        )
        self._commits[key] = commit
        return commit

    def history(self, repo: RepoRef, oid: str) -> Iterator[Commit]:
        """Commits reachable from ``oid`` by first parents, newest first."""
        current: str | None = oid
        while current is not None:
            commit = self.commit(repo, current)
            yield commit
            current = commit.parents[0] if commit.parents else None

    def _write_commit(
        self,
        repo: RepoRef,
        parents: tuple[str, ...],
        base_tree: dict[str, dict[str, Any]],
        ops: list[FileOp],
        title: str,
        message: str,
    ) -> str:
        tree = dict(base_tree)
        for op in ops:
            _apply(self, tree, op)
        date = now_iso()
        body = {
            "parents": list(parents),
            "tree": tree,
            "title": title,
            "message": message,
            "date": date,
            "author": LOCAL_USER,
            "nonce": os.urandom(8).hex(),
        }
        oid = json_oid(body)
        body["id"] = oid
        atomic_write_text(self._commit_file(repo, oid), json.dumps(body))
        return oid

    def create_commit(
        self,
        repo: RepoRef,
        revision: str,
        ops: list[FileOp],
        title: str,
        message: str,
        parent_commit: str | None = None,
        create_pr: bool = False,
    ) -> tuple[str, int | None]:
        """Apply ``ops`` on top of ``revision`` (a branch or PR ref); returns (oid, PR number)."""
        with self.lock:
            refs = self.refs(repo)
            pr_match = _PR_RE.match(revision)
            if pr_match:
                kind, name = "pulls", pr_match.group(1)
            else:
                kind = "heads"
                name = revision.removeprefix("refs/heads/")
            head = refs[kind].get(name)
            if head is None:
                raise revision_not_found(revision)
            if parent_commit is not None and not self._commit_file(repo, parent_commit).exists():
                raise HubApiError(412, f"Parent commit {parent_commit} does not exist")
            if create_pr:
                base = parent_commit or head
                kind, name = "pulls", str(1 + max((int(n) for n in refs["pulls"]), default=0))
            else:
                if parent_commit is not None and parent_commit != head:
                    raise HubApiError(
                        412,
                        f"A commit has happened since. Parent commit {parent_commit} is not the"
                        f" head of {revision} ({head}).",
                    )
                base = head
            oid = self._write_commit(
                repo, (base,), self.commit(repo, base).tree, ops, title, message
            )
            refs[kind][name] = oid
            self._write_refs(repo, refs)
            return oid, (int(name) if create_pr else None)

    # ---- blobs -------------------------------------------------------------------------------
    def put_git_blob(self, data: bytes) -> str:
        oid = git_blob_oid(data)
        path = self.git_blob_path(oid)
        if not path.exists():
            atomic_write_bytes(path, data)
        return oid

    def has_lfs(self, sha256: str) -> bool:
        return bool(_SHA256_RE.match(sha256)) and self.lfs_blob_path(sha256).exists()

    async def put_lfs_stream(
        self, sha256: str, chunks: AsyncIterator[bytes], size: int | None
    ) -> None:
        """Store an LFS upload after checking its sha256 (and size when known)."""
        if not _SHA256_RE.match(sha256):
            raise HubApiError(400, f"Invalid LFS oid: {sha256}")
        digest = hashlib.sha256()
        received = 0
        fd, tmp = tempfile.mkstemp(dir=self.root / "tmp", prefix="lfs-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                async for chunk in chunks:
                    digest.update(chunk)
                    received += len(chunk)
                    fh.write(chunk)
                fh.flush()
                os.fsync(fh.fileno())
            if digest.hexdigest() != sha256:
                raise HubApiError(400, "Uploaded content does not match its sha256 oid")
            if size is not None and size != received:
                raise HubApiError(400, f"Uploaded size {received} does not match {size}")
            target = self.lfs_blob_path(sha256)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


def tree_entry_for_upload(store: HubStore, op: FileOp) -> dict[str, Any]:
    """The tree entry a ``file`` or ``lfs`` operation produces (content stored first)."""
    if op.kind == "file":
        return {"oid": store.put_git_blob(op.content), "size": len(op.content)}
    if not store.has_lfs(op.sha256):
        raise HubApiError(
            422,
            f"LFS object {op.sha256} for {op.path} was not uploaded (call the LFS batch API first)",
        )
    size = store.lfs_blob_path(op.sha256).stat().st_size
    return {"oid": git_blob_oid(lfs_pointer(op.sha256, size)), "size": size, "lfs": op.sha256}


def lfs_info(entry: dict[str, Any]) -> dict[str, Any] | None:
    if not entry.get("lfs"):
        return None
    return {"oid": entry["lfs"], "size": entry["size"], "pointerSize": LFS_POINTER_SIZE}


def _apply(store: HubStore, tree: dict[str, dict[str, Any]], op: FileOp) -> None:
    path = check_path(op.path.strip("/") if op.kind == "delete_folder" else op.path)
    if op.kind in ("file", "lfs"):
        prefix = path + "/"
        if any(p.startswith(prefix) for p in tree):
            raise HubApiError(400, f"Cannot write file {path}: a folder has that name")
        parts = path.split("/")
        for i in range(1, len(parts)):
            if "/".join(parts[:i]) in tree:
                raise HubApiError(400, f"Cannot write {path}: {'/'.join(parts[:i])} is a file")
        tree[path] = tree_entry_for_upload(store, op)
    elif op.kind == "delete_file":
        if tree.pop(path, None) is None:
            raise entry_not_found(f"{path} (A file with this name doesn't exist)")
    else:
        prefix = path + "/"
        doomed = [p for p in tree if p.startswith(prefix)]
        if not doomed:
            raise entry_not_found(f"{path} (A folder with this name doesn't exist)")
        for p in doomed:
            del tree[p]


def _check_ref_name(name: str) -> None:
    if (
        not name
        or name.startswith(("refs/", "/", "-"))
        or name.endswith(("/", ".lock"))
        or ".." in name
        or any(c in name for c in " ~^:?*[\\")
        or is_commit_oid(name)
    ):
        raise HubApiError(400, f"Invalid reference name: {name!r}")
