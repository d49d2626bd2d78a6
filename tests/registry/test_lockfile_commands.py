"""install [--frozen], verify, list, remove, outdated, update against upskill-hub.lock."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.registry.conftest import REPO_ROOT, CliResult, tree_state, write_skill
from upskill_hub.errors import LocalModificationsError, LockError
from upskill_hub.registry.project.lock import LOCK_FILENAME, read_lock
from upskill_hub.registry.project.pull import install_locked, pull
from upskill_hub.registry.project.state import outdated
from upskill_hub.registry.project.update import update
from upskill_hub.registry.push import push_skills


@pytest.fixture
def installed(pushed: tuple[str, str], project: Path) -> tuple[str, str, Path]:
    """``pushed`` pulled into ``project``: (repo_id, skill name, installed folder)."""
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    pull(repo_id, project_root=project)
    return repo_id, name, project / ".claude" / "skills" / name


def _new_version(repo_id: str, tmp_path: Path, text: str) -> str:
    name = repo_id.split("/")[1]
    skill = write_skill(tmp_path / f"v-{abs(hash(text))}", name, {"scripts/run.py": text})
    return push_skills(skill, repo_id=repo_id).commit


def test_install_restores_exactly_the_locked_commit(
    run_cli: Callable[..., CliResult],
    installed: tuple[str, str, Path],
    project: Path,
    tmp_path: Path,
) -> None:
    repo_id, name, folder = installed
    locked = read_lock(project).skills[name].commit
    _new_version(repo_id, tmp_path, "print('v2')\n")  # main moves on; the lock does not
    before = tree_state(folder)
    shutil.rmtree(project / ".claude")
    result = run_cli("install", "--frozen", "--format", "json", cwd=project)
    assert result.code == 0, result.stderr
    assert result.json()["skills"][0]["commit"] == locked
    assert tree_state(folder) == before
    again = run_cli("install", "--format", "json", cwd=project)
    assert again.json()["skills"][0]["status"] == "unchanged"


def test_frozen_fails_when_the_lock_would_change(
    run_cli: Callable[..., CliResult],
    installed: tuple[str, str, Path],
    project: Path,
    tmp_path: Path,
) -> None:
    repo_id, name, _ = installed
    lock_before = (project / LOCK_FILENAME).read_bytes()
    other = push_skills(write_skill(tmp_path / "o", f"{name}-other"), repo_id=f"{repo_id}-other")
    missing = run_cli("install", "--frozen", other.repo_id, cwd=project)
    assert missing.code == 1 and other.repo_id in missing.stderr and "not locked" in missing.stderr
    assert (project / LOCK_FILENAME).read_bytes() == lock_before

    data = json.loads(lock_before)
    data["skills"][name]["files"]["SKILL.md"] = "0" * 64  # tampered / stale lock
    (project / LOCK_FILENAME).write_text(json.dumps(data))
    shutil.rmtree(project / ".claude")
    tampered = run_cli("install", "--frozen", cwd=project)
    assert tampered.code == 1 and "SKILL.md" in tampered.stderr
    assert not (project / ".claude").exists()

    (project / LOCK_FILENAME).unlink()
    with pytest.raises(LockError, match="missing"):
        install_locked(frozen=True, project_root=project)


def test_install_without_frozen_adds_a_new_repo(
    installed: tuple[str, str, Path], project: Path, tmp_path: Path
) -> None:
    repo_id, name, _ = installed
    other = push_skills(write_skill(tmp_path / "o", f"{name}-two"), repo_id=f"{repo_id}-two")
    install_locked([other.repo_id], project_root=project)
    assert set(read_lock(project).skills) == {name, f"{name}-two"}


def test_verify_names_every_differing_file(
    run_cli: Callable[..., CliResult], installed: tuple[str, str, Path], project: Path
) -> None:
    _, name, folder = installed
    assert run_cli("verify", cwd=project).code == 0
    (folder / "scripts" / "run.py").write_text("changed\n")
    (folder / "added.md").write_text("new\n")
    (folder / "SKILL.md").unlink()
    result = run_cli("verify", "--format", "json", cwd=project)
    assert result.code == 1
    differing = result.json()["differing"][name]
    assert sorted(differing) == sorted(
        f".claude/skills/{name}/{f}" for f in ("SKILL.md", "added.md", "scripts/run.py")
    )
    text = run_cli("verify", cwd=project)
    assert text.code == 1 and all(f in text.stdout for f in ("SKILL.md", "added.md", "run.py"))


def test_list_shows_source_commit_and_state(
    run_cli: Callable[..., CliResult], installed: tuple[str, str, Path], project: Path
) -> None:
    repo_id, name, folder = installed
    [row] = run_cli("list", "--format", "json", cwd=project).json()["skills"]
    assert (row["name"], row["repo_id"], row["clean"]) == (name, repo_id, True)
    (folder / "SKILL.md").write_text("edited")
    [row] = run_cli("list", "--format", "json", cwd=project).json()["skills"]
    assert row["clean"] is False and row["modified"] == {f".claude/skills/{name}": ["SKILL.md"]}
    assert name in run_cli("list", cwd=project).stdout


def test_remove_uninstalls_and_unlocks(
    run_cli: Callable[..., CliResult], installed: tuple[str, str, Path], project: Path
) -> None:
    _, name, folder = installed
    (folder / "SKILL.md").write_text("edited")
    refused = run_cli("remove", name, cwd=project)
    assert refused.code == 1 and "SKILL.md" in refused.stderr and folder.exists()
    assert run_cli("remove", name, "--force", cwd=project).code == 0
    assert not folder.exists() and name not in read_lock(project).skills


def test_outdated_and_update_move_only_what_is_asked(
    installed: tuple[str, str, Path], project: Path, tmp_path: Path
) -> None:
    repo_id, name, folder = installed
    old = read_lock(project).skills[name].commit
    [row] = outdated(project_root=project)
    assert not row.outdated
    new = _new_version(repo_id, tmp_path, "print('v2')\n")
    [row] = outdated(project_root=project)
    assert row.outdated and (row.locked, row.current) == (old, new)

    (folder / "SKILL.md").write_text("mine")
    report = update(project_root=project)
    assert report.skills[0].status == "skipped" and "SKILL.md" in report.skills[0].detail
    assert read_lock(project).skills[name].commit == old
    with pytest.raises(LocalModificationsError, match=r"SKILL\.md"):
        update([name], project_root=project)

    report = update([name], project_root=project, force=True)
    assert report.skills[0].status == "installed" and report.skills[0].commit == new
    assert (folder / "scripts" / "run.py").read_text() == "print('v2')\n"
    assert read_lock(project).skills[name].commit == new
    assert update(project_root=project).skills[0].status == "unchanged"


def test_pinned_commit_is_never_outdated(
    pushed: tuple[str, str], project: Path, tmp_path: Path
) -> None:
    repo_id, commit = pushed
    pull(f"{repo_id}@{commit}", project_root=project)
    _new_version(repo_id, tmp_path, "print('v3')\n")
    [row] = outdated(project_root=project)
    assert not row.outdated and row.current == commit


# -- audit fixes --------------------------------------------------------------------------------


def test_frozen_install_keeps_the_lock_byte_identical(
    run_cli: Callable[..., CliResult],
    installed: tuple[str, str, Path],
    project: Path,
    tmp_path: Path,
) -> None:
    repo_id, name, folder = installed
    lock_before = (project / LOCK_FILENAME).read_bytes()
    assert json.loads(lock_before)["skills"][name]["ref"] is None  # the default branch
    _new_version(repo_id, tmp_path, "print('v2')\n")
    shutil.rmtree(project / ".claude")
    result = run_cli("install", "--frozen", cwd=project)
    assert result.code == 0, result.stderr
    assert (project / LOCK_FILENAME).read_bytes() == lock_before
    assert (folder / "SKILL.md").is_file()
    shutil.rmtree(project / ".claude")
    assert run_cli("install", cwd=project).code == 0  # not frozen: same lock as well
    assert (project / LOCK_FILENAME).read_bytes() == lock_before


def test_update_follows_the_default_branch_every_time(
    run_cli: Callable[..., CliResult],
    installed: tuple[str, str, Path],
    project: Path,
    tmp_path: Path,
) -> None:
    repo_id, name, folder = installed
    for text in ("print('v2')\n", "print('v3')\n"):
        commit = _new_version(repo_id, tmp_path, text)
        moved = run_cli("update", "--format", "json", cwd=project)
        assert moved.code == 0, moved.stderr
        assert moved.json()["skills"][0]["commit"] == commit
        entry = read_lock(project).skills[name]
        assert (entry.commit, entry.ref) == (commit, None)
        assert (folder / "scripts" / "run.py").read_text() == text
    latest = _new_version(repo_id, tmp_path, "print('v4')\n")
    assert update([name], project_root=project).skills[0].commit == latest
    assert read_lock(project).skills[name].ref is None


def test_update_and_outdated_exit_codes(
    run_cli: Callable[..., CliResult],
    installed: tuple[str, str, Path],
    project: Path,
    tmp_path: Path,
) -> None:
    repo_id, _, folder = installed
    assert run_cli("outdated", cwd=project).code == 0
    assert run_cli("update", cwd=project).code == 0
    _new_version(repo_id, tmp_path, "print('v2')\n")
    stale = run_cli("outdated", cwd=project)
    assert stale.code == 1 and "outdated" in stale.stdout
    assert run_cli("outdated", "--format", "json", cwd=project).code == 1
    (folder / "SKILL.md").write_text("mine")
    skipped = run_cli("update", cwd=project)
    assert skipped.code == 1 and "skipped" in skipped.stdout
    assert run_cli("update", "--force", cwd=project).code == 0
    assert run_cli("outdated", cwd=project).code == 0


def test_verify_lists_a_file_once_for_symlinked_agents(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], project: Path
) -> None:
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    pull(repo_id, agents=["claude", "codex", "cursor"], project_root=project)
    (project / ".claude" / "skills" / name / "SKILL.md").write_text("edited")
    result = run_cli("verify", "--format", "json", cwd=project)
    assert result.code == 1
    assert result.json()["differing"] == {name: [f".claude/skills/{name}/SKILL.md"]}
    text = run_cli("verify", cwd=project)
    assert text.code == 1 and text.stdout.count("SKILL.md") == 1


@pytest.mark.parametrize("deleted", [[".claude"], [".claude", ".cursor"]])
def test_frozen_install_restores_after_the_canonical_copy_is_deleted(
    run_cli: Callable[..., CliResult],
    pushed: tuple[str, str],
    project: Path,
    deleted: list[str],
) -> None:
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    pulled = run_cli("pull", repo_id, "--agent", "claude", "--agent", "cursor", cwd=project)
    assert pulled.code == 0, pulled.stderr
    lock_before = (project / LOCK_FILENAME).read_bytes()
    for folder in deleted:
        shutil.rmtree(project / folder)
    link = project / ".cursor" / "skills" / name
    assert link.is_symlink() != (".cursor" in deleted)  # dangling when only .claude went
    result = run_cli("install", "--frozen", cwd=project)
    assert result.code == 0, result.stderr
    assert (project / LOCK_FILENAME).read_bytes() == lock_before
    canonical = project / ".claude" / "skills" / name
    assert canonical.is_dir() and not canonical.is_symlink()
    assert link.is_symlink() and link.resolve() == canonical.resolve()
    assert run_cli("verify", cwd=project).code == 0


def test_a_link_to_something_else_is_still_refused(
    pushed: tuple[str, str], project: Path, tmp_path: Path
) -> None:
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    pull(repo_id, agents=["claude", "cursor"], project_root=project)
    shutil.rmtree(project / ".claude")
    link = project / ".cursor" / "skills" / name
    link.unlink()
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    with pytest.raises(LocalModificationsError, match="symlink"):
        install_locked(frozen=True, project_root=project)
    assert os.readlink(link) == str(tmp_path / "elsewhere")


def test_parallel_pulls_keep_every_lock_entry(
    pushed: tuple[str, str], project: Path, tmp_path: Path
) -> None:
    repo_id, _ = pushed
    repos = [repo_id]
    for index in range(3):
        other = f"{repo_id}-p{index}"
        repos.append(
            push_skills(
                write_skill(tmp_path / f"p{index}", other.split("/")[1]), repo_id=other
            ).repo_id
        )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "upskill_hub", "pull", repo, "--format", "json"],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for repo in repos
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
    lock = read_lock(project)
    assert sorted(s.repo_id for s in lock.skills.values()) == sorted(repos)
    for skill in lock.skills.values():
        assert (project / ".claude" / "skills" / skill.name / "SKILL.md").is_file()
    assert not (project / ".upskill-hub.lock.flock").exists()  # the folder itself is locked


@pytest.mark.slow
def test_outdated_and_verify_exit_codes_follow_diff(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], project: Path, tmp_path: Path
) -> None:
    """0 = up to date / matches, 1 = outdated / differs, 2 = could not tell."""
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    no_lock = run_cli("outdated", cwd=project)
    assert no_lock.code == 2 and "no lock file" in no_lock.stderr
    assert run_cli("verify", cwd=project).code == 2
    assert run_cli("pull", repo_id, cwd=project).code == 0  # the cache now holds the ref
    assert run_cli("outdated", cwd=project).code == 0
    assert run_cli("verify", cwd=project).code == 0
    dead = {"HF_ENDPOINT": "http://127.0.0.1:9"}
    unreachable = run_cli("outdated", cwd=project, env=dead)
    assert unreachable.code == 2, unreachable.stdout
    assert len(unreachable.stderr.strip().splitlines()) == 1
    assert "could not tell" in unreachable.stderr and "up to date" not in unreachable.stdout
    offline = run_cli("outdated", cwd=project, env={"HF_HUB_OFFLINE": "1"})
    assert offline.code == 2 and "HF_HUB_OFFLINE" in offline.stderr
    source = write_skill(tmp_path / "v2", name, {"scripts/run.py": "print('v2')\n"})
    push_skills(source, repo_id=repo_id)
    assert run_cli("outdated", cwd=project).code == 1
    (project / ".claude/skills" / name / "SKILL.md").write_text("edited\n")
    assert run_cli("verify", cwd=project).code == 1
    (project / LOCK_FILENAME).write_text("{not json")
    for command in ("outdated", "verify"):
        broken = run_cli(command, cwd=project)
        assert broken.code == 2 and LOCK_FILENAME in broken.stderr, command
