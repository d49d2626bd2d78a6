"""Continuing a run folder: what it was started with, and whether a resume still matches it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from upskill_hub.errors import UsageError
from upskill_hub.evaluation.config import EvalConfig
from upskill_hub.evaluation.run_dir import FORMAT_VERSION, RunFolder
from upskill_hub.evaluation.types import GenerationParams
from upskill_hub.skill.testcases import TestCase

__all__ = ["check_resume", "config_from_run"]


def check_resume(
    folder: RunFolder,
    info: dict[str, Any],
    model_ids: list[str],
    cases: list[TestCase],
    config: EvalConfig,
    skill_sha: str,
) -> None:
    """Raise :class:`UsageError` unless ``config``, ``cases`` and SKILL.md match the run."""
    where = f"--resume {folder.path}"
    if info.get("format") != FORMAT_VERSION:
        raise UsageError(f"{where}: unknown run folder format {info.get('format')!r}")
    stored_models = list(info.get("models", []))
    if set(stored_models) != set(model_ids):
        raise UsageError(
            f"{where}: the run used models {', '.join(stored_models)}, "
            f"not {', '.join(model_ids)} (omit --model to reuse the run's models)"
        )
    stored_cases = folder.read_tests()
    if [c.to_dict() for c in stored_cases] != [c.to_dict() for c in cases]:
        changed = sorted(
            {c.id for c in stored_cases}.symmetric_difference({c.id for c in cases})
        ) or [a.id for a, b in zip(stored_cases, cases, strict=False) if a.to_dict() != b.to_dict()]
        raise UsageError(
            f"{where}: the test cases differ from the run's tests.json "
            f"({', '.join(changed) or 'order'}); omit --tests to reuse them"
        )
    if int(info.get("runs", 0)) != config.runs:
        raise UsageError(f"{where}: the run has --runs {info.get('runs')}, not {config.runs}")
    if list(info.get("arms", [])) != list(config.arms):
        raise UsageError(f"{where}: the run's arms are {info.get('arms')}, not {list(config.arms)}")
    stored_params = info.get("params", {})
    for name in ("temperature", "max_tokens", "seed"):
        if stored_params.get(name) != getattr(config.params, name):
            raise UsageError(
                f"{where}: the run used {name}={stored_params.get(name)!r}, "
                f"not {getattr(config.params, name)!r}"
            )
    stored_sha = info.get("skill", {}).get("skill_md_sha256")
    if stored_sha and stored_sha != skill_sha:
        raise UsageError(f"{where}: SKILL.md changed since the run started; start a new run")


def config_from_run(path: Path) -> tuple[EvalConfig, list[TestCase]]:
    """The config and cases a run folder was started with (no API key: it was never stored)."""
    folder = RunFolder(Path(path))
    info = folder.read_info()
    if info.get("format") != FORMAT_VERSION:
        raise UsageError(f"{folder.path}: unknown run folder format {info.get('format')!r}")
    params = info.get("params", {})
    defaults = GenerationParams()
    config = EvalConfig(
        models=list(info.get("model_specs") or info.get("models") or []),
        runs=int(info.get("runs", 1)),
        concurrency=int(info.get("concurrency", 4)),
        params=GenerationParams(
            temperature=float(params.get("temperature", defaults.temperature)),
            max_tokens=int(params.get("max_tokens", defaults.max_tokens)),
            seed=params.get("seed"),
            timeout=float(params.get("timeout", defaults.timeout)),
        ),
        retries=int(info.get("retries", 3)),
        base_url=info.get("base_url"),
        no_baseline=list(info.get("arms", [])) == ["with_skill"],
        judge_model=info.get("judge_model"),
    )
    return config, folder.read_tests()
