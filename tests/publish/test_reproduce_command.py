"""``results reproduce``: re-run a published run on a model, publish it as a replication, and
say whether it agrees; readers (``info``) show the replication.

Everything is real: the skill and both results datasets on the local Hub (``hub serve``), the
original run and the replications made by the CLI against local OpenAI-compatible servers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from huggingface_hub import hf_hub_download

from tests.support.eval_runs import FACT, canary_skill, eval_env, marker, quuxium_cases, run_eval
from tests.support.llm_servers import constant, openai_server, skill_aware
from upskill_hub.publish.reproduce import case_agreement, majority_outcomes, pick_cases
from upskill_hub.registry.push import push_skills
from upskill_hub.skill.testcases import TestCase

NAME = "canary-replicate"
HONEST = skill_aware(marker(NAME), with_skill=f"It is {FACT}.", without="No idea.")


def _cli(*args: str) -> Any:
    import subprocess
    import sys

    from tests.support.eval_runs import REPO

    return subprocess.run(
        [sys.executable, "-m", "upskill_hub", *args],
        cwd=REPO,
        env=eval_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )


def _meta(text: str) -> dict[str, Any]:
    return dict(yaml.safe_load(text.split("---\n")[1]))


@pytest.fixture
def published(tmp_path: Path, unique_repo_id: str) -> Iterator[tuple[str, str, str, Any]]:
    """A skill on the Hub (its folder at ``tmp_path / NAME``), one run of it on ``fake-model``
    published with the skill card updated: (skill repo, dataset, split, the honest server)."""
    folder = canary_skill(tmp_path, quuxium_cases(4), name=NAME)
    push_skills(folder, repo_id=unique_repo_id)
    dataset = unique_repo_id + "-results"
    with openai_server(HONEST) as srv:
        done = run_eval(
            unique_repo_id,
            srv.base_url,
            *("--model", "fake-model", "--runs", "3", "--output", str(tmp_path / "runs")),
            *("--push-results", dataset, "--update-skill-card", "--format", "json"),
        )
        assert done.returncode == 0, done.stderr
        split = json.loads(done.stdout)["results"]["split"]
        yield unique_repo_id, dataset, split, srv


def _reproduce(dataset: str, split: str, base_url: str, repo: str, out: Path, *extra: str) -> Any:
    return _cli(
        *("results", "reproduce", f"{dataset}:{split}", "--model", "fake-model"),
        *("--base-url", base_url, "--repo", repo, "--output", str(out)),
        *extra,
    )


@pytest.mark.slow
def test_replication_agrees_is_linked_and_shown(
    published: tuple[str, str, str, Any], tmp_path: Path
) -> None:
    skill_repo, dataset, split, srv = published
    replica = skill_repo + "-replica"
    done = _reproduce(
        dataset, split, srv.base_url, replica, tmp_path / "rep", "--cases", "2", "--runs", "1"
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("agrees: replication +100 pts"), done.stdout
    assert "case outcomes agree on 100% of 2 cases" in last

    as_json = _cli(
        *("results", "reproduce", f"{dataset}:{split}", "--model", "fake-model"),
        *("--base-url", srv.base_url, "--repo", replica, "--output", str(tmp_path / "rep2")),
        *("--cases", "2", "--seed", "0", "--format", "json"),
    )
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    # without --runs, the original's runs per case
    assert data["agrees"] is True and data["cases"] == 2 and data["runs"] == 3
    assert data["replicates"] == {"dataset": dataset, "split": split}
    new_split = data["split"]
    assert new_split != split

    # the new split exists, and the dataset card says which run it replicates
    card = Path(hf_hub_download(replica, "README.md", repo_type="dataset")).read_text("utf-8")
    meta = _meta(card)
    assert meta["upskill_hub"]["runs"][new_split]["replicates"] == {
        "dataset": dataset,
        "split": split,
    }
    from datasets import load_dataset

    rows = load_dataset(replica, "samples", split=new_split).to_list()
    assert len(rows) == 12  # 2 cases × 3 runs × 2 arms
    measured = load_dataset(dataset, "samples", split=split).to_list()
    assert len({r["skill_commit"] for r in measured}) == 1
    assert {r["skill_commit"] for r in rows} == {r["skill_commit"] for r in measured}
    assert {r["case_id"] for r in rows} < {r["case_id"] for r in measured}

    # the skill card lists both replications next to its one result
    skill_card = Path(hf_hub_download(skill_repo, "README.md")).read_text("utf-8")
    section = _meta(skill_card)["upskill_hub"]
    assert [(r["dataset"], r["split"]) for r in section["results"]] == [(dataset, split)]
    listed = section["replications"]
    assert len(listed) == 2
    assert listed[-1]["of"] == {"dataset": dataset, "split": split, "model": "fake-model"}
    assert (listed[-1]["dataset"], listed[-1]["split"]) == (replica, new_split)

    # info shows them with the figure they replicate
    info = _cli("info", skill_repo, "--format", "json")
    assert info.returncode == 0, info.stderr
    [model] = json.loads(info.stdout)["skills"][0]["evidence"]["models"]
    assert model["dataset"] == dataset and model["split"] == split
    reps = model["replications"]
    assert [r["split"] for r in reps][-1] == new_split
    assert all(r["agrees"] is True and r["lift"] == 1.0 for r in reps)
    assert reps[-1]["measured_by"] is None and reps[-1]["independent"] is False
    text = _cli("info", skill_repo)
    assert "replicated: agrees · +100 pts" in text.stdout, text.stdout
    assert f"{replica}:{new_split}" in text.stdout

    # a new push of the skill keeps the list
    skill_md = tmp_path / NAME / "SKILL.md"
    skill_md.write_text(skill_md.read_text("utf-8") + "\nMore.\n", encoding="utf-8")
    push_skills(tmp_path / NAME, repo_id=skill_repo)
    pushed_again = Path(hf_hub_download(skill_repo, "README.md")).read_text("utf-8")
    assert _meta(pushed_again)["upskill_hub"]["replications"] == listed


@pytest.mark.slow
def test_a_server_answering_otherwise_disagrees(
    published: tuple[str, str, str, Any], tmp_path: Path
) -> None:
    skill_repo, dataset, split, _ = published
    replica = skill_repo + "-other"
    with openai_server(constant("No idea.")) as other:
        done = _reproduce(dataset, split, other.base_url, replica, tmp_path / "rep", "--cases", "2")
    assert done.returncode == 1, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("disagrees: replication +0 pts"), done.stdout
    assert "original +100 pts" in last and "agree on 0% of 2 cases" in last
    assert "Traceback" not in done.stderr

    info = _cli("info", skill_repo, "--format", "json")
    [model] = json.loads(info.stdout)["skills"][0]["evidence"]["models"]
    [rep] = model["replications"]
    assert rep["agrees"] is False and rep["lift"] == 0.0
    assert "replicated: disagrees · +0 pts" in _cli("info", skill_repo).stdout


@pytest.mark.parametrize(
    ("source", "needle"),
    [
        ("not-a-dataset", "give the run to replicate as NS/DATASET:SPLIT"),
        ("ns/data", "give the run to replicate as NS/DATASET:SPLIT"),
        ("ns/data:", "give the run to replicate as NS/DATASET:SPLIT"),
        ("ns/data:bad split", "give the run to replicate as NS/DATASET:SPLIT"),
    ],
)
def test_a_bad_run_reference_is_one_line(source: str, needle: str, hub_server: object) -> None:
    done = _cli("results", "reproduce", source, "--model", "mock:echo", "--repo", "ns/x")
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: ") and needle in line


def test_a_missing_run_is_one_line(hub_server: object, unique_repo_id: str) -> None:
    done = _cli(
        *("results", "reproduce", f"{unique_repo_id}:run_x", "--model", "mock:echo"),
        *("--repo", "ns/x"),
    )
    assert done.returncode != 0
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: ") and unique_repo_id in line


def test_cases_flag_is_checked(hub_server: object) -> None:
    done = _cli(
        *("results", "reproduce", "ns/data:run_x", "--model", "mock:echo", "--repo", "ns/x"),
        *("--cases", "0"),
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "error: --cases must be at least 1 (got 0)"


def test_case_subset_is_seeded_and_keeps_order() -> None:
    cases = [TestCase(id=f"c{i}", input="x", assertions=()) for i in range(10)]
    first = pick_cases(cases, 4, 7)
    assert first == pick_cases(cases, 4, 7)
    assert [c.id for c in first] == sorted((c.id for c in first), key=lambda i: int(i[1:]))
    assert pick_cases(cases, None, 0) == cases and pick_cases(cases, 50, 0) == cases


def test_case_agreement_counts_majorities_over_common_cases() -> None:
    def rows(outcomes: dict[tuple[str, str], list[str]]) -> list[dict[str, str]]:
        return [
            {"model": "m", "case_id": case, "arm": arm, "outcome": o}
            for (case, arm), values in outcomes.items()
            for o in values
        ]

    a = majority_outcomes(
        rows(
            {
                ("c1", "baseline"): ["fail", "fail", "pass"],
                ("c1", "with_skill"): ["pass", "pass", "error"],
                ("c2", "baseline"): ["fail"],
                ("c2", "with_skill"): ["pass"],
                ("c3", "baseline"): ["fail"],
                ("c3", "with_skill"): ["error"],  # never graded: not common
            }
        ),
        "m",
    )
    b = majority_outcomes(
        rows(
            {
                ("c1", "baseline"): ["fail"],
                ("c1", "with_skill"): ["pass"],
                ("c2", "baseline"): ["fail"],
                ("c2", "with_skill"): ["fail"],
                ("c3", "baseline"): ["fail"],
                ("c3", "with_skill"): ["pass"],
            }
        ),
        "m",
    )
    assert case_agreement(a, b) == (0.5, 2)
    assert case_agreement(a, {}) == (None, 0)
