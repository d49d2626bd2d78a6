"""``eval``: measure a skill's lift (pass rate with the skill minus without) on its test cases.

A dispatcher: the flags (declared in :mod:`upskill_hub.cli.eval_options`) become one
:class:`~upskill_hub.cli.eval_options.EvalOptions`, checked against its table of rules before
anything is loaded; then one program runs: a run here (:func:`_eval_local`, over
:mod:`upskill_hub.evaluation.runner`), a run on Hugging Face Jobs
(:func:`upskill_hub.cli.jobs_commands.jobs_eval`), a trigger eval
(:func:`upskill_hub.cli.trigger_commands.run_triggers`), or the resume of a run on Jobs.

A run here shows progress on stderr, prints the table (or JSON) and, with ``--push-results
NS/NAME``, publishes the finished run through
:func:`upskill_hub.publish.results_dataset.push_results` (a cancelled run is not pushed). The
first Ctrl-C cancels cleanly (finished samples are kept, the resume command is printed, exit
130); a second one stops at once. A run where every request of some model's arm failed is no
result: after the table, a one-line error naming the model and its first error, exit 1 (the run
folder is kept; nothing is pushed). Heavy libraries are imported only when the command runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from upskill_hub.cli.eval_options import (
    ArtifactRepoOpt,
    BaseUrlOpt,
    CacheOpt,
    ConcurrencyOpt,
    CreatePrOpt,
    DistractorsOpt,
    EvalOptions,
    ExecutorOpt,
    FlavorOpt,
    FormatOpt,
    InstallOpt,
    JobImageOpt,
    JobTimeoutOpt,
    JudgeModelOpt,
    MaxParallelOpt,
    MaxTokensOpt,
    MaxTurnsOpt,
    ModelOpt,
    ModeOpt,
    NoBaselineOpt,
    NoWaitOpt,
    OutputOpt,
    PilotOpt,
    PriceOpt,
    PrivateOpt,
    PushResultsOpt,
    ResumeOpt,
    RetriesOpt,
    RunsOpt,
    ScheduleOpt,
    SeedOpt,
    ShardSizeOpt,
    SkillArg,
    SkillNameOpt,
    SkillRepoOpt,
    SplitOpt,
    TemperatureOpt,
    TestsOpt,
    TimeoutOpt,
    TokenBudgetOpt,
    TriggersOpt,
    UpdateSkillCardOpt,
    YesOpt,
    check_rules,
)
from upskill_hub.cli.output import OutputFormat, console, err_console, print_run_outcome
from upskill_hub.errors import EvalCancelledError, ProviderError, UsageError

if TYPE_CHECKING:
    from upskill_hub.evaluation.config import EvalConfig
    from upskill_hub.evaluation.eval_result import EvalResult
    from upskill_hub.skill.model import Skill
    from upskill_hub.skill.testcases import TestCase


def _load(spec: str, skill_name: str | None) -> tuple[Skill, str | None, str | None]:
    """The skill for SKILL (a local path, else a Hub repo id) plus its repo id and commit."""
    from upskill_hub.registry.skill_source import open_skill

    if skill_name and Path(spec).expanduser().exists():
        raise UsageError("--skill picks a skill of a Hub repo; give the folder itself instead")
    opened = open_skill(spec, skill=skill_name)
    return opened.skill, opened.repo_id, opened.commit


def _run(skill: Skill, cases: list[TestCase], config: EvalConfig, **kwargs: Any) -> EvalResult:
    """Run with a progress bar on stderr; the first SIGINT sets the cancel event."""
    import asyncio
    import contextlib
    import signal

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from upskill_hub._sync import run_sync
    from upskill_hub.evaluation.eval_result import Progress as RunProgress
    from upskill_hub.evaluation.runner import run_eval
    from upskill_hub.evaluation.types import Sample

    err = err_console()
    bar = Progress(
        TextColumn("[bold]eval[/] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(
            "[green]{task.fields[passed]} pass[/] [red]{task.fields[failed]} fail[/] "
            "[yellow]{task.fields[errors]} error[/]"
        ),
        TimeElapsedColumn(),
        console=err,
        disable=not err.is_terminal,
        transient=True,
    )
    task = bar.add_task(skill.name, total=None, passed=0, failed=0, errors=0)
    latest: list[RunProgress] = []

    def on_sample(_sample: Sample, p: RunProgress) -> None:
        latest[:] = [p]
        bar.update(
            task,
            completed=p.done,
            total=p.total,
            passed=p.passed,
            failed=p.failed,
            errors=p.errors,
        )

    async def main() -> EvalResult:
        cancel = asyncio.Event()
        loop = asyncio.get_running_loop()

        def first_interrupt() -> None:
            cancel.set()
            loop.remove_signal_handler(signal.SIGINT)  # a second Ctrl-C stops at once
            err.print("[yellow]cancelling: finished samples are kept (Ctrl-C again to abort)[/]")

        with contextlib.suppress(NotImplementedError, RuntimeError):  # not main thread
            loop.add_signal_handler(signal.SIGINT, first_interrupt)
        # no terminal (CI, nohup): no bar, so a plain line at a steady interval instead
        ticker = None if err.is_terminal else asyncio.create_task(_progress_lines(latest))
        try:
            return await run_eval(
                skill, cases, config, on_sample=on_sample, cancel=cancel, **kwargs
            )
        finally:
            loop.remove_signal_handler(signal.SIGINT)
            if ticker is not None:
                ticker.cancel()

    with bar:
        return run_sync(main())


#: Seconds between progress lines when stderr is not a terminal (the environment may change it).
PROGRESS_SECONDS = 30.0


async def _progress_lines(latest: list[Any]) -> None:
    """Print ``eval: 12/90 samples (10 pass, 2 fail, 0 error), 45s`` every
    ``UPSKILL_HUB_PROGRESS_SECONDS`` (default 30) seconds, from the newest progress."""
    import asyncio
    import os
    import time

    try:
        every = float(os.environ.get("UPSKILL_HUB_PROGRESS_SECONDS", PROGRESS_SECONDS))
    except ValueError:
        every = PROGRESS_SECONDS
    every = max(every, 0.1)
    started = time.monotonic()
    while True:
        await asyncio.sleep(every)
        elapsed = time.monotonic() - started
        if latest:
            p = latest[0]
            line = (
                f"eval: {p.done}/{p.total} samples ({p.passed} pass, {p.failed} fail, "
                f"{p.errors} error), {elapsed:.0f}s"
            )
        else:
            line = f"eval: waiting for the first sample, {elapsed:.0f}s"
        err_console().print(line, markup=False, highlight=False, soft_wrap=True)


def eval_command(
    skill: SkillArg,
    model: ModelOpt = None,
    runs: RunsOpt = None,
    tests: TestsOpt = None,
    concurrency: ConcurrencyOpt = 4,
    base_url: BaseUrlOpt = None,
    temperature: TemperatureOpt = None,
    seed: SeedOpt = None,
    timeout: TimeoutOpt = 120.0,
    retries: RetriesOpt = 3,
    max_tokens: MaxTokensOpt = None,
    judge_model: JudgeModelOpt = None,
    output: OutputOpt = Path("runs"),
    resume: ResumeOpt = None,
    no_baseline: NoBaselineOpt = False,
    cache: CacheOpt = None,
    skill_name: SkillNameOpt = None,
    output_format: FormatOpt = OutputFormat.text,
    push_repo: PushResultsOpt = None,
    private: PrivateOpt = False,
    update_skill_card: UpdateSkillCardOpt = False,
    skill_repo: SkillRepoOpt = None,
    create_pr: CreatePrOpt = False,
    mode: ModeOpt = None,
    max_turns: MaxTurnsOpt = None,
    token_budget: TokenBudgetOpt = None,
    triggers: TriggersOpt = None,
    distractors: DistractorsOpt = None,
    split: SplitOpt = None,
    executor: ExecutorOpt = "local",
    flavor: FlavorOpt = "cpu-basic",
    artifact_repo: ArtifactRepoOpt = None,
    max_parallel: MaxParallelOpt = 10,
    job_timeout: JobTimeoutOpt = "2h",
    shard_size: ShardSizeOpt = 2000,
    install: InstallOpt = "pypi",
    job_image: JobImageOpt = None,
    no_wait: NoWaitOpt = False,
    yes: YesOpt = False,
    schedule: ScheduleOpt = None,
    pilot: PilotOpt = None,
    price: PriceOpt = None,
) -> None:
    """Evaluate a skill: pass rate with it in the prompt minus without, per model, with 95% CIs."""
    run_eval_command(EvalOptions(**locals()))  # the parameters are EvalOptions' fields


def run_eval_command(options: EvalOptions) -> None:
    """Check ``options`` (values, then :data:`~upskill_hub.cli.eval_options.RULES`) before
    anything is loaded, then run the program they ask for."""
    options.check_values()
    check_rules(options)
    if options.program == "jobs-resume":
        from upskill_hub.cli.jobs_commands import resume_on_jobs

        assert options.resume is not None
        resume_on_jobs(
            options.resume,
            yes=options.yes,
            wait=not options.no_wait,
            output_format=options.output_format,
            concurrency=options.concurrency,
        )
        return
    overrides = options.overrides(options.agent_settings())
    loaded, repo_id, revision = _load(options.skill, options.skill_name)
    if options.program == "triggers":
        from upskill_hub.cli.trigger_commands import run_triggers

        skill_ref = f"{repo_id}@{revision}" if repo_id and revision else repo_id
        run_triggers(options, loaded, overrides, skill_ref=skill_ref)
        return
    from upskill_hub.evaluation.run.resume import run_settings
    from upskill_hub.skill.testcases import read_suite

    config, cases = run_settings(
        loaded.tests,
        overrides,
        resume=options.resume,
        tests=read_suite(options.tests).cases if options.tests is not None else None,
        skill_path=loaded.path,
    )
    if options.program == "jobs":
        from upskill_hub.cli.jobs_commands import jobs_eval

        jobs_eval(options, loaded, cases, config, repo_id=repo_id, revision=revision)
        return
    _eval_local(options, loaded, cases, config, repo_id=repo_id, revision=revision)


def _eval_local(
    options: EvalOptions,
    skill: Skill,
    cases: list[TestCase],
    config: EvalConfig,
    *,
    repo_id: str | None,
    revision: str | None,
) -> None:
    """Run here, print the table (or JSON), push a finished run with ``--push-results``."""
    from upskill_hub.evaluation.providers.resolve import model_kind

    if any(model_kind(m) == "vllm" for m in config.models):
        from upskill_hub.jobs.vllm import local_vllm

        config = local_vllm(config)
    result = _run(
        skill,
        cases,
        config,
        output_root=options.output,
        resume_from=options.resume,
        repo_id=repo_id,
        revision=revision,
    )
    # an arm without a single graded sample is no result: say so and exit 1 (the run folder
    # and summary.json are written; --resume retries the errors)
    failure = None if result.cancelled else result.unmeasured()
    push = options.push
    pushed = None
    if push is not None and options.push_repo and not result.cancelled and failure is None:
        from upskill_hub.publish.results_dataset import push_results

        pushed = push_results(result.run_dir, options.push_repo, **push)
    _print_result(result, options.output_format, pushed)
    if result.cancelled:
        info = (result.run_dir / "run.json").read_text(encoding="utf-8")
        import json

        resume_cmd = json.loads(info).get("resume", "")
        saved = result.expected - result.missing
        raise EvalCancelledError(
            f"cancelled: {saved} of {result.expected} samples saved in {result.run_dir}; "
            f"resume with: {resume_cmd}"
        )
    if failure is not None:
        not_pushed = "; results not pushed" if push is not None else ""
        raise ProviderError(f"{failure}; run folder: {result.run_dir}{not_pushed}")


def _print_result(result: EvalResult, output_format: OutputFormat, pushed: Any) -> None:
    """The run's table (or JSON), where its card went, and its warnings."""
    from upskill_hub.evaluation.report.table import print_report

    summary = result.summary
    data: dict[str, Any] = {
        "skill": summary.skill,
        "revision": summary.revision,
        "run_dir": str(result.run_dir),
        "models": [m.to_dict() for m in result.stats],
    }
    if summary.agent is not None:
        data["mode"], data["agent"] = "agent", summary.agent
    print_run_outcome(
        output_format, data, lambda out: print_report(out, summary), result.run_dir, pushed
    )
    if output_format is OutputFormat.text and pushed is not None:
        if pushed.skill_card_pr_url:
            console().print(f"skill card pull request: {pushed.skill_card_pr_url}")
        elif pushed.skill_card_commit:
            console().print(f"skill card updated: commit {pushed.skill_card_commit}")
    for warning in result.warnings:
        err_console().print(f"[yellow]warning:[/] {warning}")


