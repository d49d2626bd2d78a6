"""What a run folder says about its run: run.json at the start, summary.json at the end (built
here as :mod:`~upskill_hub.evaluation.run.records`), and the command that reproduces the run (never
an API key, never credentials in a URL).

The reproduce command names the skill as someone else can fetch it: ``ns/name@<commit>`` for a
Hub skill (pinned to the commit evaluated), else the local path (``skill.source`` in run.json
says which: ``hub`` or ``local``). It has ``--tests RUN_DIR/tests.json`` only when the cases
differ from the skill's own (skill_meta.json); ``custom_tests`` in run.json records which.
``results push`` uploads ``tests.json`` beside the results and rewrites the command for the
dataset card (:mod:`upskill_hub.publish.dataset_card`).
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from upskill_hub import __version__
from upskill_hub.evaluation.pricing import prices_to_json, resolve_prices
from upskill_hub.evaluation.run.folder import FORMAT_VERSION, RunFolder, utc_now
from upskill_hub.evaluation.run.records import RunInfo, RunSkill, RunSummary, params_dict
from upskill_hub.evaluation.stats.summarize import LIFT_METHOD, STATS_VERSION
from upskill_hub.evaluation.stats.tallies import SampleCounts
from upskill_hub.evaluation.types import Sample
from upskill_hub.skill.testcases import TestCase

if TYPE_CHECKING:
    from upskill_hub.evaluation.config import EvalConfig, SkillLike
    from upskill_hub.evaluation.stats.summarize import ModelStats

__all__ = [
    "build_summary",
    "new_run_info",
    "params_dict",
    "public_url",
    "reproduce_command",
    "same_cases",
    "skill_sha256",
]


def public_url(url: str | None) -> str | None:
    """``url`` without user:password, query or fragment (where credentials sometimes hide)."""
    if not url:
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def reproduce_command(
    skill_ref: str,
    models: Sequence[str],
    config: EvalConfig,
    tests_file: Path | None,
    *,
    resume_dir: Path | None = None,
) -> str:
    """The ``upskill-hub eval`` command line for this run (never an API key)."""
    argv = ["upskill-hub", "eval", skill_ref]
    for model in models:
        argv += ["--model", model]
    argv += ["--runs", str(config.runs)]
    if tests_file is not None:
        argv += ["--tests", str(tests_file)]
    p = config.params
    argv += ["--temperature", format(p.temperature, "g"), "--max-tokens", str(p.max_tokens)]
    if p.seed is not None:
        argv += ["--seed", str(p.seed)]
    base_url = public_url(config.base_url)
    if base_url:
        argv += ["--base-url", base_url]
    if config.judge_model:
        argv += ["--judge-model", config.judge_model]
    if config.no_baseline:
        argv.append("--no-baseline")
    if config.agent is not None:
        argv += ["--mode", "agent", "--max-turns", str(config.agent.max_turns)]
        argv += ["--token-budget", str(config.agent.token_budget)]
    if resume_dir is not None:
        argv += ["--resume", str(resume_dir)]
    return shlex.join(argv)


def skill_sha256(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def same_cases(a: Sequence[TestCase], b: Sequence[TestCase]) -> bool:
    """Whether two case lists are the same cases, in the same order."""
    return [c.to_dict() for c in a] == [c.to_dict() for c in b]


def new_run_info(
    folder: RunFolder,
    skill: SkillLike,
    model_ids: list[str],
    cases: list[TestCase],
    config: EvalConfig,
    skill_sha: str,
    *,
    repo_id: str | None,
    revision: str | None,
    skill_ref: str | None,
) -> RunInfo:
    """run.json for a new run folder (its sessions still empty)."""
    if repo_id:  # pinned: the commit evaluated, whatever revision the caller asked for
        ref = f"{repo_id}@{revision}" if revision else (skill_ref or repo_id)
    else:
        ref = skill_ref or str(skill.path)
    own_cases = list(getattr(skill, "tests", None) or [])
    custom_tests = not own_cases or not same_cases(cases, own_cases)
    license_ = getattr(skill, "license", None)
    return RunInfo(
        format=FORMAT_VERSION,
        run_id=folder.path.name,
        tool={"name": "upskill-hub", "version": __version__},
        skill=RunSkill(
            name=skill.name,
            path=str(Path(skill.path).resolve()) if not repo_id else str(skill.path),
            repo_id=repo_id,
            revision=revision,
            skill_md_sha256=skill_sha,
            ref=ref,
            source="hub" if repo_id else "local",
            license=license_ if isinstance(license_, str) and license_.strip() else None,
        ),
        custom_tests=custom_tests,
        models=model_ids,
        model_specs=list(config.models),
        runs=config.runs,
        arms=list(config.arms),
        case_ids=[c.id for c in cases],
        params=config.params,
        retries=config.retry.retries,
        concurrency=config.concurrency,
        base_url=public_url(config.base_url),
        judge_model=config.judge_model,
        mode="inline" if config.agent is None else "agent",
        agent=None if config.agent is None else config.agent.to_dict(),
        prices=prices_to_json(resolve_prices(model_ids, config.prices, base_url=config.base_url)),
        started_at=utc_now(),
        finished_at=None,
        status="running",
        sessions=[],
        reproduce=reproduce_command(
            ref, config.models, config, folder.tests_file if custom_tests else None
        ),
        resume=shlex.join(["upskill-hub", "eval", ref, "--resume", str(folder.path)]),
    )


def build_summary(
    info: RunInfo,
    folder: RunFolder,
    samples: Iterable[Sample] | SampleCounts,
    stats: list[ModelStats],
    expected: int,
    cancelled: bool,
) -> RunSummary:
    """summary.json (``samples`` may be their :class:`SampleCounts`, what it counts of them)."""
    counts = samples if isinstance(samples, SampleCounts) else SampleCounts.of(samples)
    done = counts.samples - counts.errors
    return RunSummary(
        format=FORMAT_VERSION,
        # 3: missing samples (errors, rejections) in worst-case bounds, ungraded samples left
        # out; 2: lift and its interval by test case (paired t); absent (1): Newcombe
        # over samples
        stats_version=STATS_VERSION,
        lift_method=LIFT_METHOD,
        run_id=info.run_id,
        skill=info.skill.name,
        revision=info.skill.revision,
        mode=info.mode or "inline",
        run_dir=str(folder.path),
        complete=done == expected,
        cancelled=cancelled,
        samples=counts.samples,
        expected_samples=expected,
        errors=counts.errors,
        # errors refused for their prompt (context length, content filter), from the API's
        # structured signal: among the errors, missing like them (stats_version 2: fails)
        rejected=counts.rejected,
        skipped_assertions=counts.skipped,
        generated_at=utc_now(),
        models=[m.to_dict(extended=True) for m in stats],
    )
