"""The project lock file: format, round trip, determinism, errors."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from upskill_hub.errors import LockError
from upskill_hub.registry.project.lock import (
    LOCK_FILENAME,
    Lock,
    LockedSkill,
    hash_tree,
    read_lock,
    tree_state,
    write_lock,
)
from upskill_hub.registry.project.targets import target_entry, target_path

COMMIT = "0123456789abcdef0123456789abcdef01234567"
SHA = hashlib.sha256(b"x").hexdigest()


def sample_lock() -> Lock:
    return Lock(
        skills={
            "zeta": LockedSkill(
                name="zeta",
                repo_id="org/skills",
                repo_type="dataset",
                ref="v1.2",
                commit=COMMIT,
                subpath="skills/zeta",
                files={"scripts/run.py": SHA, "SKILL.md": SHA},
                targets=[".claude/skills/zeta", ".agents/skills/zeta"],
            ),
            "alpha": LockedSkill(
                name="alpha",
                repo_id="me/alpha",
                commit=COMMIT,
                files={"SKILL.md": SHA},
                targets=["~/.claude/skills/alpha"],
            ),
        }
    )


def test_missing_lock_is_empty(tmp_path: Path) -> None:
    assert read_lock(tmp_path) == Lock()


def test_round_trip_and_format(tmp_path: Path) -> None:
    lock = sample_lock()
    write_lock(tmp_path, lock)
    assert read_lock(tmp_path) == lock
    text = (tmp_path / LOCK_FILENAME).read_text()
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert text.startswith('{\n  "skills": {\n    "alpha": {\n')
    data = json.loads(text)
    assert data["version"] == 1
    assert data["skills"]["alpha"]["ref"] is None
    assert list(data["skills"]["zeta"]["files"]) == ["SKILL.md", "scripts/run.py"]
    assert data["skills"]["zeta"]["targets"] == [".claude/skills/zeta", ".agents/skills/zeta"]
    assert "time" not in text


def test_rewrite_is_byte_identical(tmp_path: Path) -> None:
    write_lock(tmp_path, sample_lock())
    first = (tmp_path / LOCK_FILENAME).read_bytes()
    write_lock(tmp_path, read_lock(tmp_path))
    assert (tmp_path / LOCK_FILENAME).read_bytes() == first
    # insertion order of skills and files does not matter
    reordered = sample_lock()
    reordered.skills = dict(reversed(list(reordered.skills.items())))
    reordered.skills["zeta"].files = dict(reversed(list(reordered.skills["zeta"].files.items())))
    write_lock(tmp_path, reordered)
    assert (tmp_path / LOCK_FILENAME).read_bytes() == first
    assert [p.name for p in tmp_path.iterdir()] == [LOCK_FILENAME]  # no temp files left


def skill_json(name: str = "a", **fields: object) -> str:
    return json.dumps({"version": 1, "skills": {name: {"repo_id": "x/a", **fields}}})


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "invalid JSON at line 1"),
        ("[]", "JSON object"),
        ('{"version": 2, "skills": {}}', "version"),
        ('{"version": 1, "skills": []}', "'skills'"),
        (skill_json(), "missing 'commit'"),
        (skill_json(commit="abc"), "commit"),
        (skill_json(commit=COMMIT, files={"../x": SHA}), "unsafe path"),
        (skill_json(commit=COMMIT, files={"SKILL.md": "nope"}), "sha256"),
        (skill_json(commit=COMMIT, repo_type="kernel"), "repo_type"),
        (skill_json(commit=COMMIT, targets="oops"), "targets"),
        (skill_json(commit=COMMIT, subpath="/etc"), "subpath"),
        (skill_json("../a", commit=COMMIT), "invalid skill name"),
    ],
)
def test_corrupt_lock_names_file_and_problem(tmp_path: Path, text: str, problem: str) -> None:
    (tmp_path / LOCK_FILENAME).write_text(text)
    with pytest.raises(LockError) as info:
        read_lock(tmp_path)
    message = str(info.value)
    assert str(tmp_path / LOCK_FILENAME) in message
    assert problem in message


def test_write_refuses_invalid_lock(tmp_path: Path) -> None:
    bad = Lock(skills={"a": LockedSkill(name="a", repo_id="x/a", commit="short")})
    with pytest.raises(LockError, match="commit"):
        write_lock(tmp_path, bad)
    mismatched = Lock(skills={"a": LockedSkill(name="b", repo_id="x/a", commit=COMMIT)})
    with pytest.raises(LockError):
        write_lock(tmp_path, mismatched)
    assert not (tmp_path / LOCK_FILENAME).exists()


def test_hash_tree(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.txt").write_bytes(b"x")
    (tmp_path / "SKILL.md").write_bytes(b"hello")
    (tmp_path / "a.txt").write_bytes(b"")
    (tmp_path / "link").symlink_to("SKILL.md")
    (tmp_path / "dirlink").symlink_to("b")
    os.mkfifo(tmp_path / "fifo")
    got = hash_tree(tmp_path)
    assert got == {
        "SKILL.md": hashlib.sha256(b"hello").hexdigest(),
        "a.txt": hashlib.sha256(b"").hexdigest(),
        "b/z.txt": SHA,
    }
    assert list(got) == sorted(got)


def test_tree_state_tells_copies_apart_by_executable_bit(tmp_path: Path) -> None:
    """Two copies with the same bytes are the same only with the same modes (a cached staged
    skill is replaced when a script's executable bit changed)."""
    a, b = tmp_path / "a", tmp_path / "b"
    for folder in (a, b):
        (folder / "scripts").mkdir(parents=True)
        (folder / "scripts" / "run.sh").write_bytes(b"#!/bin/sh\n")
    (a / "scripts" / "run.sh").chmod(0o755)
    (b / "scripts" / "run.sh").chmod(0o644)
    assert hash_tree(a) == hash_tree(b)
    assert tree_state(a) == {"scripts/run.sh": (hashlib.sha256(b"#!/bin/sh\n").hexdigest(), True)}
    assert tree_state(a) != tree_state(b)
    (b / "scripts" / "run.sh").chmod(0o700)
    assert tree_state(a) == tree_state(b)


def test_target_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    project = tmp_path / "proj"
    cases = {
        project / ".claude/skills/a": ".claude/skills/a",
        home / ".claude/skills/a": "~/.claude/skills/a",
        tmp_path / "elsewhere/a": (tmp_path / "elsewhere/a").as_posix(),
    }
    for path, entry in cases.items():
        assert target_entry(path, project) == entry
        assert target_path(entry, project) == path


def test_locked_project_falls_back_to_a_side_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcntl

    from upskill_hub.registry.project import lock as lock_module

    real_flock = fcntl.flock
    locked: list[str] = []

    def picky_flock(fd: int, op: int) -> None:
        if os.path.isdir(f"/proc/self/fd/{fd}"):  # no locks on folders here
            raise OSError(95, "Operation not supported")
        locked.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_flock(fd, op)

    monkeypatch.setattr(lock_module.fcntl, "flock", picky_flock)
    with lock_module.locked_project(tmp_path):
        assert (tmp_path / lock_module.FLOCK_FILENAME).is_file()
    assert locked == [str(tmp_path / lock_module.FLOCK_FILENAME)]
    monkeypatch.undo()
    with lock_module.locked_project(tmp_path):  # the normal path: the folder itself
        pass
