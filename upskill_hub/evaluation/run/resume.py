"""A run's settings: new ones from overrides over defaults, or a run folder's own settings with
overrides on top (resume), whether a resume still matches the run it continues, and which of its
samples a resume keeps (both arms of a (case, run) or neither)."""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from upskill_hub.backoff import RetryPolicy
from upskill_hub.errors import Param, UsageError
from upskill_hub.evaluation.agent.settings import AgentSettings
from upskill_hub.evaluation.config import EvalConfig
from upskill_hub.evaluation.pricing import Price, prices_from_json
from upskill_hub.evaluation.run.folder import FORMAT_VERSION, RunFolder
from upskill_hub.evaluation.run.records import RunInfo
from upskill_hub.evaluation.run.samples import ResumeScan, resume_records
from upskill_hub.evaluation.types import GenerationParams, SampleKey
from upskill_hub.skill.testcases import TestCase

__all__ = ["RunOverrides", "check_resume", "config_from_run", "resume_paired", "run_settings"]


@dataclass(frozen=True)
class RunOverrides:
    """What the caller asked for; ``None`` keeps the default (or the resumed run's value).
    ``timeout``, ``concurrency`` and ``retries`` are how to run, not what was measured, so a
    resume takes them as given."""

    models: list[str] | None = None
    runs: int | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    base_url: str | None = None
    judge_model: str | None = None
    no_baseline: bool = False
    timeout: float = GenerationParams().timeout
    concurrency: int = EvalConfig().concurrency
    retries: int = EvalConfig().retry.retries
    api_key: str | None = None
    #: ``--mode`` as given (None keeps the resumed run's mode; inline for a new run) and, for
    #: agent mode, its limits.
    mode: str | None = None
    agent: AgentSettings | None = None
    #: ``--price`` overrides, canonical model id -> price; over a resumed run's recorded prices
    prices: dict[str, Price] | None = None


def run_settings(
    skill_cases: list[TestCase],
    overrides: RunOverrides,
    *,
    resume: Path | None = None,
    tests: list[TestCase] | None = None,
    skill_path: Path | None = None,
) -> tuple[EvalConfig, list[TestCase]]:
    """The config and cases of a run: ``overrides`` over the defaults, or over the settings of
    the run folder ``resume`` continues. ``tests`` replace the skill's own cases."""
    from upskill_hub.evaluation.config import default_max_tokens

    if resume is not None:
        base, cases = config_from_run(resume)
    else:
        base, cases = EvalConfig(), skill_cases
    if tests is not None:
        cases = tests
    elif resume is None and not cases:
        where = f"{skill_path}: " if skill_path else ""
        raise UsageError(
            f"{where}no test cases (no skill_meta.json); pass ", Param("tests", "FILE")
        )
    models = list(overrides.models) if overrides.models else base.models
    params = base.params
    if resume is None and overrides.max_tokens is None:
        params = replace(params, max_tokens=default_max_tokens(models))
    chosen: dict[str, Any] = {
        "temperature": overrides.temperature,
        "max_tokens": overrides.max_tokens,
        "seed": overrides.seed,
    }
    params = replace(params, **{k: v for k, v in chosen.items() if v is not None})
    params = replace(params, timeout=overrides.timeout)
    config = replace(
        base,
        models=models,
        runs=overrides.runs if overrides.runs is not None else base.runs,
        params=params,
        concurrency=overrides.concurrency,
        retry=replace(base.retry, retries=overrides.retries),
        base_url=overrides.base_url or base.base_url,
        judge_model=overrides.judge_model or base.judge_model,
        no_baseline=overrides.no_baseline or base.no_baseline,
        api_key=overrides.api_key,
        agent=overrides.agent if overrides.mode or overrides.agent else base.agent,
        prices={**base.prices, **(overrides.prices or {})},
    )
    return config, list(cases)


