"""JSON shapes the Hub API returns for repos: info, siblings, tree entries, commits, refs."""

from __future__ import annotations

from typing import Any

from upskill_hub.hub_server.api_errors import entry_not_found
from upskill_hub.hub_server.cards import CardMetadataError, card_metadata, card_tags
from upskill_hub.hub_server.hashing import json_oid
from upskill_hub.hub_server.storage import Commit, HubStore, RepoRef, lfs_info

#: Largest README read for card metadata.
_README_LIMIT = 1_000_000


def readme_metadata(store: HubStore, commit: Commit) -> dict[str, Any]:
    entry = commit.tree.get("README.md")
    if entry is None or entry["size"] > _README_LIMIT:
        return {}
    text = store.blob_path(entry).read_bytes().decode("utf-8", errors="replace")
    try:
        return card_metadata(text)
    except CardMetadataError:
        return {}


def sibling(path: str, entry: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"rfilename": path, "size": entry["size"], "blobId": entry["oid"]}
    if entry.get("lfs"):
        out["lfs"] = {"size": entry["size"], "sha256": entry["lfs"], "pointerSize": 134}
    return out


def repo_info(
    store: HubStore,
    repo: RepoRef,
    meta: dict[str, Any],
    commit: Commit,
    *,
    siblings: bool = True,
) -> dict[str, Any]:
    """What ``GET /api/{type}s/{id}[/revision/{rev}]`` answers."""
    metadata = readme_metadata(store, commit)
    info: dict[str, Any] = {
        "_id": json_oid([repo.type, repo.id])[:24],
        "id": repo.id,
        "author": repo.id.split("/")[0],
        "sha": commit.id,
        "lastModified": commit.date,
        "createdAt": meta.get("createdAt"),
        "private": bool(meta.get("private")),
        "disabled": False,
        "gated": False,
        "downloads": 0,
        "likes": 0,
        "tags": card_tags(metadata),
        "cardData": metadata or None,
    }
    if siblings:
        info["siblings"] = [sibling(p, e) for p, e in sorted(commit.tree.items())]
    if repo.type == "model":
        info["modelId"] = repo.id
        if isinstance(metadata.get("library_name"), str):
            info["library_name"] = metadata["library_name"]
        if isinstance(metadata.get("pipeline_tag"), str):
            info["pipeline_tag"] = metadata["pipeline_tag"]
    elif repo.type == "space":
        info["sdk"] = meta.get("sdk") or metadata.get("sdk")
        info["subdomain"] = repo.id.replace("/", "-").replace("_", "-").lower()
    return info


def last_commit_touching(store: HubStore, repo: RepoRef, head: Commit, path: str) -> Commit:
    """The newest commit (first-parent history) that changed ``path`` (a file or a folder)."""

    def view(commit: Commit) -> Any:
        if path in commit.tree:
            return commit.tree[path]["oid"]
        prefix = path + "/"
        return sorted((p, e["oid"]) for p, e in commit.tree.items() if p.startswith(prefix))

    current = head
    for parent in list(store.history(repo, head.id))[1:]:
        if view(parent) != view(current):
            return current
        current = parent
    return current


def tree_entries(
    store: HubStore,
    repo: RepoRef,
    commit: Commit,
    path: str,
    *,
    recursive: bool,
    expand: bool,
) -> list[dict[str, Any]]:
    """Entries under ``path`` (folder) at ``commit``; 404 EntryNotFound when it is no folder."""
    path = path.strip("/")
    prefix = f"{path}/" if path else ""
    files = {p: e for p, e in commit.tree.items() if p.startswith(prefix)}
    if path and not files:
        raise entry_not_found(path, commit.id)
    folders: set[str] = set()
    chosen: list[str] = []
    for p in files:
        parts = p[len(prefix) :].split("/")
        depth = len(parts) if recursive else 1
        for i in range(1, min(depth, len(parts) - 1) + 1):
            folders.add(prefix + "/".join(parts[:i]))
        if recursive or len(parts) == 1:
            chosen.append(p)
    out: list[dict[str, Any]] = []
    for folder in sorted(folders):
        inner = sorted((p, e["oid"]) for p, e in commit.tree.items() if p.startswith(folder + "/"))
        out.append({"type": "directory", "oid": json_oid(inner), "size": 0, "path": folder})
    for p in sorted(chosen):
        out.append(file_entry(p, files[p]))
    if expand:
        for item in out:
            item["lastCommit"] = commit_ref(last_commit_touching(store, repo, commit, item["path"]))
    return out


def path_entries(
    store: HubStore, repo: RepoRef, commit: Commit, paths: list[str], *, expand: bool
) -> list[dict[str, Any]]:
    """``paths-info``: entries for the paths that exist (files or folders), others skipped."""
    out: list[dict[str, Any]] = []
    for raw in paths:
        p = raw.strip("/")
        if p in commit.tree:
            out.append(file_entry(p, commit.tree[p]))
            continue
        inner = sorted((q, e["oid"]) for q, e in commit.tree.items() if q.startswith(p + "/"))
        if p and inner:
            out.append({"type": "directory", "oid": json_oid(inner), "size": 0, "path": p})
    if expand:
        for item in out:
            item["lastCommit"] = commit_ref(last_commit_touching(store, repo, commit, item["path"]))
    return out


def file_entry(path: str, entry: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "file", "oid": entry["oid"], "size": entry["size"], "path": path}
    lfs = lfs_info(entry)
    if lfs is not None:
        out["lfs"] = lfs
    return out


def commit_ref(commit: Commit) -> dict[str, Any]:
    return {"id": commit.id, "title": commit.title, "date": commit.date}


def commit_item(commit: Commit) -> dict[str, Any]:
    """One item of ``GET /api/{type}s/{id}/commits/{rev}``."""
    return {
        "id": commit.id,
        "title": commit.title,
        "message": commit.message,
        "date": commit.date,
        "authors": [{"user": commit.author}],
        "parents": list(commit.parents),
    }


def refs_view(refs: dict[str, dict[str, str]], include_prs: bool) -> dict[str, Any]:
    def items(kind: str, prefix: str) -> list[dict[str, str]]:
        return [
            {"name": name, "ref": f"{prefix}{name}", "targetCommit": oid}
            for name, oid in sorted(refs.get(kind, {}).items())
        ]

    out: dict[str, Any] = {
        "branches": items("heads", "refs/heads/"),
        "converts": [],
        "tags": items("tags", "refs/tags/"),
    }
    if include_prs:
        out["pullRequests"] = items("pulls", "refs/pr/")
    return out
