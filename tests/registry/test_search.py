"""search (repos tagged agent-skills) and info (look inside without installing)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from huggingface_hub import CommitOperationAdd, HfApi

from tests.registry.conftest import (
    CliResult,
    HostileFile,
    HostileHub,
    HubFactory,
    tree_state,
    write_skill,
)
from upskill_hub.registry.push import push_skills
from upskill_hub.registry.search import info, search


def test_search_lists_only_tagged_repos_matching_the_query(
    run_cli: Callable[..., CliResult], tmp_path: Path, unique_repo_id: str
) -> None:
    name = unique_repo_id.split("/")[1]
    push_skills(write_skill(tmp_path, name), repo_id=unique_repo_id)
    untagged = f"{unique_repo_id}-plain"
    HfApi().create_repo(untagged)
    HfApi().create_commit(
        untagged, [CommitOperationAdd("README.md", b"# plain\n")], commit_message="plain"
    )
    hits = search(name)
    assert [h.repo_id for h in hits] == [unique_repo_id]
    assert hits[0].description == f"Helps with {name} tasks in tests."
    assert search("no-such-skill-zzz") == []
    result = run_cli("search", name, "--format", "json")
    assert result.code == 0 and [r["repo_id"] for r in result.json()["results"]] == [unique_repo_id]


def test_info_shows_files_frontmatter_and_findings_without_installing(
    run_cli: Callable[..., CliResult], tmp_path: Path, unique_repo_id: str
) -> None:
    name = unique_repo_id.split("/")[1]
    skill = write_skill(tmp_path / "src", name, {"references/r.md": "see <!-- hidden -->\n"})
    push_skills(skill, repo_id=unique_repo_id, tag="v1", allow_unsafe=True)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    result = run_cli("info", f"{unique_repo_id}@v1", "--format", "json", cwd=cwd)
    assert result.code == 0, result.stderr
    data = result.json()
    assert data["ref"] == "v1" and len(data["commit"]) == 40
    [s] = data["skills"]
    assert s["frontmatter"]["name"] == name and s["valid"] and not s["safe"]
    sizes = {f["path"]: f["size"] for f in s["files"]}
    assert sizes == {
        "SKILL.md": (skill / "SKILL.md").stat().st_size,
        "references/r.md": len("see <!-- hidden -->\n"),
    }
    assert [f["rule"] for f in s["findings"]] == ["html-comment"]
    assert tree_state(cwd) == {}
    text = run_cli("info", unique_repo_id, cwd=cwd)
    assert "html-comment" in text.stdout and "references/r.md" in text.stdout


def test_info_reports_escaping_paths_without_downloading(
    hostile_hub: HostileHub, fast_hub_for: HubFactory
) -> None:

    repo_id = hostile_hub.add(
        [
            HostileFile("SKILL.md", b"---\nname: x\ndescription: y\n---\n"),
            HostileFile("../../up.md", b"x"),
        ]
    )
    result = info(f"{repo_id}@main", hub=fast_hub_for(hostile_hub.url))
    [s] = result.skills
    assert "path-traversal" in {f.rule for f in s.findings} and not s.safe
    assert not [p for _, p in hostile_hub.requests if "/resolve/" in p]
