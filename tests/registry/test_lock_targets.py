"""A lock is shared through git: its targets may only name agents' skills folders.

Each test plays a hostile ``upskill-hub.lock`` (or a hostile symlink in a cloned repository)
through the real CLI, with HOME pointed at a temporary folder, and proves nothing outside the
allowed folders is written or deleted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.registry.conftest import CliResult, tree_state
from upskill_hub.errors import LockError
from upskill_hub.registry.project.lock import LOCK_FILENAME, read_lock

COMMIT = "1" * 40


def _write_lock(project: Path, name: str, targets: list[str], files: dict | None = None) -> None:
    entry = {
        "repo_id": "local-user/whatever",
        "repo_type": "model",
        "ref": None,
        "commit": COMMIT,
        "subpath": "",
        "files": files or {},
        "targets": targets,
    }
    text = json.dumps({"version": 1, "skills": {name: entry}})
    (project / LOCK_FILENAME).write_text(text, encoding="utf-8")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    (folder / ".local/lib/python3.11/site-packages").mkdir(parents=True)
    (folder / ".bashrc").write_text("export PATH=$PATH\n", encoding="utf-8")
    return folder


def _env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "CLAUDE_CONFIG_DIR": "", "XDG_CONFIG_HOME": "", "CODEX_HOME": ""}


@pytest.mark.parametrize(
    ("name", "target"),
    [
        ("usercustomize", "~/.local/lib/python3.11/site-packages/usercustomize"),
        (".bashrc", "~/.bashrc"),
        ("project-data", "../home/project-data"),
        ("x", "/tmp/x"),
        ("x", ".claude/skills/y"),  # an agent folder, but not this skill's name
        ("x", ".claude/skills/../../x"),
        ("x", "src"),
    ],
)
@pytest.mark.parametrize(
    "command",
    [["install", "--frozen"], ["remove", "--force"], ["list"], ["verify"]],
    ids=" ".join,
)
def test_lock_with_a_foreign_target_is_refused_whole(
    run_cli: Callable[..., CliResult],
    project: Path,
    home: Path,
    name: str,
    target: str,
    command: list[str],
) -> None:
    (project.parent / "home" / "project-data").mkdir(parents=True, exist_ok=True)
    (project / "src").mkdir()
    _write_lock(project, name, [target])
    args = [*command, name] if command[0] == "remove" else command
    before = (tree_state(home), tree_state(project))
    result = run_cli(*args, "--project", str(project), cwd=project, env=_env(home))
    assert result.code != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert repr(target) in lines[0] and "refusing the whole lock" in lines[0]
    assert "Traceback" not in result.stderr
    assert (tree_state(home), tree_state(project)) == before


def test_agent_targets_project_and_global_are_accepted(project: Path, home: Path) -> None:
    old = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        _write_lock(
            project,
            "good",
            [".claude/skills/good", ".agents/skills/good", "~/.claude/skills/good"],
        )
        assert read_lock(project).skills["good"].targets[0] == ".claude/skills/good"
        _write_lock(project, "good", ["~/.bashrc/../.claude/skills/good"])
        with pytest.raises(LockError, match="refusing the whole lock"):
            read_lock(project)
    finally:
        if old is not None:
            os.environ["HOME"] = old


@pytest.mark.parametrize(
    "text",
    [
        '{"version": 1, "skills": ' + "[" * 100_000,
        '{"version": 1, "skills": {}, "x": ' + "9" * 5000 + "}",
    ],
    ids=["deep-nesting", "huge-integer"],
)
def test_hostile_json_in_the_lock_is_one_error_line(
    run_cli: Callable[..., CliResult], project: Path, text: str
) -> None:
    (project / LOCK_FILENAME).write_text(text, encoding="utf-8")
    result = run_cli("list", "--project", str(project), cwd=project)
    assert result.code != 0
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert LOCK_FILENAME in result.stderr and "Traceback" not in result.stderr


def test_symlinked_agent_folder_leading_out_of_the_project_is_refused(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], project: Path, tmp_path: Path
) -> None:
    repo_id, _ = pushed
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".claude").mkdir()
    os.symlink("../../outside", project / ".claude" / "skills")
    result = run_cli("pull", repo_id, "--project", str(project), cwd=project)
    assert result.code != 0
    assert "outside the project" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert list(outside.iterdir()) == []
    assert not (project / LOCK_FILENAME).exists()


def test_symlinked_agent_folder_inside_the_project_still_works(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], project: Path
) -> None:
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    (project / ".agents" / "skills").mkdir(parents=True)
    (project / ".claude").mkdir()
    os.symlink("../.agents/skills", project / ".claude" / "skills")
    result = run_cli("pull", repo_id, "--project", str(project), cwd=project)
    assert result.code == 0, result.stderr
    assert (project / ".agents" / "skills" / name / "SKILL.md").is_file()


def test_remove_refuses_to_follow_a_symlinked_agent_folder_out(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], project: Path, tmp_path: Path
) -> None:
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    assert run_cli("pull", repo_id, "--project", str(project), cwd=project).code == 0
    # someone replaces the agent folder by a link to a same-named folder elsewhere
    outside = tmp_path / "elsewhere"
    (outside / name).mkdir(parents=True)
    (outside / name / "precious.txt").write_text("keep me", encoding="utf-8")
    os.rename(project / ".claude" / "skills", tmp_path / "moved-away")
    os.symlink(str(outside), project / ".claude" / "skills")
    result = run_cli("remove", name, "--force", "--project", str(project), cwd=project)
    assert result.code != 0 and "outside the project" in result.stderr
    assert (outside / name / "precious.txt").read_text(encoding="utf-8") == "keep me"


def test_dir_outside_agent_folders_is_an_unlocked_copy(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], project: Path, tmp_path: Path
) -> None:
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    elsewhere = tmp_path / "elsewhere"
    result = run_cli("pull", repo_id, "--dir", str(elsewhere), cwd=project)
    assert result.code == 0, result.stderr
    assert (elsewhere / name / "SKILL.md").is_file()
    assert "not recorded in upskill-hub.lock" in result.stderr + result.stdout
    assert not (project / LOCK_FILENAME).exists()
    mixed = run_cli("pull", repo_id, "--dir", str(elsewhere), "--agent", "codex", cwd=project)
    assert mixed.code == 2 and "--dir" in mixed.stderr


def test_global_install_does_not_turn_project_folders_into_links_to_home(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], project: Path, home: Path
) -> None:
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    env = _env(home)
    assert run_cli("pull", repo_id, "--project", str(project), cwd=project, env=env).code == 0
    result = run_cli("pull", repo_id, "--global", "--project", str(project), cwd=project, env=env)
    assert result.code == 0, result.stderr
    in_project = project / ".claude" / "skills" / name
    in_home = home / ".claude" / "skills" / name
    assert in_home.is_dir() and not in_home.is_symlink()
    assert in_project.is_dir() and not in_project.is_symlink()
    assert read_lock(project).skills[name].targets == [
        f"~/.claude/skills/{name}",
        f".claude/skills/{name}",
    ]


def test_claude_code_is_an_alias_of_claude(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], project: Path
) -> None:
    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    result = run_cli("pull", repo_id, "--agent", "claude-code", cwd=project)
    assert result.code == 0, result.stderr
    assert (project / ".claude" / "skills" / name / "SKILL.md").is_file()


def test_a_non_frozen_install_says_when_it_rewrites_lock_hashes(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], project: Path
) -> None:
    import shutil

    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    assert run_cli("pull", repo_id, cwd=project).code == 0
    lock = json.loads((project / LOCK_FILENAME).read_text())
    lock["skills"][name]["files"]["SKILL.md"] = "0" * 64
    (project / LOCK_FILENAME).write_text(json.dumps(lock))
    shutil.rmtree(project / ".claude")
    frozen = run_cli("install", "--frozen", cwd=project)
    assert frozen.code != 0 and "files differ" in frozen.stderr
    result = run_cli("install", cwd=project)
    assert result.code == 0, result.stderr
    assert "do not match the hashes in upskill-hub.lock (SKILL.md" in result.stderr + result.stdout
    assert read_lock(project).skills[name].files["SKILL.md"] != "0" * 64


def test_ctrl_c_during_pull_is_one_line_and_changes_nothing(
    hostile_hub: object, project: Path
) -> None:
    import signal
    import subprocess
    import sys
    import time

    from tests.registry.conftest import REPO_ROOT

    hub: Any = hostile_hub
    hub.fail_status = 503  # every request answers 503 with Retry-After: the client waits
    hub.retry_after = "5"
    (project / ".claude" / "skills").mkdir(parents=True)
    before = tree_state(project)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HF_ENDPOINT": hub.url}
    proc = subprocess.Popen(
        [sys.executable, "-m", "upskill_hub", "pull", "evil/slow"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 30
    while not hub.requests and time.monotonic() < deadline:
        time.sleep(0.05)
    assert hub.requests, "pull never reached the server"
    time.sleep(0.5)  # past the first answer, into the wait before the retry
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err.strip().splitlines() == ["interrupted; nothing changed"]
    assert tree_state(project) == before