def check_resume(
    folder: RunFolder,
    info: RunInfo,
    model_ids: list[str],
    cases: list[TestCase],
    config: EvalConfig,
    skill_sha: str,
) -> None:
    """Raise :class:`UsageError` unless ``config``, ``cases`` and SKILL.md match the run."""
    where = (Param("resume_from"), f" {folder.path}")
    if info.format != FORMAT_VERSION:
        raise UsageError(*where, f": unknown run folder format {info.format!r}")
    stored_models = info.models
    if set(stored_models) != set(model_ids):
        raise UsageError(
            *where,
            f": the run used models {', '.join(stored_models)}, not {', '.join(model_ids)} (omit ",
            Param("models"),
            " to reuse the run's models)",
        )
    stored_cases = folder.read_tests()
    if [c.to_dict() for c in stored_cases] != [c.to_dict() for c in cases]:
        changed = sorted(
            {c.id for c in stored_cases}.symmetric_difference({c.id for c in cases})
        ) or [a.id for a, b in zip(stored_cases, cases, strict=False) if a.to_dict() != b.to_dict()]
        raise UsageError(
            *where,
            ": the test cases differ from the run's tests.json "
            f"({', '.join(changed) or 'order'}); omit ",
            Param("cases"),
            " to reuse them",
        )
    if info.runs != config.runs:
        raise UsageError(
            *where, ": the run has ", Param("runs"), f" {info.runs}, not {config.runs}"
        )
    if info.arms != list(config.arms):
        raise UsageError(*where, f": the run's arms are {info.arms}, not {list(config.arms)}")
    for name in ("temperature", "max_tokens", "seed"):
        stored = getattr(info.params, name)
        if stored != getattr(config.params, name):
            raise UsageError(
                *where,
                f": the run used {name}={stored!r}, not {getattr(config.params, name)!r}",
            )
    mode = "inline" if config.agent is None else "agent"
    stored_mode = info.mode or "inline"
    if stored_mode != mode:
        raise UsageError(
            *where,
            ": the run used ",
            Param("mode"),
            f" {stored_mode}, not ",
            Param("mode"),
            f" {mode}",
        )
    if config.agent is not None:
        stored_agent = AgentSettings.from_dict(info.agent or {})
        for name in ("max_turns", "token_budget"):
            if getattr(stored_agent, name) != getattr(config.agent, name):
                raise UsageError(
                    *where,
                    ": the run used ",
                    Param(name),
                    f" {getattr(stored_agent, name)}, not {getattr(config.agent, name)} (omit ",
                    Param("mode"),
                    " to reuse the run's settings)",
                )
    stored_sha = info.skill.skill_md_sha256
    if stored_sha and stored_sha != skill_sha:
        raise UsageError(*where, ": SKILL.md changed since the run started; start a new run")


def config_from_run(path: Path) -> tuple[EvalConfig, list[TestCase]]:
    """The config and cases a run folder was started with (no API key: it was never stored)."""
    folder = RunFolder(Path(path))
    info = folder.read_info()
    if info.format != FORMAT_VERSION:
        raise UsageError(f"{folder.path}: unknown run folder format {info.format!r}")
    config = EvalConfig(
        models=list(info.model_specs or info.models),
        runs=info.runs,
        concurrency=info.concurrency,
        params=info.params,
        retry=RetryPolicy(retries=info.retries),
        base_url=info.base_url,
        no_baseline=info.arms == ["with_skill"],
        judge_model=info.judge_model,
        agent=AgentSettings.from_dict(info.agent or {}) if info.mode == "agent" else None,
        prices={m: p for m, p in prices_from_json(info.prices).items() if p is not None},
    )
    return config, folder.read_tests()


class _Without:
    """``wanted`` minus the keys in ``dropped``, as a container."""

    def __init__(self, wanted: Container[SampleKey], dropped: set[SampleKey]) -> None:
        self.wanted, self.dropped = wanted, dropped

    def __contains__(self, key: object) -> bool:
        return key in self.wanted and key not in self.dropped


def resume_paired(path: Path, wanted: Container[SampleKey], arms: Sequence[str]) -> ResumeScan:
    """:func:`~upskill_hub.evaluation.run.samples.resume_records`, keeping both arms of a
    (model, case, run) or neither: a sample whose other arm is missing or errored is dropped too,
    so the resume runs the two together again. A shock shared by every request of a minute (a
    provider degrading) then hits both arms of that case and run and cancels in their difference;
    pairing an old sample with a new one would let it through (coverage 87-88% with a per-run,
    per-arm shock)."""
    scan = resume_records(path, wanted)
    if len(arms) < 2:
        return scan
    have: dict[tuple[str, str, int], int] = {}
    for model, case, run, _arm in scan.done:
        have[(model, case, run)] = have.get((model, case, run), 0) + 1
    lone = {key for key in scan.done if have[key[:3]] < len(arms)}
    del have
    if not lone:
        return scan
    dropped = scan.dropped
    del scan  # one table of kept keys at a time
    again = resume_records(path, _Without(wanted, lone))
    return ResumeScan(again.done, rewritten=True, dropped=dropped + again.dropped)
