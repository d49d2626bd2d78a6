"""``validate``, ``to-prompt``, ``init``, ``--help`` and ``--version`` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_runner import run_cli

from .helpers_skill import make_skill


def test_validate_json_shape_and_exit_codes(tmp_path: Path) -> None:
    good = make_skill(tmp_path / "pack", "good-skill")
    make_skill(tmp_path / "pack", "bad-skill", frontmatter="name: Bad\ndescription: x\n")
    result = run_cli("validate", str(tmp_path / "pack"), "--format", "json")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["valid"] is False
    by_name = {Path(s["path"]).name: s for s in data["skills"]}
    assert by_name["good-skill"]["valid"] is True
    bad = by_name["bad-skill"]
    assert bad["valid"] is False
    assert {e["rule"] for e in bad["errors"]} >= {"name.lowercase", "name.directory"}
    assert all({"rule", "message", "line"} <= set(e) for e in bad["errors"])

    ok = run_cli("validate", str(good), "--format", "json")
    assert ok.returncode == 0
    assert json.loads(ok.stdout)["skills"][0]["name"] == "good-skill"


def test_validate_text_output_and_usage_error(tmp_path: Path) -> None:
    bad = make_skill(tmp_path, "bad-skill", frontmatter="name: bad-skill\ndescription: ''\n")
    result = run_cli("validate", str(bad))
    assert result.returncode == 1
    assert "invalid" in result.stdout and "SKILL.md:3" in result.stdout
    assert "description.type" in result.stdout

    missing = run_cli("validate", str(tmp_path / "does-not-exist"))
    assert missing.returncode == 2
    assert "does-not-exist" in missing.stderr and "Traceback" not in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1

    no_args = run_cli("validate")
    assert no_args.returncode == 2


def test_validate_skill_md_path(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, "demo-skill")
    result = run_cli("validate", str(folder / "SKILL.md"))
    assert result.returncode == 0, result.stdout


def test_to_prompt(tmp_path: Path) -> None:
    make_skill(tmp_path, "a-skill")
    make_skill(tmp_path, "b-skill")
    result = run_cli("to-prompt", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("<skill>") == 2
    assert result.stdout.strip().endswith("</available_skills>")


def test_init_then_validate(tmp_path: Path) -> None:
    result = run_cli("init", "new-skill", "--dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert run_cli("validate", str(tmp_path / "new-skill")).returncode == 0
    again = run_cli("init", "new-skill", "--dir", str(tmp_path))
    assert again.returncode == 2 and "already exists" in again.stderr
    bad = run_cli("init", "Bad Name", "--dir", str(tmp_path))
    assert bad.returncode == 2 and "NAME" in bad.stderr


def test_help_and_version() -> None:
    version = run_cli("--version")
    assert version.returncode == 0 and version.stdout.startswith("upskill-hub ")
    helptext = run_cli("--help")
    assert helptext.returncode == 0
    for command in ("validate", "to-prompt", "init"):
        assert command in helptext.stdout


def test_cli_entry_imports_no_heavy_library() -> None:
    import subprocess
    import sys

    code = (
        "import sys, upskill_hub.cli.main as m; "
        "heavy = [n for n in ('gradio','datasets','openai','anthropic','llama_cpp','matplotlib',"
        "'starlette','uvicorn','jsonschema') if n in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_argument_errors_are_one_line_naming_the_flag() -> None:
    cases = [
        (["validate", "--format", "xml", "."], "--format"),
        (["eval", "x", "--runs", "abc"], "--runs"),
        (["validate", "--bogus"], "--bogus"),
        (["nosuch"], "nosuch"),
    ]
    for args, needle in cases:
        result = run_cli(*args)
        assert result.returncode == 2, (args, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], lines
        assert "Traceback" not in result.stderr


def test_no_arguments_prints_help() -> None:
    result = run_cli()
    assert result.returncode == 0
    assert result.stdout.startswith("Usage: upskill-hub")


def test_to_prompt_json(tmp_path: Path) -> None:
    make_skill(tmp_path, "a-skill")
    result = run_cli("to-prompt", str(tmp_path), "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [s["name"] for s in data["skills"]] == ["a-skill"]
    assert data["prompt"].startswith("<available_skills>")


def test_unwritable_init_dir_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = run_cli("init", "new-skill", "--dir", str(blocker / "sub"))
    assert result.returncode != 0
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert str(blocker) in result.stderr


def test_written_files_are_readable_by_others(tmp_path: Path) -> None:
    import os
    import stat

    old = os.umask(0o022)
    try:
        assert run_cli("init", "perm-skill", "--dir", str(tmp_path)).returncode == 0
    finally:
        os.umask(old)
    for name in ("SKILL.md", "skill_meta.json"):
        mode = stat.S_IMODE((tmp_path / "perm-skill" / name).stat().st_mode)
        assert mode == 0o644, oct(mode)


def test_bundled_skill_meta_is_in_canonical_form() -> None:
    from tests.cli_runner import REPO
    from upskill_hub.skill.testcases import dump_suite, read_suite

    path = REPO / "skills" / "kernel-builder-cuda-kernels" / "skill_meta.json"
    assert dump_suite(read_suite(path)) == path.read_text()
    data = json.loads(path.read_text())
    # every case in upskill's shape; ids and typed assertions beside them (see testcases.py)
    assert all(set(c) <= {"input", "context", "expected"} for c in data["tests"])
    assert len(data["upskill_hub"]["tests"]) == len(data["tests"])


def test_control_characters_in_frontmatter_are_an_error_and_never_printed(tmp_path: Path) -> None:
    folder = tmp_path / "ansi-skill"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        '---\nname: ansi-skill\ndescription: "Helps.\\e[2J\\e[31m pwned\\u0007"\n'
        'metadata:\n  note: "a\\u0008b"\n---\n# ANSI\n',
        encoding="utf-8",
    )
    done = run_cli("validate", str(folder))
    assert done.returncode == 1
    assert "frontmatter.control-chars" in done.stdout
    assert "Field 'description' holds control characters (U+0007, U+001B)" in done.stdout
    assert "Field 'metadata' holds control characters (U+0008)" in done.stdout
    assert "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout + done.stderr
