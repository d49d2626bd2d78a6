"""``results verify`` against the parties it guards against, through the paths they take: a
results owner who edits the summary, blanks answers but keeps their outcomes, rewrites the
dataset after publication or edits the test cases; runs made by the real runner (``mock:``
models) and published through ``hub serve`` with the real ``datasets`` writer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from huggingface_hub import CommitOperationAdd, HfApi

from tests.cli_runner import run_cli
from tests.publish.run_folders import make_run_folder
from upskill_hub.evaluation.config import EvalConfig
from upskill_hub.evaluation.runner import evaluate
from upskill_hub.evaluation.stats.summarize import STATS_VERSION
from upskill_hub.hub.client import Hub
from upskill_hub.publish.dataset_push import load_splits, push_config_rows
from upskill_hub.publish.results_dataset import push_results
from upskill_hub.publish.verify import verify_published, verify_run_dir
from upskill_hub.registry.push import push_skills
from upskill_hub.skill import TestSuite, load_skill, write_skill
from upskill_hub.skill.testcases import TestCase

MODEL = "mock:prompt"  # answers with every message: the with-skill arm quotes SKILL.md
MARKER = "Use the GRID-STRIDE loop"
CASES = [
    TestCase(
        id=f"case-{i}",
        input=f"Write kernel {i}.",
        assertions=(
            {"type": "contains", "values": [MARKER]},
            {"type": "regex", "pattern": r"kernel \d"},
        ),
    )
    for i in range(4)
]
JUDGED = [
    TestCase(
        id="judged",
        input="Write a kernel.",
        assertions=({"type": "contains", "values": [MARKER]}, {"type": "judge", "rubric": "ok"}),
    )
]


def _skill(tmp: Path, cases: list[TestCase]) -> Path:
    return write_skill(
        tmp / "grid-kernels",
        {"name": "grid-kernels", "description": "Writes CUDA kernels. Use for kernels."},
        f"\n# Kernels\n\n{MARKER} in every kernel.\n",
        TestSuite(list(cases)),
    )


def _run(
    tmp: Path, cases: list[TestCase], repo_id: str | None = None, revision: str | None = None
) -> Path:
    folder = _skill(tmp, cases)
    config = EvalConfig(models=[MODEL], runs=2, judge_model="mock:reply=PASS")
    result = evaluate(
        load_skill(folder),
        cases,
        config,
        output_root=tmp / "runs",
        write_chart=False,
        repo_id=repo_id,
        revision=revision,
    )
    return Path(result.run_dir)


@pytest.fixture
def published(tmp_path: Path, unique_repo_id: str) -> tuple[str, str, Path]:
    """An honest run of a skill on the Hub, published: (dataset, split, run folder)."""
    commit = push_skills(_skill(tmp_path / "src", CASES), repo_id=unique_repo_id).commit
    run_dir = _run(tmp_path, CASES, repo_id=unique_repo_id, revision=str(commit))
    dataset = unique_repo_id + "-results"
    return dataset, push_results(run_dir, dataset).split, run_dir


def _verify(*args: str) -> tuple[int, dict[str, Any], str]:
    done = run_cli("results", "verify", *args, "--format", "json")
    data = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, data, done.stderr


def _problems(data: dict[str, Any]) -> list[str]:
    return [p for run in data["runs"] for p in run["problems"]]


def _rows(dataset: str, config: str, split: str) -> list[dict[str, Any]]:
    return (load_splits(dataset, config, split=split) or {})[split]


def _repush(dataset: str, config: str, split: str, rows: list[dict[str, Any]]) -> None:
    """What a results owner with write access can do: push a split again with ``datasets``."""
    schema = {"samples": "results_sample", "summary": "summary"}[config]
    push_config_rows(Hub(), dataset, config, schema, rows, split, None)


@pytest.mark.slow
def test_an_honest_published_run_verifies(published: tuple[str, str, Path]) -> None:
    dataset, split, run_dir = published
    code, data, err = _verify(f"{dataset}:{split}")
    assert code == 0, err
    [run] = data["runs"]
    assert data["status"] == run["status"] == "verified" and run["split"] == split
    [model] = run["models"]
    assert model["model"] == MODEL and model["regraded"] == model["agreed"] == 16
    assert model["not_regradable"] == 0 and run["problems"] == []
    code, data, err = _verify(dataset)  # every run of the dataset
    assert code == 0 and [r["split"] for r in data["runs"]] == [split], err
    text = run_cli("results", "verify", str(run_dir))
    assert text.returncode == 0 and f"{MODEL}: verified (16 of 16" in text.stdout


@pytest.mark.slow
def test_a_forged_summary_is_inconsistent(published: tuple[str, str, Path]) -> None:
    dataset, split, run_dir = published
    rows = _rows(dataset, "summary", split)
    for row in rows:
        row["lift"] = 0.9
    _repush(dataset, "summary", split, rows)
    code, data, _ = _verify(f"{dataset}:{split}")
    assert code == 1 and data["status"] == "inconsistent"
    assert any(f"summary: {MODEL} with_skill: lift says 0.9" in p for p in _problems(data))
    # the same edit in the run folder: results verify and results push both refuse it
    summary = json.loads((run_dir / "summary.json").read_text())
    summary["models"][0]["lift"] = 0.9
    (run_dir / "summary.json").write_text(json.dumps(summary))
    done = run_cli("results", "verify", str(run_dir))
    assert done.returncode == 1 and "lift says 0.9, the samples give 1.0" in done.stdout


@pytest.mark.slow
def test_blanked_outputs_with_kept_outcomes_are_caught_and_never_pushed(
    tmp_path: Path, unique_repo_id: str
) -> None:
    run_dir = _run(tmp_path, CASES)
    lines = (run_dir / "samples.jsonl").read_text().splitlines()
    samples = [json.loads(line) for line in lines]
    forged = next(s for s in samples if s["arm"] == "with_skill" and s["outcome"] == "pass")
    forged["output"] = ""
    (run_dir / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    label = f"sample {MODEL} {forged['case_id']} run {forged['run']} with_skill"
    done = run_cli("results", "verify", str(run_dir))
    assert done.returncode == 1
    assert f"{label}: check 1 (contains) gives fail" in done.stdout
    assert f"{label}: outcome pass, its checks give fail" in done.stdout
    pushed = run_cli("results", "push", str(run_dir), "--repo", unique_repo_id)
    assert pushed.returncode == 1 and label in pushed.stderr
    assert "the run does not verify (results verify)" in pushed.stderr
    assert not HfApi().repo_exists(unique_repo_id, repo_type="dataset")


@pytest.mark.slow
def test_a_dataset_rewritten_after_publication_is_inconsistent(
    published: tuple[str, str, Path],
) -> None:
    dataset, split, _ = published
    rows = _rows(dataset, "samples", split)
    for row in rows:
        row["output"] = ""  # the outcomes, assertion results and summary are kept
    _repush(dataset, "samples", split, rows)
    result = verify_published(Hub(), dataset, split)
    assert result.status == "inconsistent"
    [model] = result.models
    assert model.agreed < model.regraded == 16
    code, data, _ = _verify(f"{dataset}:{split}")
    assert code == 1 and any("gives fail" in p for p in _problems(data))


@pytest.mark.slow
def test_published_tests_that_are_not_the_skills_are_inconsistent(
    published: tuple[str, str, Path],
) -> None:
    dataset, split, run_dir = published
    suite = json.loads((run_dir / "tests.json").read_text())
    suite["tests"][0]["input"] = "Something easier."
    HfApi().create_commit(
        dataset,
        [CommitOperationAdd(f"tests/{split}.json", json.dumps(suite).encode())],
        commit_message="lax tests",
        repo_type="dataset",
    )
    code, data, _ = _verify(f"{dataset}:{split}")
    assert code == 1
    assert any("not the test cases of" in p and "case-0 differ" in p for p in _problems(data))


def test_tests_edited_after_the_run_are_caught(tmp_path: Path) -> None:
    run_dir = _run(tmp_path, CASES)
    assert verify_run_dir(run_dir).status == "verified"
    suite = json.loads((run_dir / "tests.json").read_text())
    # a check made laxer after the run (the answers still pass it)
    suite["upskill_hub"]["tests"][0]["assertions"][0]["values"] = ["GRID-STRIDE"]
    (run_dir / "tests.json").write_text(json.dumps(suite))
    result = verify_run_dir(run_dir)
    assert result.status == "inconsistent"
    assert any("the tests differ from those graded" in p for p in result.problems)


def test_a_judge_graded_run_is_reported(tmp_path: Path) -> None:
    run_dir = _run(tmp_path, JUDGED)
    done = run_cli("results", "verify", str(run_dir), "--format", "json")
    assert done.returncode == 0, done.stderr
    [run] = json.loads(done.stdout)["runs"]
    [model] = run["models"]
    assert run["status"] == model["verification"] == "reported"
    assert model["regraded"] == 0 and model["not_regradable"] == 4  # 2 runs x 2 arms
    assert any("graded by a judge" in n for n in run["notes"])


def test_what_cannot_be_checked_exits_2(tmp_path: Path, hub_server: object) -> None:
    run_dir = _run(tmp_path, CASES)
    (run_dir / "samples.jsonl").write_text("")
    done = run_cli("results", "verify", str(run_dir))
    assert done.returncode == 2 and "no samples" in done.stderr
    done = run_cli("results", "verify", "local-user/no-such-results:run_x")
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: cannot verify local-user/no-such-results")


@pytest.mark.slow
def test_without_published_tests_the_skills_own_are_used(
    published: tuple[str, str, Path],
) -> None:
    dataset, split, _ = published
    HfApi().delete_file(f"tests/{split}.json", dataset, repo_type="dataset")
    result = verify_published(Hub(), dataset, split)
    assert result.status == "verified", result.problems
    assert any("not found; graded against the tests of" in n for n in result.notes)


@pytest.mark.slow
def test_a_skill_whose_tests_cannot_be_read_is_reported(
    tmp_path: Path, unique_repo_id: str
) -> None:
    """Two models, an errored request, Holm-adjusted intervals: every published figure
    recomputes; the skill repo the run names does not exist, so its tests are unconfirmed."""
    run_dir = make_run_folder(tmp_path, repo_id="local-user/no-such-skill")
    split = push_results(run_dir, unique_repo_id).split
    result = verify_published(Hub(), unique_repo_id, split)
    assert result.status == "reported" and result.problems == []
    assert [m.verification for m in result.models] == ["reported", "reported"]
    assert [m.regraded for m in result.models] == [12, 11]  # the errored request is not graded
    assert any("local-user/no-such-skill@0123456789ab could not be read" in n for n in result.notes)


def test_a_summary_without_its_holm_interval_is_caught(tmp_path: Path) -> None:
    """Objects in summary.json compare on the keys both sides have (old summaries still check);
    dropping ``holm.ci`` would publish the narrower unadjusted interval, and the rows say so."""
    from tests.publish.test_run_consistency import TWELVE

    run_dir = make_run_folder(tmp_path, cases=TWELVE)
    assert verify_run_dir(run_dir).status == "verified"
    path = run_dir / "summary.json"
    summary = json.loads(path.read_text())
    del summary["models"][0]["holm"]["ci"]
    path.write_text(json.dumps(summary))
    result = verify_run_dir(run_dir)
    assert result.status == "inconsistent"
    assert any("with_skill: lift_ci_low says" in p for p in result.problems)


@pytest.mark.slow
def test_intervals_are_checked_only_in_rows_of_this_stats_version(
    published: tuple[str, str, Path],
) -> None:
    dataset, split, _ = published
    honest = _rows(dataset, "summary", split)
    assert {row["stats_version"] for row in honest} == {STATS_VERSION}

    def published_as(**edit: Any) -> dict[str, Any]:
        _repush(dataset, "summary", split, [{**row, **edit} for row in honest])
        return _verify(f"{dataset}:{split}")[1]

    # this version's rows: a narrowed interval is a forgery
    data = published_as(lift_ci_low=0.99)
    assert data["status"] == "inconsistent"
    assert any("lift_ci_low says 0.99" in p for p in _problems(data))
    # rows of an older (unrecorded) version: their intervals are that version's, so the figure
    # is only reported, with a note saying why; dropping the version to dodge the interval check
    # buys no more than that
    data = published_as(lift_ci_low=0.99, stats_version=None)
    [run] = data["runs"]
    assert data["status"] == "reported" and run["problems"] == []
    assert any("intervals and verdict are the publisher's" in n for n in run["notes"])
    # ... and the arithmetic is still checked in them
    data = published_as(lift=0.9, stats_version=None)
    assert data["status"] == "inconsistent"
