"""File transfer endpoints: ``resolve`` downloads (HEAD, GET, Range) and the LFS batch/upload."""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from upskill_hub.hub_server.api_errors import HubApiError, entry_not_found
from upskill_hub.hub_server.call import Call, take_revision
from upskill_hub.hub_server.storage import HubStore

_CHUNK = 1024 * 1024
#: How long an upload href handed out by the LFS batch call stays valid.
UPLOAD_GRANT_SECONDS = 3600
#: The largest LFS object accepted.
MAX_LFS_BYTES = 50 << 30


class UploadGrants:
    """Upload hrefs handed out by an authorized LFS batch call.

    huggingface_hub PUTs to the href without any Authorization header (the Hub's hrefs are
    presigned), so the href itself carries an unguessable grant for one oid and size; a PUT
    without a live grant is refused before its body is read.
    """

    def __init__(self) -> None:
        self._grants: dict[str, tuple[str, int, float]] = {}
        self._lock = threading.Lock()

    def issue(self, oid: str, size: int) -> str:
        grant = secrets.token_urlsafe(24)
        with self._lock:
            now = time.monotonic()
            self._grants = {k: v for k, v in self._grants.items() if v[2] > now}
            self._grants[grant] = (oid, size, now + UPLOAD_GRANT_SECONDS)
        return grant

    def take(self, grant: str, oid: str) -> int | None:
        """The granted size for ``oid`` (the grant is used up), or None."""
        with self._lock:
            found = self._grants.get(grant)
            if found is None or found[0] != oid or found[2] < time.monotonic():
                return None
            del self._grants[grant]
            return found[1]


_RANGE_RE = re.compile(r"^bytes=(\d*)-(\d*)$")


def _read_range(path: Path, start: int, length: int) -> Iterator[bytes]:
    with open(path, "rb") as fh:
        fh.seek(start)
        remaining = length
        while remaining > 0:
            chunk = fh.read(min(_CHUNK, remaining))
            if not chunk:
                break
            remaining -= len(chunk)
            yield chunk


def _parse_range(header: str, size: int) -> tuple[int, int] | None:
    """(start, end inclusive) for a single ``bytes=`` range; None when absent or unparsable."""
    match = _RANGE_RE.match(header.strip())
    if not match or (not match.group(1) and not match.group(2)):
        return None
    first, last = match.group(1), match.group(2)
    if not first:  # suffix range: the last N bytes
        start, end = max(0, size - int(last)), size - 1
    else:
        start = int(first)
        end = min(int(last), size - 1) if last else size - 1
    if start >= size or start > end:
        raise HubApiError(
            416, "Requested range not satisfiable", headers={"Content-Range": f"bytes */{size}"}
        )
    return start, end


async def _capped(request: Request, size: int) -> Any:
    """The request stream, cut off (400) past ``size`` bytes."""
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > size:
            raise HubApiError(400, f"Uploaded more than the {size} bytes granted")
        yield chunk


def resolve(call: Call) -> Response:
    """``HEAD``/``GET /{prefix}{id}/resolve/{rev}/{path}``."""
    revision, rest = take_revision(call.segments)
    repo, _ = call.require_repo()
    commit = call.store.commit(repo, call.store.resolve(repo, revision))
    path = "/".join(rest)
    entry = commit.tree.get(path)
    if entry is None:
        raise entry_not_found(path, commit.id)
    size = entry["size"]
    headers = {
        "X-Repo-Commit": commit.id,
        "Accept-Ranges": "bytes",
        "Content-Type": "application/octet-stream",
    }
    if entry.get("lfs"):
        headers["ETag"] = f'"{entry["lfs"]}"'
        headers["X-Linked-Etag"] = f'"{entry["lfs"]}"'
        headers["X-Linked-Size"] = str(size)
    else:
        headers["ETag"] = f'"{entry["oid"]}"'
    status, start, length = 200, 0, size
    wanted = call.request.headers.get("range")
    byte_range = _parse_range(wanted, size) if wanted and call.method == "GET" else None
    if byte_range is not None:
        start, end = byte_range
        status, length = 206, end - start + 1
        headers["Content-Range"] = f"bytes {start}-{end}/{size}"
    headers["Content-Length"] = str(length)
    if call.method == "HEAD":
        return Response(status_code=status, headers=headers)
    blob = call.store.blob_path(entry)
    return StreamingResponse(_read_range(blob, start, length), status_code=status, headers=headers)


def lfs_batch(call: Call) -> Response:
    """``POST /{prefix}{id}.git/info/lfs/objects/batch`` (upload operation, basic transfer)."""
    call.require_write()
    call.require_repo()
    try:
        body: dict[str, Any] = json.loads(call.body or b"{}")
    except ValueError:
        raise HubApiError(400, "Invalid JSON body") from None
    if body.get("operation") != "upload":
        raise HubApiError(400, "Only the LFS upload operation is supported")
    objects = []
    for obj in body.get("objects") or []:
        oid, size = obj.get("oid"), obj.get("size")
        if not isinstance(oid, str) or not isinstance(size, int) or isinstance(size, bool):
            raise HubApiError(400, 'Each LFS object needs "oid" and "size"')
        if not 0 <= size <= MAX_LFS_BYTES:
            raise HubApiError(413, f"LFS object over {MAX_LFS_BYTES} bytes")
        item: dict[str, Any] = {"oid": oid, "size": size, "authenticated": True}
        if not call.store.has_lfs(oid):
            grant = call.request.app.state.upload_grants.issue(oid, size)
            href = f"{call.base_url}/_lfs-upload/{oid}?size={size}&grant={grant}"
            item["actions"] = {"upload": {"href": href, "header": {}}}
        objects.append(item)
    return JSONResponse(
        {"transfer": "basic", "objects": objects, "hash_algo": "sha256"},
        media_type="application/vnd.git-lfs+json",
    )


async def lfs_upload(
    request: Request, store: HubStore, segments: list[str], grants: UploadGrants
) -> Response:
    """``PUT /_lfs-upload/{sha256}?grant=G``: a granted upload, checked against sha256 and size."""
    if len(segments) != 1:
        raise HubApiError(404, "Not found")
    size = grants.take(request.query_params.get("grant", ""), segments[0])
    if size is None:
        raise HubApiError(401, "Unauthorized: no valid upload grant for this object")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) != size:
        raise HubApiError(400, f"Upload of {declared} bytes for an object of {size}")
    await store.put_lfs_stream(segments[0], _capped(request, size), size)
    return Response(status_code=200)
