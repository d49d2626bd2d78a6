"""``results push`` against a summary.json edited by hand in the figures it publishes beyond the
lift: the Holm-adjusted interval (published with the verdict when several models were
measured), token savings, tokens and latency."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from huggingface_hub import HfApi

from tests.cli_runner import run_cli
from tests.publish.run_folders import CASES, MODELS, make_run_folder
from upskill_hub.publish.run_consistency import check_run_consistency
from upskill_hub.skill.testcases import TestCase

#: Enough cases for a "helps" verdict on both models, so the summary holds a Holm adjustment.
TWELVE = tuple(
    TestCase(id=f"case-{i}", input=f"question {i}", assertions=CASES[0].assertions)
    for i in range(12)
)


def _narrower_holm(model: dict[str, Any]) -> None:
    model["holm"]["ci"] = [0.99, 1.0]


def _token_savings(model: dict[str, Any]) -> None:
    model["token_savings"] = 0.9


def _tokens_and_latency(model: dict[str, Any]) -> None:
    model["with_skill"]["tokens"] = {"input": 10, "output": 10}
    model["with_skill"]["latency_s"] = 0.01


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (_narrower_holm, "holm"),
        (_token_savings, "token_savings"),
        (_tokens_and_latency, "with_skill.tokens"),
    ],
)
def test_a_published_figure_edited_by_hand_is_refused(
    tmp_path: Path,
    unique_repo_id: str,
    hub_server: object,
    edit: Callable[[dict[str, Any]], None],
    field: str,
) -> None:
    run_dir = make_run_folder(tmp_path / "runs", cases=TWELVE)
    assert check_run_consistency(run_dir) == []
    summary_file = run_dir / "summary.json"
    summary = json.loads(summary_file.read_text())
    assert summary["models"][0]["holm"] is not None  # several models: the Holm interval is used
    edit(summary["models"][0])
    summary_file.write_text(json.dumps(summary, indent=2))
    assert any(f"{MODELS[0]}: {field} says" in p for p in check_run_consistency(run_dir))
    done = run_cli("results", "push", str(run_dir), "--repo", unique_repo_id)
    assert done.returncode == 1, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "summary.json does not follow from samples.jsonl" in line and f"{field} says" in line
    assert not HfApi().repo_exists(unique_repo_id, repo_type="dataset")
