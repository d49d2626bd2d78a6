"""Library errors name Python parameters and carry them as data; the CLI prints the same message
with the flag, from one table (``upskill_hub.cli.flags``)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from upskill_hub.cli.flags import error_text, flag
from upskill_hub.errors import Param

REPO = Path(__file__).resolve().parents[1]
SKILL_MD = """---
name: param-errors
description: A skill for checking how errors name parameters. Use in tests.
---

# Param errors
"""


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "param-errors"
    folder.mkdir()
    (folder / "SKILL.md").write_text(SKILL_MD)
    tests = [{"id": "q1", "input": "Hello?", "expected": {"contains": "hi"}}]
    (folder / "skill_meta.json").write_text(json.dumps({"metadata": {}, "tests": tests}))
    return folder


@pytest.mark.parametrize(
    ("config", "param", "message", "line"),
    [
        (
            {"runs": 0},
            "runs",
            "runs must be at least 1 (got 0)",
            "error: --runs must be at least 1 (got 0)",
        ),
        (
            {"models": ["m", "m"]},
            "models",
            "models given twice: m",
            "error: --model given twice: m",
        ),
        (
            {"base_url": "ftp://example.com/v1"},
            "base_url",
            "base_url 'ftp://example.com/v1': give an http:// or https:// URL with a host",
            "error: --base-url 'ftp://example.com/v1': give an http:// or https:// URL with a host",
        ),
    ],
)
def test_library_names_the_parameter_and_the_cli_the_flag(
    skill_dir: Path, tmp_path: Path, config: dict[str, object], param: str, message: str, line: str
) -> None:
    from upskill_hub import EvalConfig, UsageError, evaluate, load_skill

    skill = load_skill(skill_dir)
    assert skill.suite is not None
    with pytest.raises(UsageError) as info:
        evaluate(skill, skill.suite.cases, EvalConfig(**config), output_root=tmp_path / "runs")
    assert str(info.value) == message and "--" not in str(info.value)
    assert info.value.param == param
    assert error_text(info.value) == line.removeprefix("error: ")

    args: list[str] = []
    for key, value in config.items():
        for item in value if isinstance(value, list) else [value]:
            args += ["--model" if key == "models" else "--" + key.replace("_", "-"), str(item)]
    if "models" not in config:
        args += ["--model", "m"]
    if "base_url" not in config:
        args += ["--base-url", "http://127.0.0.1:9/v1"]
    done = run_cli("eval", str(skill_dir), *args, "--output", str(tmp_path / "cli-runs"))
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [line]


def test_resume_mismatch_names_parameters_in_the_library(skill_dir: Path, tmp_path: Path) -> None:
    """A message naming several parameters: each one a Param, each one a flag on the CLI."""
    from upskill_hub import EvalConfig, UsageError, evaluate, load_skill
    from upskill_hub.evaluation.run.folder import RunFolder
    from upskill_hub.evaluation.run.info import new_run_info, skill_sha256

    skill = load_skill(skill_dir)
    assert skill.suite is not None
    folder = RunFolder(tmp_path / "run")
    folder.path.mkdir()
    config = EvalConfig(models=["m"], base_url="http://127.0.0.1:9/v1")
    info = new_run_info(
        folder,
        skill,
        ["m"],
        skill.suite.cases,
        config,
        skill_sha256(skill.skill_md_text),
        repo_id=None,
        revision=None,
        skill_ref=None,
    )
    folder.write_info(info)
    folder.write_tests(skill.suite.cases)
    with pytest.raises(UsageError) as info_:
        evaluate(
            skill,
            skill.suite.cases,
            EvalConfig(models=["m"], base_url="http://127.0.0.1:9/v1", runs=2),
            resume_from=folder.path,
        )
    err = info_.value
    assert str(err) == f"resume_from {folder.path}: the run has runs 1, not 2"
    assert err.param == "resume_from" and err.params == ("resume_from", "runs")
    assert error_text(err) == f"--resume {folder.path}: the run has --runs 1, not 2"


def test_metavar_only_on_the_command_line() -> None:
    from upskill_hub.errors import UsageError

    err = UsageError("no test cases; pass ", Param("tests", "FILE"))
    assert str(err) == "no test cases; pass tests"
    assert error_text(err) == "no test cases; pass --tests FILE"


def _params_named_by_the_library() -> set[str]:
    names: set[str] = set()
    for path in (REPO / "upskill_hub").rglob("*.py"):
        if "cli" in path.relative_to(REPO / "upskill_hub").parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Param"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                names.add(str(node.args[0].value))
    return names


def test_every_parameter_the_library_names_is_a_real_flag() -> None:
    """The one table maps each parameter a library error names to a flag the CLI defines."""
    cli_source = "\n".join(
        p.read_text(encoding="utf-8") for p in (REPO / "upskill_hub" / "cli").glob("*.py")
    )
    names = _params_named_by_the_library()
    assert {"runs", "models", "base_url", "resume_from", "source", "force"} <= names
    for name in sorted(names):
        written = flag(Param(name))
        # a flag of its own, or the first of an on/off pair ("--cache/--no-cache")
        declared = f'"{written}"' in cli_source or f'"{written}/--no-' in cli_source
        assert declared, (name, written)


def _is_flag(word: str) -> bool:
    """``--runs``, not a PEM armour line (``-----BEGIN``)."""
    return word.startswith("--") and len(word) > 2 and word[2].isalpha()


def test_no_library_error_names_a_flag() -> None:
    """No string in a raise outside the CLI holds a ``--flag`` (a whole command line it
    suggests, ``upskill-hub eval REPO --skill NAME``, is printed as written)."""
    offenders = []
    for path in (REPO / "upskill_hub").rglob("*.py"):
        rel = path.relative_to(REPO / "upskill_hub")
        if "cli" in rel.parts or "hub_server" in rel.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Raise) or node.exc is None:
                continue
            for inner in ast.walk(node.exc):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    words = inner.value.split()
                    if "upskill-hub" in (w.strip("`") for w in words):
                        continue
                    if any(_is_flag(w.strip("`(")) for w in words):
                        offenders.append(f"{rel}:{node.lineno}: {inner.value}")
    assert not offenders, offenders
