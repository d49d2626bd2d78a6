"""The offline stand-in's Jobs engine: each Job's command runs as a local subprocess.

An offline stand-in for tests and demos, NOT Hugging Face Jobs: there is no container. The
"image" is recorded and ignored; the command runs with this server's own Python environment
(the folder of its interpreter first on ``PATH``), in a fresh working folder that is also its
``HOME``, with only a few variables of the server's environment (:data:`PASSED_ENV`), the
Job's ``environment``, ``HF_ENDPOINT`` pointing back at this server, and the Job's
``secrets``. Secrets live in the process environment only: they are never written to disk,
never returned by inspect (their names are, with a hidden value) and never logged by the
server. Stages: RUNNING -> COMPLETED (exit 0) / ERROR (other exit, or ``timeoutSeconds``
passed) / CANCELED. Every output line becomes a log event ``{"timestamp", "data"}``.
Scheduled Jobs are stored and can be triggered (``.../run``); no clock fires them here, and
their secrets are kept in memory only (a restarted server runs them without).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets as pysecrets
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from upskill_hub.atomic_io import atomic_write_text
from upskill_hub.hub_server.api_errors import HubApiError

#: Variables of the server's own environment a Job process gets (nothing secret).
PASSED_ENV = ("PATH", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV", "SYSTEMROOT")
TERMINAL = ("COMPLETED", "ERROR", "CANCELED", "DELETED")
#: What inspect shows in place of a secret's value.
HIDDEN = "[hidden]"
#: The longest ``timeoutSeconds`` a Job may ask for (a year; a timer cannot wait much longer).
MAX_TIMEOUT_SECONDS = 366 * 24 * 3600


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def new_id() -> str:
    return pysecrets.token_hex(12)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _string_map(value: Any) -> bool:
    return value is None or (
        isinstance(value, dict) and all(isinstance(v, (str, int, float)) for v in value.values())
    )


def check_spec(spec: dict[str, Any]) -> tuple[list[str], list[str], float | None]:
    """The command, arguments and timeout (seconds, or None) of a job spec; a malformed spec
    is a 400 naming its field, raised before a Job is stored or started."""
    command = spec.get("command")
    if not _strings(command) or not command:
        raise HubApiError(400, "command: a non-empty list of strings is required")
    arguments = spec.get("arguments")
    if arguments is not None and not _strings(arguments):
        raise HubApiError(400, "arguments: a list of strings is required")
    for name in ("environment", "secrets", "labels"):
        if not _string_map(spec.get(name)):
            raise HubApiError(400, f"{name}: an object of strings is required")
    timeout = spec.get("timeoutSeconds")
    if timeout is not None and (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not 0 < timeout <= MAX_TIMEOUT_SECONDS
    ):
        raise HubApiError(
            400,
            f"timeoutSeconds: a number of seconds above 0 and at most {MAX_TIMEOUT_SECONDS} "
            f"is required (got {json.dumps(timeout)[:40]})",
        )
    return list(command), list(arguments or []), float(timeout) if timeout else None


def public_spec(spec: dict[str, Any], secret_names: list[str]) -> dict[str, Any]:
    """A job spec as stored and shown: secrets reduced to their names."""
    shown = {k: v for k, v in spec.items() if k != "secrets"}
    shown["secrets"] = dict.fromkeys(sorted(secret_names), HIDDEN)
    return shown


@dataclass
class _Live:
    """A running Job: its process and what only memory may hold."""

    process: subprocess.Popen[bytes]
    cancelled: bool = False
    timed_out: bool = False


@dataclass
class JobsEngine:
    """Jobs and scheduled Jobs of one server, stored under ``root`` (``<data>/jobs``)."""

    root: Path
    owner: dict[str, str]
    _live: dict[str, _Live] = field(default_factory=dict)
    _schedule_secrets: dict[str, dict[str, str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        (self.root / "runs").mkdir(parents=True, exist_ok=True)
        (self.root / "scheduled").mkdir(parents=True, exist_ok=True)

    # ------------------------------------------------------------------ jobs

    def _dir(self, job_id: str) -> Path:
        if not job_id.isalnum():
            raise HubApiError(404, f"Job not found: {job_id}")
        return self.root / "runs" / job_id

    def _read(self, job_id: str) -> dict[str, Any]:
        path = self._dir(job_id) / "job.json"
        try:
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise HubApiError(404, f"Job not found: {job_id}") from None
        return data

    def _write(self, job: dict[str, Any]) -> None:
        atomic_write_text(self._dir(job["id"]) / "job.json", json.dumps(job, indent=1))

    def info(self, namespace: str, job_id: str) -> dict[str, Any]:
        job = self._read(job_id)
        if job.get("namespace") != namespace:
            raise HubApiError(404, f"Job not found: {job_id}")
        return self._shown(job)

    def _shown(self, job: dict[str, Any]) -> dict[str, Any]:
        shown = {k: v for k, v in job.items() if k not in ("namespace", "timeoutSeconds")}
        start = job.get("startedAt")
        end = job.get("finishedAt")
        if start:
            t0 = _parse(start)
            t1 = _parse(end) if end else datetime.now(UTC)
            shown["durations"] = {
                "schedulingSecs": 0,
                "runningSecs": int((t1 - t0).total_seconds()),
                "totalSecs": int((t1 - _parse(job["createdAt"])).total_seconds()),
            }
        return shown

    def list_jobs(
        self, namespace: str, stages: list[str], labels: list[str]
    ) -> list[dict[str, Any]]:
        wanted = dict(item.partition("=")[::2] for item in labels)
        found = []
        for path in sorted((self.root / "runs").glob("*/job.json")):
            try:
                job = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue
            if job.get("namespace") != namespace:
                continue
            if stages and job["status"]["stage"] not in stages:
                continue
            if any((job.get("labels") or {}).get(k) != v for k, v in wanted.items()):
                continue
            found.append(self._shown(job))
        found.sort(key=lambda j: j["createdAt"], reverse=True)
        return found

    def run(
        self,
        namespace: str,
        spec: dict[str, Any],
        endpoint: str,
        initiator: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Start ``spec`` (a job spec as huggingface_hub sends it) and return its info; a
        malformed spec is refused (400) before anything is stored or started."""
        command, arguments, timeout = check_spec(spec)
        secret_values = {str(k): str(v) for k, v in (spec.get("secrets") or {}).items()}
        env_values = {str(k): str(v) for k, v in (spec.get("environment") or {}).items()}
        job_id = new_id()
        folder = self._dir(job_id)
        (folder / "work").mkdir(parents=True)
        job = public_spec(spec, list(secret_values))
        job.update(
            {
                "id": job_id,
                "namespace": namespace,
                "createdAt": now_iso(),
                "startedAt": now_iso(),
                "finishedAt": None,
                "arguments": arguments,
                "environment": env_values,
                "flavor": spec.get("flavor") or "cpu-basic",
                "owner": self.owner,
                "initiator": initiator or {"type": "user", **self.owner},
                "status": {"stage": "RUNNING", "message": None},
            }
        )
        self._write(job)
        env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
        bin_dir = str(Path(sys.executable).parent)
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", os.defpath)
        env.update({"HOME": str(folder / "work"), "PYTHONUNBUFFERED": "1"})
        env.update(env_values)
        env.update({"HF_ENDPOINT": endpoint, "HF_HUB_DISABLE_XET": "1", "JOB_ID": job_id})
        env.update(secret_values)
        log_path = folder / "log.jsonl"
        self._log(log_path, f"===== Job started at {now_iso()} =====")
        try:
            process = subprocess.Popen(
                [*command, *job["arguments"]],
                cwd=folder / "work",
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            self._log(log_path, f"cannot start {command[0]}: {exc.strerror}")
            self._finish(job_id, "ERROR", f"cannot start {command[0]}: {exc.strerror}")
            return self._shown(self._read(job_id))
        live = _Live(process)
        with self._lock:
            self._live[job_id] = live
        threading.Thread(
            target=self._pump,
            args=(job_id, live, log_path, timeout),
            name=f"job-{job_id}",
            daemon=True,
        ).start()
        return self._shown(job)

    def _log(self, path: Path, text: str) -> None:
        line = json.dumps({"timestamp": now_iso(), "data": text}) + "\n"
        with path.open("a", encoding="utf-8") as handle:
            handle.write(line)

    def _pump(self, job_id: str, live: _Live, log_path: Path, timeout: float | None) -> None:
        timer = None
        if timeout:
            timer = threading.Timer(timeout, self._time_out, args=(live,))
            timer.daemon = True
            timer.start()
        assert live.process.stdout is not None
        for raw in live.process.stdout:
            self._log(log_path, raw.decode("utf-8", "replace").rstrip("\r\n"))
        code = live.process.wait()
        if timer is not None:
            timer.cancel()
        if live.cancelled:
            self._finish(job_id, "CANCELED", None)
        elif live.timed_out:
            self._finish(job_id, "ERROR", f"Job timed out after {timeout:g}s")
        elif code == 0:
            self._finish(job_id, "COMPLETED", None)
        else:
            self._finish(job_id, "ERROR", f"exit code {code}")
        with self._lock:
            self._live.pop(job_id, None)

    def _time_out(self, live: _Live) -> None:
        live.timed_out = True
        _kill(live.process)

    def _finish(self, job_id: str, stage: str, message: str | None) -> None:
        job = self._read(job_id)
        job["status"] = {"stage": stage, "message": message}
        job["finishedAt"] = now_iso()
        self._write(job)

    def cancel(self, namespace: str, job_id: str) -> None:
        self.info(namespace, job_id)
        with self._lock:
            live = self._live.get(job_id)
        if live is not None:
            live.cancelled = True
            _kill(live.process)

    def running(self, job_id: str) -> bool:
        with self._lock:
            return job_id in self._live

    def log_path(self, namespace: str, job_id: str) -> Path:
        self.info(namespace, job_id)
        return self._dir(job_id) / "log.jsonl"

    def close(self) -> None:
        """Stop every running Job (the server is going away)."""
        with self._lock:
            lives = list(self._live.values())
        for live in lives:
            live.cancelled = True
            _kill(live.process)

    # ------------------------------------------------------------ scheduled

    def _scheduled_path(self, scheduled_id: str) -> Path:
        if not scheduled_id.isalnum():
            raise HubApiError(404, f"Scheduled job not found: {scheduled_id}")
        return self.root / "scheduled" / f"{scheduled_id}.json"

    def create_scheduled(self, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
        spec = body.get("jobSpec")
        schedule = body.get("schedule")
        if not isinstance(spec, dict) or not isinstance(schedule, str) or not schedule:
            raise HubApiError(400, "jobSpec (object) and schedule (string) are required")
        check_spec(spec)
        scheduled_id = new_id()
        secret_values = {str(k): str(v) for k, v in (spec.get("secrets") or {}).items()}
        self._schedule_secrets[scheduled_id] = secret_values
        item = {
            "id": scheduled_id,
            "namespace": namespace,
            "createdAt": now_iso(),
            "jobSpec": public_spec(spec, list(secret_values)),
            "schedule": schedule,
            "suspend": bool(body.get("suspend", False)),
            "concurrency": bool(body.get("concurrency", False)),
            "status": {"lastJob": None, "nextJobRunAt": None},
            "owner": self.owner,
        }
        atomic_write_text(self._scheduled_path(scheduled_id), json.dumps(item, indent=1))
        return _shown_scheduled(item)

    def _read_scheduled(self, namespace: str, scheduled_id: str) -> dict[str, Any]:
        try:
            text = self._scheduled_path(scheduled_id).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise HubApiError(404, f"Scheduled job not found: {scheduled_id}") from None
        item: dict[str, Any] = json.loads(text)
        if item.get("namespace") != namespace:
            raise HubApiError(404, f"Scheduled job not found: {scheduled_id}")
        return item

    def scheduled(self, namespace: str, scheduled_id: str) -> dict[str, Any]:
        return _shown_scheduled(self._read_scheduled(namespace, scheduled_id))

    def list_scheduled(self, namespace: str, label: str) -> list[dict[str, Any]]:
        key, _, value = label.partition("=")
        found = []
        for path in sorted((self.root / "scheduled").glob("*.json")):
            item = json.loads(path.read_text(encoding="utf-8"))
            if item.get("namespace") != namespace:
                continue
            if label and (item["jobSpec"].get("labels") or {}).get(key) != value:
                continue
            found.append(_shown_scheduled(item))
        return found

    def delete_scheduled(self, namespace: str, scheduled_id: str) -> None:
        self._read_scheduled(namespace, scheduled_id)
        self._scheduled_path(scheduled_id).unlink(missing_ok=True)
        self._schedule_secrets.pop(scheduled_id, None)

    def suspend_scheduled(self, namespace: str, scheduled_id: str, suspend: bool) -> None:
        item = self._read_scheduled(namespace, scheduled_id)
        item["suspend"] = suspend
        atomic_write_text(self._scheduled_path(scheduled_id), json.dumps(item, indent=1))

    def trigger_scheduled(self, namespace: str, scheduled_id: str, endpoint: str) -> dict[str, Any]:
        """Run a scheduled Job now (what the Hub's clock would do at its next time)."""
        item = self._read_scheduled(namespace, scheduled_id)
        spec = dict(item["jobSpec"])
        spec["secrets"] = dict(self._schedule_secrets.get(scheduled_id, {}))
        initiator = {"type": "scheduled-job", "id": scheduled_id}
        job = self.run(namespace, spec, endpoint, initiator=initiator)
        item["status"]["lastJob"] = {"id": job["id"], "at": job["createdAt"]}
        atomic_write_text(self._scheduled_path(scheduled_id), json.dumps(item, indent=1))
        return job


def _shown_scheduled(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k != "namespace"}


def _parse(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Stop a Job's whole process group: SIGTERM, then SIGKILL after 5 s."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + 5
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
