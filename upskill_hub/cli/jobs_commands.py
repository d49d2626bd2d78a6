"""``eval --executor jobs`` and ``upskill-hub jobs ...``: eval grids on Hugging Face Jobs.

Thin adapter over :mod:`upskill_hub.jobs`: print the plan and the estimated cost, ask before
submitting (no terminal: ``--yes`` is required), show progress over shards and samples, print
the merged run's table. ``jobs status|logs|cancel|collect RUN`` act on a run folder made with
``--executor jobs``; ``jobs schedules`` lists and deletes scheduled evals; ``jobs run-shard``
is what each Job runs. huggingface_hub is imported only inside the commands.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from upskill_hub.cli.output import (
    OutputFormat,
    console,
    err_console,
    print_json,
    print_run_outcome,
    safe,
)
from upskill_hub.errors import ProviderError, UsageError

if TYPE_CHECKING:
    from upskill_hub.cli.eval_options import EvalOptions
    from upskill_hub.evaluation.config import EvalConfig
    from upskill_hub.jobs.api_cost import ApiCostEstimate
    from upskill_hub.jobs.drive import RunProgress
    from upskill_hub.jobs.merge import MergeResult
    from upskill_hub.jobs.plan import JobsPlan
    from upskill_hub.jobs.submit import JobsOptions
    from upskill_hub.skill.model import Skill
    from upskill_hub.skill.testcases import TestCase

#: The run folder the ``jobs`` commands act on, and their ``--format``.
RunArg = Annotated[Path, typer.Argument(help="Run folder made by eval --executor jobs.")]
PlainFormatOpt = Annotated[OutputFormat, typer.Option("--format")]

#: Seconds between status polls while waiting (env ``UPSKILL_HUB_JOBS_POLL``).
POLL_ENV = "UPSKILL_HUB_JOBS_POLL"


def _poll_s() -> float:
    import os

    return float(os.environ.get(POLL_ENV) or 5.0)


def confirm_or_refuse(yes: bool, question: str) -> None:
    """Go on with ``--yes``; else ask on a terminal; without one, a one-line error."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise UsageError(
            "--executor jobs submits paid Jobs: pass --yes to confirm (no terminal to ask on)"
        )
    if not typer.confirm(question, default=False, err=True):
        raise UsageError("not submitted (answer y, or pass --yes)")


def _print_plan(plan: JobsPlan, concurrency: int, api_cost: ApiCostEstimate | None = None) -> None:
    from upskill_hub.jobs.submit import estimate

    err = err_console()
    pending = [s for s in plan.shards if s.state != "completed"]
    err.print(
        f"plan: {len(plan.models)} model(s) x {len({c for s in plan.shards for c in s.case_ids})}"
        f" case(s) x {plan.runs} run(s) x {len(plan.arms)} arm(s) = {plan.expected} samples "
        f"in {len(plan.shards)} shard(s); {len(pending)} to submit, at most "
        f"{plan.max_parallel} at once"
    )
    err.print(f"artifacts: {plan.artifact_repo} (dataset)   image: {plan.image}")
    for line in estimate(plan, concurrency).lines():
        err.print(line)
    for line in api_cost.lines() if api_cost is not None else []:
        err.print(safe(line), highlight=False)


