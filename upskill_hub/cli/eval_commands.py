"""``eval``: measure a skill's lift (pass rate with the skill minus without) on its test cases.

Thin adapter over :mod:`upskill_hub.evaluation.runner`: parse flags, find the skill and cases,
show progress on stderr, print the table (or JSON) and, with ``--push-results NS/NAME``, publish
the finished run through :func:`upskill_hub.publish.results_dataset.push_results` (a cancelled
run is not pushed). The first Ctrl-C cancels cleanly (finished
samples are kept, the resume command is printed, exit 130); a second one stops at once. A run
where every request of some model's arm failed is no result: after the table, a one-line error
naming the model and its first error, exit 1 (the run folder is kept; nothing is pushed).
Heavy libraries are imported only when the command runs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from upskill_hub.cli.output import OutputFormat, console, err_console, print_run_outcome
from upskill_hub.errors import EvalCancelledError, ProviderError, UsageError

if TYPE_CHECKING:
    from upskill_hub.evaluation.config import EvalConfig
    from upskill_hub.evaluation.eval_result import EvalResult
    from upskill_hub.skill.model import Skill
    from upskill_hub.skill.testcases import TestCase

#: API key for an OpenAI-compatible ``--base-url`` server (keys never go on the command line).
API_KEY_ENV = "UPSKILL_HUB_API_KEY"


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
        return asyncio.run(main())


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


def _push_options(
    repo: str | None,
    private: bool,
    update_skill_card: bool,
    skill_repo: str | None,
    create_pr: bool,
) -> dict[str, Any] | None:
    """``push_results`` keyword arguments for ``--push-results`` (None without it), checked
    before the run so that a typo does not cost a whole eval."""
    if repo is None:
        used = [
            flag
            for flag, on in (
                ("--private", private),
                ("--update-skill-card", update_skill_card),
                ("--skill-repo", skill_repo),
                ("--create-pr", create_pr),
            )
            if on
        ]
        if used:
            raise UsageError(f"{', '.join(used)} apply only with --push-results NS/NAME")
        return None
    from upskill_hub.publish.results_dataset import dataset_repo_id

    dataset_repo_id(repo)
    if (skill_repo or create_pr) and not update_skill_card:
        raise UsageError("--skill-repo and --create-pr apply only with --update-skill-card")
    return {
        "private": private,
        "update_skill_card": update_skill_card,
        "skill_repo": skill_repo,
        "create_pr": create_pr,
    }


def eval_command(
    skill: str = typer.Argument(
        ..., help="Skill folder (or its SKILL.md), or a Hub repo id ns/name[@revision]."
    ),
    model: list[str] = typer.Option(
        None,
        "--model",
        "-m",
        help="Model to evaluate; repeat for several. local, openai:M, anthropic:M, haiku, "
        "sonnet, opus, hf:ORG/M[:PROVIDER], or a bare M with --base-url. Default: local.",
    ),
    runs: int = typer.Option(None, "--runs", "-n", help="Runs of each case per arm [default: 1]."),
    tests: Path = typer.Option(
        None, "--tests", "-t", help="Test file instead of the skill's skill_meta.json."
    ),
    concurrency: int = typer.Option(
        4, "--concurrency", "-j", help="Requests in flight at most, per model."
    ),
    base_url: str = typer.Option(
        None, "--base-url", help=f"OpenAI/Anthropic-compatible API URL (key from ${API_KEY_ENV})."
    ),
    temperature: float = typer.Option(None, "--temperature", help="Sampling temperature [0]."),
    seed: int = typer.Option(None, "--seed", help="Sampling seed, for APIs that take one."),
    timeout: float = typer.Option(120.0, "--timeout", help="Seconds per request before retrying."),
    retries: int = typer.Option(3, "--retries", help="Retries of a failed request (429, 5xx...)."),
    max_tokens: int = typer.Option(
        None,
        "--max-tokens",
        help="Reply length limit [1024; 384 when only the embedded model runs].",
    ),
    judge_model: str = typer.Option(
        None, "--judge-model", help="Model grading 'judge' assertions (skipped without one)."
    ),
    output: Path = typer.Option(Path("runs"), "--output", "-o", help="Where run folders go."),
    resume: Path = typer.Option(
        None, "--resume", help="Finish this run folder: run only missing or errored samples."
    ),
    no_baseline: bool = typer.Option(False, "--no-baseline", help="Only the with-skill arm."),
    skill_name: str = typer.Option(None, "--skill", help="Which skill of a multi-skill Hub repo."),
    output_format: OutputFormat = typer.Option(
        OutputFormat.text, "--format", help="Output format: text or json."
    ),
    push_repo: str = typer.Option(
        None,
        "--push-results",
        help="After the run, publish it to this Hub results dataset NS/NAME (a new split).",
    ),
    private: bool = typer.Option(
        False, "--private", help="With --push-results: create the dataset as private."
    ),
    update_skill_card: bool = typer.Option(
        False, "--update-skill-card", help="With --push-results: also update the skill's card."
    ),
    skill_repo: str = typer.Option(
        None, "--skill-repo", help="With --update-skill-card: the skill model repo NS/NAME."
    ),
    create_pr: bool = typer.Option(
        False, "--create-pr", help="With --update-skill-card: open a pull request instead."
    ),
    mode: str = typer.Option(
        None,
        "--mode",
        help="inline: SKILL.md in the system prompt [default]. agent: the model sees the skill's "
        "name and description and loads it and its files through Skill and Read tools.",
    ),
    max_turns: int = typer.Option(
        None, "--max-turns", help="Agent mode: model calls per sample at most [8]."
    ),
    token_budget: int = typer.Option(
        None,
        "--token-budget",
        help="Agent mode: stop a sample's tool loop after this many tokens, all turns [60000].",
    ),
    triggers: Path = typer.Option(
        None,
        "--triggers",
        help="Trigger eval: queries file [{query, should_trigger}] (a path in the skill folder, "
        "e.g. evals/eval_queries.json, works too). Measures whether the model loads the skill.",
    ),
    distractors: Path = typer.Option(
        None,
        "--distractors",
        help="Trigger eval: folder of other skills listed beside this one [skills bundled with "
        "upskill-hub].",
    ),
    split: float = typer.Option(
        None,
        "--split",
        help="Trigger eval: share of queries in the train set (e.g. 0.6); the rest is the "
        "validation set, fixed by --seed.",
    ),
    executor: str = typer.Option(
        "local", "--executor", help="Where requests run: local, or jobs (Hugging Face Jobs)."
    ),
    flavor: str = typer.Option("cpu-basic", "--flavor", help="With --executor jobs: hardware."),
    artifact_repo: str = typer.Option(
        None,
        "--artifact-repo",
        help="With --executor jobs: dataset for shards [you/upskill-hub-runs].",
    ),
    max_parallel: int = typer.Option(
        10, "--max-parallel", help="With --executor jobs: Jobs at once."
    ),
    job_timeout: str = typer.Option("2h", "--job-timeout", help="With --executor jobs: per Job."),
    shard_size: int = typer.Option(
        2000, "--shard-size", help="With --executor jobs: samples per Job."
    ),
    install: str = typer.Option(
        "pypi", "--install", help="With --executor jobs: pypi, wheel (this checkout) or none."
    ),
    job_image: str = typer.Option(
        None, "--job-image", help="With --executor jobs: Docker image [python:3.12; vLLM's]."
    ),
    no_wait: bool = typer.Option(False, "--no-wait", help="With --executor jobs: submit and exit."),
    yes: bool = typer.Option(
        False, "--yes", "-y", help="With --executor jobs: submit without asking."
    ),
    schedule: str = typer.Option(
        None, "--schedule", help="With --executor jobs: re-run on a schedule (@weekly, cron)."
    ),
) -> None:
    """Evaluate a skill: pass rate with it in the prompt minus without, per model, with 95% CIs."""
    from upskill_hub.evaluation.config import check_base_url

    check_base_url(base_url)
    push = _push_options(push_repo, private, update_skill_card, skill_repo, create_pr)
    if resume is not None and not (resume / "run.json").is_file():
        raise UsageError(f"--resume {resume}: not a run folder (no run.json)")
    if tests is not None and not tests.is_file():
        raise UsageError(f"--tests {tests}: no such file")
    if executor not in ("local", "jobs"):
        raise UsageError(f"--executor {executor!r}: local or jobs")
    if resume is not None and (resume / "jobs.json").is_file():  # a run on Jobs
        from upskill_hub.cli.jobs_commands import resume_on_jobs

        resume_on_jobs(
            resume, yes=yes, wait=not no_wait, output_format=output_format, concurrency=concurrency
        )
        return
    from upskill_hub.cli.agent_options import agent_settings
    from upskill_hub.evaluation.run.resume import RunOverrides, run_settings
    from upskill_hub.skill.testcases import read_suite

    agent = agent_settings(mode, max_turns, token_budget, triggers=triggers is not None)
    if triggers is not None:
        from upskill_hub.cli.agent_options import refuse_with_triggers

        refuse_with_triggers(
            {
                "--tests": tests is not None,
                "--resume": resume is not None,
                "--no-baseline": no_baseline,
                "--judge-model": judge_model is not None,
                "--update-skill-card": update_skill_card,
                "--executor jobs": executor == "jobs",
            }
        )
    loaded, repo_id, revision = _load(skill, skill_name)
    overrides = RunOverrides(
        models=model or None,
        runs=runs,
        temperature=temperature,
        max_tokens=max_tokens,
        seed=seed,
        base_url=base_url,
        judge_model=judge_model,
        no_baseline=no_baseline,
        timeout=timeout,
        concurrency=concurrency,
        retries=retries,
        api_key=os.environ.get(API_KEY_ENV) or None,
        mode=mode,
        agent=agent,
    )
    if triggers is not None:
        from upskill_hub.cli.trigger_commands import run_triggers

        run_triggers(
            loaded,
            triggers,
            overrides,
            distractors=distractors,
            split=split,
            output=output,
            output_format=output_format,
            skill_ref=f"{repo_id}@{revision}" if repo_id and revision else repo_id,
            push_repo=push_repo if push is not None else None,
            push_private=private,
        )
        return
    if split is not None or distractors is not None:
        raise UsageError("--split and --distractors apply only with --triggers FILE")
    config, cases = run_settings(
        loaded.tests,
        overrides,
        resume=resume,
        tests=read_suite(tests).cases if tests is not None else None,
        skill_path=loaded.path,
    )
    if executor == "jobs":
        from upskill_hub.cli.jobs_commands import jobs_eval

        if resume is not None:
            raise UsageError(f"--resume {resume}: a local run; resume it without --executor jobs")
        if no_wait and push is not None and not schedule:
            raise UsageError(
                "--push-results waits for the run: drop --no-wait, or run `results push RUN "
                "--repo NS/NAME` after `jobs collect RUN`"
            )

        jobs_eval(
            loaded,
            cases,
            config,
            spec=skill,
            repo_id=repo_id,
            revision=revision,
            output_root=output,
            flags={
                "flavor": flavor,
                "artifact_repo": artifact_repo,
                "max_parallel": max_parallel,
                "timeout": job_timeout,
                "shard_samples": shard_size,
                "install": install,
                "image": job_image,
            },
            yes=yes,
            wait=not no_wait,
            schedule=schedule,
            output_format=output_format,
            push=push,
            push_repo=push_repo,
        )
        return
    jobs_only = (
        ("--schedule", schedule),
        ("--no-wait", no_wait),
        ("--artifact-repo", artifact_repo),
        ("--job-image", job_image),
    )
    used = [flag for flag, value in jobs_only if value]
    if used:
        raise UsageError(f"{', '.join(used)} apply only with --executor jobs")
    if any(m.lower().startswith("vllm:") for m in config.models):
        from upskill_hub.jobs.vllm import local_vllm

        config = local_vllm(config)
    result = _run(
        loaded,
        cases,
        config,
        output_root=output,
        resume_from=resume,
        repo_id=repo_id,
        revision=revision,
    )
    summary = result.summary
    # an arm without a single graded sample is no result: say so and exit 1 (the run folder
    # and summary.json are written; --resume retries the errors)
    failure = None if result.cancelled else result.unmeasured()
    pushed = None
    if push is not None and not result.cancelled and failure is None:
        from upskill_hub.publish.results_dataset import push_results

        pushed = push_results(result.run_dir, push_repo, **push)
    from upskill_hub.evaluation.report.table import print_report

    data: dict[str, Any] = {
        "skill": summary["skill"],
        "revision": summary["revision"],
        "run_dir": str(result.run_dir),
        "models": [m.to_dict() for m in result.stats],
    }
    if summary.get("agent") is not None:
        data["mode"], data["agent"] = "agent", summary["agent"]
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
    output_format: OutputFormat = typer.Option(
        OutputFormat.text, "--format", help="Output format: text or json."
    ),
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
