"""The offline stand-in's Jobs API, driven by huggingface_hub's own job functions over HTTP."""

from __future__ import annotations

import time
from typing import Any

import pytest
from huggingface_hub import HfApi
from huggingface_hub.errors import HfHubHTTPError

SECRET = "sk-test-secret-0123456789abcdef"

#: huggingface_hub 2.4's list_jobs asks whoami of the default endpoint, not the api's own.
NS = "local-user"


def _wait(api: HfApi, job_id: str) -> str:
    return str(api.wait_for_job(job_id, timeout=60, poll_interval=0.1).status.stage)


def test_run_inspect_logs_and_secrets(api: HfApi, jobs_hub: Any) -> None:
    script = (
        "import os; print('hello', os.environ['GREETING']); "
        "print('has key', len(os.environ['MY_KEY'])); print('home', os.environ['HOME'])"
    )
    job = api.run_job(
        image="python:3.12",
        command=["python", "-c", script],
        env={"GREETING": "world"},
        secrets={"MY_KEY": SECRET},
        labels={"suite": "jobs-api"},
    )
    assert job.status.stage == "RUNNING"
    assert job.owner.name == "local-user"
    assert _wait(api, job.id) == "COMPLETED"
    info = api.inspect_job(job_id=job.id)
    assert info.environment == {"GREETING": "world"}
    assert info.secrets is not None and list(info.secrets) == ["MY_KEY"]
    assert SECRET not in repr(info)
    assert info.finished_at is not None and info.labels and info.labels["suite"] == "jobs-api"
    logs = list(api.fetch_job_logs(job_id=job.id))
    assert logs[0] == "hello world"
    assert logs[1] == f"has key {len(SECRET)}"
    assert not any("Job started" in line for line in logs)
    assert list(api.fetch_job_logs(job_id=job.id, tail=1))[-1].startswith("home ")
    assert job.id in [j.id for j in api.list_jobs(labels={"suite": "jobs-api"}, namespace=NS)]
    assert job.id not in [j.id for j in api.list_jobs(status="RUNNING", namespace=NS)]
    stored = [p.read_bytes() for p in (jobs_hub.data_dir / "jobs").rglob("*") if p.is_file()]
    assert stored and not any(SECRET.encode() in data for data in stored)


def test_follow_logs_while_running_and_failure(api: HfApi) -> None:
    script = (
        "import time,sys\nfor i in range(3):\n print(i, flush=True); time.sleep(0.2)\nsys.exit(3)"
    )
    job = api.run_job(image="python:3.12", command=["python", "-c", script])
    assert list(api.fetch_job_logs(job_id=job.id, follow=True)) == ["0", "1", "2"]
    info = api.wait_for_job(job.id, timeout=30, poll_interval=0.1)
    assert info.status.stage == "ERROR"
    assert info.status.message == "exit code 3"


def test_cancel_and_timeout(api: HfApi) -> None:
    sleeper = ["python", "-c", "import time; print('up', flush=True); time.sleep(60)"]
    job = api.run_job(image="python:3.12", command=sleeper)
    time.sleep(0.3)
    api.cancel_job(job_id=job.id)
    assert _wait(api, job.id) == "CANCELED"
    slow = api.run_job(image="python:3.12", command=sleeper, timeout=1)
    info = api.wait_for_job(slow.id, timeout=30, poll_interval=0.1)
    assert info.status.stage == "ERROR" and "timed out" in (info.status.message or "")


def test_unknown_job_and_no_token(api: HfApi) -> None:
    with pytest.raises(HfHubHTTPError) as caught:
        api.inspect_job(job_id="0123456789abcdef01234567", namespace="local-user")
    assert caught.value.response.status_code == 404
    with pytest.raises(HfHubHTTPError) as anon:
        api.run_job(image="x", command=["true"], namespace="local-user", token=False)
    assert anon.value.response.status_code == 401


def test_hardware_prices(api: HfApi) -> None:
    listing = {h.name: h for h in api.list_jobs_hardware()}
    assert listing["cpu-basic"].unit_cost_micro_usd == 167
    assert listing["a100-large"].accelerator is not None
    assert round(listing["h200"].unit_cost_usd * 60, 2) == 5.0


def test_scheduled_jobs(api: HfApi) -> None:
    made = api.create_scheduled_job(
        image="python:3.12",
        command=["python", "-c", "import os; print(len(os.environ['TOKEN_X']))"],
        schedule="@weekly",
        secrets={"TOKEN_X": SECRET},
        labels={"suite": "sched"},
    )
    assert made.schedule == "@weekly" and made.suspend is False
    assert made.job_spec.secrets == {"TOKEN_X": "[hidden]"}
    assert [s.id for s in api.list_scheduled_jobs(labels={"suite": "sched"})] == [made.id]
    api.suspend_scheduled_job(scheduled_job_id=made.id)
    assert api.inspect_scheduled_job(scheduled_job_id=made.id).suspend is True
    api.resume_scheduled_job(scheduled_job_id=made.id)
    ran = api.trigger_scheduled_job(scheduled_job_id=made.id)
    assert _wait(api, ran.id) == "COMPLETED"
    assert list(api.fetch_job_logs(job_id=ran.id)) == [str(len(SECRET))]
    assert api.inspect_scheduled_job(scheduled_job_id=made.id).status.last_job.id == ran.id
    api.delete_scheduled_job(scheduled_job_id=made.id)
    assert made.id not in [s.id for s in api.list_scheduled_jobs()]
