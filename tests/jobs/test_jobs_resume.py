"""A shard whose Job crashes (kill -9) and one whose Job is cancelled keep their finished
samples; the missing ones are errors; ``eval --resume RUN`` submits only those shards and
sends only the missing requests."""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from huggingface_hub import HfApi

from tests.jobs.conftest import SENTINEL, cli, make_skill, responder
from tests.support.llm_servers import FakeLLMServer, openai_server
from upskill_hub.evaluation.run.folder import read_samples


@pytest.fixture
def slow_model() -> Iterator[FakeLLMServer]:
    with openai_server(responder, api_key=SENTINEL, latency=0.25, models=("fake-a",)) as srv:
        yield srv


def job_pid(job_id: str) -> int:
    """The process a Job runs (the stand-in sets JOB_ID in its environment)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"JOB_ID={job_id}".encode() in environ:
            return int(entry.name)
    raise AssertionError(f"no process for job {job_id}")


def committed(api: HfApi, repo: str, run_id: str, shard_id: str) -> int:
    from upskill_hub.hub.client import Hub
    from upskill_hub.jobs.artifacts import read_json

    hub = Hub(endpoint=api.endpoint, token=api.token)
    status = read_json(hub, repo, f"runs/{run_id}/shards/{shard_id}/status.json")
    return int(status["done"]) if status else 0


@pytest.mark.slow
def test_crashed_and_cancelled_shards_resume(
    tmp_path: Path, api: HfApi, slow_model: FakeLLMServer
) -> None:
    skill = make_skill(tmp_path, cases=30)
    repo = f"local-user/runs-{uuid.uuid4().hex[:8]}"
    env = {"UPSKILL_HUB_API_KEY": SENTINEL, "UPSKILL_HUB_JOBS_COMMIT_EVERY": "0.2"}
    grid = ["--model", "fake-a", "--base-url", slow_model.base_url, "--concurrency", "1"]
    started = cli(
        "eval", str(skill), *grid, "-o", str(tmp_path / "runs"), "--executor", "jobs",
        "--install", "none", "--shard-size", "30", "--artifact-repo", repo, "--yes", "--no-wait",
        extra_env=env,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    assert "jobs collect" in started.stdout
    (run_dir,) = (tmp_path / "runs").iterdir()
    plan = json.loads((run_dir / "jobs.json").read_text())
    assert [len(s["case_ids"]) for s in plan["shards"]] == [15, 15]  # 30 samples each
    first, second = plan["shards"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (
        committed(api, repo, plan["run_id"], first["id"]) < 3
        or committed(api, repo, plan["run_id"], second["id"]) < 3
    ):
        time.sleep(0.2)
    os.kill(job_pid(first["job_id"]), signal.SIGKILL)  # a crash: no goodbye
    cancelled = cli("jobs", "cancel", str(run_dir))
    assert cancelled.returncode == 0, cancelled.stderr
    status = cli("jobs", "status", str(run_dir))
    assert status.returncode == 0, status.stderr
    assert "2/2 shards finished (0 running, 0 waiting, 2 failed)" in status.stdout
    assert "exit code -9" in status.stdout

    collected = cli("jobs", "collect", str(run_dir), extra_env=env)
    assert collected.returncode == 1
    assert "samples not run" in collected.stderr and "--resume" in collected.stderr
    shards = json.loads((run_dir / "jobs.json").read_text())["shards"]
    states = {s["id"]: s["state"] for s in shards}
    assert states == {first["id"]: "error", second["id"]: "canceled"}
    logs = cli("jobs", "logs", str(run_dir), "--shard", second["id"])
    assert f"===== shard {second['id']}" in logs.stdout and "cancelled" in logs.stdout
    samples = read_samples(run_dir / "samples.jsonl")
    assert len(samples) == 60
    kept = [s for s in samples if s.outcome != "error"]
    missing = [s for s in samples if s.outcome == "error"]
    assert len(kept) >= 6 and missing  # finished samples kept, the rest are errors
    assert all("not run: shard" in (s.error or "") for s in missing)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["errors"] == len(missing) and not summary["complete"]

    slow_model.clear()
    resumed = cli("eval", str(skill), "--resume", str(run_dir), "--yes", extra_env=env)
    assert resumed.returncode == 0, resumed.stderr
    # only the missing samples were requested again, each with its other arm (both arms of a
    # (case, run) share one time slot, so a shock to one slot cannot favour an arm)
    broken = {(s.model, s.case_id, s.run) for s in missing}
    redone = [s for s in samples if (s.model, s.case_id, s.run) in broken]
    assert len(slow_model.requests) == len(redone)
    final = read_samples(run_dir / "samples.jsonl")
    assert len(final) == 60 and all(s.outcome != "error" for s in final)
    for sample in kept:  # what finished before, with its pair, is what the run keeps
        if (sample.model, sample.case_id, sample.run) in broken:
            continue
        match = next(s for s in final if s.key == sample.key)
        assert match.finished_at == sample.finished_at
    assert json.loads((run_dir / "summary.json").read_text())["complete"]
    states = {s["state"] for s in json.loads((run_dir / "jobs.json").read_text())["shards"]}
    assert states == {"completed"}
