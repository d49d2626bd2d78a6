"""What a run on Jobs takes from its shards, against a shard forged in the artifact repo; the
shards keep both arms of every (case, run) together; ``jobs logs`` / ``jobs cancel`` in JSON."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from huggingface_hub import HfApi

from tests.jobs.conftest import SENTINEL, cli, make_skill
from tests.support.llm_servers import FakeLLMServer
from upskill_hub.evaluation.run.folder import read_samples
from upskill_hub.hub_server import RunningServer
from upskill_hub.jobs.artifacts import shard_prefix
from upskill_hub.jobs.plan import make_shards
from upskill_hub.publish.run_consistency import check_run_consistency


def _outcomes(run_dir: Path) -> dict[tuple[str, str, int, str], str]:
    return {s.key: s.outcome for s in read_samples(run_dir / "samples.jsonl")}


KEY = {"UPSKILL_HUB_API_KEY": SENTINEL}


def _eval_on_jobs(tmp_path: Path, fake_model: FakeLLMServer) -> tuple[Path, str, float]:
    """A 2-case run on Jobs (one shard, 2 passes and 2 fails): its folder, artifact repo, lift."""
    skill = make_skill(tmp_path, cases=2)
    repo = f"local-user/runs-{uuid.uuid4().hex[:8]}"
    ran = cli(
        "eval", str(skill), "--model", "fake-a", "--base-url", fake_model.base_url,
        "-o", str(tmp_path / "runs"), "--executor", "jobs", "--install", "none",
        "--artifact-repo", repo, "--yes", "--format", "json", extra_env=KEY,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "warning:" not in ran.stderr  # an honest shard merges without one
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert sorted(_outcomes(run_dir).values()) == ["fail", "fail", "pass", "pass"]
    return run_dir, repo, json.loads(ran.stdout)["models"][0]["lift"]


def _forge_shard(
    api: HfApi, tmp_path: Path, run_dir: Path, repo: str, forge: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    """What whoever can write the artifact repo does: rewrite the shard's samples (``forge``
    edits each line's data in place); returns the shard's plan entry."""
    plan = json.loads((run_dir / "jobs.json").read_text())
    (shard,) = plan["shards"]
    path = f"{shard_prefix(plan['run_id'], shard['id'])}/samples.jsonl"
    local = api.hf_hub_download(repo, path, repo_type="dataset", local_dir=tmp_path / "dl")
    forged = []
    for line in Path(local).read_text().splitlines():
        data = json.loads(line)
        forge(data)
        forged.append(json.dumps(data))
    api.upload_file(
        path_or_fileobj="\n".join(forged).encode() + b"\n",
        path_in_repo=path,
        repo_id=repo,
        repo_type="dataset",
    )
    return dict(shard)


@pytest.mark.slow
def test_a_forged_shard_is_regraded_with_a_warning(
    tmp_path: Path, api: HfApi, fake_model: FakeLLMServer
) -> None:
    run_dir, repo, lift = _eval_on_jobs(tmp_path, fake_model)
    honest = _outcomes(run_dir)

    def every_fail_passes(data: dict[str, Any]) -> None:
        if data["outcome"] == "fail":
            data["outcome"] = "pass"
            data["assertions"] = [] if data["arm"] == "with_skill" else "all good"

    shard = _forge_shard(api, tmp_path, run_dir, repo, every_fail_passes)
    collected = cli("jobs", "collect", str(run_dir), "--format", "json", extra_env=KEY)
    assert collected.returncode == 0, collected.stderr
    warnings = [line for line in collected.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: 2 sample(s) of shard(s) {shard['id']} claimed an outcome their assertion "
        "results do not give; re-graded from the results (a forged or corrupted shard?)"
    ]
    assert _outcomes(run_dir) == honest
    assert json.loads(collected.stdout)["models"][0]["lift"] == lift
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["models"][0]["lift"] == lift

    # jobs logs / jobs cancel in JSON (the run has ended: nothing left to cancel)
    logs = cli("jobs", "logs", str(run_dir), "--format", "json")
    assert logs.returncode == 0, logs.stderr
    shown = json.loads(logs.stdout)
    assert shown["run_dir"] == str(run_dir)
    (entry,) = shown["shards"]
    assert entry["id"] == shard["id"] and entry["job_id"] == shard["job_id"]
    assert any(line.startswith(f"shard {shard['id']}: complete") for line in entry["lines"])
    cancelled = cli("jobs", "cancel", str(run_dir), "--format", "json")
    assert cancelled.returncode == 0, cancelled.stderr
    data = json.loads(cancelled.stdout)
    assert data["cancelled"] == 0 and data["run_dir"] == str(run_dir)
    assert [(s["id"], s["state"]) for s in data["shards"]] == [(shard["id"], "completed")]


@pytest.mark.slow
def test_a_shard_line_with_malformed_results_is_cleaned_and_the_run_stays_publishable(
    tmp_path: Path, api: HfApi, fake_model: FakeLLMServer
) -> None:
    """A fail whose assertion results are garbage claims the outcome they would give (none:
    fail). The merged line must still be one the run's readers accept, or the summary counts a
    sample that ``results push`` cannot read and refuses the run."""
    run_dir, repo, lift = _eval_on_jobs(tmp_path, fake_model)
    honest = _outcomes(run_dir)

    def garbled(data: dict[str, Any]) -> None:
        if data["outcome"] == "fail":
            data["assertions"] = "all good"

    _forge_shard(api, tmp_path, run_dir, repo, garbled)
    collected = cli("jobs", "collect", str(run_dir), "--format", "json", extra_env=KEY)
    assert collected.returncode == 0, collected.stderr
    assert "re-graded from the results" in collected.stderr
    assert _outcomes(run_dir) == honest  # every line read back
    assert json.loads(collected.stdout)["models"][0]["lift"] == lift
    assert check_run_consistency(run_dir) == []


def test_a_hub_without_jobs_says_so_in_one_line(
    tmp_path: Path, hub_server: RunningServer, fake_model: FakeLLMServer
) -> None:
    """The session's Hub runs without --jobs: submitting is refused with the server's reason."""
    skill = make_skill(tmp_path, cases=1)
    env = {"HF_ENDPOINT": hub_server.url, "HF_TOKEN": "any", "UPSKILL_HUB_API_KEY": SENTINEL}
    ran = cli(
        "eval", str(skill), "--model", "fake-a", "--base-url", fake_model.base_url,
        "-o", str(tmp_path / "runs"), "--executor", "jobs", "--install", "none",
        "--artifact-repo", f"local-user/runs-{uuid.uuid4().hex[:8]}", "--yes", extra_env=env,
    )  # fmt: skip
    assert ran.returncode != 0 and "Traceback" not in ran.stderr
    last = ran.stderr.strip().splitlines()[-1]
    assert last.startswith("error: run_job for shard 00000: the Jobs API refused it (404): ")
    assert "hub serve --jobs --token" in last
    assert fake_model.requests == []


@pytest.mark.parametrize("runs", [1, 2, 3, 10])
@pytest.mark.parametrize("shard_samples", [1, 2, 3, 5, 7, 19, 20, 21, 2000])
def test_a_shard_holds_both_arms_of_each_case_and_run(runs: int, shard_samples: int) -> None:
    """Both arms of a (case, run) in one shard, so one Job runs them in the same time slot."""
    arms = ["baseline", "with_skill"]
    cases = [f"c{i}" for i in range(13)]
    shards = make_shards(["m1", "m2"], cases, runs=runs, arms=2, shard_samples=shard_samples)
    where: dict[tuple[str, str, int], set[tuple[str, str]]] = {}
    for shard in shards:
        assert shard.samples % 2 == 0
        for model, case, run, arm in shard.keys(shard.model, runs, arms):
            where.setdefault((model, case, run), set()).add((shard.id, arm))
    assert len(where) == 2 * len(cases) * runs
    for placed in where.values():
        assert len({shard_id for shard_id, _ in placed}) == 1
        assert {arm for _, arm in placed} == set(arms)
