"""A lock file arrives by pull request: it may pin who signed a skill, never add a signer the
user does not trust, and it acts on folders outside the project only with ``--global``.

Every attack here goes through the real commands against ``hub serve``; the attacker writes the
lock the way they would (their own ``pull`` with their own key, or by hand) and the victim runs
the README's CI recipe.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.registry.conftest import CliResult, key_pairs, tree_state, write_skill
from upskill_hub.registry.project.lock import LOCK_FILENAME, read_lock
from upskill_hub.registry.project.pull import pull
from upskill_hub.registry.push import push_skills
from upskill_hub.registry.trust.signing import TrustPolicy, load_trusted_keys

Run = Callable[..., CliResult]


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    """``team`` (the victim trusts it) and ``attacker`` key pairs."""
    return key_pairs(tmp_path / "keys", "team", "attacker")


def _policy(pub: Path) -> TrustPolicy:
    return TrustPolicy(tuple(load_trusted_keys([pub], use_env=False)), require=True)


def _attacker_lock(tmp_path: Path, repo_id: str, keys: dict[str, Path]) -> bytes:
    """The lock an attacker commits: their skill, signed with their key, pulled with that key
    trusted (so the lock records it as the signer)."""
    skill = write_skill(tmp_path / "evil-src", repo_id.split("/")[1])
    push_skills(skill, repo_id=repo_id, sign=keys["attacker"])
    theirs = tmp_path / "attacker-project"
    (theirs / ".git").mkdir(parents=True)
    pull(repo_id, project_root=theirs, trust=_policy(keys["attacker.pub"]))
    return (theirs / LOCK_FILENAME).read_bytes()


def test_a_lock_from_a_pull_request_cannot_add_the_attackers_key_to_the_trusted_ones(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    (project / LOCK_FILENAME).write_bytes(_attacker_lock(tmp_path, unique_repo_id, keys))
    env = {"UPSKILL_HUB_TRUSTED_KEYS": str(keys["team.pub"])}
    before = tree_state(project)
    # the README's CI recipe
    ci = run_cli("install", "--frozen", "--require-signature", cwd=project, env=env)
    assert ci.code == 1, ci.stdout + ci.stderr
    assert "can only narrow trust" in ci.stderr and "Traceback" not in ci.stderr
    assert len(ci.stderr.strip().splitlines()) == 1
    assert tree_state(project) == before
    # without --require-signature, with the team key trusted: the same
    plain = run_cli("install", cwd=project, env=env)
    assert plain.code == 1 and "can only narrow trust" in plain.stderr
    assert tree_state(project) == before
    # pull of the same repo (the lock pins the attacker) and --require-signature with no key
    pulled = run_cli("pull", unique_repo_id, cwd=project, env=env)
    assert pulled.code == 1 and "can only narrow trust" in pulled.stderr
    no_key = run_cli("install", "--frozen", "--require-signature", cwd=project)
    assert no_key.code == 2 and "needs a trusted key" in no_key.stderr
    assert "--trusted-key PUB" in no_key.stderr
    assert tree_state(project) == before


@pytest.mark.slow
def test_update_and_verify_refuse_a_locked_signer_the_user_does_not_trust(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, keys: dict[str, Path]
) -> None:
    lock = _attacker_lock(tmp_path, unique_repo_id, keys)
    (project / LOCK_FILENAME).write_bytes(lock)
    # the attacker's pull request also commits the installed copy
    name = unique_repo_id.split("/")[1]
    shutil.copytree(tmp_path / "attacker-project" / ".claude", project / ".claude", symlinks=True)
    env = {"UPSKILL_HUB_TRUSTED_KEYS": str(keys["team.pub"])}
    ci = run_cli("install", "--frozen", "--require-signature", cwd=project, env=env)
    assert ci.code == 1 and "not a trusted key" in ci.stderr
    plain = run_cli("install", cwd=project, env=env)  # a trusted key given, no --require-...
    assert plain.code == 1 and "can only narrow trust" in plain.stderr
    checked = run_cli("verify", "--require-signature", cwd=project, env=env)
    assert checked.code == 1 and "not a trusted key" in checked.stdout
    # a new commit signed by the attacker: update with the team key trusted stays put
    skill = write_skill(tmp_path / "evil-v2", name, {"scripts/run.py": "print('v2')\n"})
    push_skills(skill, repo_id=unique_repo_id, sign=keys["attacker"])
    before = tree_state(project)
    moved = run_cli("update", cwd=project, env=env)
    assert moved.code == 1 and "can only narrow trust" in moved.stderr
    assert tree_state(project) == before
    # the legitimate case still works: the locked signer is one the user trusts
    both = {"UPSKILL_HUB_TRUSTED_KEYS": f"{keys['team.pub']}:{keys['attacker.pub']}"}
    ok = run_cli("update", "--require-signature", cwd=project, env=both)
    assert ok.code == 0, ok.stderr
    assert read_lock(project).skills[name].signature is not None


# -- a project lock and the user's global skills -------------------------------------------------


def _home_env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "CLAUDE_CONFIG_DIR": "", "XDG_CONFIG_HOME": "", "CODEX_HOME": ""}


@pytest.mark.slow
def test_a_project_lock_cannot_take_over_a_global_skill_without_global(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = _home_env(home)
    name = unique_repo_id.split("/")[1]
    # the user installed a skill for all their projects
    mine = push_skills(write_skill(tmp_path / "mine", name), repo_id=unique_repo_id)
    elsewhere = tmp_path / "other-project"
    (elsewhere / ".git").mkdir(parents=True)
    installed = run_cli("pull", unique_repo_id, "--global", cwd=elsewhere, env=env)
    assert installed.code == 0, installed.stderr
    global_skill = home / ".claude" / "skills" / name
    hashes = read_lock(elsewhere).skills[name].files
    # the attacker's repo: a copy of that skill, then their own version
    evil_repo = unique_repo_id + "-evil"
    first = push_skills(write_skill(tmp_path / "copy", name), repo_id=evil_repo).commit
    evil = write_skill(tmp_path / "evil", name, {"scripts/run.py": "print('pwned')\n"})
    push_skills(evil, repo_id=evil_repo)
    # ... and the project lock their pull request adds
    entry = {
        "repo_id": evil_repo,
        "repo_type": "model",
        "ref": "main",
        "commit": first,
        "subpath": "",
        "files": hashes,
        "targets": [f"~/.claude/skills/{name}"],
    }
    (project / LOCK_FILENAME).write_text(json.dumps({"version": 1, "skills": {name: entry}}))
    before = tree_state(home)
    commands = (["install"], ["install", "--frozen"], ["update"], ["remove", name])
    for command in (*commands, ["pull", evil_repo]):
        result = run_cli(*command, cwd=project, env=env)
        assert result.code == 1, (command, result.stdout, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "outside the project" in lines[0], result.stderr
        assert f"~/.claude/skills/{name}" in lines[0] and "--global" in lines[0]
        assert "unchanged" not in result.stdout
    assert tree_state(home) == before
    assert (global_skill / "scripts" / "run.py").read_text() == "print('hello')\n"
    # the user asks for it: then the lock acts on the user folder (what --global means)
    taken = run_cli("update", "--global", cwd=project, env=env)
    assert taken.code == 0, taken.stderr
    assert (global_skill / "scripts" / "run.py").read_text() == "print('pwned')\n"
    assert mine.repo_id == unique_repo_id
