"""The run folder's two JSON records as dataclasses: run.json (:class:`RunInfo`) and
summary.json (:class:`RunSummary`).

``to_dict`` gives the exact JSON the tool writes (same keys, same order); ``from_dict`` reads
what any version wrote: missing keys take their defaults, keys it does not know are kept in
``extra`` and written back after the known ones. Keys older files lack and new ones always have
(``custom_tests``; ``stats_version``, ``lift_method``, ``rejected``) are None when absent and left
out again by ``to_dict``, so readers can still tell an old run from a new one. Both directions
are :mod:`upskill_hub.records_codec` over the fields declared here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

from upskill_hub import records_codec as codec
from upskill_hub.evaluation.types import GenerationParams

__all__ = ["RunInfo", "RunSession", "RunSkill", "RunSummary", "params_dict"]


def params_dict(params: GenerationParams) -> dict[str, Any]:
    """The ``params`` object of run.json."""
    return codec.to_dict(params)


class _Record:
    """``to_dict`` / ``from_dict`` of a record, by :mod:`upskill_hub.records_codec`."""

    def to_dict(self) -> dict[str, Any]:
        return codec.to_dict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Self:
        return codec.from_dict(cls, data)


@dataclass
class RunSkill(_Record):
    """run.json ``skill``: what was evaluated and where it came from (``source``: hub or
    local; ``ref`` is how the reproduce command names it)."""

    name: str = ""
    path: str = ""
    repo_id: str | None = None
    revision: str | None = None
    skill_md_sha256: str | None = None
    ref: str | None = None
    source: str | None = None
    license: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, metadata=codec.EXTRA)


@dataclass
class RunSession(_Record):
    """One run or resume session: when it ran and how many samples it added (``executor``:
    ``jobs`` for a merge of Hugging Face Jobs shards; absent for a local session)."""

    started_at: str
    finished_at: str | None = None
    samples: int = 0
    executor: str | None = field(default=None, metadata=codec.OMIT_NONE)


@dataclass
class RunInfo(_Record):
    """run.json: what was asked (see :mod:`upskill_hub.evaluation.run.folder` for the layout).
    ``models`` are canonical ids, ``model_specs`` the strings given; never an API key."""

    format: int | None = field(default=None, metadata=codec.meta(read=codec.exact(int)))
    run_id: str = ""
    tool: dict[str, Any] = field(default_factory=dict)
    skill: RunSkill = field(default_factory=RunSkill)
    custom_tests: bool | None = field(
        default=None, metadata=codec.meta(omit_none=True, read=codec.exact(bool))
    )
    models: list[str] = field(default_factory=list)
    model_specs: list[str] = field(default_factory=list)
    runs: int = 1
    arms: list[str] = field(default_factory=list)
    case_ids: list[str] = field(default_factory=list)
    params: GenerationParams = field(default_factory=GenerationParams)
    retries: int = 3
    concurrency: int = 4
    base_url: str | None = None
    judge_model: str | None = None
    #: "inline" or "agent" (absent in runs older than agent mode: read as inline)
    mode: str | None = field(default=None, metadata=codec.OMIT_NONE)
    #: agent mode's limits (AgentSettings.to_dict()), only in agent runs
    agent: dict[str, Any] | None = field(default=None, metadata=codec.OMIT_NONE)
    #: model id -> its price (``Price.to_dict()``) or None (unpriced); absent in runs older
    #: than prices (every model unpriced)
    prices: dict[str, Any] | None = field(default=None, metadata=codec.OMIT_NONE)
    started_at: str | None = None
    finished_at: str | None = None
    status: str = "running"
    sessions: list[RunSession] = field(default_factory=list)
    reproduce: str | None = None
    resume: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, metadata=codec.EXTRA)

    @property
    def tool_version(self) -> str | None:
        version = self.tool.get("version")
        return None if version is None else str(version)


@dataclass
class RunSummary(_Record):
    """summary.json: the results of a run's samples so far.

    ``models`` holds one ``ModelStats.to_dict(extended=True)`` per model (arms, lift, interval,
    verdict), as written. ``stats_version`` is None for version 1 runs (lift over samples).
    """

    format: int | None = field(default=None, metadata=codec.meta(read=codec.exact(int)))
    stats_version: int | None = field(default=None, metadata=codec.OMIT_NONE)
    lift_method: str | None = field(default=None, metadata=codec.OMIT_NONE)
    run_id: str = ""
    skill: str = ""
    revision: str | None = None
    #: "inline" or "agent" (absent in runs older than agent mode)
    mode: str | None = field(default=None, metadata=codec.OMIT_NONE)
    run_dir: str = ""
    complete: bool = True
    cancelled: bool = False
    samples: int = 0
    expected_samples: int | None = None
    errors: int = 0
    rejected: int | None = field(default=None, metadata=codec.OMIT_NONE)
    skipped_assertions: int = 0
    generated_at: str | None = None
    models: list[dict[str, Any]] = field(default_factory=list)
    #: agent mode's tool use per model and arm (evaluation.agent.usage), only in agent runs
    agent: list[dict[str, Any]] | None = field(default=None, metadata=codec.OMIT_NONE)
    extra: dict[str, Any] = field(default_factory=dict, metadata=codec.EXTRA)
