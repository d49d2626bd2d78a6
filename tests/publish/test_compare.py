"""``results compare`` of two runs that differ: two models, two skills, two case sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.publish.run_folders import CASES, MODELS, make_run_folder
from upskill_hub.publish.results_view import compare_results, comparison_warning, load_results

GPT, HAIKU = MODELS


def test_two_single_model_runs_are_paired(tmp_path: Path) -> None:
    a = load_results(make_run_folder(tmp_path, "r-a", models=(GPT,)))
    b = load_results(make_run_folder(tmp_path, "r-b", models=(HAIKU,)))
    (row,) = compare_results(a, b)
    assert row.model == f"{GPT} vs {HAIKU}"
    assert row.a is not None and row.a.model == GPT
    assert row.b is not None and row.b.model == HAIKU
    assert row.lift_delta is not None and row.with_skill_delta is not None
    assert comparison_warning(a, b) is None  # same skill, same cases: nothing to warn about


def test_same_models_still_pair_by_name(tmp_path: Path) -> None:
    a = load_results(make_run_folder(tmp_path, "r-a"))
    b = load_results(make_run_folder(tmp_path, "r-b", models=(HAIKU,)))
    assert [r.model for r in compare_results(a, b)] == [GPT, HAIKU]


def test_different_skill_or_cases_warn_in_one_line(tmp_path: Path) -> None:
    a = load_results(make_run_folder(tmp_path, "r-a"))
    other_cases = load_results(make_run_folder(tmp_path, "r-b", cases=CASES[:2]))
    warning = comparison_warning(a, other_cases)
    assert warning is not None and "\n" not in warning
    assert "test cases (A: 3, B: 2; 1 only in A, 0 only in B)" in warning
    other_skill = load_results(make_run_folder(tmp_path, "r-c", repo_id="someone/else"))
    warning = comparison_warning(a, other_skill)
    assert warning is not None and "skill (A: kernel-builder (local-user/kernel-builder@" in warning
    assert "test cases" not in warning


def test_compare_cli_two_models_with_a_warning(tmp_path: Path) -> None:
    a = make_run_folder(tmp_path, "r-a", models=(GPT,))
    b = make_run_folder(tmp_path, "r-b", models=(HAIKU,), cases=CASES[1:])
    done = run_cli("results", "compare", str(a), str(b), "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [m["model"] for m in data["models"]] == [f"{GPT} vs {HAIKU}"]
    assert data["models"][0]["lift_delta"] == pytest.approx(
        data["models"][0]["b"]["lift"] - data["models"][0]["a"]["lift"]
    )
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1 and "test cases (A: 3, B: 2" in warnings[0]
    assert data["warning"] in warnings[0]
    text = run_cli("results", "compare", str(a), str(b))
    assert text.returncode == 0, text.stderr
    assert f"{GPT} vs {HAIKU}" in text.stdout
