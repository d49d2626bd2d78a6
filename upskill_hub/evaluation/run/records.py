"""The run folder's two JSON records as dataclasses: run.json (:class:`RunInfo`) and
summary.json (:class:`RunSummary`).

``to_dict`` gives the exact JSON the tool writes (same keys, same order); ``from_dict`` reads
what any version wrote: missing keys take their defaults, keys it does not know are kept in
``extra`` and written back after the known ones. Keys older files lack and new ones always have
(``custom_tests``; ``stats_version``, ``lift_method``, ``rejected``) are None when absent and left
out again by ``to_dict``, so readers can still tell an old run from a new one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from upskill_hub.evaluation.types import GenerationParams

__all__ = ["RunInfo", "RunSession", "RunSkill", "RunSummary", "params_dict"]


def params_dict(params: GenerationParams) -> dict[str, Any]:
    """The ``params`` object of run.json."""
    return {
        "temperature": params.temperature,
        "max_tokens": params.max_tokens,
        "seed": params.seed,
        "timeout": params.timeout,
    }


def _params(data: Any) -> GenerationParams:
    data = data if isinstance(data, dict) else {}
    defaults = GenerationParams()
    seed = data.get("seed")
    return GenerationParams(
        temperature=float(data.get("temperature", defaults.temperature)),
        max_tokens=int(data.get("max_tokens", defaults.max_tokens)),
        seed=int(seed) if seed is not None else None,
        timeout=float(data.get("timeout", defaults.timeout)),
    )


def _obj(data: Any) -> dict[str, Any]:
    return data if isinstance(data, dict) else {}


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _extra(data: dict[str, Any], known: set[str]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in known}


def _names(cls: type) -> set[str]:
    return {f.name for f in fields(cls)} - {"extra"}


@dataclass
class RunSkill:
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
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "repo_id": self.repo_id,
            "revision": self.revision,
            "skill_md_sha256": self.skill_md_sha256,
            "ref": self.ref,
            "source": self.source,
            "license": self.license,
            **self.extra,
        }

    @classmethod
    def from_dict(cls, data: Any) -> RunSkill:
        data = _obj(data)
        return cls(
            name=str(data.get("name") or ""),
            path=str(data.get("path") or ""),
            repo_id=_opt_str(data.get("repo_id")),
            revision=_opt_str(data.get("revision")),
            skill_md_sha256=_opt_str(data.get("skill_md_sha256")),
            ref=_opt_str(data.get("ref")),
            source=_opt_str(data.get("source")),
            license=_opt_str(data.get("license")),
            extra=_extra(data, _names(cls)),
        )


@dataclass
class RunSession:
    """One run or resume session: when it ran and how many samples it added (``executor``:
    ``jobs`` for a merge of Hugging Face Jobs shards; absent for a local session)."""

    started_at: str
    finished_at: str | None = None
    samples: int = 0
    executor: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "samples": self.samples,
        }
        if self.executor is not None:
            data["executor"] = self.executor
        return data

    @classmethod
    def from_dict(cls, data: Any) -> RunSession:
        data = _obj(data)
        return cls(
            started_at=str(data.get("started_at") or ""),
            finished_at=_opt_str(data.get("finished_at")),
            samples=int(data.get("samples") or 0),
            executor=_opt_str(data.get("executor")),
        )


@dataclass
class RunInfo:
    """run.json: what was asked (see :mod:`upskill_hub.evaluation.run.folder` for the layout).
    ``models`` are canonical ids, ``model_specs`` the strings given; never an API key."""

    format: int | None = None
    run_id: str = ""
    tool: dict[str, Any] = field(default_factory=dict)
    skill: RunSkill = field(default_factory=RunSkill)
    custom_tests: bool | None = None
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
    mode: str | None = None
    #: agent mode's limits (AgentSettings.to_dict()), only in agent runs
    agent: dict[str, Any] | None = None
    started_at: str | None = None
    finished_at: str | None = None
    status: str = "running"
    sessions: list[RunSession] = field(default_factory=list)
    reproduce: str | None = None
    resume: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def tool_version(self) -> str | None:
        version = self.tool.get("version")
        return None if version is None else str(version)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": self.format,
            "run_id": self.run_id,
            "tool": dict(self.tool),
            "skill": self.skill.to_dict(),
        }
        if self.custom_tests is not None:
            data["custom_tests"] = self.custom_tests
        data.update(
            {
                "models": list(self.models),
                "model_specs": list(self.model_specs),
                "runs": self.runs,
                "arms": list(self.arms),
                "case_ids": list(self.case_ids),
                "params": params_dict(self.params),
                "retries": self.retries,
                "concurrency": self.concurrency,
                "base_url": self.base_url,
                "judge_model": self.judge_model,
            }
        )
        if self.mode is not None:
            data["mode"] = self.mode
        if self.agent is not None:
            data["agent"] = dict(self.agent)
        data.update(
            {
                "started_at": self.started_at,
                "finished_at": self.finished_at,
                "status": self.status,
                "sessions": [s.to_dict() for s in self.sessions],
                "reproduce": self.reproduce,
                "resume": self.resume,
            }
        )
        data.update(self.extra)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunInfo:
        custom = data.get("custom_tests")
        fmt = data.get("format")
        return cls(
            format=fmt if isinstance(fmt, int) else None,
            run_id=str(data.get("run_id") or ""),
            tool=dict(_obj(data.get("tool"))),
            skill=RunSkill.from_dict(data.get("skill")),
            custom_tests=custom if isinstance(custom, bool) else None,
            models=[str(m) for m in data.get("models") or []],
            model_specs=[str(m) for m in data.get("model_specs") or []],
            runs=int(data.get("runs", 1)),
            arms=[str(a) for a in data.get("arms") or []],
            case_ids=[str(c) for c in data.get("case_ids") or []],
            params=_params(data.get("params")),
            retries=int(data.get("retries", 3)),
            concurrency=int(data.get("concurrency", 4)),
            base_url=_opt_str(data.get("base_url")),
            judge_model=_opt_str(data.get("judge_model")),
            mode=_opt_str(data.get("mode")),
            agent=dict(data["agent"]) if isinstance(data.get("agent"), dict) else None,
            started_at=_opt_str(data.get("started_at")),
            finished_at=_opt_str(data.get("finished_at")),
            status=str(data.get("status") or "running"),
            sessions=[RunSession.from_dict(s) for s in data.get("sessions") or []],
            reproduce=_opt_str(data.get("reproduce")),
            resume=_opt_str(data.get("resume")),
            extra=_extra(data, _names(cls)),
        )


@dataclass
class RunSummary:
    """summary.json: the results of a run's samples so far.

    ``models`` holds one ``ModelStats.to_dict(extended=True)`` per model (arms, lift, interval,
    verdict), as written. ``stats_version`` is None for version 1 runs (lift over samples).
    """

    format: int | None = None
    stats_version: int | None = None
    lift_method: str | None = None
    run_id: str = ""
    skill: str = ""
    revision: str | None = None
    #: "inline" or "agent" (absent in runs older than agent mode)
    mode: str | None = None
    run_dir: str = ""
    complete: bool = True
    cancelled: bool = False
    samples: int = 0
    expected_samples: int | None = None
    errors: int = 0
    rejected: int | None = None
    skipped_assertions: int = 0
    generated_at: str | None = None
    models: list[dict[str, Any]] = field(default_factory=list)
    #: agent mode's tool use per model and arm (evaluation.agent.usage), only in agent runs
    agent: list[dict[str, Any]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"format": self.format}
        if self.stats_version is not None:
            data["stats_version"] = self.stats_version
        if self.lift_method is not None:
            data["lift_method"] = self.lift_method
        data.update(
            {
                "run_id": self.run_id,
                "skill": self.skill,
                "revision": self.revision,
            }
        )
        if self.mode is not None:
            data["mode"] = self.mode
        data.update(
            {
                "run_dir": self.run_dir,
                "complete": self.complete,
                "cancelled": self.cancelled,
                "samples": self.samples,
                "expected_samples": self.expected_samples,
                "errors": self.errors,
            }
        )
        if self.rejected is not None:
            data["rejected"] = self.rejected
        data.update(
            {
                "skipped_assertions": self.skipped_assertions,
                "generated_at": self.generated_at,
                "models": list(self.models),
            }
        )
        if self.agent is not None:
            data["agent"] = list(self.agent)
        data.update(self.extra)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSummary:
        fmt, version = data.get("format"), data.get("stats_version")
        expected, rejected = data.get("expected_samples"), data.get("rejected")
        return cls(
            format=fmt if isinstance(fmt, int) else None,
            stats_version=int(version) if version is not None else None,
            lift_method=_opt_str(data.get("lift_method")),
            run_id=str(data.get("run_id") or ""),
            skill=str(data.get("skill") or ""),
            revision=_opt_str(data.get("revision")),
            mode=_opt_str(data.get("mode")),
            run_dir=str(data.get("run_dir") or ""),
            complete=bool(data.get("complete", True)),
            cancelled=bool(data.get("cancelled", False)),
            samples=int(data.get("samples") or 0),
            expected_samples=int(expected) if expected is not None else None,
            errors=int(data.get("errors") or 0),
            rejected=int(rejected) if rejected is not None else None,
            skipped_assertions=int(data.get("skipped_assertions") or 0),
            generated_at=_opt_str(data.get("generated_at")),
            models=[m for m in data.get("models") or [] if isinstance(m, dict)],
            agent=[a for a in data["agent"] if isinstance(a, dict)]
            if isinstance(data.get("agent"), list)
            else None,
            extra=_extra(data, _names(cls)),
        )
