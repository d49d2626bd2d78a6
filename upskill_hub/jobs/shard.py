"""Inside a Job: run one shard with the ordinary runner and commit its samples as it goes.

:func:`run_shard` reads the run (run.json, tests.json, plan.json, the skill) from the artifact
repo, keeps the shard's model and cases, and calls :func:`upskill_hub.evaluation.evaluate` with
a run folder of its own: the same runner, retries, grading and redaction as a local eval. If the
artifact repo already holds part of this shard (a crashed or cancelled Job), the folder is
restored and the runner resumes it (only missing or errored samples run). A background thread
commits ``samples.jsonl`` and ``status.json`` every ``UPSKILL_HUB_JOBS_COMMIT_EVERY`` seconds
while samples arrive, and once more at the end; SIGTERM (a cancelled or timed-out Job) cancels
the runner, which keeps every finished sample, and the last commit saves them.

Keys come from this process's environment (the Job's secrets): the runner's redactor keeps
them out of samples; nothing here prints or commits them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from upskill_hub.errors import HubError, UsageError
from upskill_hub.jobs import artifacts
from upskill_hub.jobs.keys import API_KEY_ENV
from upskill_hub.jobs.plan import JobsPlan

if TYPE_CHECKING:
    from upskill_hub.evaluation.eval_result import EvalResult, Progress
    from upskill_hub.hub.client import Hub

__all__ = ["STATUS_FILE", "run_shard"]

STATUS_FILE = "status.json"
_SHARD_FILES = ("run.json", "tests.json", "samples.jsonl")


class _Committer:
    """Commits the shard folder's samples to the artifact repo every ``every_s`` seconds."""

    def __init__(self, hub: Hub, repo: str, prefix: str, folder: Path, every_s: float) -> None:
        self.hub, self.repo, self.prefix, self.folder = hub, repo, prefix, folder
        self.every_s = every_s
        self.progress: Progress | None = None
        self.committed_size = -1
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._loop, name="shard-commits", daemon=True)

    def _loop(self) -> None:
        while not self.stop.wait(self.every_s):
            try:
                self.commit("running")
            except HubError as exc:  # the next commit (or the last one) carries these samples
                print(f"warning: samples not committed yet: {exc}", file=sys.stderr, flush=True)

    def commit(self, state: str, force: bool = False) -> None:
        with self.lock:
            samples = self.folder / "samples.jsonl"
            size = samples.stat().st_size if samples.exists() else 0
            if size == self.committed_size and not force:
                return
            p = self.progress
            status = {
                "state": state,
                "done": p.done if p else 0,
                "total": p.total if p else 0,
                "errors": p.errors if p else 0,
            }
            files: dict[str, bytes | Path] = {}
            for name in _SHARD_FILES:
                path = self.folder / name
                if path.exists():
                    # a snapshot: the runner keeps appending while the upload runs; a line
                    # still being written is left for the next commit
                    data = path.read_bytes()
                    if name == "samples.jsonl":
                        data = data[: data.rfind(b"\n") + 1]
                    files[f"{self.prefix}/{name}"] = data
            files[f"{self.prefix}/{STATUS_FILE}"] = json.dumps(status).encode("utf-8")
            artifacts.upload(self.hub, self.repo, files, f"shard {self.prefix}: {state}")
            self.committed_size = size


def _restore(hub: Hub, repo: str, prefix: str, folder: Path) -> bool:
    """Bring back the shard's earlier folder from the artifact repo; True when there was one."""
    got = {}
    for name in _SHARD_FILES:
        local = artifacts.download(hub, repo, f"{prefix}/{name}", folder / ".download")
        if local is not None:
            got[name] = local
    if "run.json" not in got or "tests.json" not in got:
        return False
    for name, local in got.items():
        shutil.move(str(local), folder / name)
    return True


