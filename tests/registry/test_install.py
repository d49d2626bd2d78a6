"""The atomic installer: fresh installs, replacement, local edits, links, rollback, removal."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from upskill_hub.errors import LocalModificationsError, UnsafeSkillError, UsageError
from upskill_hub.registry.project.lock import Lock, LockedSkill, hash_tree
from upskill_hub.registry.project.place import install_skill, modified_files, remove_skill
from upskill_hub.registry.project.targets import target_entry

COMMIT = "a" * 40


def snapshot(root: Path) -> dict[str, Any]:
    """Every entry under ``root``: file bytes + mode, link targets, folders."""
    state: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                state[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                state[rel] = ("dir",)
            else:
                state[rel] = ("file", path.read_bytes(), path.stat().st_mode)
    return state


def make_staged(root: Path, version: str, extra: dict[str, str] | None = None) -> Path:
    staged = root / f"staged-{version}"
    files = {
        "SKILL.md": f"---\nname: demo\ndescription: version {version}\n---\nBody {version}\n",
        "references/guide.md": f"guide {version}\n",
        "scripts/run.sh": "echo hi\n",
        **(extra or {}),
    }
    for rel, text in files.items():
        (staged / rel).parent.mkdir(parents=True, exist_ok=True)
        (staged / rel).write_text(text)
    (staged / "scripts/run.sh").chmod(0o755)
    return staged


def locked_for(staged: Path, targets: list[Path], project: Path) -> LockedSkill:
    return LockedSkill(
        name="demo",
        repo_id="me/demo",
        commit=COMMIT,
        files=hash_tree(staged),
        targets=[target_entry(t, project) for t in targets],
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    return project


def test_fresh_install_multi_agent(tmp_path: Path, project: Path) -> None:
    staged = make_staged(tmp_path, "1")
    dirs = [project / ".agents/skills", project / ".claude/skills", project / ".cursor/skills"]
    installed = install_skill(staged, "demo", dirs, previous=None, force=False)
    assert installed == [d / "demo" for d in dirs]
    canonical = installed[0]
    assert not canonical.is_symlink()
    assert hash_tree(canonical) == hash_tree(staged)
    assert os.access(canonical / "scripts/run.sh", os.X_OK)
    for link in installed[1:]:
        assert link.is_symlink()
        assert not os.path.isabs(os.readlink(link))
        assert link.resolve() == canonical.resolve()
        assert (link / "SKILL.md").read_text() == (staged / "SKILL.md").read_text()
    assert [p.name for p in (project / ".claude/skills").iterdir()] == ["demo"]


def test_symlinks_survive_moving_the_project(tmp_path: Path, project: Path) -> None:
    staged = make_staged(tmp_path, "1")
    install_skill(
        staged,
        "demo",
        [project / ".agents/skills", project / ".claude/skills"],
        previous=None,
        force=False,
    )
    moved = tmp_path / "moved"
    project.rename(moved)
    assert (moved / ".claude/skills/demo/SKILL.md").read_text().endswith("Body 1\n")


def test_copy_when_link_disabled(tmp_path: Path, project: Path) -> None:
    staged = make_staged(tmp_path, "1")
    dirs = [project / ".agents/skills", project / ".claude/skills"]
    installed = install_skill(staged, "demo", dirs, previous=None, force=False, link=False)
    assert not any(p.is_symlink() for p in installed)
    assert all(hash_tree(p) == hash_tree(staged) for p in installed)


def test_copy_fallback_when_symlinks_fail(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_symlinks(*args: object, **kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "symlink", no_symlinks)  # the OS refuses links (e.g. Windows, FAT)
    staged = make_staged(tmp_path, "1")
    dirs = [project / ".agents/skills", project / ".claude/skills"]
    installed = install_skill(staged, "demo", dirs, previous=None, force=False)
    assert not installed[1].is_symlink()
    assert hash_tree(installed[1]) == hash_tree(staged)


def test_update_replaces_unmodified_install(tmp_path: Path, project: Path) -> None:
    v1, v2 = make_staged(tmp_path, "1", {"old.md": "gone soon\n"}), make_staged(tmp_path, "2")
    dirs = [project / ".agents/skills", project / ".claude/skills"]
    installed = install_skill(v1, "demo", dirs, previous=None, force=False)
    previous = locked_for(v1, installed, project)
    assert install_skill(v2, "demo", dirs, previous=previous, force=False) == installed
    assert hash_tree(installed[0]) == hash_tree(v2)
    assert not (installed[0] / "old.md").exists()
    assert installed[1].is_symlink() and hash_tree(installed[1]) == hash_tree(v2)
    assert sorted(p.name for p in dirs[0].iterdir()) == ["demo"]  # no staging/backup left


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda d: (d / "SKILL.md").write_text("mine\n"), "SKILL.md (changed)"),
        (lambda d: (d / "notes.md").write_text("mine\n"), "notes.md (added)"),
        (lambda d: (d / "references/guide.md").unlink(), "references/guide.md (removed)"),
    ],
)
def test_local_edits_are_detected(
    tmp_path: Path, project: Path, edit: Callable[[Path], object], expected: str
) -> None:
    v1, v2 = make_staged(tmp_path, "1"), make_staged(tmp_path, "2")
    dirs = [project / ".agents/skills", project / ".claude/skills"]
    installed = install_skill(v1, "demo", dirs, previous=None, force=False)
    previous = locked_for(v1, installed, project)
    assert modified_files(installed[0], previous) == []
    edit(installed[1])  # edited through the symlink: the canonical copy changed
    before = snapshot(project)
    with pytest.raises(LocalModificationsError) as info:
        install_skill(v2, "demo", dirs, previous=previous, force=False)
    assert "demo" in str(info.value) and expected in str(info.value)
    assert info.value.param == "force" and "--" not in str(info.value)
    assert snapshot(project) == before  # nothing written
    assert modified_files(installed[0], previous) == [expected.split(" ")[0]]
    install_skill(v2, "demo", dirs, previous=previous, force=True)
    assert hash_tree(installed[0]) == hash_tree(v2)


def test_many_edits_are_summarised(tmp_path: Path, project: Path) -> None:
    v1 = make_staged(tmp_path, "1")
    [target] = install_skill(v1, "demo", [project / "s"], previous=None, force=False)
    previous = locked_for(v1, [target], project)
    for i in range(8):
        (target / f"n{i}.md").write_text("x")
    with pytest.raises(LocalModificationsError, match=r"\(\+3 more\)"):
        install_skill(v1, "demo", [project / "s"], previous=previous, force=False)


def test_existing_folder_not_in_lock_needs_force(tmp_path: Path, project: Path) -> None:
    theirs = project / ".claude/skills/demo"
    theirs.mkdir(parents=True)
    (theirs / "SKILL.md").write_text("someone else's\n")
    staged = make_staged(tmp_path, "1")
    with pytest.raises(LocalModificationsError, match="not recorded"):
        install_skill(staged, "demo", [project / ".claude/skills"], previous=None, force=False)
    assert (theirs / "SKILL.md").read_text() == "someone else's\n"
    install_skill(staged, "demo", [project / ".claude/skills"], previous=None, force=True)
    assert hash_tree(theirs) == hash_tree(staged)


def test_foreign_folder_in_a_new_agent_dir_is_protected(tmp_path: Path, project: Path) -> None:
    v1 = make_staged(tmp_path, "1")
    installed = install_skill(v1, "demo", [project / ".claude/skills"], previous=None, force=False)
    previous = locked_for(v1, installed, project)
    other = project / ".cursor/skills/demo"
    other.mkdir(parents=True)
    (other / "SKILL.md").write_text("different\n")
    dirs = [project / ".claude/skills", project / ".cursor/skills"]
    with pytest.raises(LocalModificationsError, match="cursor"):
        install_skill(v1, "demo", dirs, previous=previous, force=False)
    # a stray symlink that points elsewhere is not ours either
    other_link = project / ".gemini/skills/demo"
    other_link.parent.mkdir(parents=True)
    other_link.symlink_to(tmp_path / "nowhere")
    with pytest.raises(LocalModificationsError, match="symlink"):
        install_skill(v1, "demo", [dirs[0], other_link.parent], previous=previous, force=False)


def test_failed_copy_leaves_old_install_untouched(tmp_path: Path, project: Path) -> None:
    v1 = make_staged(tmp_path, "1")
    dirs = [project / ".agents/skills", project / ".claude/skills", project / ".new/skills"]
    installed = install_skill(v1, "demo", dirs[:2], previous=None, force=False)
    previous = locked_for(v1, installed, project)
    v2 = make_staged(tmp_path, "2", {"zz-late/file.md": "x"})
    # an entry the copier cannot install, reached midway (after SKILL.md and references/)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(v2 / "scripts" / "sock"))
    before = snapshot(project)
    try:
        with pytest.raises(UnsafeSkillError):
            install_skill(v2, "demo", dirs, previous=previous, force=False, link=False)
    finally:
        sock.close()
    assert snapshot(project) == before
    assert not (project / ".new").exists()  # folders made for the failed install are gone


@pytest.mark.parametrize("fail_at", range(1, 7))
def test_failed_swap_restores_every_target(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch, fail_at: int
) -> None:
    v1, v2 = make_staged(tmp_path, "1"), make_staged(tmp_path, "2")
    dirs = [project / ".agents/skills", project / ".claude/skills", project / ".cursor/skills"]
    installed = install_skill(v1, "demo", dirs, previous=None, force=False, link=False)
    previous = locked_for(v1, installed, project)
    before = snapshot(project)
    real_rename = os.rename
    calls = {"n": 0}

    def flaky_rename(src: Any, dst: Any) -> None:
        calls["n"] += 1
        if calls["n"] == fail_at:  # each target: rename old away, rename new in (6 renames)
            raise KeyboardInterrupt  # e.g. Ctrl-C in the middle of the swap
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", flaky_rename)
    with pytest.raises(KeyboardInterrupt):
        install_skill(v2, "demo", dirs, previous=previous, force=False, link=False)
    monkeypatch.setattr(os, "rename", real_rename)
    assert snapshot(project) == before


def test_leftovers_of_a_killed_install_are_recovered(tmp_path: Path, project: Path) -> None:
    v1 = make_staged(tmp_path, "1")
    skills = project / ".claude/skills"
    [target] = install_skill(v1, "demo", [skills], previous=None, force=False)
    previous = locked_for(v1, [target], project)
    # simulate a kill between "rename old away" and "rename new in"
    os.rename(target, skills / ".demo.upskill-old-0badc0de")
    (skills / ".demo.upskill-new-12345678").mkdir()
    v2 = make_staged(tmp_path, "2")
    install_skill(v2, "demo", [skills], previous=previous, force=False)
    assert [p.name for p in skills.iterdir()] == ["demo"]
    assert hash_tree(target) == hash_tree(v2)


def test_bad_arguments(tmp_path: Path, project: Path) -> None:
    staged = make_staged(tmp_path, "1")
    for name in ("../x", "", ".hidden", "a/b"):
        with pytest.raises(UsageError):
            install_skill(staged, name, [project], previous=None, force=False)
    with pytest.raises(UsageError):
        install_skill(tmp_path / "missing", "demo", [project], previous=None, force=False)
    with pytest.raises(UsageError):
        install_skill(staged, "demo", [], previous=None, force=False)


def test_staged_symlink_is_refused(tmp_path: Path, project: Path) -> None:
    staged = make_staged(tmp_path, "1")
    (staged / "keys").symlink_to(tmp_path)
    with pytest.raises(UnsafeSkillError):
        install_skill(staged, "demo", [project / "s"], previous=None, force=False)
    assert not (project / "s").exists()


def test_remove_skill(tmp_path: Path, project: Path) -> None:
    v1 = make_staged(tmp_path, "1")
    dirs = [project / ".agents/skills", project / ".claude/skills"]
    installed = install_skill(v1, "demo", dirs, previous=None, force=False)
    other = LockedSkill(name="other", repo_id="me/other", commit=COMMIT)
    lock = Lock(skills={"demo": locked_for(v1, installed, project), "other": other})
    (installed[0] / "SKILL.md").write_text("edited\n")
    with pytest.raises(LocalModificationsError, match=r"SKILL\.md"):
        remove_skill("demo", lock, project)
    assert all(os.path.lexists(p) for p in installed)
    new = remove_skill("demo", lock, project, force=True)
    assert new == Lock(skills={"other": other})
    assert not any(os.path.lexists(p) for p in installed)
    assert list((project / ".agents/skills").iterdir()) == []
    with pytest.raises(UsageError, match="not in"):
        remove_skill("demo", new, project)


def test_remove_unmodified_and_already_gone(tmp_path: Path, project: Path) -> None:
    v1 = make_staged(tmp_path, "1")
    dirs = [project / ".agents/skills", project / ".claude/skills"]
    installed = install_skill(v1, "demo", dirs, previous=None, force=False)
    lock = Lock(skills={"demo": locked_for(v1, installed, project)})
    installed[1].unlink()  # the user already deleted one link
    assert remove_skill("demo", lock, project) == Lock()
    assert not installed[0].exists()
