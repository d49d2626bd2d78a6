"""Uploads, downloads, trees and snapshots through huggingface_hub's public API."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from huggingface_hub import HfApi, HfFileSystem, hf_hub_download, snapshot_download
from huggingface_hub.errors import EntryNotFoundError, LocalEntryNotFoundError
from huggingface_hub.hf_api import RepoFile, RepoFolder

BIG = 11 * 1024 * 1024


@pytest.fixture
def populated_repo(unique_repo_id: str, tmp_path: Path) -> str:
    """A model repo with text files, a nested folder, a weights file and a binary file."""
    src = tmp_path / "src"
    (src / "nested" / "deeper").mkdir(parents=True)
    (src / "README.md").write_text("---\ntags:\n- agent-skills\n---\n# Demo\n")
    (src / "SKILL.md").write_text("---\nname: demo\n---\nBody\n")
    (src / "nested" / "a.txt").write_text("alpha\n")
    (src / "nested" / "deeper" / "b.txt").write_text("beta\n")
    (src / "weights.safetensors").write_bytes(b"{}" + os.urandom(2000))
    (src / "blob.dat").write_bytes(b"\x00\x01binary" * 100)
    api = HfApi()
    api.create_repo(unique_repo_id)
    api.upload_folder(folder_path=src, repo_id=unique_repo_id, commit_message="seed")
    return unique_repo_id


def test_upload_folder_stores_regular_and_lfs_files(populated_repo: str, tmp_path: Path) -> None:
    api = HfApi()
    files = {f.path: f for f in api.list_repo_tree(populated_repo, recursive=True)}
    assert isinstance(files["nested"], RepoFolder)
    assert isinstance(files["nested/deeper"], RepoFolder)
    readme, weights, blob = files["README.md"], files["weights.safetensors"], files["blob.dat"]
    assert isinstance(readme, RepoFile) and readme.lfs is None
    assert isinstance(weights, RepoFile) and weights.lfs is not None
    assert isinstance(blob, RepoFile) and blob.lfs is not None
    local = tmp_path / "src" / "weights.safetensors"
    assert weights.lfs.sha256 == hashlib.sha256(local.read_bytes()).hexdigest()
    assert weights.size == local.stat().st_size
    downloaded = hf_hub_download(populated_repo, "weights.safetensors")
    assert Path(downloaded).read_bytes() == local.read_bytes()
    assert Path(hf_hub_download(populated_repo, "nested/deeper/b.txt")).read_text() == "beta\n"


def test_big_binary_goes_through_lfs(unique_repo_id: str) -> None:
    api = HfApi()
    api.create_repo(unique_repo_id)
    payload = os.urandom(BIG)
    api.upload_file(path_or_fileobj=payload, path_in_repo="weights/big.raw", repo_id=unique_repo_id)
    (entry,) = api.get_paths_info(unique_repo_id, ["weights/big.raw"])
    assert isinstance(entry, RepoFile) and entry.lfs is not None
    assert entry.lfs.sha256 == hashlib.sha256(payload).hexdigest()
    assert entry.size == BIG
    path = hf_hub_download(unique_repo_id, "weights/big.raw")
    assert hashlib.sha256(Path(path).read_bytes()).digest() == hashlib.sha256(payload).digest()


def test_tree_listing_levels_and_missing_folder(populated_repo: str) -> None:
    api = HfApi()
    top = {f.path for f in api.list_repo_tree(populated_repo)}
    assert top == {
        ".gitattributes",
        "README.md",
        "SKILL.md",
        "nested",
        "weights.safetensors",
        "blob.dat",
    }
    assert {f.path for f in api.list_repo_tree(populated_repo, path_in_repo="nested")} == {
        "nested/a.txt",
        "nested/deeper",
    }
    with pytest.raises(EntryNotFoundError):
        list(api.list_repo_tree(populated_repo, path_in_repo="no/such/dir"))


def test_tree_paging_returns_every_entry(unique_repo_id: str, tmp_path: Path) -> None:
    # With expand=True the server pages by 50, so 70 files need two pages (Link header).
    src = tmp_path / "many"
    src.mkdir()
    for i in range(70):
        (src / f"f{i:03d}.txt").write_text(str(i))
    api = HfApi()
    api.create_repo(unique_repo_id)
    info = api.upload_folder(folder_path=src, repo_id=unique_repo_id, path_in_repo="many")
    entries = list(api.list_repo_tree(unique_repo_id, path_in_repo="many", expand=True))
    assert [e.path for e in entries] == [f"many/f{i:03d}.txt" for i in range(70)]
    assert all(e.last_commit is not None and e.last_commit.oid == info.oid for e in entries)


def test_upload_file_and_delete(populated_repo: str) -> None:
    api = HfApi()
    api.upload_file(path_or_fileobj=b"new", path_in_repo="extra.txt", repo_id=populated_repo)
    assert api.file_exists(populated_repo, "extra.txt")
    api.delete_file("extra.txt", repo_id=populated_repo)
    assert not api.file_exists(populated_repo, "extra.txt")
    api.delete_folder("nested", repo_id=populated_repo)
    assert not any(f.startswith("nested/") for f in api.list_repo_files(populated_repo))
    with pytest.raises(EntryNotFoundError):
        api.delete_file("never-there.txt", repo_id=populated_repo)


def test_download_at_tag_branch_and_commit(unique_repo_id: str) -> None:
    api = HfApi()
    api.create_repo(unique_repo_id)
    first = api.upload_file(path_or_fileobj=b"v1", path_in_repo="x.txt", repo_id=unique_repo_id)
    api.create_tag(unique_repo_id, tag="v1.0", tag_message="first")
    api.create_branch(unique_repo_id, branch="feature/one")
    api.upload_file(path_or_fileobj=b"v2", path_in_repo="x.txt", repo_id=unique_repo_id)
    api.upload_file(
        path_or_fileobj=b"on-branch",
        path_in_repo="x.txt",
        repo_id=unique_repo_id,
        revision="feature/one",
    )

    def read(revision: str | None) -> bytes:
        return Path(hf_hub_download(unique_repo_id, "x.txt", revision=revision)).read_bytes()

    assert read(None) == b"v2"
    assert read("v1.0") == b"v1"
    assert read(first.oid) == b"v1"
    assert read("feature/one") == b"on-branch"
    assert api.model_info(unique_repo_id, revision="v1.0").sha == first.oid
    assert api.revision_exists(unique_repo_id, "feature/one")
    assert not api.revision_exists(unique_repo_id, "nope")
    assert api.file_exists(unique_repo_id, "x.txt", revision="v1.0")
    assert not api.file_exists(unique_repo_id, "y.txt")


def test_snapshot_download_is_cached_and_works_offline(populated_repo: str) -> None:
    first = snapshot_download(populated_repo)
    assert Path(first, "nested", "deeper", "b.txt").read_text() == "beta\n"
    plan = snapshot_download(populated_repo, dry_run=True)
    assert plan and not any(item.will_download for item in plan)
    assert snapshot_download(populated_repo) == first
    assert snapshot_download(populated_repo, local_files_only=True) == first
    with pytest.raises(LocalEntryNotFoundError):
        snapshot_download(populated_repo + "-never", local_files_only=True)


def test_ranged_reads_through_hffilesystem(populated_repo: str) -> None:
    fs = HfFileSystem()
    with fs.open(f"{populated_repo}/blob.dat", "rb") as fh:
        fh.seek(2)
        assert fh.read(6) == b"binary"
    assert fs.info(f"{populated_repo}/blob.dat")["size"] == 800
    assert sorted(fs.ls(f"{populated_repo}/nested", detail=False)) == [
        f"{populated_repo}/nested/a.txt",
        f"{populated_repo}/nested/deeper",
    ]
