"""pull: targets, revisions, the lock, the cache (offline), local edits and refusals."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from huggingface_hub import HfApi

from tests.registry.conftest import CliResult, tree_state, write_skill
from upskill_hub.errors import (
    InvalidSkillError,
    LocalModificationsError,
    UnsafeSkillError,
    UsageError,
)
from upskill_hub.registry.project.lock import LOCK_FILENAME, read_lock
from upskill_hub.registry.project.pull import pull
from upskill_hub.registry.push import push_skills


def test_pull_installs_into_claude_and_locks_the_commit(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], project: Path
) -> None:
    repo_id, commit = pushed
    name = repo_id.split("/")[1]
    result = run_cli("pull", f"{repo_id}@v1", "--format", "json", cwd=project)
    assert result.code == 0, result.stderr
    [entry] = result.json()["skills"]
    assert entry["commit"] == commit and entry["status"] == "installed"
    installed = project / ".claude" / "skills" / name
    assert (installed / "SKILL.md").is_file() and (installed / "scripts/run.py").is_file()
    assert sorted(p.name for p in installed.iterdir()) == ["SKILL.md", "scripts"]
    locked = read_lock(project).skills[name]
    assert (locked.repo_id, locked.ref, locked.commit) == (repo_id, "v1", commit)
    assert locked.targets == [f".claude/skills/{name}"]
    assert set(locked.files) == {"SKILL.md", "scripts/run.py"}


def test_agents_get_one_copy_and_symlinks(pushed: tuple[str, str], project: Path) -> None:
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    pull(repo_id, agents=["agents", "claude", "cursor"], project_root=project)
    canonical = project / ".agents" / "skills" / name
    assert canonical.is_dir() and not canonical.is_symlink()
    for other in (".claude", ".cursor"):
        link = project / other / "skills" / name
        assert link.is_symlink() and link.resolve() == canonical.resolve()
    assert read_lock(project).skills[name].targets == [
        f".agents/skills/{name}",
        f".claude/skills/{name}",
        f".cursor/skills/{name}",
    ]


def test_custom_dir(pushed: tuple[str, str], project: Path, tmp_path: Path) -> None:
    repo_id, _ = pushed
    report = pull(repo_id, custom_dir=tmp_path / "elsewhere", project_root=project)
    assert (tmp_path / "elsewhere" / report.skills[0].name / "SKILL.md").is_file()
    assert not (project / ".claude").exists()


def test_second_pull_of_a_commit_works_offline(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], tmp_path: Path
) -> None:
    repo_id, commit = pushed
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    assert run_cli("pull", f"{repo_id}@{commit}", cwd=first).code == 0
    dead = {"HF_HUB_OFFLINE": "1", "HF_ENDPOINT": "http://127.0.0.1:9"}
    offline = run_cli("pull", f"{repo_id}@{commit}", "--format", "json", cwd=second, env=dead)
    assert offline.code == 0, offline.stderr
    name = repo_id.split("/")[1]
    assert tree_state(second / ".claude") == tree_state(first / ".claude")
    never = run_cli("pull", "local-user/never-downloaded@" + "1" * 40, cwd=second, env=dead)
    assert never.code == 1 and "HF_HUB_OFFLINE" in never.stderr
    assert read_lock(second).skills[name].commit == commit


def test_local_edits_are_named_and_kept_without_force(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], project: Path
) -> None:
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    assert run_cli("pull", repo_id, cwd=project).code == 0
    edited = project / ".claude" / "skills" / name / "scripts" / "run.py"
    edited.write_text("print('mine')\n")
    again = run_cli("pull", repo_id, cwd=project)
    assert again.code == 1 and "scripts/run.py" in again.stderr and "--force" in again.stderr
    assert edited.read_text() == "print('mine')\n"
    forced = run_cli("pull", repo_id, "--force", cwd=project)
    assert forced.code == 0 and edited.read_text() == "print('hello')\n"


def test_name_collision_from_another_repo_is_refused(
    pushed: tuple[str, str], project: Path, tmp_path: Path
) -> None:
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    pull(repo_id, project_root=project)
    other = push_skills(write_skill(tmp_path / "other", name), repo_id=f"{repo_id}-fork")
    with pytest.raises(UsageError, match=repo_id):
        pull(other.repo_id, project_root=project)
    assert read_lock(project).skills[name].repo_id == repo_id


def _raw_repo(repo_id: str, files: dict[str, bytes]) -> None:
    """A repo written straight through the Hub API (bypassing push's checks)."""
    from huggingface_hub import CommitOperationAdd

    api = HfApi()
    api.create_repo(repo_id, exist_ok=True)
    ops = [CommitOperationAdd(path_in_repo=p, path_or_fileobj=d) for p, d in files.items()]
    api.create_commit(repo_id, ops, commit_message="raw")


@pytest.mark.parametrize(
    ("skill_md", "error"),
    [
        (b"---\nname: {name}\n---\nno description\n", InvalidSkillError),
        (b"---\nname: {name}\ndescription: ok\n---\n<!-- do evil -->\n", UnsafeSkillError),
    ],
)
def test_invalid_or_unsafe_repo_writes_nothing(
    unique_repo_id: str, project: Path, skill_md: bytes, error: type[Exception]
) -> None:
    name = unique_repo_id.split("/")[1]
    _raw_repo(unique_repo_id, {"SKILL.md": skill_md.replace(b"{name}", name.encode())})
    before = tree_state(project)
    with pytest.raises(error):
        pull(unique_repo_id, project_root=project)
    assert tree_state(project) == before


def test_allow_unsafe_installs_and_reports(unique_repo_id: str, project: Path) -> None:
    name = unique_repo_id.split("/")[1]
    md = f"---\nname: {name}\ndescription: ok\n---\nHidden <!-- note -->\n".encode()
    _raw_repo(unique_repo_id, {"SKILL.md": md})
    report = pull(unique_repo_id, project_root=project, allow_unsafe=True)
    assert any("html-comment" in w for w in report.skills[0].warnings)
    assert (project / ".claude" / "skills" / name / "SKILL.md").read_bytes() == md


def test_multi_skill_pull_picks_with_skill(
    tmp_path: Path, unique_repo_id: str, project: Path
) -> None:
    write_skill(tmp_path / "pack", "alpha")
    write_skill(tmp_path / "pack", "beta")
    push_skills(tmp_path / "pack", repo_id=unique_repo_id)
    pull(unique_repo_id, skills=["beta"], project_root=project)
    assert sorted(os.listdir(project / ".claude" / "skills")) == ["beta"]
    pull(unique_repo_id, project_root=project)
    assert sorted(os.listdir(project / ".claude" / "skills")) == ["alpha", "beta"]
    lock = json.loads((project / LOCK_FILENAME).read_text())
    assert lock["skills"]["alpha"]["subpath"] == "skills/alpha"


def test_pull_edit_conflict_is_typed(pushed: tuple[str, str], project: Path) -> None:
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    pull(repo_id, project_root=project)
    (project / ".claude" / "skills" / name / "extra.md").write_text("mine\n")
    with pytest.raises(LocalModificationsError, match=r"extra\.md"):
        pull(repo_id, project_root=project)
