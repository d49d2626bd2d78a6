"""``upskill-hub validate`` answers without typer, rich or pydantic, and prints exactly what the
typer command prints (text and JSON, valid and invalid skills, exit codes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "skills" / "kernel-builder-cuda-kernels"

_PROBE = (
    "import atexit, sys\n"
    "atexit.register(lambda: sys.stderr.write("
    "'heavy=' + ','.join(m for m in ('typer', 'rich', 'pydantic') if m in sys.modules) + '\\n'))\n"
    "sys.argv = ['upskill-hub', *sys.argv[1:]]\n"
    "from upskill_hub.cli.{module} import main\n"
    "main()\n"
)


def _run(module: str, *args: str) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(module=module), *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    err_lines = done.stderr.splitlines()
    heavy = next(line for line in err_lines if line.startswith("heavy="))
    stderr = "\n".join(line for line in err_lines if not line.startswith("heavy="))
    return done.returncode, done.stdout + stderr, heavy


@pytest.fixture
def bad_skill(tmp_path: Path) -> Path:
    folder = tmp_path / "Bad-Skill"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: Bad-Skill\ndescription: x\nfoo: 1\n---\n")
    return folder


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_fast_path_prints_what_the_typer_command_prints(bad_skill: Path, fmt: str) -> None:
    for target in (BUNDLED, bad_skill, bad_skill.parent / "missing"):
        fast_code, fast_out, fast_heavy = _run("entry", "validate", str(target), "--format", fmt)
        full_code, full_out, _ = _run("main", "validate", str(target), "--format", fmt)
        assert (fast_code, fast_out) == (full_code, full_out), target
        assert fast_heavy == "heavy=", fast_heavy
    assert _run("entry", "validate", str(BUNDLED))[0] == 0
    assert _run("entry", "validate", str(bad_skill))[0] == 1


def test_help_and_unknown_options_go_through_typer(bad_skill: Path) -> None:
    code, out, heavy = _run("entry", "validate", "--help")
    assert code == 0 and "Usage" in out and "typer" in heavy
    code, out, _ = _run("entry", "validate", str(bad_skill), "--nope")
    assert code == 2 and "--nope" in out
