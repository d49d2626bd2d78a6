"""``eval --executor jobs`` end to end: real huggingface_hub job calls against ``hub serve``,
each shard a real ``upskill-hub jobs run-shard`` process, the fake model over real HTTP."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from huggingface_hub import HfApi

from tests.jobs.conftest import JOBS_TOKEN, SENTINEL, cli, cli_env, make_skill
from tests.publish.run_folders import make_run_folder
from tests.support.llm_servers import FakeLLMServer
from upskill_hub.evaluation.run.folder import read_samples

#: huggingface_hub 2.4's list_jobs asks whoami of the default endpoint, not the api's own.
NS = "local-user"


def outcomes(run_dir: Path) -> dict[tuple[str, str, int, str], str]:
    return {s.key: s.outcome for s in read_samples(run_dir / "samples.jsonl")}


def only_run(root: Path) -> Path:
    (run,) = [p for p in root.iterdir() if p.is_dir()]
    return run


@pytest.mark.slow
def test_grid_on_jobs_equals_local_run_and_keeps_keys_secret(
    tmp_path: Path, api: HfApi, fake_model: FakeLLMServer
) -> None:
    skill = make_skill(tmp_path, cases=5)
    repo = f"local-user/runs-{uuid.uuid4().hex[:8]}"
    grid = ["--model", "fake-a", "--model", "fake-b", "--base-url", fake_model.base_url]
    grid += ["--runs", "2", "--seed", "7", "--price", "fake-a=1/4", "--price", "fake-b=2/8"]
    key = {"UPSKILL_HUB_API_KEY": SENTINEL}
    local = cli("eval", str(skill), *grid, "-o", str(tmp_path / "local"), extra_env=key)
    assert local.returncode == 0, local.stderr
    local_dir = only_run(tmp_path / "local")
    jobs = cli(
        "eval", str(skill), *grid, "-o", str(tmp_path / "jobs"),
        "--executor", "jobs", "--install", "none", "--shard-size", "8",
        "--artifact-repo", repo, "--max-parallel", "3", "--yes", "--pilot", str(local_dir),
        extra_env=key,
    )  # fmt: skip
    assert jobs.returncode == 0, jobs.stderr
    assert "estimated cost: $" in jobs.stderr
    assert "Jobs hardware listing" in jobs.stderr
    assert "estimated API cost: $" in jobs.stderr and f"from {local_dir})" in jobs.stderr
    jobs_dir = only_run(tmp_path / "jobs")
    # 2 models x 5 cases x 2 runs x 2 arms, cut into shards of 2 cases (8 samples) per model
    assert len(outcomes(jobs_dir)) == 40
    assert outcomes(jobs_dir) == outcomes(local_dir)
    plan = json.loads((jobs_dir / "jobs.json").read_text())
    assert [len(s["case_ids"]) for s in plan["shards"]] == [2, 2, 1, 2, 2, 1]
    assert all(s["state"] == "completed" for s in plan["shards"])
    summary = json.loads((jobs_dir / "summary.json").read_text())
    local_summary = json.loads((local_dir / "summary.json").read_text())
    assert summary["complete"] and summary["samples"] == 40
    for ours, theirs in zip(summary["models"], local_summary["models"], strict=True):
        for arm in ("baseline", "with_skill"):
            ours[arm].pop("latency_s"), theirs[arm].pop("latency_s")  # wall time differs
        assert ours == theirs  # lift, intervals, Holm-adjusted verdicts, per-case tables
    for field in ("samples", "expected_samples", "errors", "rejected", "skipped_assertions"):
        assert summary[field] == local_summary[field]
    assert (jobs_dir / "lift.png").is_file() and (jobs_dir / "frontier.png").is_file()
    # the pilot is the same grid run locally: the estimate is what that run cost
    local_cost = sum(
        m[arm]["cost"]["usd"] for m in local_summary["models"] for arm in ("baseline", "with_skill")
    )
    assert plan["api_cost"]["usd"] == pytest.approx(local_cost, rel=0.01)
    assert "fake-a" in jobs.stdout  # the table
    assert "6/6 shards finished (0 running, 0 waiting, 0 failed), 40/40 samples" in jobs.stderr
    published = cli("results", "push", str(jobs_dir), "--repo", f"{repo}-results")
    assert published.returncode == 0, published.stderr
    assert api.list_repo_files(f"{repo}-results", repo_type="dataset")

    # secrets: names only in the specs, never in env, labels, logs, artifacts or run folder
    run_jobs = list(api.list_jobs(labels={"upskill-hub-run": plan["run_id"]}, namespace=NS))
    assert len(run_jobs) == 6
    for job in run_jobs:
        assert set(job.secrets or {}) == {"HF_TOKEN", "UPSKILL_HUB_API_KEY"}
        shown = json.dumps([job.environment, job.labels, job.command, job.secrets])
        assert SENTINEL not in shown and JOBS_TOKEN not in shown
        logs = "\n".join(api.fetch_job_logs(job_id=job.id))
        assert "shard" in logs and SENTINEL not in logs and JOBS_TOKEN not in logs
    snapshot = Path(api.snapshot_download(repo, repo_type="dataset", local_dir=tmp_path / "art"))
    files = [p for p in snapshot.rglob("*") if p.is_file() and ".cache" not in p.parts]
    assert any(p.name == "samples.jsonl" for p in files)
    for path in [*files, *jobs_dir.iterdir()]:
        if path.is_file():
            data = path.read_bytes()
            assert SENTINEL.encode() not in data and JOBS_TOKEN.encode() not in data, path


def test_no_terminal_needs_yes(tmp_path: Path, api: HfApi, fake_model: FakeLLMServer) -> None:
    skill = make_skill(tmp_path, cases=2)
    result = cli(
        "eval", str(skill), "--model", "fake-a", "--base-url", fake_model.base_url,
        "--executor", "jobs", "--flavor", "a100-large", "-o", str(tmp_path / "runs"),
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith("error: --executor jobs submits")
    assert "--yes" in result.stderr and "Traceback" not in result.stderr
    assert "flavor a100-large at $2.50/h" in result.stderr
    assert "estimated API cost: unknown (no prior run of this skill to take tokens from)" in (
        result.stderr
    )
    assert not any((tmp_path / "runs").iterdir())  # nothing submitted, no run folder kept
    assert fake_model.requests == []
    pilot = make_run_folder(tmp_path / "pilots")  # tokens, but the served model has no price
    priced_by_pilot = cli(
        "eval", str(skill), "--model", "fake-a", "--base-url", fake_model.base_url,
        "--executor", "jobs", "-o", str(tmp_path / "runs"), "--pilot", str(pilot),
    )  # fmt: skip
    assert priced_by_pilot.returncode == 2
    assert "estimated API cost: unknown (no price for " in priced_by_pilot.stderr


def test_bad_flags_are_one_line(tmp_path: Path, api: HfApi) -> None:
    skill = make_skill(tmp_path, cases=1)
    for flags, expected in (
        (["--flavor", "h100"], "error: --flavor 'h100': unknown flavor"),
        (["--executor", "cloud"], "error: --executor 'cloud': local or jobs"),
        (["--job-timeout", "soon"], "error: --job-timeout 'soon'"),
        (["--model", "vllm:org/m"], "error: --model vllm:org/m: vLLM needs a GPU --flavor"),
    ):
        args = ["--executor", "jobs", *flags] if flags[0] != "--executor" else flags
        if "--model" not in flags:
            args += ["--model", "openai:gpt-x"]
        result = cli("eval", str(skill), *args, "--yes", "-o", str(tmp_path / "runs"))
        assert result.returncode != 0
        assert result.stderr.strip().splitlines()[-1].startswith(expected), result.stderr
        assert "Traceback" not in result.stderr
    local = cli("eval", str(skill), "--model", "openai:gpt-x", "--artifact-repo", "me/runs")
    assert local.returncode == 2
    assert local.stderr.strip() == "error: --artifact-repo apply only with --executor jobs"
    local = cli("eval", str(skill), "--model", "openai:gpt-x", "--pilot", str(tmp_path))
    assert local.returncode == 2
    assert local.stderr.strip() == (
        f"error: --pilot {tmp_path}: not a finished eval run (no summary.json)"
    )
    pilot = make_run_folder(tmp_path / "pilots")
    local = cli("eval", str(skill), "--model", "openai:gpt-x", "--pilot", str(pilot))
    assert local.stderr.strip() == "error: --pilot apply only with --executor jobs"
    pushed_later = cli(
        "eval", str(skill), "--model", "openai:gpt-x", "--executor", "jobs", "--no-wait",
        "--push-results", "me/evals", "--yes",
    )  # fmt: skip
    assert pushed_later.returncode == 2
    assert pushed_later.stderr.startswith("error: --push-results waits for the run")


def test_terminal_asks_before_submitting(
    tmp_path: Path, api: HfApi, fake_model: FakeLLMServer
) -> None:
    import os
    import pty
    import subprocess
    import sys

    from tests.jobs.conftest import REPO

    skill = make_skill(tmp_path, cases=1)
    env = cli_env()
    argv = [sys.executable, "-m", "upskill_hub", "eval", str(skill), "--model", "fake-a"]
    argv += ["--base-url", fake_model.base_url, "--executor", "jobs", "--install", "none"]
    repo = f"local-user/runs-{uuid.uuid4().hex[:8]}"
    for answer, code in ((b"n\n", 2), (b"y\n", 0)):
        out = tmp_path / f"runs-{answer[:1].decode()}"
        primary, replica = pty.openpty()
        proc = subprocess.Popen(
            [*argv, "-o", str(out), "--artifact-repo", repo],
            stdin=replica, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=REPO,
        )  # fmt: skip
        os.close(replica)
        os.write(primary, answer)
        stdout, stderr = proc.communicate(timeout=120)
        os.close(primary)
        assert proc.returncode == code, stderr
        if code == 2:
            assert (
                stderr.decode().strip().endswith("error: not submitted (answer y, or pass --yes)")
            )
            assert not any(out.iterdir())
        else:
            assert b"fake-a" in stdout and len(outcomes(only_run(out))) == 2
