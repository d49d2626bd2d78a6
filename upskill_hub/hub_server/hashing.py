"""Object ids the Hub protocol exposes: git blob sha1, sha256 (LFS), commit and folder ids."""

from __future__ import annotations

import hashlib
import json
from typing import Any

#: Size of the git-lfs pointer file the Hub reports as ``pointerSize``.
LFS_POINTER_SIZE = 134


def git_blob_oid(data: bytes) -> str:
    """The git object id of a blob holding ``data`` (what the Hub calls ``oid``/``blobId``)."""
    digest = hashlib.sha1(f"blob {len(data)}\0".encode(), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


def lfs_pointer(sha256: str, size: int) -> bytes:
    """The git-lfs pointer file stored in git for an LFS file."""
    return (
        f"version https://git-lfs.github.com/spec/v1\noid sha256:{sha256}\nsize {size}\n"
    ).encode()


def json_oid(value: Any) -> str:
    """A stable 40-hex id for a JSON-able value (commits, folders)."""
    payload = json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha1(payload, usedforsecurity=False).hexdigest()