def power_command(
    cases: int = typer.Option(None, "--cases", help="Test cases [a pilot's own count]."),
    runs: int = typer.Option(None, "--runs", "-n", help="Runs of each case per arm [1]."),
    lift: float = typer.Option(
        None, "--lift", help="Expected lift, a pass-rate change: 0.2 = +20 pts [0.2]."
    ),
    pilot: Path = typer.Option(
        None, "--pilot", help="A run folder whose cases to simulate instead of --lift's model."
    ),
    model: str = typer.Option(None, "--model", "-m", help="With --pilot: its model [first]."),
    power: float = typer.Option(0.8, "--power", help="Power to find the cases for."),
    sims: int = typer.Option(1000, "--sims", help="Simulated evals per design."),
    seed: int = typer.Option(0, "--seed", help="Simulation seed."),
    output_format: FormatOpt = OutputFormat.text,
) -> None:
    """Plan an eval: the chance of a "helps" verdict at --cases x --runs, and the cases needed
    for 80% power, by simulating evals judged with the shipped statistics."""
    from upskill_hub.evaluation.stats import power as planning

    if pilot is not None and lift is not None:
        raise UsageError("give --lift or --pilot, not both")
    if pilot is not None:
        population = planning.population_from_run(pilot, model)
        info = _pilot_info(pilot)
        cases = cases if cases is not None else len(population.pairs)
        runs = runs if runs is not None else info
    else:
        population = planning.population_for_lift(0.2 if lift is None else lift)
    if cases is None:
        raise UsageError("give --cases (or --pilot RUN_DIR)")
    found = planning.plan(
        population, cases, 1 if runs is None else runs, target_power=power, sims=sims, seed=seed
    )
    if output_format is OutputFormat.json:
        from upskill_hub.cli.output import print_json

        print_json(found.to_dict())
        return
    for line in planning.describe(found):
        console().print(line, markup=False, highlight=False)


def _pilot_info(pilot: Path) -> int:
    """The pilot run's runs per case (run.json), 1 when it does not say."""
    from upskill_hub.evaluation.run.folder import RunFolder

    try:
        return RunFolder(pilot).read_info().runs or 1
    except (OSError, ValueError, KeyError, UsageError):
        return 1


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
    app.command("power")(power_command)