def _progress_printer() -> tuple[Any, Any]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    err = err_console()
    bar = Progress(
        TextColumn("[bold]jobs[/] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=err,
        disable=not err.is_terminal,
        transient=True,
    )
    task = bar.add_task("samples", total=None)
    last: list[str] = []

    def on_progress(p: RunProgress) -> None:
        bar.update(
            task,
            completed=p.samples_done,
            total=p.samples,
            description=f"{p.finished}/{p.shards} shards ({p.running} running, {p.failed} failed)",
        )
        if not err.is_terminal and (not last or last[-1] != p.line()):
            last.append(p.line())
            err.print(p.line())

    return bar, on_progress


def _report(
    result: MergeResult,
    output_format: OutputFormat,
    pushed: Any = None,
    api_cost: dict[str, Any] | None = None,
) -> None:
    from upskill_hub.evaluation.report.table import print_report

    data: dict[str, Any] = {
        "skill": result.summary.skill,
        "run_dir": str(result.run_dir),
        "expected": result.expected,
        "missing": result.missing,
        "models": [m.to_dict() for m in result.stats],
    }
    if api_cost is not None:
        data["api_cost_estimate"] = api_cost  # what the plan estimated before submitting
    print_run_outcome(
        output_format,
        data,
        lambda out: print_report(out, result.summary),
        result.run_dir,
        pushed,
    )


def _warn_regraded(result: MergeResult) -> None:
    """One warning line when a shard claimed outcomes its assertion results do not give."""
    if result.regraded:
        count = sum(result.regraded.values())
        err_console().print(
            f"warning: {count} sample(s) of shard(s) {', '.join(sorted(result.regraded))} "
            "claimed an outcome their assertion results do not give; re-graded from the "
            "results (a forged or corrupted shard?)",
            markup=False,
            highlight=False,
        )


def _finish(
    plan: JobsPlan,
    run_dir: Path,
    *,
    output_format: OutputFormat,
    push: dict[str, Any] | None = None,
    push_repo: str | None = None,
    timeout_s: float | None = None,
) -> None:
    from upskill_hub.hub.client import Hub
    from upskill_hub.jobs.drive import wait_run
    from upskill_hub.jobs.keys import plan_secrets
    from upskill_hub.jobs.merge import merge_run

    secrets = plan_secrets(plan.secret_names)
    hub = Hub()
    bar, on_progress = _progress_printer()
    with bar:
        wait_run(
            plan,
            run_dir,
            secrets,
            hub=hub,
            on_progress=on_progress,
            poll_s=_poll_s(),
            timeout_s=timeout_s,
        )
        result = merge_run(plan, run_dir, hub)
    _warn_regraded(result)
    pushed = None
    if push is not None and push_repo and result.missing == 0:
        from upskill_hub.publish.results_dataset import push_results

        pushed = push_results(run_dir, push_repo, **push)
    _report(result, output_format, pushed, plan.api_cost)
    if result.missing:
        failed = [s.id for s in plan.shards if s.state in ("error", "canceled")]
        raise ProviderError(
            f"{result.missing} of {result.expected} samples not run (shard(s) "
            f"{', '.join(failed) or '?'} failed or were cancelled); finished samples are kept "
            f"in {run_dir}; run the rest with: upskill-hub eval SKILL --resume {run_dir}"
        )


def run_on_jobs(
    skill: Skill,
    cases: list[TestCase],
    config: EvalConfig,
    options: JobsOptions,
    *,
    output_root: Path,
    repo_id: str | None,
    revision: str | None,
    yes: bool,
    wait: bool,
    output_format: OutputFormat,
    push: dict[str, Any] | None,
    push_repo: str | None,
    pilot: Path | None = None,
) -> None:
    """``eval --executor jobs``: plan, estimate, confirm, publish, submit, wait, merge."""
    from upskill_hub.jobs.api_cost import plan_api_cost
    from upskill_hub.jobs.drive import submit_ready
    from upskill_hub.jobs.keys import plan_secrets
    from upskill_hub.jobs.submit import plan_run, publish_run

    run_dir, plan = plan_run(
        skill, cases, config, options, output_root=output_root, repo_id=repo_id, revision=revision
    )
    secrets = plan_secrets(plan.secret_names)  # a missing key fails before the question
    api_cost = plan_api_cost(
        plan,
        skill.name,
        output_root=output_root,
        run_dir=run_dir,
        pilot=pilot,
        price_overrides=config.prices,
        base_url=config.base_url,
    )
    plan.api_cost = api_cost.to_dict()
    plan.save(run_dir)
    _print_plan(plan, config.concurrency, api_cost)
    try:
        confirm_or_refuse(yes, f"Submit {len(plan.shards)} Job(s)?")
    except UsageError:
        import shutil

        shutil.rmtree(run_dir, ignore_errors=True)  # nothing was submitted: no run to keep
        raise
    publish_run(plan, run_dir, skill)
    if not wait:
        submit_ready(plan, run_dir, secrets)
        out = console()
        out.print(f"submitted {sum(1 for s in plan.shards if s.state == 'running')} Job(s)")
        out.print(f"run folder: {run_dir}")
        out.print(f"follow with: upskill-hub jobs status {run_dir}")
        out.print(f"wait and merge with: upskill-hub jobs collect {run_dir}")
        return
    _finish(plan, run_dir, output_format=output_format, push=push, push_repo=push_repo)


def jobs_eval(
    options: EvalOptions,
    skill: Skill,
    cases: list[TestCase],
    config: EvalConfig,
    *,
    repo_id: str | None,
    revision: str | None,
) -> None:
    """``eval --executor jobs``: a scheduled eval with ``--schedule``, else a run now."""
    jobs = options.jobs_options()
    if options.schedule is None:
        run_on_jobs(
            skill,
            cases,
            config,
            jobs,
            output_root=options.output,
            repo_id=repo_id,
            revision=revision,
            yes=options.yes,
            wait=not options.no_wait,
            output_format=options.output_format,
            push=options.push,
            push_repo=options.push_repo,
            pilot=options.pilot,
        )
        return
    from upskill_hub.jobs.recurring import create_schedule

    assert options.push_repo  # a rule of eval_options.RULES
    confirm_or_refuse(
        options.yes, f"Create a scheduled Job ({options.schedule}) evaluating {options.skill}?"
    )
    made = create_schedule(
        options.skill,
        repo_id,
        config,
        options.push_repo,
        options.schedule,
        flavor=jobs.flavor,
        timeout=jobs.timeout,
        install=jobs.install,
    )
    console().print(f"scheduled eval {made.id}: {made.schedule}, {made.skill} -> {made.results}")
    console().print("list or delete with: upskill-hub jobs schedules [--delete ID]")


def resume_on_jobs(
    run_dir: Path, *, yes: bool, wait: bool, output_format: OutputFormat, concurrency: int
) -> None:
    """``eval --resume RUN`` of a run on Jobs: submit only the shards with missing samples."""
    from upskill_hub.jobs.drive import mark_for_resume, refresh, submit_ready
    from upskill_hub.jobs.keys import plan_secrets
    from upskill_hub.jobs.merge import merge_run
    from upskill_hub.jobs.plan import read_plan

    plan = read_plan(run_dir)
    refresh(plan)
    plan.save(run_dir)
    if any(s.state == "running" for s in plan.shards):
        raise UsageError(
            f"--resume {run_dir}: shards are still running "
            f"(`upskill-hub jobs collect {run_dir}` waits for them)"
        )
    _warn_regraded(merge_run(plan, run_dir))
    again = mark_for_resume(plan, run_dir)
    if again == 0:
        console().print(f"{run_dir}: every sample is done; nothing to resume")
        return
    secrets = plan_secrets(plan.secret_names)
    _print_plan(plan, concurrency)
    confirm_or_refuse(yes, f"Submit {again} Job(s) again?")
    if not wait:
        submit_ready(plan, run_dir, secrets)
        console().print(f"submitted; wait and merge with: upskill-hub jobs collect {run_dir}")
        return
    _finish(plan, run_dir, output_format=output_format)


def register(app: typer.Typer) -> None:
    jobs = typer.Typer(
        name="jobs",
        help="Runs on Hugging Face Jobs (eval --executor jobs): status, logs, cancel, collect.",
        no_args_is_help=True,
    )

    @jobs.command("status")
    def status_command(
        run: RunArg,
        output_format: PlainFormatOpt = OutputFormat.text,
    ) -> None:
        """Where each shard of a run stands (its Job's stage and finished samples)."""
        from upskill_hub.jobs.drive import progress, refresh
        from upskill_hub.jobs.plan import read_plan

        plan = read_plan(run)
        if refresh(plan):
            plan.save(run)
        state = progress(plan)
        if output_format is OutputFormat.json:
            print_json(
                {
                    "run_dir": str(run),
                    "progress": state.__dict__,
                    "api_cost": plan.api_cost,
                    "shards": [s.__dict__ for s in plan.shards],
                }
            )
            return
        out = console()
        out.print(state.line())
        for shard in plan.shards:
            note = f" ({safe(shard.message)})" if shard.message else ""
            out.print(
                f"  {shard.id} {safe(shard.model)} {len(shard.case_ids)} case(s) "
                f"{shard.state}{note} job {shard.job_id or '-'}"
            )

    @jobs.command("logs")
    def logs_command(
        run: RunArg,
        shard: str = typer.Option(None, "--shard", help="Only this shard's Job."),
        output_format: PlainFormatOpt = OutputFormat.text,
    ) -> None:
        """Print the logs of a run's Jobs."""
        from upskill_hub.hub.client import Hub
        from upskill_hub.jobs.plan import read_plan

        plan = read_plan(run)
        hub = Hub()
        chosen = [plan.shard(shard)] if shard else plan.shards
        out = console()
        found: list[dict[str, Any]] = []
        for item in chosen:
            if not item.job_id:
                continue
            job_id = item.job_id
            if output_format is OutputFormat.text:
                out.print(f"===== shard {item.id} (job {job_id}) =====")
            lines = hub.fetch_job_logs(job_id, plan.namespace)
            found.append({"id": item.id, "job_id": job_id, "lines": lines})
            if output_format is OutputFormat.text:
                for line in lines:
                    out.print(safe(line), markup=False, highlight=False)
        if output_format is OutputFormat.json:
            print_json({"run_dir": str(run), "shards": found})

    @jobs.command("cancel")
    def cancel_command(
        run: RunArg,
        output_format: PlainFormatOpt = OutputFormat.text,
    ) -> None:
        """Cancel a run's Jobs; their finished samples stay in the artifact repo."""
        from upskill_hub.jobs.drive import cancel_run
        from upskill_hub.jobs.plan import read_plan

        plan = read_plan(run)
        count = cancel_run(plan, run)
        if output_format is OutputFormat.json:
            print_json(
                {
                    "run_dir": str(run),
                    "cancelled": count,
                    "shards": [s.__dict__ for s in plan.shards],
                }
            )
            return
        console().print(f"cancelled {count} Job(s); merge what finished with: jobs collect {run}")

    @jobs.command("collect")
    def collect_command(
        run: RunArg,
        wait_timeout: float = typer.Option(
            None, "--wait-timeout", help="Give up waiting after this many seconds."
        ),
        output_format: PlainFormatOpt = OutputFormat.text,
    ) -> None:
        """Wait for a run's Jobs (submitting shards still waiting) and merge its run folder."""
        from upskill_hub.jobs.plan import read_plan

        plan = read_plan(run)
        _finish(plan, run, output_format=output_format, timeout_s=wait_timeout)

    @jobs.command("schedules")
    def schedules_command(
        delete: list[str] = typer.Option(None, "--delete", help="Delete this scheduled eval."),
        output_format: PlainFormatOpt = OutputFormat.text,
    ) -> None:
        """List the scheduled evals (eval --schedule), or delete some with --delete ID."""
        from upskill_hub.jobs.recurring import delete_schedule, list_schedules

        if delete:
            for scheduled_id in delete:
                delete_schedule(scheduled_id)
                console().print(f"deleted {scheduled_id}")
            return
        found = list_schedules()
        if output_format is OutputFormat.json:
            print_json([s.__dict__ for s in found])
            return
        if not found:
            console().print("no scheduled evals")
        for item in found:
            console().print(
                f"{item.id}  {item.schedule}  {safe(item.skill)} -> {safe(item.results)}"
                f"{'  (suspended)' if item.suspended else ''}"
            )

    @jobs.command("run-shard", hidden=True)
    def run_shard_command(
        repo: str = typer.Argument(..., help="The artifact dataset NS/NAME."),
        run_id: str = typer.Argument(...),
        shard_id: str = typer.Argument(...),
        serve_vllm: bool = typer.Option(False, "--serve-vllm"),
        workdir: Path = typer.Option(Path("upskill-hub-shard"), "--workdir"),
    ) -> None:
        """Run one shard inside a Job (what eval --executor jobs submits)."""
        from upskill_hub.jobs.shard import run_shard

        result = run_shard(repo, run_id, shard_id, workdir, serve_vllm=serve_vllm)
        errors = sum(1 for s in result.samples if s.outcome == "error")
        state = "cancelled" if result.cancelled else "complete"
        print(
            f"shard {shard_id}: {state}, {len(result.samples)}/{result.expected} samples, "
            f"{errors} error(s)",
            flush=True,
        )
        if result.cancelled:
            raise typer.Exit(130)

    app.add_typer(jobs)
