"""Run an eval: every (model, case, run, arm) sample, concurrently, saved as each one finishes.

What it fixes from upskill 0.2.1:

* every request goes to its own model: one provider per model, resolved once before anything
  runs (an unknown model fails before a run folder exists) and closed at the end;
* the arms are symmetric (:mod:`upskill_hub.evaluation.prompts`) and each sample stores the hash
  of the exact messages it sent;
* at most ``concurrency`` requests in flight per model (each model has its own pool of workers
  pulling its keys in a deterministic order: run, case, arm), retries with exponential backoff
  and jitter on retryable :class:`ProviderError` (honouring ``Retry-After``), a hard timeout
  backstop; a request waiting for its retry goes back into its model's queue instead of holding
  a worker, so a rate-limited provider never stalls the other models;
* a sample still failing after its retries is outcome ``error`` with a redacted message:
  statistics exclude it from pass rates and count it;
* nothing secret reaches the run folder: outputs, error messages and assertion reasons go
  through :class:`upskill_hub.secrets.Redactor` (the config's key, the environment's secrets,
  key-shaped strings) before a sample is written; assertions see the unredacted output;
* each finished sample goes to ``samples.jsonl`` at once (off the event loop, one write and one
  fsync per group of lines), so Ctrl-C, a crash or a kill loses no finished sample;
  ``resume_from`` runs only what is missing or errored, reading samples.jsonl line by line and
  rewriting it only when a line must be dropped;
* no sample stays in memory: running tallies (:class:`~upskill_hub.evaluation.run.memory.RunTally`:
  counts, sums, one latency and a few fixed-width numbers per sample) give summary.json,
  benchmark.json and the agent usage; :attr:`EvalResult.records` and
  :attr:`EvalResult.samples` read the samples back from the run folder when asked;
* temperature, seed and max_tokens reach the provider; the run folder records them and the exact
  command that reproduces the run, never an API key. A parameter a provider cannot send (its
  ``unsupported_params``) becomes a warning of the result.

Cancellation (``cancel`` event): no new sample starts and the requests in flight are cancelled at
once (they were not finished, so nothing is lost; a resume runs them); every finished sample is
kept, summary.json is written, and the result says ``cancelled``.

This module ties the pieces together (:func:`run_eval`, and :func:`evaluate` for threads without
an event loop); the pieces live in :mod:`.config` (:class:`EvalConfig`), :mod:`.eval_result`
(:class:`Progress`, :class:`EvalResult`), :mod:`.run.plan` (:class:`RunPlan`, :class:`RunHooks`:
what a run is given besides its config), :mod:`.provider_pool` (one provider per model),
:mod:`.run.order` (sample keys and their order), :mod:`.session` (workers, retries, grading,
recording), :mod:`.run.resume` (continuing a run folder) and :mod:`.run.info` (run.json,
summary.json, the reproduce command).
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from upskill_hub._sync import blocking, cancel_event
from upskill_hub.errors import Param, UpskillHubError, UsageError
from upskill_hub.evaluation.config import EvalConfig, SkillLike
from upskill_hub.evaluation.eval_result import EvalResult, Progress
from upskill_hub.evaluation.model_queue import ModelQueue
from upskill_hub.evaluation.pricing import prices_to_json, resolve_prices
from upskill_hub.evaluation.provider_pool import ProviderPool
from upskill_hub.evaluation.run.folder import (
    RunFolder,
    SampleLog,
    create_run_dir,
    utc_now,
)
from upskill_hub.evaluation.run.info import build_summary, new_run_info, skill_sha256
from upskill_hub.evaluation.run.memory import RunRecords, RunTally
from upskill_hub.evaluation.run.order import model_keys
from upskill_hub.evaluation.run.plan import RunHooks, RunPlan
from upskill_hub.evaluation.run.records import RunSession
from upskill_hub.evaluation.run.resume import check_resume, resume_paired
from upskill_hub.evaluation.run.samples import KeptSamples
from upskill_hub.evaluation.session import Session, SessionWork
from upskill_hub.evaluation.types import Sample, SampleKey
from upskill_hub.skill.testcases import TestCase

if TYPE_CHECKING:
    from upskill_hub.evaluation.providers.base import Provider

__all__ = [
    "EvalConfig",
    "EvalResult",
    "Progress",
    "RunHooks",
    "RunPlan",
    "evaluate",
    "run_eval",
    "run_planned",
]


def _check_cases(cases: Sequence[TestCase]) -> list[TestCase]:
    cases = list(cases)
    if not cases:
        raise UsageError(
            "no test cases: add skill_meta.json to the skill or pass ", Param("cases", "FILE")
        )
    ids = [c.id for c in cases]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise UsageError(f"duplicate test case id(s): {', '.join(dupes)}")
    return cases


async def run_eval(
    skill: SkillLike,
    cases: Sequence[TestCase],
    config: EvalConfig,
    *,
    run_dir: Path | None = None,
    output_root: Path = Path("runs"),
    resume_from: Path | None = None,
    on_sample: Callable[[Sample, Progress], None] | None = None,
    cancel: asyncio.Event | threading.Event | None = None,
    providers: dict[str, Provider] | None = None,
    repo_id: str | None = None,
    revision: str | None = None,
    skill_ref: str | None = None,
    write_chart: bool = True,
) -> EvalResult:
    """Evaluate ``skill`` on ``cases`` for every model in ``config``; see the module docstring.

    The keywords are those of :class:`RunPlan` (where the run folder goes, what run.json records
    of the skill's origin; ``resume_from`` continues an existing run folder: models, cases, runs,
    arms, temperature/max_tokens/seed and SKILL.md must match) and :class:`RunHooks`
    (``on_sample``, ``cancel``, and ``providers`` the caller keeps; the others are resolved here
    and closed at the end). ``cancel`` may also be a ``threading.Event`` set from another thread
    (noticed within 50 ms).
    """
    plan = RunPlan(
        run_dir=run_dir,
        output_root=output_root,
        resume_from=resume_from,
        repo_id=repo_id,
        revision=revision,
        skill_ref=skill_ref,
        write_chart=write_chart,
    )
    async with cancel_event(cancel) as event:
        hooks = RunHooks(on_sample, event, providers)
        return await run_planned(skill, cases, config, plan, hooks)


async def run_planned(
    skill: SkillLike,
    cases: Sequence[TestCase],
    config: EvalConfig,
    plan: RunPlan,
    hooks: RunHooks | None = None,
) -> EvalResult:
    """:func:`run_eval` with its keywords given as a :class:`RunPlan` and :class:`RunHooks`."""
    hooks = hooks or RunHooks()
    config.validate()
    case_list = _check_cases(cases)
    if plan.resume_from is not None and plan.run_dir is not None:
        raise UsageError("give either a run folder to resume or a new run folder, not both")
    pool = ProviderPool.for_config(config, hooks.providers)
    try:
        if config.agent is not None:
            from upskill_hub.evaluation.agent.arms import check_tool_support

            check_tool_support(pool.all())
        return await _run(skill, case_list, config, pool, plan, hooks)
    finally:
        await pool.aclose()


async def _run(
    skill: SkillLike,
    cases: list[TestCase],
    config: EvalConfig,
    pool: ProviderPool,
    plan: RunPlan,
    hooks: RunHooks,
) -> EvalResult:
    model_ids = pool.model_ids
    skill_sha = skill_sha256(skill.skill_md_text)
    # the keys are generated per model as workers take them, never held all at once
    expected = len(model_ids) * len(cases) * config.runs * len(config.arms)
    tally = RunTally(model_ids, [c.id for c in cases], config.runs)
    done: dict[SampleKey, int] = {}  # the keys a resume keeps (their line numbers)
    resumed: Collection[Sample] = ()
    if plan.resume_from is not None:
        folder = RunFolder(Path(plan.resume_from))
        info = folder.read_info()
        check_resume(folder, info, model_ids, cases, config, skill_sha)
        # the recorded prices (config_from_run's) with any given now over them; a run from
        # before prices keeps its shape (every model unpriced) unless priced now
        if info.prices is not None or config.prices:
            info.prices = prices_to_json(
                resolve_prices(model_ids, config.prices, base_url=config.base_url)
            )
        # errored, duplicate and half-written lines are dropped (the file rewritten) before
        # appending again; a file with nothing to drop is left as it is
        # ... and a sample whose other arm must run again (both arms of a case and run together)
        done = resume_paired(folder.samples_file, _Keys(tally, config.arms), config.arms).done
        resumed = KeptSamples(folder.samples_file, len(done))
    else:
        if plan.run_dir is not None:
            path = Path(plan.run_dir)
            path.mkdir(parents=True, exist_ok=True)
            if any(path.iterdir()):
                raise UsageError(
                    f"{path}: run folder is not empty (use ",
                    Param("resume_from"),
                    " to continue it)",
                )
        else:
            path = create_run_dir(plan.output_root, skill.name)
        folder = RunFolder(path)
        info = new_run_info(
            folder,
            skill,
            model_ids,
            cases,
            config,
            skill_sha,
            repo_id=plan.repo_id,
            revision=plan.revision,
            skill_ref=plan.skill_ref,
        )
        folder.write_tests(cases)
    session_info = RunSession(started_at=utc_now())
    info.sessions.append(session_info)
    info.status = "running"
    folder.write_info(info)

    if plan.write_chart:  # matplotlib loads in the background while the requests are in flight
        from upskill_hub.evaluation.report.chart import preload_after_first_call

        hooks = replace(hooks, on_sample=preload_after_first_call(hooks.on_sample))
    done_per_model = Counter(key[0] for key in done)
    queues = {
        model: ModelQueue(
            model_keys(model, cases, config.runs, config.arms, done),
            count=expected // len(model_ids) - done_per_model[model],
        )
        for model in model_ids
    }
    work = SessionWork(pending=[], done=resumed, total=expected, tally=tally, queues=queues)
    log = SampleLog(folder.samples_file)
    session = Session(config, pool, skill=skill, cases=cases, work=work, log=log, hooks=hooks)
    status = "interrupted"
    try:
        await session.run()
        status = "cancelled" if session.cancelled else "complete"
    finally:
        try:
            log.close()
        except OSError as exc:
            raise UpskillHubError(f"{folder.samples_file}: cannot write samples ({exc})") from exc
        finally:
            session_info.finished_at = utc_now()
            session_info.samples = tally.count - session.resumed
            info.finished_at = session_info.finished_at
            info.status = status
            folder.write_info(info)

    from upskill_hub.evaluation.pricing import prices_from_json
    from upskill_hub.evaluation.stats.summarize import summarize_tallies

    stats = summarize_tallies(tally.models, prices_from_json(info.prices))
    summary = build_summary(info, folder, tally.counts, stats, expected, session.cancelled)
    if config.agent is not None:
        summary.agent = tally.agent.entries()
    folder.write_summary(summary)
    tally.write_benchmark(folder.path, info)
    result = EvalResult(
        run_dir=folder.path,
        records=RunRecords(folder.samples_file, tally),
        stats=stats,
        summary=summary,
        expected=expected,
        cancelled=session.cancelled,
    )
    result.warnings += _unsent_params_warnings(pool, config)
    if plan.write_chart and tally.count:
        try:
            from upskill_hub.evaluation.report.chart import write_lift_chart

            write_lift_chart(summary.models, folder.chart_file, title=f"{skill.name}: lift")
        except Exception as exc:  # the chart is a nicety; the numbers are in summary.json
            result.warnings.append(f"lift.png not written: {type(exc).__name__}: {exc}")
        try:
            from upskill_hub.evaluation.report.frontier_chart import write_run_frontier_chart

            title = f"{skill.name}: pass rate vs cost per passed case"
            write_run_frontier_chart(summary.models, folder.frontier_chart_file, title=title)
        except Exception as exc:  # as lift.png: the figures are in summary.json
            result.warnings.append(f"frontier.png not written: {type(exc).__name__}: {exc}")
    return result


class _Keys:
    """The run's keys as a container (``key in keys``), without a set of them."""

    def __init__(self, tally: RunTally, arms: Sequence[str]) -> None:
        self.tally, self.arms = tally, set(arms)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, tuple) or len(key) != 4 or key[3] not in self.arms:
            return False
        return self.tally.index(key) is not None


def _unsent_params_warnings(pool: ProviderPool, config: EvalConfig) -> list[str]:
    """One warning per provider and generation parameter it could not send (e.g. temperature
    with an anthropic SDK that has none): run.json records a value the model never saw."""
    warnings = []
    for provider in pool.all():
        for name in sorted(provider.unsupported_params):
            value = getattr(config.params, name, None)
            if value is not None:
                warnings.append(
                    f"{provider.model_id}: {name} not sent (its API client does not take it): "
                    f"the model used its own default, not the {name}={value:g} run.json records"
                )
    return warnings


evaluate = blocking(
    run_eval,
    "evaluate",
    """Blocking :func:`run_eval` for threads without an event loop (the Space's worker thread).

    ``on_sample`` runs in the calling thread as samples finish; setting the ``threading.Event``
    ``cancel`` from any thread cancels the run (noticed within 50 ms), which then returns with
    ``cancelled=True`` and the stats of what finished.
    """,
)
