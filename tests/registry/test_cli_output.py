"""What the commands print: untrusted text is never parsed as rich markup; failures stay short."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_runner import run_cli as run_cli_plain
from tests.registry.conftest import CliResult, write_skill
from upskill_hub.registry.push import push_skills


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_validate_prints_a_markup_like_name_literally(tmp_path: Path) -> None:
    skill = tmp_path / "weird"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: x[/foo]\ndescription: Has [bold]markup[/bold] and [/bar] in it.\n---\nbody\n"
    )
    result = run_cli_plain("validate", str(skill))
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "MarkupError" not in result.stderr
    assert "x[/foo]" in result.stdout and "invalid" in result.stdout


def test_search_list_and_info_print_hub_text_literally(
    run_cli: Callable[..., CliResult], tmp_path: Path, unique_repo_id: str, project: Path
) -> None:
    name = unique_repo_id.split("/")[1]
    description = "Builds [kernel.attention] kernels; closes [/bar] and [bold]not bold[/bold]."
    skill = write_skill(tmp_path, name, description=description)
    push_skills(skill, repo_id=unique_repo_id)
    found = run_cli("search", name)
    assert found.code == 0, found.stderr
    assert "Traceback" not in found.stderr
    assert "[kernel.attention]" in found.stdout and "[/bar]" in found.stdout
    assert "[bold]not bold[/bold]" in found.stdout

    shown = run_cli("info", unique_repo_id)
    assert shown.code == 0, shown.stderr
    assert "[kernel.attention]" in shown.stdout

    assert run_cli("pull", unique_repo_id, cwd=project).code == 0
    listed = run_cli("list", cwd=project)
    assert listed.code == 0 and name in listed.stdout


def test_scan_prints_markup_in_findings_literally(
    run_cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    skill = write_skill(tmp_path / "s[/x]", "markup-path", {"scripts/[/x].sh": "curl a | sh\n"})
    result = run_cli("scan", str(skill))
    assert result.code == 0, result.stderr
    assert "scripts/[/x].sh" in result.stdout and "s[/x]" in result.stdout


@pytest.mark.slow
def test_search_against_a_stopped_server_fails_fast_in_one_line(
    run_cli: Callable[..., CliResult],
) -> None:
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    started = time.monotonic()
    result = run_cli("search", "anything", env={"HF_ENDPOINT": endpoint})
    elapsed = time.monotonic() - started
    assert result.code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "cannot reach" in lines[0]
    assert "Retrying in" not in result.stderr
    assert elapsed < 30  # was ~96 s: huggingface_hub's retries inside ours


def test_tables_wrap_long_repo_ids_instead_of_cutting_them(
    run_cli: Callable[..., CliResult], hub_server: object, tmp_path: Path
) -> None:

    repo_id = "local-user/" + "a-very-long-skill-repository-name-" * 2 + "end"
    skill = write_skill(tmp_path / "src", "wrap-me")
    push_skills(skill, repo_id=repo_id)
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    assert run_cli("pull", repo_id, cwd=project).code == 0
    for command in ("list", "outdated"):
        shown = run_cli(command, cwd=project, env={"COLUMNS": "80"})
        assert shown.code == 0, shown.stderr
        assert "…" not in shown.stdout, command
        rows = [line.split("│") for line in shown.stdout.splitlines() if "│" in line]
        column = "".join(parts[2].strip() for parts in rows)  # the repo column, folded
        assert repo_id in column, (command, shown.stdout)


def test_scan_of_a_folder_without_a_skill_is_an_error(
    run_cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    done = run_cli("scan", str(tmp_path / "empty"))
    assert done.code == 2
    assert (
        done.stderr.strip()
        == f"error: {tmp_path / 'empty'}: no skill here (no SKILL.md in it or its subfolders)"
    )


def test_push_of_a_lowercase_skill_md_names_the_rule(
    run_cli: Callable[..., CliResult], hub_server: object, tmp_path: Path
) -> None:
    folder = write_skill(tmp_path, "lower-case-skill")
    (folder / "SKILL.md").rename(folder / "skill.md")
    done = run_cli("push", str(folder), "--repo", "local-user/lower-case-skill")
    assert done.code == 1
    assert "file.name-case: Found a lowercase skill.md; the spec requires SKILL.md" in done.stderr


def test_a_skipped_update_suggests_force(
    run_cli: Callable[..., CliResult], pushed: tuple[str, str], project: Path, tmp_path: Path
) -> None:

    repo_id, _ = pushed
    name = repo_id.split("/")[1]
    assert run_cli("pull", repo_id, cwd=project).code == 0
    (project / ".claude/skills" / name / "SKILL.md").write_text("edited\n")
    push_skills(write_skill(tmp_path / "v2", name, {"x.md": "v2\n"}), repo_id=repo_id)
    done = run_cli("update", cwd=project)
    assert done.code == 1
    assert f"`upskill-hub update {name} --force` overwrites the edits" in done.stdout
