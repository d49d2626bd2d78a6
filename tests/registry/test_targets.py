"""Agent install locations and project-root discovery.

The expected folders are those each agent documents (README, "Install", cites the sources).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.registry.conftest import CliResult
from upskill_hub.errors import UsageError
from upskill_hub.registry.project.lock import LOCK_FILENAME, read_lock
from upskill_hub.registry.project.targets import AGENTS, find_project_root, skills_dirs

EXPECTED = {
    "claude": (".claude/skills", ".claude/skills"),
    "agents": (".agents/skills", ".agents/skills"),
    # Codex reads the shared .agents folders only, not .codex/skills
    "codex": (".agents/skills", ".agents/skills"),
    "cursor": (".cursor/skills", ".cursor/skills"),
    "copilot": (".github/skills", ".copilot/skills"),
    "gemini": (".gemini/skills", ".gemini/skills"),
    "opencode": (".opencode/skills", ".config/opencode/skills"),
    "goose": (".goose/skills", ".config/goose/skills"),
    "windsurf": (".windsurf/skills", ".codeium/windsurf/skills"),
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(var, raising=False)
    return home


def test_every_agent_of_the_table(home: Path, tmp_path: Path) -> None:
    assert set(AGENTS) == set(EXPECTED)
    project = tmp_path / "proj"
    for name, (project_dir, user_dir) in EXPECTED.items():
        assert skills_dirs([name], project_root=project) == [project / project_dir]
        assert skills_dirs([name], project_root=project, global_=True) == [home / user_dir]


def test_default_agent_is_claude(home: Path, tmp_path: Path) -> None:
    assert skills_dirs([], project_root=tmp_path) == [tmp_path / ".claude/skills"]
    assert skills_dirs([], project_root=tmp_path, global_=True) == [home / ".claude/skills"]


def test_config_dir_variables(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-cfg"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("CODEX_HOME", "~/codex-home")  # Codex keeps config there, not skills
    got = skills_dirs(
        ["claude", "opencode", "goose", "codex", "cursor"], project_root=tmp_path, global_=True
    )
    assert got == [
        tmp_path / "claude-cfg/skills",
        tmp_path / "xdg/opencode/skills",
        tmp_path / "xdg/goose/skills",
        home / ".agents/skills",
        home / ".cursor/skills",
    ]
    # project installs ignore them
    assert skills_dirs(["claude"], project_root=tmp_path) == [tmp_path / ".claude/skills"]


def test_order_is_kept_and_duplicates_dropped(tmp_path: Path) -> None:
    got = skills_dirs(["agents", "Claude", "agents", "cursor"], project_root=tmp_path)
    assert got == [
        tmp_path / ".agents/skills",
        tmp_path / ".claude/skills",
        tmp_path / ".cursor/skills",
    ]


def test_unknown_agent_names_the_valid_ones(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as info:
        skills_dirs(["claude", "vim"], project_root=tmp_path)
    message = str(info.value)
    assert "'vim'" in message
    assert all(name in message for name in EXPECTED)


def test_custom_dir_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    project = tmp_path / "proj"
    assert skills_dirs([], project_root=project, custom_dir=Path("my/skills")) == [
        tmp_path / "my/skills"
    ]
    got = skills_dirs(["cursor"], project_root=project, custom_dir=tmp_path / "x")
    assert got == [tmp_path / "x", project / ".cursor/skills"]


def test_find_project_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    deep = repo / "src" / "pkg"
    deep.mkdir(parents=True)
    assert find_project_root(deep) == deep  # no git anywhere: the start dir
    (repo / ".git").mkdir()
    assert find_project_root(deep) == repo
    assert find_project_root(repo) == repo
    sub = deep / "vendored"
    sub.mkdir()
    (sub / ".git").write_text("gitdir: ../../.git/modules/vendored\n")  # submodule/worktree
    assert find_project_root(sub / ".") == sub


def test_codex_and_the_shared_convention_are_one_folder(tmp_path: Path) -> None:
    assert skills_dirs(["codex", "agents"], project_root=tmp_path) == [tmp_path / ".agents/skills"]


def test_a_lock_from_before_the_codex_fix_still_reads_and_removes(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], project: Path
) -> None:
    """Earlier releases installed ``--agent codex`` into ``.codex/skills`` (a symlink to the
    canonical copy) and locked that target: such a lock stays valid, and ``remove`` deletes
    the old folder too; a new pull never writes there."""
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    assert run_cli("pull", repo_id, "--agent", "claude", "--agent", "codex", cwd=project).code == 0
    assert not (project / ".codex").exists()
    assert read_lock(project).skills[name].targets == [
        f".claude/skills/{name}",
        f".agents/skills/{name}",
    ]
    # the lock and folders as the earlier release left them
    shutil.rmtree(project / ".agents")
    old = project / ".codex" / "skills" / name
    old.parent.mkdir(parents=True)
    old.symlink_to(project / ".claude" / "skills" / name, target_is_directory=True)
    lock = json.loads((project / LOCK_FILENAME).read_text())
    lock["skills"][name]["targets"] = [f".claude/skills/{name}", f".codex/skills/{name}"]
    (project / LOCK_FILENAME).write_text(json.dumps(lock))
    listed = run_cli("list", "--format", "json", cwd=project)
    assert listed.code == 0, listed.stderr
    assert run_cli("verify", cwd=project).code == 0
    old.unlink()
    restored = run_cli("install", "--frozen", cwd=project)
    assert restored.code == 0, restored.stderr
    assert old.is_symlink() and (old / "SKILL.md").is_file()
    removed = run_cli("remove", name, cwd=project)
    assert removed.code == 0, removed.stderr
    assert not old.exists() and not old.is_symlink()
    assert not (project / ".claude" / "skills" / name).exists()
