"""A trigger eval's run, published and read back like an eval run: its card section, a card for
a dataset of trigger runs alone, ``results show`` from the Hub, and ``results compare`` refusing
it in one line (against the local Hub and a local model server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from huggingface_hub import DatasetCard, hf_hub_download

from tests.cli_runner import run_cli
from tests.publish.run_folders import make_run_folder
from tests.publish.test_push_triggers import responder
from tests.support.llm_servers import openai_server

SKILL_MD = """---
name: owl-watch
description: Identify owls by their calls. Use when asked which owl makes a sound.
license: Apache-2.0
---

Hoots.
"""
QUERIES = [
    {"query": "Which owl goes hoo-hoo?", "should_trigger": True},
    {"query": "Which owl screeches?", "should_trigger": True},
    {"query": "Bake bread", "should_trigger": False},
    {"query": "Which hawk whistles? (not an owl)", "should_trigger": False},
]


def _trigger_run(tmp_path: Path) -> dict[str, Any]:
    folder = tmp_path / "owl-watch"
    folder.mkdir()
    (folder / "SKILL.md").write_text(SKILL_MD)
    (tmp_path / "q.json").write_text(json.dumps(QUERIES))
    with openai_server(responder) as srv:
        done = run_cli(
            "eval", str(folder), "--triggers", str(tmp_path / "q.json"), "-m", "fake-model",
            "--base-url", srv.base_url, "--runs", "2", "--split", "0.5", "--seed", "3",
            "--format", "json", "-o", str(tmp_path / "runs"),
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary: dict[str, Any] = json.loads(done.stdout)
    return summary


@pytest.mark.slow
def test_a_dataset_of_trigger_runs_alone_has_a_card_and_shows(
    tmp_path: Path, unique_repo_id: str
) -> None:
    summary = _trigger_run(tmp_path)
    run_dir = summary["run_dir"]
    pushed = run_cli("results", "push", run_dir, "--repo", unique_repo_id, "--format", "json")
    assert pushed.returncode == 0, pushed.stderr
    split = json.loads(pushed.stdout)["split"]

    card = DatasetCard.load(unique_repo_id, repo_type="dataset")
    assert card.data.license == "other"  # the skill's license is not in a trigger run.json
    assert {"agent-skills", "skill-evaluation"} <= set(card.data.tags)
    assert card.data.pretty_name == "owl-watch skill evaluation results"
    assert f"## Run `{split}`" in card.text and "trigger eval" in card.text
    assert f'load_dataset("{unique_repo_id}", "triggers", split="{split}")' in card.text
    # all four queries: every owl query triggered, the hawk one too (a false trigger)
    assert "| `fake-model` | 4 | 100% [1, 100] | 50% [0, 100] | 3/4 |" in card.text
    assert "| `fake-model` (validation) | 2 | 100%" in card.text
    assert f"--triggers tests/{split}.json" in card.text
    queries = hf_hub_download(unique_repo_id, f"tests/{split}.json", repo_type="dataset")
    assert [q["query"] for q in json.loads(Path(queries).read_text())] == [
        q["query"] for q in QUERIES
    ]

    shown = run_cli("results", "show", unique_repo_id)
    assert shown.returncode == 0, shown.stderr
    assert "misfiring queries: q4" in shown.stdout and split in shown.stdout
    as_json = run_cli("results", "show", f"{unique_repo_id}:{split}", "--format", "json")
    assert as_json.returncode == 0, as_json.stderr
    # the figures recomputed from the published counts are the run's own
    assert json.loads(as_json.stdout)["models"] == summary["models"]

    # an eval run pushed beside it: the card keeps both sections and loads the eval configs
    evals = make_run_folder(tmp_path / "evals")
    assert run_cli("results", "push", str(evals), "--repo", unique_repo_id).returncode == 0
    card = DatasetCard.load(unique_repo_id, repo_type="dataset")
    assert f"## Run `{split}`" in card.text and "2 run(s), newest first." in card.text
    assert f'"summary", split="{split}"' not in card.text
    eval_split = run_cli("results", "show", unique_repo_id, "--split", split)
    assert eval_split.returncode == 0 and "misfiring queries: q4" in eval_split.stdout
    # compare takes the dataset's latest eval run, not the later trigger run beside it
    compared = run_cli("results", "compare", unique_repo_id, str(evals))
    assert compared.returncode == 0, compared.stderr


def test_compare_refuses_a_trigger_run_in_one_line(tmp_path: Path) -> None:
    run_dir = _trigger_run(tmp_path)["run_dir"]
    evals = make_run_folder(tmp_path / "evals")
    done = run_cli("results", "compare", str(evals), run_dir)
    assert done.returncode == 2
    line = done.stderr.strip()
    assert "\n" not in line and "a trigger eval" in line and "not a run folder" not in line


def test_compare_warns_when_one_run_is_agent_mode(tmp_path: Path) -> None:
    inline = make_run_folder(tmp_path, "r-a")
    agent = make_run_folder(tmp_path, "r-b")
    info = json.loads((agent / "run.json").read_text())
    (agent / "run.json").write_text(json.dumps({**info, "mode": "agent"}))
    done = run_cli("results", "compare", str(inline), str(agent))
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1 and "mode (A: inline; B: agent" in warnings[0]
    same = run_cli("results", "compare", str(inline), str(inline))
    assert "warning" not in same.stderr


def test_a_trigger_summary_edited_by_hand_is_refused_before_anything_is_uploaded(
    tmp_path: Path, unique_repo_id: str
) -> None:
    from huggingface_hub import HfApi

    run_dir = Path(_trigger_run(tmp_path)["run_dir"])
    summary_file = run_dir / "trigger_summary.json"
    summary = json.loads(summary_file.read_text())
    summary["models"][0]["sets"][0]["false_trigger_rate"] = 0.0  # hide the misfire
    summary["models"][0]["sets"][0]["misfires"] = []
    summary_file.write_text(json.dumps(summary))
    done = run_cli("results", "push", str(run_dir), "--repo", unique_repo_id)
    assert done.returncode == 1, done.stderr
    line = done.stderr.strip()
    assert "\n" not in line and "trigger_summary.json does not follow from" in line
    assert "fake-model" in line
    assert not HfApi().repo_exists(unique_repo_id, repo_type="dataset")
