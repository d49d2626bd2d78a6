"""``eval SKILL --triggers FILE``: the trigger eval's flags into library calls, results
printed (the logic is :mod:`upskill_hub.evaluation.triggers.measure`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from upskill_hub.cli.output import err_console, print_run_outcome
from upskill_hub.errors import ProviderError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from upskill_hub.cli.eval_options import EvalOptions
    from upskill_hub.evaluation.agent.tools import SkillFolder
    from upskill_hub.evaluation.config import EvalConfig
    from upskill_hub.evaluation.run.resume import RunOverrides
    from upskill_hub.evaluation.triggers.measure import TriggerResult
    from upskill_hub.evaluation.triggers.queries import TriggerQuery
    from upskill_hub.skill.model import Skill

#: Runs per query when ``--runs`` is not given (the guide asks for 3 or more).
DEFAULT_TRIGGER_RUNS = 3


def run_triggers(
    options: EvalOptions, skill: Skill, overrides: RunOverrides, *, skill_ref: str | None
) -> None:
    """Run the trigger eval of ``options.triggers`` with the eval command's run flags
    (``overrides``; judge, baseline and mode do not apply), print its report and push it with
    ``--push-results``."""
    from upskill_hub.evaluation.report.triggers import print_trigger_report
    from upskill_hub.evaluation.triggers.queries import (
        default_distractors,
        find_queries_file,
        load_distractors,
        read_queries,
        split_queries,
    )

    assert options.triggers is not None
    path = find_queries_file(options.triggers, skill.path)
    queries = read_queries(path)
    split_args = None
    if options.split is not None:
        split_args = (options.split, overrides.seed if overrides.seed is not None else 0)
        queries = split_queries(queries, *split_args)
    others = (
        load_distractors(options.distractors, skill.name)
        if options.distractors is not None
        else default_distractors(skill.name)
    )
    result = _measure(
        skill,
        queries,
        others,
        _config(overrides),
        output_root=options.output,
        split=split_args,
        queries_file=str(options.triggers),
        distractors_ref=str(options.distractors) if options.distractors is not None else None,
        skill_ref=skill_ref,
    )
    graded = sum(1 for s in result.samples if s.error is None)
    failed = bool(result.samples) and not graded
    pushed = None
    if options.push_repo is not None and not failed:
        from upskill_hub.publish.results_dataset import push_results

        pushed = push_results(result.run_dir, options.push_repo, private=options.private)
    print_run_outcome(
        options.output_format,
        dict(result.summary),
        lambda out: print_trigger_report(out, result.summary),
        result.run_dir,
        pushed,
        where="config triggers, ",
    )
    if failed:
        first = next(s.error for s in result.samples if s.error)
        err_console().print(f"[yellow]every run failed[/] ({first})")
        raise ProviderError(f"no trigger run succeeded: {first}; run folder: {result.run_dir}")


def _config(overrides: RunOverrides) -> EvalConfig:
    """The trigger eval's config: the run flags over the defaults (3 runs per query)."""
    from upskill_hub.backoff import RetryPolicy
    from upskill_hub.evaluation.config import EvalConfig
    from upskill_hub.evaluation.types import GenerationParams

    defaults = GenerationParams()
    return EvalConfig(
        models=list(overrides.models or ["local"]),
        runs=overrides.runs if overrides.runs is not None else DEFAULT_TRIGGER_RUNS,
        concurrency=overrides.concurrency,
        params=GenerationParams(
            temperature=(
                defaults.temperature if overrides.temperature is None else overrides.temperature
            ),
            max_tokens=(
                defaults.max_tokens if overrides.max_tokens is None else overrides.max_tokens
            ),
            seed=overrides.seed,
            timeout=overrides.timeout,
        ),
        retry=RetryPolicy(retries=overrides.retries),
        base_url=overrides.base_url,
        api_key=overrides.api_key,
        agent=overrides.agent,
        cache=overrides.cache is not False,
    )


def _measure(
    skill: Skill,
    queries: list[TriggerQuery],
    distractors: Sequence[SkillFolder],
    config: EvalConfig,
    **kwargs: Any,
) -> TriggerResult:
    """:func:`~upskill_hub.evaluation.triggers.measure.evaluate_triggers` with a progress bar
    on stderr (``kwargs``: its other keywords)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from upskill_hub.evaluation.triggers.measure import evaluate_triggers
    from upskill_hub.evaluation.triggers.rates import TriggerSample

    err = err_console()
    bar = Progress(
        TextColumn("[bold]triggers[/] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("[green]{task.fields[hits]} loaded the skill[/]"),
        console=err,
        disable=not err.is_terminal,
        transient=True,
    )
    task = bar.add_task(skill.name, total=None, hits=0)
    hits = 0

    def on_sample(sample: TriggerSample, done: int, total: int) -> None:
        nonlocal hits
        hits += sample.triggered
        bar.update(task, completed=done, total=total, hits=hits)

    with bar:
        return evaluate_triggers(skill, queries, distractors, config, on_sample=on_sample, **kwargs)
