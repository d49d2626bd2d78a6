"""Keep a run on Jobs moving: submit shards (at most ``max_parallel`` Jobs at once), follow
their stages, report progress over shards and samples, cancel, and pick what a resume re-runs.

The plan (``jobs.json`` in the run folder) is saved after every change, so a detached run
(``--no-wait``) is picked up again by ``jobs status|collect RUN`` from any shell.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from upskill_hub.errors import HubError, Param, UsageError
from upskill_hub.jobs import artifacts
from upskill_hub.jobs.plan import JobsPlan
from upskill_hub.jobs.submit import submit_shard

if TYPE_CHECKING:
    from upskill_hub.hub.client import Hub

__all__ = [
    "RunProgress",
    "cancel_run",
    "mark_for_resume",
    "refresh",
    "submit_ready",
    "wait_run",
]

_STAGES = {"COMPLETED": "completed", "ERROR": "error", "CANCELED": "canceled", "DELETED": "error"}
FINISHED = ("completed", "error", "canceled")


@dataclass(frozen=True)
class RunProgress:
    """Where a run on Jobs stands."""

    shards: int
    finished: int
    running: int
    pending: int
    failed: int
    samples: int
    samples_done: int

    def line(self) -> str:
        return (
            f"{self.finished}/{self.shards} shards finished ({self.running} running, "
            f"{self.pending} waiting, {self.failed} failed), "
            f"{self.samples_done}/{self.samples} samples"
        )


def _hub(hub: Hub | None) -> Hub:
    if hub is not None:
        return hub
    from upskill_hub.hub.client import Hub

    return Hub()


def refresh(plan: JobsPlan, hub: Hub | None = None) -> bool:
    """Update running shards from their Jobs' stages; True when one changed."""
    hub = _hub(hub)
    changed = False
    for shard in plan.shards:
        if shard.state != "running" or shard.job_id is None:
            continue
        job_id = shard.job_id
        info = hub.inspect_job(job_id, plan.namespace)
        state = _STAGES.get(str(info.status.stage))
        if state is not None:
            shard.state = state
            shard.message = info.status.message
            changed = True
    return changed


def submit_ready(
    plan: JobsPlan, run_dir: Path, secrets: dict[str, str], hub: Hub | None = None
) -> int:
    """Submit pending shards while fewer than ``max_parallel`` run; how many were submitted."""
    hub = _hub(hub)
    running = sum(1 for s in plan.shards if s.state == "running")
    submitted = 0
    for shard in plan.shards:
        if running >= plan.max_parallel:
            break
        if shard.state != "pending":
            continue
        submit_shard(plan, shard, secrets, hub)
        plan.save(run_dir)
        running += 1
        submitted += 1
    return submitted


def _shard_done(plan: JobsPlan, shard_id: str, hub: Hub) -> int:
    """Finished samples a shard reported; 0 when unknown (progress only: a file that changed
    under the download, as a running shard commits every few seconds, is read next time)."""
    path = f"{artifacts.shard_prefix(plan.run_id, shard_id)}/status.json"
    try:
        status = artifacts.read_json(hub, plan.artifact_repo, path)
    except (HubError, ValueError):
        return 0
    return int(status.get("done", 0)) if isinstance(status, dict) else 0


def progress(plan: JobsPlan, hub: Hub | None = None, *, samples: bool = True) -> RunProgress:
    """Shard counts, and (``samples``) finished samples from the running shards' status."""
    hub = _hub(hub)
    done = 0
    for shard in plan.shards:
        if shard.state == "completed":
            done += shard.samples
        elif samples and shard.state in ("running", "error", "canceled"):
            done += min(shard.samples, _shard_done(plan, shard.id, hub))
    return RunProgress(
        shards=len(plan.shards),
        finished=sum(1 for s in plan.shards if s.state in FINISHED),
        running=sum(1 for s in plan.shards if s.state == "running"),
        pending=sum(1 for s in plan.shards if s.state == "pending"),
        failed=sum(1 for s in plan.shards if s.state in ("error", "canceled")),
        samples=plan.expected,
        samples_done=done,
    )


def wait_run(
    plan: JobsPlan,
    run_dir: Path,
    secrets: dict[str, str],
    *,
    hub: Hub | None = None,
    on_progress: Callable[[RunProgress], None] | None = None,
    poll_s: float = 5.0,
    timeout_s: float | None = None,
) -> RunProgress:
    """Submit and follow shards until every one has finished (or ``timeout_s`` passed)."""
    hub = _hub(hub)
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        if refresh(plan, hub):
            plan.save(run_dir)
        submit_ready(plan, run_dir, secrets, hub)
        state = progress(plan, hub, samples=on_progress is not None)
        if on_progress is not None:
            on_progress(state)
        if state.running == 0 and state.pending == 0:
            return state
        if deadline is not None and time.monotonic() > deadline:
            raise UsageError(
                f"{run_dir}: still running after {timeout_s:g}s; "
                f"`upskill-hub jobs collect {run_dir}` waits again"
            )
        time.sleep(poll_s)


def cancel_run(plan: JobsPlan, run_dir: Path, hub: Hub | None = None) -> int:
    """Cancel the run's running Jobs and its shards not yet submitted; how many Jobs."""
    hub = _hub(hub)
    refresh(plan, hub)  # a Job that already ended is not cancelled again
    cancelled = 0
    for shard in plan.shards:
        if shard.state == "running" and shard.job_id:
            job_id = shard.job_id
            hub.cancel_job(job_id, plan.namespace)
            cancelled += 1
        elif shard.state == "pending":
            shard.state = "canceled"
            shard.message = "cancelled before it was submitted"
    plan.save(run_dir)
    return cancelled


def mark_for_resume(plan: JobsPlan, run_dir: Path) -> int:
    """Make every shard with missing or errored samples pending again; how many."""
    if any(s.state == "running" for s in plan.shards):
        raise UsageError(
            Param("resume_from"),
            f" {run_dir}: shards are still running "
            f"(`upskill-hub jobs collect {run_dir}` waits for them)",
        )
    again = 0
    for shard in plan.shards:
        if shard.done < shard.samples:
            shard.state = "pending"
            shard.message = None
            again += 1
    plan.save(run_dir)
    return again
