"""The spec's ``evals/evals.json`` read as test cases, and ``benchmark.json`` in every run
folder, against real local model servers (the judge included)."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import run_cli
from tests.support.llm_servers import openai_server, system_prompt
from upskill_hub.errors import InvalidTestFileError
from upskill_hub.evaluation.run.folder import read_samples
from upskill_hub.skill.model import load_skill
from upskill_hub.skill.testcases import read_suite

FACT = "QUOKKA-512"
SKILL_MD = f"""---
name: quokka-facts
description: Knows the Quokka number. Use when asked about quokkas.
---

The Quokka number is {FACT}.
"""
EVALS = {
    "skill_name": "quokka-facts",
    "evals": [
        {
            "id": 1,
            "prompt": "What is the Quokka number?",
            "expected_output": "The number",
            "files": ["evals/files/notes.txt"],
            "expectations": ["The output gives the Quokka number", "The output is one sentence"],
        },
        {"id": 2, "prompt": "Quokka number, please.", "expected_output": f"It is {FACT}."},
    ],
}


def responder(request: dict[str, Any]) -> str:
    system = system_prompt(request)
    if "strict grader" in system:  # the judge: PASS when the answer holds the fact
        answer = json.dumps(request["messages"]).split("<answer>")[-1]
        return "PASS\nIt gives the number." if FACT in answer else "FAIL\nNo number."
    return f"It is {FACT}." if FACT in system else "No idea."


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "quokka-facts"
    (folder / "evals" / "files").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    (folder / "evals" / "files" / "notes.txt").write_text("Quokkas live on Rottnest.\n")
    (folder / "evals" / "evals.json").write_text(json.dumps(EVALS))
    return folder


def test_evals_json_becomes_cases(skill_dir: Path) -> None:
    cases = load_skill(skill_dir).tests
    assert [c.id for c in cases] == ["eval-1", "eval-2"]
    first, second = cases
    assert first.input == "What is the Quokka number?"
    assert first.files == {"evals/files/notes.txt": "Quokkas live on Rottnest.\n"}
    assert first.assertions == (
        {"type": "judge", "rubric": "The output gives the Quokka number"},
        {"type": "judge", "rubric": "The output is one sentence"},
    )
    # without expectations, the expected output is the rubric
    assert second.assertions == (
        {"type": "judge", "rubric": f"The answer gives this expected result: It is {FACT}."},
    )
    assert read_suite(skill_dir / "evals" / "evals.json").cases == cases


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"files": ["../outside.txt"]}, "evals[0].files[0]"),
        ({"files": ["/etc/passwd"]}, "evals[0].files[0]"),
        ({"files": ["evals/files/missing.txt"]}, "not found"),
        ({"prompt": ""}, "evals[0].prompt"),
        ({"expectations": "one"}, "evals[0].expectations"),
    ],
)
def test_bad_evals_json_names_the_field(
    skill_dir: Path, change: dict[str, Any], message: str
) -> None:
    bad = json.loads(json.dumps(EVALS))
    bad["evals"][0].update(change)
    (skill_dir / "evals" / "evals.json").write_text(json.dumps(bad))
    with pytest.raises(InvalidTestFileError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_skill(skill_dir)


def test_eval_with_judge_writes_benchmark_json(skill_dir: Path, tmp_path: Path) -> None:
    with openai_server(responder) as srv:
        done = run_cli(
            "eval", str(skill_dir), "-m", "fake-model", "--base-url", srv.base_url,
            "--judge-model", "fake-model", "--runs", "2", "--format", "json",
            "-o", str(tmp_path / "runs"),
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    run_dir = Path(json.loads(done.stdout)["run_dir"])
    samples = read_samples(run_dir / "samples.jsonl")
    assert {s.outcome for s in samples if s.arm == "with_skill"} == {"pass"}
    assert {s.outcome for s in samples if s.arm == "baseline"} == {"fail"}
    # the run's tests.json reads back as the same cases
    assert read_suite(run_dir / "tests.json").cases == load_skill(skill_dir).tests

    bench = json.loads((run_dir / "benchmark.json").read_text())
    summary = bench["run_summary"]
    perfect = {"mean": 1.0, "stddev": 0.0, "min": 1.0, "max": 1.0}
    assert summary["with_skill"]["pass_rate"] == perfect
    assert summary["without_skill"]["pass_rate"]["mean"] == 0.0
    tokens = [s.input_tokens + s.output_tokens for s in samples if s.arm == "with_skill"]
    assert summary["with_skill"]["tokens"]["mean"] == round(statistics.fmean(tokens), 6)
    assert summary["with_skill"]["tokens"]["stddev"] == round(statistics.stdev(tokens), 6)
    base_tokens = [s.input_tokens + s.output_tokens for s in samples if s.arm == "baseline"]
    delta = statistics.fmean(tokens) - statistics.fmean(base_tokens)
    assert summary["delta"]["pass_rate"] == "+1.00"
    assert summary["delta"]["tokens"] == f"{delta:+.0f}"
    assert bench["metadata"]["skill_name"] == "quokka-facts"
    assert bench["metadata"]["evals_run"] == ["eval-1", "eval-2"]
    assert bench["metadata"]["runs_per_configuration"] == 2
    assert len(bench["runs"]) == 8
    # skill-creator's viewer sorts eval_id numerically and takes each eval's first
    # configuration as "with skill": the evals.json id, with_skill first in each (case, run)
    assert [
        (r["eval_id"], r["eval_name"], r["run_number"], r["configuration"]) for r in bench["runs"]
    ] == [
        (i, f"eval-{i}", run, arm)
        for i in (1, 2)
        for run in (1, 2)
        for arm in ("with_skill", "without_skill")
    ]
    first = bench["runs"][0]
    assert first["result"]["total"] == 2 and first["result"]["graded"] is True
    assert bench["models"]["fake-model"] == summary
    # what differs from summary.json is said in the file itself
    delta_note = next(n for n in bench["notes"] if n.startswith("delta"))
    assert "per assertion" in delta_note and "lift" in delta_note
    assert bench["metadata"]["benchmark_files"] == {"fake-model": "benchmark.json"}


def test_without_a_judge_the_expectations_are_skipped_and_said(
    skill_dir: Path, tmp_path: Path
) -> None:
    with openai_server(responder) as srv:
        done = run_cli(
            "eval", str(skill_dir), "-m", "fake-model", "--base-url", srv.base_url,
            "-o", str(tmp_path / "runs"),
        )  # fmt: skip
        judged = [r for r in srv.requests if "strict grader" in r.system]
    assert done.returncode == 0, done.stderr
    assert not judged
    out = " ".join((done.stdout + done.stderr).split())
    assert "6 assertion check(s) skipped" in out
    # no check ran on any answer: nothing is graded, neither arm reads 0%, and the verdict says
    # which flag would grade them
    run_dir = next((tmp_path / "runs").iterdir())
    summary = json.loads((run_dir / "summary.json").read_text())
    (model,) = summary["models"]
    for arm in ("baseline", "with_skill"):
        assert model[arm]["pass_rate"] is None and model[arm]["total"] == 0
        assert model[arm]["ungraded"] == 2 and model[arm]["errors"] == 0
    assert model["lift"] is None and model["verdict"] == (
        "no data (nothing graded: every check was skipped; judge checks need --judge-model)"
    )
    assert not re.search(r"\b0%", done.stdout) and "no measurable effect" not in done.stdout
    assert "--judge-model" in out
    bench = json.loads((run_dir / "benchmark.json").read_text())
    assert {r["result"]["graded"] for r in bench["runs"]} == {False}
    assert bench["run_summary"]["with_skill"]["pass_rate"]["mean"] == 0.0  # no graded run
    assert "delta" not in bench["run_summary"]
