"""The grid of an eval on Jobs (model x case x run x arm) cut into shards, and its state.

A shard is one model and a run of consecutive cases, with every run and arm of them: the unit
one Job evaluates with the ordinary runner (``run_eval`` with the shard's model and cases), so a
shard's samples are exactly the local run's samples for those keys. Shards follow the local
run's storage order (model, then case), so the merged ``samples.jsonl`` reads like a local one.

:class:`JobsPlan` is saved as ``jobs.json`` in the local run folder (atomically) and as
``plan.json`` in the artifact repo; it holds no secret (model keys travel as Job secrets only).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from upskill_hub.atomic_io import atomic_write_text
from upskill_hub.errors import Param, UsageError
from upskill_hub.evaluation.types import SampleKey

__all__ = ["PLAN_FILE", "JobsPlan", "Shard", "make_shards", "read_plan"]

PLAN_FILE = "jobs.json"
PLAN_FORMAT = 1
#: Samples per shard when none is asked for.
DEFAULT_SHARD_SAMPLES = 2000

#: Shard states kept by the client: submitted Jobs run; finished ones are merged.
ShardState = str  # "pending" | "running" | "completed" | "error" | "canceled"


@dataclass
class Shard:
    """One Job's part of the grid."""

    id: str
    model: str
    case_ids: list[str]
    samples: int
    job_id: str | None = None
    state: ShardState = "pending"
    message: str | None = None
    attempts: int = 0
    #: Samples merged without error (set by the merge; a resume re-runs shards short of it).
    done: int = 0

    def keys(self, model_id: str, runs: int, arms: Sequence[str]) -> Iterator[SampleKey]:
        for case_id in self.case_ids:
            for run in range(1, runs + 1):
                for arm in arms:
                    yield (model_id, case_id, run, arm)


def make_shards(
    models: Sequence[str],
    case_ids: Sequence[str],
    runs: int,
    arms: int,
    shard_samples: int = DEFAULT_SHARD_SAMPLES,
) -> list[Shard]:
    """Cut the grid into shards of about ``shard_samples`` samples (at least one case each)."""
    if shard_samples < 1:
        raise UsageError(Param("shard_samples"), f" must be at least 1 (got {shard_samples})")
    per_case = runs * arms
    cases_per_shard = max(1, shard_samples // per_case)
    shards: list[Shard] = []
    for model in models:
        for start in range(0, len(case_ids), cases_per_shard):
            chunk = list(case_ids[start : start + cases_per_shard])
            shards.append(Shard(f"{len(shards):05d}", model, chunk, len(chunk) * per_case))
    return shards


@dataclass
class JobsPlan:
    """A run on Jobs: where its artifacts go, how its Jobs run, and each shard's state."""

    run_id: str
    artifact_repo: str
    namespace: str
    flavor: str
    max_parallel: int
    timeout: str
    image: str
    install: str
    models: list[str]
    model_ids: dict[str, str]
    runs: int
    arms: list[str]
    shards: list[Shard] = field(default_factory=list)
    secret_names: dict[str, list[str]] = field(default_factory=dict)
    commit_every_s: float = 30.0
    wheel: str | None = None
    #: The API-cost estimate made with the plan (``ApiCostEstimate.to_dict()`` of
    #: :mod:`upskill_hub.jobs.api_cost`; ``usd`` null when unknown).
    api_cost: dict[str, Any] | None = None
    format: int = PLAN_FORMAT

    @property
    def expected(self) -> int:
        return sum(s.samples for s in self.shards)

    def shard(self, shard_id: str) -> Shard:
        for shard in self.shards:
            if shard.id == shard_id:
                return shard
        raise UsageError(f"shard {shard_id!r}: not in run {self.run_id}")

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for shard in self.shards:
            counts[shard.state] = counts.get(shard.state, 0) + 1
        return counts

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JobsPlan:
        shards = [Shard(**s) for s in data.get("shards", [])]
        fields = {k: v for k, v in data.items() if k != "shards"}
        return cls(**fields, shards=shards)

    def save(self, run_dir: Path) -> None:
        atomic_write_text(Path(run_dir) / PLAN_FILE, json.dumps(self.to_dict(), indent=1) + "\n")


def read_plan(run_dir: Path) -> JobsPlan:
    """The plan of a run folder made by ``eval --executor jobs``; one-line errors otherwise."""
    path = Path(run_dir) / PLAN_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{run_dir}: not a run on Jobs (no {PLAN_FILE})") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: unreadable ({type(exc).__name__})") from None
    if not isinstance(data, dict) or data.get("format") != PLAN_FORMAT:
        raise UsageError(f"{path}: unknown format")
    try:
        return JobsPlan.from_dict(data)
    except TypeError as exc:
        raise UsageError(f"{path}: malformed ({exc})") from None
