"""A trigger eval's run folder published as the ``triggers`` config, against the local Hub."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from datasets import load_dataset

from tests.cli_runner import run_cli
from tests.publish.run_folders import make_run_folder
from tests.support.llm_servers import ToolCallReply, last_user_message, openai_server, tool_results
from upskill_hub.publish.results_dataset import push_results

SKILL_MD = """---
name: owl-watch
description: Identify owls by their calls. Use when asked which owl makes a sound.
---

Hoots.
"""


def responder(request: dict[str, Any]) -> str | ToolCallReply:
    if tool_results(request):
        return "ok"
    if "owl" in last_user_message(request):
        return ToolCallReply((("Skill", {"skill": "owl-watch"}),))
    return "An answer."


@pytest.mark.slow
def test_trigger_run_pushes_its_own_config(tmp_path: Path, unique_repo_id: str) -> None:
    folder = tmp_path / "owl-watch"
    folder.mkdir()
    (folder / "SKILL.md").write_text(SKILL_MD)
    queries = [
        {"query": "Which owl goes hoo-hoo?", "should_trigger": True},
        {"query": "Which owl screeches?", "should_trigger": True},
        {"query": "Bake bread", "should_trigger": False},
        {"query": "Which hawk whistles? (not an owl)", "should_trigger": False},
    ]
    (tmp_path / "q.json").write_text(json.dumps(queries))
    with openai_server(responder) as srv:
        done = run_cli(
            "eval", str(folder), "--triggers", str(tmp_path / "q.json"), "-m", "fake-model",
            "--base-url", srv.base_url, "--runs", "2", "--split", "0.5", "--seed", "3",
            "--format", "json", "-o", str(tmp_path / "runs"), "--push-results", unique_repo_id,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    run_dir = Path(summary["run_dir"])
    split = summary["results"]["split"]
    assert split == f"run_{run_dir.name.replace('-', '_')}"
    rows = load_dataset(unique_repo_id, "triggers", split=split).to_list()
    assert [r["query_id"] for r in rows] == ["q1", "q2", "q3", "q4"]
    assert [r["triggered"] for r in rows] == [2, 2, 0, 2]
    assert [r["passed"] for r in rows] == [True, True, True, False]
    assert {r["split"] for r in rows} == {"train", "validation"}
    by_set = {s["set"]: s for s in summary["models"][0]["sets"]}
    for row in rows:
        assert row["set_recall"] == by_set[row["split"]]["recall"]
    assert "pdf-forms" in rows[0]["distractors"]
    # pushing the same run again replaces its split
    again = push_results(run_dir, unique_repo_id)
    assert again.split == split
    assert load_dataset(unique_repo_id, "triggers", split=split).num_rows == 4
    # an eval run pushed to the same dataset keeps the triggers config loadable
    evals = push_results(make_run_folder(tmp_path / "evals"), unique_repo_id)
    assert load_dataset(unique_repo_id, "samples", split=evals.split).num_rows == 24
    assert load_dataset(unique_repo_id, "triggers", split=split).num_rows == 4

    shown = run_cli(
        "results", "push", str(run_dir), "--repo", unique_repo_id, "--update-skill-card"
    )
    assert shown.returncode == 2 and "trigger eval updates no skill card" in shown.stderr
