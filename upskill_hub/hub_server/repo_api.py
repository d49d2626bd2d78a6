"""Handlers for the JSON ``/api/...`` endpoints (repos, refs, history, commits, cards)."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any
from urllib.parse import parse_qs, urlencode

from starlette.responses import JSONResponse, Response

from upskill_hub.hub_server.api_errors import HubApiError
from upskill_hub.hub_server.call import Call, take_revision
from upskill_hub.hub_server.cards import CardMetadataError, card_metadata
from upskill_hub.hub_server.repo_views import (
    commit_item,
    path_entries,
    refs_view,
    repo_info,
    tree_entries,
)
from upskill_hub.hub_server.storage import (
    DEFAULT_BRANCH,
    LOCAL_USER,
    FileOp,
    RepoRef,
    RepoType,
    check_repo_id,
    is_commit_oid,
)

TREE_PAGE_SIZE = 1000
TREE_PAGE_SIZE_EXPANDED = 50
COMMITS_PAGE_SIZE = 50
LOCAL_ORG = "local-org"
#: Files at least this big go through LFS, as on the Hub.
LFS_SIZE_THRESHOLD = 10 * 1024 * 1024
LFS_SUFFIXES = [
    ".7z",
    ".arrow",
    ".bin",
    ".bz2",
    ".ckpt",
    ".ftz",
    ".gguf",
    ".gz",
    ".h5",
    ".joblib",
    ".lz4",
    ".mlmodel",
    ".model",
    ".msgpack",
    ".npy",
    ".npz",
    ".onnx",
    ".ot",
    ".parquet",
    ".pb",
    ".pickle",
    ".pkl",
    ".pt",
    ".pth",
    ".rar",
    ".safetensors",
    ".tar",
    ".tflite",
    ".tgz",
    ".wasm",
    ".xz",
    ".zip",
    ".zst",
    ".mp3",
    ".wav",
    ".ogg",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".webp",
    ".pdf",
]


def _json(call: Call) -> dict[str, Any]:
    if not call.body:
        return {}
    try:
        data = json.loads(call.body)
    except ValueError as exc:
        raise HubApiError(400, f"Invalid JSON body: {exc}") from exc
    if not isinstance(data, dict):
        raise HubApiError(400, "JSON body must be an object")
    return data


def _commit_at(call: Call, revision: str) -> tuple[RepoRef, dict[str, Any], Any]:
    repo, meta = call.require_repo()
    oid = call.store.resolve(repo, revision)
    return repo, meta, call.store.commit(repo, oid)


def _paged(call: Call, items: list[Any], page_size: int) -> Response:
    """A JSON list page with a GitHub-style ``Link: <...>; rel="next"`` header."""
    try:
        start = int(call.query("cursor") or 0)
    except ValueError:
        raise HubApiError(400, "Invalid cursor") from None
    page = items[start : start + page_size]
    headers = {}
    if start + page_size < len(items):
        params = parse_qs(call.request.url.query, keep_blank_values=True)
        params["cursor"] = [str(start + page_size)]
        raw_path = (call.request.scope.get("raw_path") or b"").decode("latin-1")
        path = raw_path or call.request.url.path
        url = f"{call.base_url}{path}?{urlencode(params, doseq=True)}"
        headers["Link"] = f'<{url}>; rel="next"'
    return JSONResponse(page, headers=headers)


# ---- account and cards --------------------------------------------------------------------------
def whoami(call: Call) -> Response:
    if not call.authorized or call.anonymous:
        raise HubApiError(401, "Invalid credentials in Authorization header")
    return JSONResponse(
        {
            "type": "user",
            "id": "local-user-id",
            "name": LOCAL_USER,
            "fullname": "Local User",
            "avatarUrl": "",
            "email": None,
            "emailVerified": False,
            "isPro": False,
            "canPay": False,
            "orgs": [
                {"type": "org", "name": LOCAL_ORG, "fullname": "Local Org", "roleInOrg": "admin"}
            ],
            "auth": {
                "type": "access_token",
                "accessToken": {"displayName": "local", "role": "write"},
            },
        }
    )


def validate_yaml(call: Call) -> Response:
    content = _json(call).get("content", "")
    if not isinstance(content, str):
        raise HubApiError(400, '"content" must be a string')
    try:
        card_metadata(content)
    except CardMetadataError as exc:
        return JSONResponse({"errors": [{"message": str(exc)}], "warnings": []}, status_code=400)
    return JSONResponse({"errors": [], "warnings": []})


# ---- repos ------------------------------------------------------------------------------------
def _repo_from_body(body: dict[str, Any]) -> RepoRef:
    name = body.get("name")
    if not isinstance(name, str):
        raise HubApiError(400, '"name" is required')
    namespace = body.get("organization") or LOCAL_USER
    repo_type = body.get("type") or "model"
    if repo_type not in ("model", "dataset", "space"):
        raise HubApiError(400, f"Invalid repo type: {repo_type}")
    repo_id = f"{namespace}/{name}"
    check_repo_id(repo_id)
    typed: RepoType = "dataset" if repo_type == "dataset" else "space"
    return RepoRef("model" if repo_type == "model" else typed, repo_id)


def create_repo(call: Call) -> Response:
    call.require_write()
    body = _json(call)
    repo = _repo_from_body(body)
    private = body.get("private")
    if "visibility" in body:
        private = body["visibility"] != "public"
    created = call.store.create_repo(repo, bool(private), body.get("sdk"))
    url = call.repo_url(repo)
    if not created:
        return JSONResponse(
            {"error": "You already created this repo", "url": url},
            status_code=409,
            headers={"X-Error-Message": "You already created this repo"},
        )
    return JSONResponse({"url": url, "name": repo.id, "id": repo.id})


def delete_repo(call: Call) -> Response:
    call.require_write()
    call.store.delete_repo(_repo_from_body(_json(call)))
    return Response(status_code=200)


def settings(call: Call) -> Response:
    call.require_write()
    repo, _ = call.require_repo()
    body = _json(call)
    private = body.get("private")
    if "visibility" in body:
        private = body["visibility"] != "public"
    call.store.update_settings(repo, None if private is None else bool(private))
    return JSONResponse({})


def info(call: Call) -> Response:
    revision = "/".join(call.segments) if call.segments else DEFAULT_BRANCH
    repo, meta, commit = _commit_at(call, revision)
    return JSONResponse(repo_info(call.store, repo, meta, commit))


def list_repos(call: Call) -> Response:
    assert call.repo is not None
    store = call.store
    search = call.query("search").lower()
    author = call.query("author")
    filters = call.request.query_params.getlist("filter")
    full = call.flag("full") or bool(filters)
    results: list[dict[str, Any]] = []
    for repo, meta in store.list_repos(call.repo.type):
        if meta.get("private") and not call.can_read_private():
            continue
        if search and search not in repo.id.lower():
            continue
        if author and repo.id.split("/")[0] != author:
            continue
        commit = store.commit(repo, store.resolve(repo, DEFAULT_BRANCH))
        item = repo_info(store, repo, meta, commit, siblings=full)
        tags = set(item["tags"])
        if not all(f in tags or f == repo.id.split("/")[0] for f in filters):
            continue
        if not call.flag("cardData") and not full:
            item.pop("cardData", None)
        results.append(item)
    sort = call.query("sort", "lastModified")
    if sort in ("lastModified", "createdAt", "id"):
        results.sort(key=lambda r: r.get(sort) or "", reverse=sort != "id")
    limit = call.query("limit")
    if limit.isdigit():
        results = results[: int(limit)]
    return _paged(call, results, TREE_PAGE_SIZE)


# ---- files -------------------------------------------------------------------------------------
def tree(call: Call) -> Response:
    revision, rest = take_revision(call.segments)
    repo, _, commit = _commit_at(call, revision)
    expand = call.flag("expand")
    entries = tree_entries(
        call.store, repo, commit, "/".join(rest), recursive=call.flag("recursive"), expand=expand
    )
    return _paged(call, entries, TREE_PAGE_SIZE_EXPANDED if expand else TREE_PAGE_SIZE)


def paths_info(call: Call) -> Response:
    revision, _ = take_revision(call.segments)
    repo, _, commit = _commit_at(call, revision)
    content_type = call.request.headers.get("content-type", "")
    paths: list[str]
    if "json" in content_type:
        body = _json(call)
        paths, expand = list(body.get("paths") or []), bool(body.get("expand"))
    else:
        form = parse_qs(call.body.decode("utf-8"), keep_blank_values=True)
        paths = form.get("paths", [])
        expand = (form.get("expand") or ["false"])[0].lower() in ("1", "true")
    return JSONResponse(path_entries(call.store, repo, commit, paths, expand=expand))


def _upload_mode(path: str, size: int, sample: bytes) -> str:
    if path.lower().endswith(tuple(LFS_SUFFIXES)) or size >= LFS_SIZE_THRESHOLD:
        return "lfs"
    return "lfs" if b"\x00" in sample else "regular"


def preupload(call: Call) -> Response:
    call.require_write()
    revision, _ = take_revision(call.segments)
    _, _, commit = _commit_at(call, revision)
    files = _json(call).get("files")
    if not isinstance(files, list):
        raise HubApiError(400, '"files" must be a list')
    out = []
    for item in files:
        path, size = item.get("path"), item.get("size")
        if not isinstance(path, str) or not isinstance(size, int):
            raise HubApiError(400, 'Each file needs "path" and "size"')
        try:
            sample = base64.b64decode(item.get("sample") or "")
        except binascii.Error:
            raise HubApiError(400, f"Invalid sample for {path}") from None
        mode = _upload_mode(path, size, sample)
        existing = commit.tree.get(path)
        oid = None
        if existing is not None:
            oid = existing.get("lfs") if mode == "lfs" else existing["oid"]
        out.append({"path": path, "uploadMode": mode, "shouldIgnore": False, "oid": oid})
    return JSONResponse({"files": out, "commitOid": commit.id})


def _parse_ndjson(body: bytes) -> tuple[dict[str, Any], list[FileOp]]:
    header: dict[str, Any] | None = None
    ops: list[FileOp] = []
    for line in body.splitlines():
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            key, value = item["key"], item["value"]
        except (ValueError, KeyError, TypeError):
            raise HubApiError(400, "Malformed commit payload line") from None
        if key == "header":
            header = value
        elif key == "file":
            encoding = value.get("encoding", "base64")
            raw = value.get("content", "")
            try:
                content = base64.b64decode(raw) if encoding == "base64" else raw.encode("utf-8")
            except binascii.Error:
                raise HubApiError(400, f"Invalid base64 for {value.get('path')}") from None
            ops.append(FileOp("file", value["path"], content=content))
        elif key == "lfsFile":
            if value.get("algo", "sha256") != "sha256":
                raise HubApiError(400, "Only sha256 LFS objects are supported")
            ops.append(FileOp("lfs", value["path"], sha256=value["oid"]))
        elif key == "deletedFile":
            ops.append(FileOp("delete_file", value["path"]))
        elif key == "deletedFolder":
            ops.append(FileOp("delete_folder", value["path"]))
        else:
            raise HubApiError(400, f"Unknown commit operation: {key}")
    if header is None or not isinstance(header.get("summary"), str) or not header["summary"]:
        raise HubApiError(400, "Commit payload needs a header with a summary")
    return header, ops


def commit(call: Call) -> Response:
    call.require_write()
    revision, _ = take_revision(call.segments)
    repo, _ = call.require_repo()
    header, ops = _parse_ndjson(call.body)
    parent = header.get("parentCommit")
    if parent is not None and not (isinstance(parent, str) and is_commit_oid(parent)):
        raise HubApiError(400, "parentCommit must be a 40-character commit id of this repo")
    create_pr = call.flag("create_pr")
    oid, pr_num = call.store.create_commit(
        repo,
        revision,
        ops,
        header["summary"],
        header.get("description") or "",
        parent_commit=header.get("parentCommit"),
        create_pr=create_pr,
    )
    repo_url = call.repo_url(repo)
    return JSONResponse(
        {
            "success": True,
            "commitOid": oid,
            "commitUrl": f"{repo_url}/commit/{oid}",
            "pullRequestUrl": f"{repo_url}/discussions/{pr_num}" if pr_num is not None else None,
        }
    )


# ---- refs and history --------------------------------------------------------------------------
def refs(call: Call) -> Response:
    repo, _ = call.require_repo()
    return JSONResponse(refs_view(call.store.refs(repo), call.flag("include_prs")))


def commits(call: Call) -> Response:
    revision, _ = take_revision(call.segments or [DEFAULT_BRANCH])
    repo, _, head = _commit_at(call, revision)
    items = [commit_item(c) for c in call.store.history(repo, head.id)]
    return _paged(call, items, COMMITS_PAGE_SIZE)


def create_branch(call: Call) -> Response:
    call.require_write()
    repo, _ = call.require_repo()
    start = _json(call).get("startingPoint")
    call.store.create_branch(repo, "/".join(call.segments), start)
    return JSONResponse({})


def delete_branch(call: Call) -> Response:
    call.require_write()
    repo, _ = call.require_repo()
    call.store.delete_branch(repo, "/".join(call.segments))
    return JSONResponse({})


def create_tag(call: Call) -> Response:
    call.require_write()
    repo, _ = call.require_repo()
    tag = _json(call).get("tag")
    if not isinstance(tag, str):
        raise HubApiError(400, '"tag" is required')
    call.store.create_tag(repo, "/".join(call.segments) or DEFAULT_BRANCH, tag)
    return JSONResponse({})


def delete_tag(call: Call) -> Response:
    call.require_write()
    repo, _ = call.require_repo()
    call.store.delete_tag(repo, "/".join(call.segments))
    return JSONResponse({})
