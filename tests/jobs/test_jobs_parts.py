"""The parts of runs on Jobs that need no Job: cost, shards, secrets, commands, errors; and a
scheduled eval created, listed, fired and deleted through the real job functions."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from huggingface_hub import HfApi

from tests.jobs.conftest import SENTINEL, cli, make_skill
from tests.support.llm_servers import FakeLLMServer
from upskill_hub.errors import UsageError
from upskill_hub.jobs.cost import estimate_cost, flavor_prices
from upskill_hub.jobs.keys import secret_names, secret_values
from upskill_hub.jobs.plan import JobsPlan, make_shards
from upskill_hub.jobs.submit import job_command
from upskill_hub.jobs.vllm import vllm_command


def test_cost_is_price_per_hour_times_estimated_minutes() -> None:
    est = estimate_cost([400, 400, 400], "a100-large", max_parallel=2, concurrency=4)
    # each shard: 2 min start-up + 400 samples x 4 s / 4 in flight = 8.67 min
    assert round(est.minutes_per_shard, 2) == 8.67
    assert round(est.job_minutes, 1) == 26.0
    assert est.usd == 1.08  # 26 min at $2.50/h
    assert round(est.wall_minutes, 1) == 17.3  # two waves of at most 2 Jobs
    assert "estimated cost: $1.08" in est.lines()
    listed = flavor_prices([("cpu-basic", 0.000167)])
    assert listed["cpu-basic"] == pytest.approx(0.01002) and listed["h200"] == 5.0
    with pytest.raises(UsageError, match=r"^flavor 'h100': unknown flavor") as refused:
        estimate_cost([1], "h100", max_parallel=1, concurrency=1)
    assert refused.value.param == "flavor"


def test_shards_cover_the_grid_once() -> None:
    shards = make_shards(["m1", "m2"], [f"c{i}" for i in range(200)], runs=10, arms=2)
    assert len(shards) == 4 and all(s.samples == 2000 for s in shards)
    keys = [k for s in shards for k in s.keys(s.model, 10, ["baseline", "with_skill"])]
    assert len(keys) == len(set(keys)) == 2 * 200 * 10 * 2
    assert make_shards(["m"], ["a", "b", "c"], runs=5, arms=2, shard_samples=1)[0].case_ids == ["a"]


def test_only_the_shard_models_keys_travel() -> None:
    assert secret_names("openai:gpt-x", None, None) == ["HF_TOKEN", "OPENAI_API_KEY"]
    assert secret_names("haiku", "openai:gpt-x", None) == [
        "ANTHROPIC_API_KEY",
        "HF_TOKEN",
        "OPENAI_API_KEY",
    ]
    assert secret_names("vllm:org/m", None, None) == ["HF_TOKEN"]
    assert secret_names("fake", None, "http://127.0.0.1:9/v1") == [
        "HF_TOKEN",
        "UPSKILL_HUB_API_KEY",
    ]
    env = {"OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "sk-2"}
    assert secret_values(["HF_TOKEN", "OPENAI_API_KEY"], "hf_x", env) == {
        "HF_TOKEN": "hf_x",
        "OPENAI_API_KEY": "sk-1",
    }
    with pytest.raises(UsageError, match="OPENAI_API_KEY is not set"):
        secret_values(["OPENAI_API_KEY"], "hf_x", {})


def _plan(model: str, install: str) -> JobsPlan:
    shards = make_shards([model], ["c1"], runs=1, arms=2)
    return JobsPlan(
        run_id="r1", artifact_repo="me/runs", namespace="me", flavor="l4x1", max_parallel=1,
        timeout="2h", image="img", install=install, models=[model],
        model_ids={model: model.split(":", 1)[-1]}, runs=1, arms=["baseline", "with_skill"],
        shards=shards, wheel="upskill_hub-0.1.0-py3-none-any.whl",
    )  # fmt: skip


def test_job_commands() -> None:
    plan = _plan("vllm:org/m", "none")
    assert job_command(plan, plan.shards[0]) == [
        *["upskill-hub", "jobs", "run-shard", "me/runs", "r1", "00000", "--serve-vllm"]
    ]
    assert vllm_command("org/m") == [
        *["vllm", "serve", "org/m", "--host", "127.0.0.1", "--port", "8000"],
        "--enable-prompt-tokens-details",
    ]
    plan = _plan("openai:gpt-x", "pypi")
    (shell, flag, script) = job_command(plan, plan.shards[0])
    assert (shell, flag) == ("bash", "-c")
    assert script.startswith("pip install -q upskill-hub==")
    assert script.endswith("exec upskill-hub jobs run-shard me/runs r1 00000")
    plan = _plan("openai:gpt-x", "wheel")
    script = job_command(plan, plan.shards[0])[2]
    assert "hf download me/runs runs/r1/wheel/upskill_hub-0.1.0-py3-none-any.whl" in script


def test_vllm_without_jobs_or_vllm_is_one_line(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, cases=1)
    result = cli("eval", str(skill), "--model", "vllm:org/m", "-o", str(tmp_path / "runs"))
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: --model vllm:org/m: vLLM is not installed here (pip install vllm, on a machine "
        "with a GPU), or run it on Hugging Face Jobs: --executor jobs --flavor l4x1"
    )


@pytest.mark.slow
def test_scheduled_eval_runs_and_pushes(
    tmp_path: Path, api: HfApi, fake_model: FakeLLMServer
) -> None:
    name = f"canary-{uuid.uuid4().hex[:8]}"
    skill = make_skill(tmp_path, cases=2)
    skill_repo, results = f"local-user/{name}", f"local-user/{name}-evals"
    pushed = cli("push", str(skill), "--repo", skill_repo)
    assert pushed.returncode == 0, pushed.stderr
    env = {"UPSKILL_HUB_API_KEY": SENTINEL}
    made = cli(
        "eval", skill_repo, "--model", "fake-a", "--base-url", fake_model.base_url,
        "--executor", "jobs", "--schedule", "@weekly", "--push-results", results,
        "--install", "none", "--yes", extra_env=env,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    scheduled_id = made.stdout.split()[2].rstrip(":")
    listed = cli("jobs", "schedules")
    assert f"{scheduled_id}  @weekly  {skill_repo} -> {results}" in listed.stdout
    spec = api.inspect_scheduled_job(scheduled_job_id=scheduled_id).job_spec
    assert SENTINEL not in json.dumps([spec.environment, spec.command, spec.secrets, spec.labels])
    job = api.trigger_scheduled_job(scheduled_job_id=scheduled_id)  # what the clock does
    done = api.wait_for_job(job.id, timeout=120, poll_interval=0.2)
    logs = "\n".join(api.fetch_job_logs(job_id=job.id))
    assert done.status.stage == "COMPLETED", logs
    assert SENTINEL not in logs
    files = api.list_repo_files(results, repo_type="dataset")
    assert any(f.endswith(".parquet") for f in files)
    deleted = cli("jobs", "schedules", "--delete", scheduled_id)
    assert deleted.returncode == 0
    assert scheduled_id not in cli("jobs", "schedules").stdout
    local = cli(
        "eval", str(skill), "--model", "fake-a", "--base-url", fake_model.base_url,
        "--executor", "jobs", "--schedule", "@weekly", "--push-results", results, "--yes",
    )  # fmt: skip
    assert local.returncode == 2
    assert "--schedule: " in local.stderr and "local folder" in local.stderr
