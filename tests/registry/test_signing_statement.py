"""A signature binds the skill's identity and version, not only its files (TUF's rollback and
mix-and-match attacks), through ``hub serve``.

The attacker has write access to a repo (or their own repo) but not the signing key: they
re-push an older signed version with ``HfApi.create_commit``, or copy signed files elsewhere.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from huggingface_hub import CommitOperationAdd, HfApi

from tests.registry.conftest import CliResult, tree_state, write_skill
from upskill_hub.registry.project.lock import read_lock
from upskill_hub.registry.push import push_skills
from upskill_hub.registry.trust.signing import (
    SIGNATURE_FILE,
    STATEMENT_FILE,
    generate_key_pair,
    sign_skill,
)

Run = Callable[..., CliResult]
SKILL_FILES = ("SKILL.md", "scripts/run.py", SIGNATURE_FILE, STATEMENT_FILE)


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path]:
    key = tmp_path / "keys" / "team.key"
    generate_key_pair(key)
    return key, key.with_suffix(".pub")


def _push_version(tmp_path: Path, repo_id: str, key: Path, text: str) -> str:
    skill = write_skill(tmp_path / text, repo_id.split("/")[1], {"scripts/run.py": text + "\n"})
    return push_skills(skill, repo_id=repo_id, sign=key).commit


def _copy_commit(source: str, commit: str, target: str, files: tuple[str, ...]) -> str:
    """What someone with write access but no key does: push files of an old commit again."""
    api = HfApi()
    folder = Path(api.snapshot_download(source, revision=commit))
    api.create_repo(target, exist_ok=True)
    ops = [CommitOperationAdd(path_in_repo=f, path_or_fileobj=str(folder / f)) for f in files]
    return api.create_commit(target, operations=ops, commit_message="restore").oid


def _statement(repo_id: str, commit: str) -> dict[str, object]:
    path = HfApi().hf_hub_download(repo_id, STATEMENT_FILE, revision=commit)
    return dict(json.loads(Path(path).read_text()))


def test_a_repushed_older_signed_version_is_refused_as_a_rollback(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, team: tuple[Path, Path]
) -> None:
    key, pub = team
    v1 = _push_version(tmp_path, unique_repo_id, key, "print('v1')")
    v2 = _push_version(tmp_path, unique_repo_id, key, "print('v2 fixes a bug')")
    first, second = _statement(unique_repo_id, v1), _statement(unique_repo_id, v2)
    assert (first["version"], second["version"]) == (1, 2)
    assert first["repo_id"] == unique_repo_id and first["skill"] == unique_repo_id.split("/")[1]
    trust = ("--require-signature", "--trusted-key", str(pub))
    assert run_cli("pull", unique_repo_id, *trust, cwd=project).code == 0
    name = unique_repo_id.split("/")[1]
    assert read_lock(project).skills[name].signature["version"] == "2"  # type: ignore[index]
    # write access, no key: v1's validly signed files become the head again
    _copy_commit(unique_repo_id, v1, unique_repo_id, SKILL_FILES)
    before = tree_state(project)
    rolled = run_cli("update", *trust, cwd=project)
    assert rolled.code == 1, rolled.stdout + rolled.stderr
    assert (
        "signed version 1" in rolled.stderr and "older than the locked version 2" in rolled.stderr
    )
    assert "--allow-downgrade" in rolled.stderr and "Traceback" not in rolled.stderr
    assert tree_state(project) == before
    # a deliberate rollback is the user's call
    allowed = run_cli("update", *trust, "--allow-downgrade", cwd=project)
    assert allowed.code == 0, allowed.stderr
    installed = project / ".claude" / "skills" / name / "scripts" / "run.py"
    assert installed.read_text() == "print('v1')\n"


@pytest.mark.slow
def test_the_same_signed_files_in_another_repo_are_refused(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, team: tuple[Path, Path]
) -> None:
    key, pub = team
    commit = _push_version(tmp_path, unique_repo_id, key, "print('v1')")
    other = unique_repo_id + "-copy"
    _copy_commit(unique_repo_id, commit, other, SKILL_FILES)
    before = tree_state(project)
    copied = run_cli("pull", other, "--require-signature", "--trusted-key", str(pub), cwd=project)
    assert copied.code == 1, copied.stdout + copied.stderr
    assert f"signed for {unique_repo_id}" in copied.stderr and f"not for {other}" in copied.stderr
    assert tree_state(project) == before
    # info says what the signature is for, and that the copy is not it
    shown = run_cli("info", unique_repo_id, "--trusted-key", str(pub))
    name = unique_repo_id.split("/")[1]
    assert f"statement for {unique_repo_id} (skill {name}, v1), signed 20" in shown.stdout
    assert "(trusted key, verified)" in shown.stdout
    copy_info = run_cli("info", other, "--trusted-key", str(pub))
    assert f"signed for {unique_repo_id} (skill {name}, v1), not for this repo" in copy_info.stdout
    # a lock that says the installed copy came from the other repo: verify names the mismatch
    trust = ("--require-signature", "--trusted-key", str(pub))
    assert run_cli("pull", unique_repo_id, *trust, cwd=project).code == 0
    lock_file = project / "upskill-hub.lock"
    lock_file.write_text(lock_file.read_text().replace(f'"{unique_repo_id}"', f'"{other}"'))
    checked = run_cli("verify", *trust, cwd=project)
    assert checked.code == 1 and f"signed for {unique_repo_id}" in checked.stdout
    assert f"not for {other}" in checked.stdout
    # the statement cannot be edited to name the copy: it is one of the signed files
    folder = Path(HfApi().snapshot_download(other))
    statement = json.loads((folder / STATEMENT_FILE).read_text())
    statement["repo_id"] = other
    HfApi().upload_file(
        path_or_fileobj=json.dumps(statement).encode(), path_in_repo=STATEMENT_FILE, repo_id=other
    )
    edited = run_cli("pull", other, "--require-signature", "--trusted-key", str(pub), cwd=project)
    assert edited.code == 1 and f"{STATEMENT_FILE} (changed)" in edited.stderr


@pytest.mark.slow
def test_a_signature_without_a_statement_is_verified_but_reported_and_cannot_roll_back(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, team: tuple[Path, Path]
) -> None:
    """A skill signed before statements existed: its files are checked, its identity is not
    bound (a warning; refused under --require-signature); once the lock recorded a bound
    version, it is a rollback."""
    key, pub = team
    name = unique_repo_id.split("/")[1]
    old = write_skill(tmp_path / "old", name, {"scripts/run.py": "print('old')\n"})
    sign_skill(old, key)  # what an older upskill-hub's push --sign uploaded
    old_commit = push_skills(old, repo_id=unique_repo_id).commit
    trust = ("--require-signature", "--trusted-key", str(pub))
    before = tree_state(project)
    required = run_cli("pull", unique_repo_id, *trust, cwd=project)
    assert required.code == 1 and "identity not bound" in required.stderr
    assert "--sign KEY" in required.stderr and tree_state(project) == before
    tampered = project / "tampered"
    (tampered / ".git").mkdir(parents=True)
    HfApi().upload_file(
        path_or_fileobj=b"print('changed')\n", path_in_repo="scripts/run.py", repo_id=unique_repo_id
    )
    changed = run_cli("pull", unique_repo_id, "--trusted-key", str(pub), cwd=tampered)
    assert changed.code == 1 and "scripts/run.py (changed)" in changed.stderr  # files still bound
    _copy_commit(unique_repo_id, old_commit, unique_repo_id, ("scripts/run.py",))
    pulled = run_cli("pull", unique_repo_id, "--trusted-key", str(pub), cwd=project)
    assert pulled.code == 0, pulled.stderr
    assert "identity not bound" in pulled.stderr
    assert "version" not in (read_lock(project).skills[name].signature or {})
    _push_version(tmp_path, unique_repo_id, key, "print('new')")
    assert run_cli("update", *trust, cwd=project).code == 0
    _copy_commit(unique_repo_id, old_commit, unique_repo_id, ("SKILL.md", "scripts/run.py"))
    api = HfApi()
    api.create_commit(
        unique_repo_id,
        operations=[
            CommitOperationAdd(
                path_in_repo=SIGNATURE_FILE, path_or_fileobj=str(old / SIGNATURE_FILE)
            )
        ],
        commit_message="old signature",
    )
    api.delete_file(STATEMENT_FILE, unique_repo_id)
    before = tree_state(project)
    rolled = run_cli("update", *trust, cwd=project)
    assert rolled.code == 1 and "signed without a statement" in rolled.stderr
    assert tree_state(project) == before


def test_model_signings_own_verifier_accepts_what_push_signs(
    tmp_path: Path, unique_repo_id: str, team: tuple[Path, Path]
) -> None:
    """The statement is a signed file like any other: model_signing verifies the folder."""
    from model_signing import hashing, verifying

    key, pub = team
    commit = _push_version(tmp_path, unique_repo_id, key, "print('v1')")
    folder = Path(HfApi().snapshot_download(unique_repo_id, revision=commit))
    skill = tmp_path / "download"
    skill.mkdir()
    for rel in SKILL_FILES:
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_bytes((folder / rel).read_bytes())
    config = verifying.Config().use_elliptic_key_verifier(public_key=pub)
    config.set_hashing_config(
        hashing.Config().set_ignored_paths(paths=[SIGNATURE_FILE], ignore_git_paths=False)
    )
    config.verify(skill, skill / SIGNATURE_FILE)
    (skill / STATEMENT_FILE).write_text((skill / STATEMENT_FILE).read_text().replace("1", "9"))
    with pytest.raises(ValueError):
        config.verify(skill, skill / SIGNATURE_FILE)


@pytest.mark.parametrize("version", [10**16 - 1, 10**30, "9", 0])
def test_a_forged_unsigned_statement_cannot_set_the_next_signed_version(
    run_cli: Run, tmp_path: Path, unique_repo_id: str, team: tuple[Path, Path], version: object
) -> None:
    """Write access, no key: a statement put at the repo's head is what the next signed push
    counts from. One no lock can hold (or unreadable) stops that push instead of being signed
    (a 17-digit version would make every later command fail on the victim's lock)."""
    key, _ = team
    _push_version(tmp_path, unique_repo_id, key, "print('v1')")
    forged = {
        "_type": "upskill-hub/skill-statement/v1",
        "repo_id": unique_repo_id,
        "skill": unique_repo_id.split("/")[1],
        "version": version,
        "signed_at": "2026-01-01T00:00:00Z",
    }
    HfApi().upload_file(
        path_or_fileobj=json.dumps(forged).encode(),
        path_in_repo=STATEMENT_FILE,
        repo_id=unique_repo_id,
    )
    head = HfApi().model_info(unique_repo_id).sha
    skill = write_skill(tmp_path / "v2", unique_repo_id.split("/")[1])
    done = run_cli("push", str(skill), "--repo", unique_repo_id, "--sign", str(key))
    assert done.code == 1, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert f"{unique_repo_id}: {STATEMENT_FILE}" in line and "refusing to guess" in line
    assert HfApi().model_info(unique_repo_id).sha == head  # nothing was signed or pushed


def test_an_older_signed_statement_put_back_at_the_head_makes_the_next_push_repeat_a_version(
    tmp_path: Path, unique_repo_id: str, team: tuple[Path, Path]
) -> None:
    """The limit README states: the counter is read from the head, which write access can set
    to a validly signed older commit's files."""
    key, _ = team
    v1 = _push_version(tmp_path, unique_repo_id, key, "print('v1')")
    v2 = _push_version(tmp_path, unique_repo_id, key, "print('v2')")
    _copy_commit(unique_repo_id, v1, unique_repo_id, SKILL_FILES)
    v3 = _push_version(tmp_path, unique_repo_id, key, "print('v3')")
    versions = [_statement(unique_repo_id, c)["version"] for c in (v1, v2, v3)]
    assert versions == [1, 2, 2]


def test_a_rollback_is_refused_on_pull_and_install_too(
    run_cli: Run, tmp_path: Path, project: Path, unique_repo_id: str, team: tuple[Path, Path]
) -> None:
    """``update`` is not the only way to the repo's head or another commit: pulling the locked
    repo again, and ``install --frozen`` of a lock whose commit a pull request moved back."""
    key, pub = team
    name = unique_repo_id.split("/")[1]
    v1 = _push_version(tmp_path, unique_repo_id, key, "print('v1')")
    _push_version(tmp_path, unique_repo_id, key, "print('v2 fixes a bug')")
    trust = ("--require-signature", "--trusted-key", str(pub))
    assert run_cli("pull", unique_repo_id, *trust, cwd=project).code == 0
    lock_file = project / "upskill-hub.lock"
    locked = read_lock(project).skills[name]
    # a pull request moves the locked commit back to v1 (the signer and version left alone)
    lock_file.write_text(lock_file.read_text().replace(locked.commit, v1))
    shutil.rmtree(project / ".claude" / "skills" / name)  # a fresh checkout: CI installs
    before = tree_state(project)
    frozen = run_cli("install", "--frozen", *trust, cwd=project)
    assert frozen.code == 1, frozen.stdout + frozen.stderr
    assert "older than the locked version 2" in frozen.stderr
    assert tree_state(project) == before
    # write access, no key: v1 becomes the head again, and the user pulls the repo again
    lock_file.write_text(lock_file.read_text().replace(v1, locked.commit))
    _copy_commit(unique_repo_id, v1, unique_repo_id, SKILL_FILES)
    before = tree_state(project)
    pulled = run_cli("pull", unique_repo_id, *trust, "--force", cwd=project)
    assert pulled.code == 1, pulled.stdout + pulled.stderr
    assert "signed version 1" in pulled.stderr
    assert "older than the locked version 2" in pulled.stderr
    assert tree_state(project) == before
