"""Commits, parent checks, pull requests, tags and branches through huggingface_hub."""

from __future__ import annotations

from pathlib import Path

import pytest
from huggingface_hub import CommitOperationAdd, HfApi, hf_hub_download
from huggingface_hub.errors import HfHubHTTPError, RevisionNotFoundError


def _add(path: str, data: bytes) -> CommitOperationAdd:
    return CommitOperationAdd(path_in_repo=path, path_or_fileobj=data)


def test_parent_commit_guards_against_stale_writes(unique_repo_id: str) -> None:
    api = HfApi()
    api.create_repo(unique_repo_id)
    base = api.model_info(unique_repo_id).sha
    assert base is not None
    api.create_commit(unique_repo_id, [_add("a.txt", b"a")], commit_message="a", parent_commit=base)
    with pytest.raises(HfHubHTTPError) as err:
        api.create_commit(
            unique_repo_id, [_add("b.txt", b"b")], commit_message="b", parent_commit=base
        )
    assert err.value.response.status_code == 412
    assert api.list_repo_files(unique_repo_id) == [".gitattributes", "a.txt"]


def test_history_lists_commits_newest_first(unique_repo_id: str) -> None:
    api = HfApi()
    api.create_repo(unique_repo_id)
    one = api.create_commit(unique_repo_id, [_add("1.txt", b"1")], commit_message="one")
    two = api.create_commit(
        unique_repo_id, [_add("2.txt", b"2")], commit_message="two", commit_description="more"
    )
    commits = api.list_repo_commits(unique_repo_id)
    assert [c.commit_id for c in commits[:2]] == [two.oid, one.oid]
    assert (commits[0].title, commits[0].message) == ("two", "more")
    assert commits[-1].title == "initial commit"
    older = api.list_repo_commits(unique_repo_id, revision=one.oid)
    assert older[0].commit_id == one.oid and len(older) == len(commits) - 1


def test_create_pr_makes_a_pr_ref(unique_repo_id: str) -> None:
    api = HfApi()
    api.create_repo(unique_repo_id)
    info = api.create_commit(
        unique_repo_id, [_add("pr.txt", b"proposal")], commit_message="proposal", create_pr=True
    )
    assert info.pr_revision == "refs/pr/1"
    assert info.pr_num == 1
    assert not api.file_exists(unique_repo_id, "pr.txt")
    path = hf_hub_download(unique_repo_id, "pr.txt", revision="refs/pr/1")
    assert Path(path).read_bytes() == b"proposal"
    assert api.list_repo_files(unique_repo_id, revision="refs/pr/1") == [".gitattributes", "pr.txt"]
    refs = api.list_repo_refs(unique_repo_id, include_pull_requests=True)
    assert refs.pull_requests is not None
    assert [(r.ref, r.target_commit) for r in refs.pull_requests] == [("refs/pr/1", info.oid)]
    second = api.create_commit(
        unique_repo_id, [_add("pr2.txt", b"x")], commit_message="again", create_pr=True
    )
    assert second.pr_num == 2


def test_tags_and_branches(unique_repo_id: str) -> None:
    api = HfApi()
    api.create_repo(unique_repo_id)
    head = api.upload_file(path_or_fileobj=b"x", path_in_repo="x.txt", repo_id=unique_repo_id)
    api.create_tag(unique_repo_id, tag="v1")
    with pytest.raises(HfHubHTTPError) as err:
        api.create_tag(unique_repo_id, tag="v1")
    assert err.value.response.status_code == 409
    api.create_tag(unique_repo_id, tag="v1", exist_ok=True)
    api.create_branch(unique_repo_id, branch="dev", revision="v1")
    api.create_branch(unique_repo_id, branch="dev", exist_ok=True)
    refs = api.list_repo_refs(unique_repo_id)
    assert {b.name: b.target_commit for b in refs.branches} == {"main": head.oid, "dev": head.oid}
    assert [(t.name, t.ref) for t in refs.tags] == [("v1", "refs/tags/v1")]
    assert refs.pull_requests is None
    api.delete_tag(unique_repo_id, tag="v1")
    api.delete_branch(unique_repo_id, branch="dev")
    refs = api.list_repo_refs(unique_repo_id)
    assert refs.tags == [] and [b.name for b in refs.branches] == ["main"]
    with pytest.raises(RevisionNotFoundError):
        api.model_info(unique_repo_id, revision="v1")
    with pytest.raises(RevisionNotFoundError):
        api.create_branch(unique_repo_id, branch="x", revision="no-such-rev")