def run_shard(
    repo: str, run_id: str, shard_id: str, workdir: Path, *, serve_vllm: bool = False
) -> EvalResult:
    """Run shard ``shard_id`` of ``run_id``; see the module docstring."""
    from upskill_hub.evaluation.run.folder import RunFolder
    from upskill_hub.evaluation.run.resume import config_from_run
    from upskill_hub.evaluation.runner import evaluate
    from upskill_hub.hub.client import Hub
    from upskill_hub.skill.model import load_skill

    hub = Hub()
    prefix = artifacts.run_prefix(run_id)
    parent = Path(workdir) / "run"
    for name in ("run.json", "tests.json", "plan.json"):
        if artifacts.download(hub, repo, f"{prefix}/{name}", parent / ".download") is None:
            raise UsageError(f"{repo}: run {run_id} has no {name}")
        shutil.move(str(parent / ".download" / prefix / name), parent / name)
    skill_dir = Path(workdir) / "skill"
    artifacts.hub_call(
        hub,
        "download the skill",
        lambda: hub.api.snapshot_download(
            repo, repo_type="dataset", allow_patterns=[f"{prefix}/skill/**"], local_dir=skill_dir
        ),
        repo,
    )
    plan = JobsPlan.from_dict(json.loads((parent / "plan.json").read_text(encoding="utf-8")))
    shard = plan.shard(shard_id)
    config, cases = config_from_run(parent)
    wanted = set(shard.case_ids)
    cases = [c for c in cases if c.id in wanted]
    model = plan.model_ids[shard.model] if serve_vllm else shard.model
    base_url = config.base_url
    server = None
    if serve_vllm:
        from upskill_hub.jobs.vllm import start_vllm

        server, base_url = start_vllm(model)
    # the run's prices, of this shard's model only (a price for a model a run does not
    # evaluate is refused); the merge prices the whole run from run.json again
    ids = {model, plan.model_ids.get(shard.model, shard.model)}
    config = replace(
        config,
        models=[model],
        base_url=base_url,
        api_key=os.environ.get(API_KEY_ENV) or None,
        prices={m: p for m, p in config.prices.items() if m in ids},
    )
    skill = load_skill(skill_dir / prefix / "skill", with_tests=False)
    info = RunFolder(parent).read_info().skill
    shard_prefix = artifacts.shard_prefix(run_id, shard_id)
    folder = Path(workdir) / "shard"
    folder.mkdir(parents=True, exist_ok=True)
    resumed = _restore(hub, repo, shard_prefix, folder)
    shutil.rmtree(folder / ".download", ignore_errors=True)
    every = float(os.environ.get("UPSKILL_HUB_JOBS_COMMIT_EVERY") or plan.commit_every_s)
    committer = _Committer(hub, repo, shard_prefix, folder, every)
    cancel = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: cancel.set())
    committer.thread.start()

    def on_sample(_sample: object, progress: Progress) -> None:
        committer.progress = progress

    try:
        result = evaluate(
            skill,
            cases,
            config,
            run_dir=None if resumed else folder,
            resume_from=folder if resumed else None,
            on_sample=on_sample,
            cancel=cancel,
            repo_id=info.repo_id,
            revision=info.revision,
            write_chart=False,
        )
    finally:
        committer.stop.set()
        committer.thread.join()
        signal.signal(signal.SIGTERM, previous)
        if server is not None:
            server.terminate()
    committer.progress = _final_progress(result)
    committer.commit("cancelled" if result.cancelled else "complete", force=True)
    return result


def _final_progress(result: EvalResult) -> Progress:
    from upskill_hub.evaluation.eval_result import Progress

    errors = sum(1 for s in result.samples if s.outcome == "error")
    passed = sum(1 for s in result.samples if s.outcome == "pass")
    return Progress(
        done=len(result.samples),
        total=result.expected,
        passed=passed,
        failed=len(result.samples) - passed - errors,
        errors=errors,
        resumed=0,
        elapsed_s=0.0,
    )
