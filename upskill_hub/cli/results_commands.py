"""``results push | show | compare | verify | reproduce | frontier``: publish a run folder as
a Hub dataset, read it back, check its figures, replicate a published run, and find the
cheapest model + arm good enough for a target pass rate.

Thin adapter over :mod:`upskill_hub.publish`; datasets and huggingface_hub are imported only
when a command runs. Errors propagate to ``cli.main``, which prints one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from upskill_hub.cli.eval_options import (
    BaseUrlOpt,
    ConcurrencyOpt,
    JudgeModelOpt,
    OutputOpt,
    RetriesOpt,
    RunsOpt,
    TimeoutOpt,
)
from upskill_hub.cli.output import OutputFormat, console, err_console, print_json, safe
from upskill_hub.formatting import ratio

if TYPE_CHECKING:
    from upskill_hub.publish.frontier import Frontier
    from upskill_hub.publish.reproduce import Reproduction
    from upskill_hub.publish.results_view import ModelComparison, RunResults
    from upskill_hub.publish.summary_text import ModelResult
    from upskill_hub.publish.verify import RunVerification

FORMAT_OPTION = typer.Option(OutputFormat.text, "--format", help="Output format: text or json.")

results_app = typer.Typer(
    name="results",
    help="Publish eval results to a Hub dataset, show them, compare runs.",
    no_args_is_help=True,
)


@results_app.command("push")
def push(
    run_dir: Path = typer.Argument(..., help="A run folder written by `upskill-hub eval`."),
    repo: str = typer.Option(..., "--repo", help="Results dataset NS/NAME (created if missing)."),
    private: bool = typer.Option(False, "--private", help="Create the dataset as private."),
    update_skill_card: bool = typer.Option(
        False, "--update-skill-card", help="Also write the results into the skill repo's card."
    ),
    skill_repo: str = typer.Option(
        None, "--skill-repo", help="Skill model repo NS/NAME (default: the run's Hub skill)."
    ),
    create_pr: bool = typer.Option(
        False, "--create-pr", help="Open a pull request for the skill card instead."
    ),
    output_format: OutputFormat = FORMAT_OPTION,
    sign: Path = typer.Option(
        None,
        "--sign",
        metavar="KEY",
        help="Sign the published split with this PEM EC private key (OpenSSF model signing "
        "over its rows, tests and a statement naming dataset, split, skill commit and run); "
        "uploaded as signatures/<split>.oms.sig. The key never leaves the machine.",
    ),
) -> None:
    """Add a run to a Hub results dataset (a new split) and update its card."""
    from upskill_hub.publish.results_dataset import push_results

    pushed = push_results(
        run_dir,
        repo,
        private=private,
        update_skill_card=update_skill_card,
        skill_repo=skill_repo,
        create_pr=create_pr,
        sign=sign,
    )
    if output_format is OutputFormat.json:
        data = pushed.to_dict()  # repo_id, url, commit, split; skill card fields when set
        print_json({k: v for k, v in data.items() if v is not None})
        return
    out = console()
    out.print(f"Pushed run [bold]{pushed.split}[/bold] to [bold]{pushed.repo_id}[/bold]")
    out.print(f"  commit {pushed.commit}")
    out.print(f"  {pushed.url}")
    if pushed.signed_by:
        out.print(f"  signed by {pushed.signed_by} (signatures/{pushed.split}.oms.sig)")
    if pushed.skill_card_pr_url:
        out.print(f"  skill card pull request: {pushed.skill_card_pr_url}")
    elif pushed.skill_card_commit:
        out.print(f"  skill card updated: commit {pushed.skill_card_commit}")


@results_app.command("show")
def show(
    source: str = typer.Argument(..., help="A run folder, or a results dataset NS/NAME[:split]."),
    split: str = typer.Option(None, "--split", help="The run (split) to show; default latest."),
    output_format: OutputFormat = FORMAT_OPTION,
    cases: bool = typer.Option(
        False,
        "--cases",
        help="Also show each test case: fixed, broken, always pass, always fail or flaky, and "
        "pass^k (every run passed) per arm. Needs a run folder.",
    ),
) -> None:
    """Print one run's summary: pass rates, intervals, lift and verdict per model."""
    from upskill_hub.errors import UsageError
    from upskill_hub.publish.results_view import TriggerRunResults, load_results

    results = load_results(source, split)
    if isinstance(results, TriggerRunResults):
        if output_format is OutputFormat.json:
            print_json(results.to_dict())
            return
        from upskill_hub.evaluation.report.triggers import print_trigger_report

        console().print(f"{results.source} · {results.split}", highlight=False)
        print_trigger_report(console(), results.summary)
        return
    if cases and results.case_tables is None:
        raise UsageError(
            f"--cases: {source} has no per-case table (it needs a run folder written by "
            "upskill-hub 'stats_version' 2 or later)"
        )
    if output_format is OutputFormat.json:
        data = results.to_dict()
        if cases:
            data["cases"] = results.case_tables
        print_json(data)
        return
    _print_summary(results)
    if cases and results.case_tables is not None:
        _print_cases(results.case_tables)


def _print_cases(case_tables: dict[str, dict[str, Any]]) -> None:
    from rich.table import Table

    from upskill_hub.formatting import NONE, percent, points

    out = console()
    for model, data in case_tables.items():
        table = Table(title=f"{model}: cases", title_justify="left")
        for column in ("case", "baseline", "with skill", "diff", "kind"):
            table.add_column(column, justify="right" if column in ("diff",) else "left")
        for row in data["cases"]:
            arms = [row.get("baseline"), row.get("with_skill")]
            cells = [NONE if a is None else f"{a['passed']}/{a['graded']}" for a in arms]
            diff = row.get("diff")
            table.add_row(
                str(row["case_id"]),
                *cells,
                points(diff),
                str(row["category"]).replace("_", " "),
            )
        out.print(table)
        counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in data["counts"].items())
        out.print(f"{counts}", highlight=False)
        k = data["pass_all_runs"]
        out.print(
            "pass^k (every run of a case passed): "
            + ", ".join(f"{arm.replace('_', ' ')} {percent(v)}" for arm, v in k.items()),
            highlight=False,
        )


@results_app.command("compare")
def compare(
    a: str = typer.Argument(..., help="Run A: a run folder or NS/NAME[:split]."),
    b: str = typer.Argument(..., help="Run B: a run folder or NS/NAME[:split]."),
    output_format: OutputFormat = FORMAT_OPTION,
) -> None:
    """Show two runs side by side per model, with the change in lift (B − A).

    Two single-model runs of different models are compared as one row "X vs Y"; a warning
    line (stderr) says when the runs used different skills or test cases."""
    from upskill_hub.publish.results_view import (
        compare_results,
        comparison_warning,
        load_eval_results,
    )

    run_a, run_b = load_eval_results(a), load_eval_results(b)
    rows = compare_results(run_a, run_b)
    warning = comparison_warning(run_a, run_b)
    if warning:
        err_console().print(f"warning: {warning}", markup=False, soft_wrap=True)
    if output_format is OutputFormat.json:
        print_json(
            {
                "a": {"source": run_a.source, "split": run_a.split},
                "b": {"source": run_b.source, "split": run_b.split},
                "models": [r.to_dict() for r in rows],
                "warning": warning,
            }
        )
        return
    _print_comparison(run_a, run_b, rows)


@results_app.command("verify")
def verify(
    source: str = typer.Argument(
        ..., help="A run folder, or a results dataset NS/NAME[:split] (default: every run)."
    ),
    compile_: bool = typer.Option(
        False,
        "--compile",
        help="Also re-run 'compiles' checks, in the compile sandbox (published answers are "
        "untrusted code: never without this flag).",
    ),
    output_format: OutputFormat = FORMAT_OPTION,
) -> None:
    """Recompute a run's figures from its samples and re-grade its answers against its tests.

    Exit 0 when everything agrees (each model verified or reported), 1 when something
    disagrees (the first disagreements are named), 2 when it cannot tell."""
    from upskill_hub.errors import UsageError
    from upskill_hub.publish.verify import verify_dataset, verify_published, verify_run_dir

    path = Path(source).expanduser()
    if path.exists():
        runs = [verify_run_dir(path, compile=compile_)]
    else:
        repo, sep, split = source.partition(":")
        if "/" not in repo or repo.startswith((".", "/", "~")) or (sep and not split):
            raise UsageError(f"{source}: no such run folder (nor a Hub dataset id NS/NAME[:split])")
        from upskill_hub.hub.client import Hub

        hub = Hub()
        if split:
            runs = [verify_published(hub, repo, split, compile=compile_)]
        else:
            runs = verify_dataset(hub, repo, compile=compile_)
    failed = any(r.status == "inconsistent" for r in runs)
    if output_format is OutputFormat.json:
        print_json({"status": _worst_status(runs), "runs": [r.to_dict() for r in runs]})
    else:
        _print_verification(runs)
    raise typer.Exit(1 if failed else 0)


def _worst_status(runs: list[RunVerification]) -> str:
    order = ("verified", "reported", "inconsistent")
    return max((r.status for r in runs), key=order.index, default="reported")


def _print_verification(runs: list[RunVerification]) -> None:
    out = console()
    for run in runs:
        where = f"{run.source}:{run.split}" if run.split else run.source
        at = f" @ {run.commit[:12]}" if run.commit else ""
        out.print(f"{where}{at}: {run.status}", highlight=False, markup=False)
        for m in run.models:
            out.print(
                f"  {m.model}: {m.verification} ({m.agreed} of {m.regraded} re-graded samples "
                f"agree, {m.not_regradable} not re-gradable)",
                highlight=False,
                markup=False,
            )
        for note in run.notes:
            out.print(f"  note: {note}", highlight=False, markup=False, soft_wrap=True)
        for problem in run.problems:
            out.print(f"  ✗ {problem}", highlight=False, markup=False, soft_wrap=True)


@results_app.command("frontier")
def frontier(
    sources: list[str] = typer.Argument(
        ..., help="Run folders and/or results datasets NS/NAME[:split]."
    ),
    target: float = typer.Option(
        0.8, "--target", help="The pass rate the lower bound of the 95% interval must reach."
    ),
    out: Path = typer.Option(None, "--out", help="Also write the chart (PNG) to this file."),
    output_format: OutputFormat = FORMAT_OPTION,
) -> None:
    """Pass rate against cost per passed case, per model and arm, and the cheapest model + arm
    whose pass rate reaches the target at its lower bound, with its saving against the best
    baseline. Unpriced arms are listed, never chosen."""
    from upskill_hub.publish.frontier import check_target, load_frontier

    result = load_frontier(sources, check_target(target))
    if out is not None:
        from upskill_hub.evaluation.report.frontier_chart import write_frontier_chart

        points = [p for p in (e.point() for e in result.entries) if p is not None]
        unpriced = [e.label for e in result.unpriced]
        write_frontier_chart(points, out, target=result.target, unpriced=unpriced)
    if output_format is OutputFormat.json:
        print_json(result.to_dict())
        return
    _print_frontier(result)
    if out is not None:
        console().print(f"chart: {out}", highlight=False)


def _print_frontier(result: Frontier) -> None:
    from rich.table import Table

    from upskill_hub.formatting import dollars, dollars_interval, percent, rate, strip_control

    table = Table(title=f"target {percent(result.target)} (lower bound)", title_justify="left")
    for column in ("model", "arm", "pass rate (95% CI)", "per passed case (95% CI)", "status"):
        table.add_column(column)
    for e in result.entries:
        cost = f"{dollars(e.per_passed)} {dollars_interval(e.per_passed_ci95)}".strip()
        table.add_row(
            safe(e.model + (f" ({e.run})" if e.run else "")),
            e.arm.replace("_", " "),
            rate(e.pass_rate, e.ci95),
            cost,
            e.status(result.target) + (" ← chosen" if e is result.chosen else ""),
        )
    out = console()
    out.print(table)
    out.print(strip_control(result.sentence), markup=False, highlight=False, soft_wrap=True)


def _print_summary(results: RunResults) -> None:
    from rich.table import Table

    from upskill_hub.publish import summary_text as fmt

    table = Table(title=f"{results.source} · {results.split}", title_justify="left")
    for column in ("model", "baseline (95% CI)", "with skill (95% CI)", "lift (95% CI)"):
        table.add_column(column)
    table.add_column("tokens (base → skill)", justify="right")
    # the cost column only when some model has a price (runs from before costs look the same)
    priced = any(
        (row or {}).get("cost_usd") is not None
        for m in results.models
        for row in (m.baseline, m.with_skill)
    )
    if priced:
        table.add_column("$/pass (base → skill)", justify="right")
    table.add_column("verdict")
    for m in results.models:
        cost = [fmt.cost_pair(m, unpriced=fmt.NONE)] if priced else []
        table.add_row(
            m.model,
            fmt.rate_with_ci(m.baseline),
            fmt.rate_with_ci(m.with_skill),
            fmt.lift_with_ci(m),
            fmt.tokens_pair(m),
            *cost,
            m.verdict,
        )
    console().print(table)


def _arm_cost(result: ModelResult | None) -> str:
    """A run's with-skill dollars per passed sample in a comparison (``—`` unpriced)."""
    from upskill_hub.publish import summary_text as fmt

    if result is None:
        return fmt.NONE
    return fmt.cost_per_pass(result.with_skill, unpriced=fmt.NONE, with_ci=False)


def _print_comparison(a: RunResults, b: RunResults, rows: list[ModelComparison]) -> None:
    from rich.table import Table

    from upskill_hub.publish import summary_text as fmt

    out = console()
    out.print(f"A: {a.source} · {a.split}")
    out.print(f"B: {b.source} · {b.split}")
    table = Table()
    for column in ("model", "A baseline", "A with skill", "A lift"):
        table.add_column(column)
    for column in ("B baseline", "B with skill", "B lift", "Δ with skill", "Δ lift"):
        table.add_column(column)
    for column in ("A $/pass", "B $/pass", "B/A $/pass"):
        table.add_column(column, justify="right")
    for r in rows:
        table.add_row(
            r.model,
            fmt.percent(r.a.baseline.get("pass_rate")) if r.a and r.a.baseline else fmt.NONE,
            fmt.percent(r.a.with_skill.get("pass_rate")) if r.a and r.a.with_skill else fmt.NONE,
            fmt.points(r.a.lift) if r.a else fmt.NONE,
            fmt.percent(r.b.baseline.get("pass_rate")) if r.b and r.b.baseline else fmt.NONE,
            fmt.percent(r.b.with_skill.get("pass_rate")) if r.b and r.b.with_skill else fmt.NONE,
            fmt.points(r.b.lift) if r.b else fmt.NONE,
            fmt.points(r.with_skill_delta),
            fmt.points(r.lift_delta),
            _arm_cost(r.a),
            _arm_cost(r.b),
            ratio(r.with_skill_cost_ratio),
        )
    out.print(table)


@results_app.command("reproduce")
def reproduce_command(
    source: str = typer.Argument(..., help="The published run to replicate: NS/DATASET:SPLIT."),
    model: str = typer.Option(..., "--model", "-m", help="The model to run it on."),
    repo: str = typer.Option(..., "--repo", help="Results dataset NS/NAME for the replication."),
    n_cases: int = typer.Option(
        None, "--cases", help="Run this many of the cases, drawn at random [all]."
    ),
    runs: RunsOpt = None,
    seed: int = typer.Option(0, "--seed", help="Seed of the random choice of --cases."),
    base_url: BaseUrlOpt = None,
    concurrency: ConcurrencyOpt = 4,
    timeout: TimeoutOpt = 120.0,
    retries: RetriesOpt = 3,
    judge_model: JudgeModelOpt = None,
    output: OutputOpt = Path("runs"),
    private: bool = typer.Option(False, "--private", help="Create the dataset as private."),
    create_pr: bool = typer.Option(
        False, "--create-pr", help="List the replication on the skill card by pull request."
    ),
    output_format: OutputFormat = FORMAT_OPTION,
) -> None:
    """Re-run a published run's skill commit and tests on a model, publish it as a
    replication, and say whether it agrees (lift intervals overlap, case outcomes match).
    Exit 1 when it disagrees (the replication is published either way)."""
    import os

    from upskill_hub.cli.eval_options import API_KEY_ENV
    from upskill_hub.evaluation.run.resume import RunOverrides
    from upskill_hub.publish.reproduce import reproduce

    done = reproduce(
        source,
        model=model,
        repo=repo,
        n_cases=n_cases,
        seed=seed,
        output_root=output,
        private=private,
        create_pr=create_pr,
        overrides=RunOverrides(
            runs=runs,
            base_url=base_url,
            judge_model=judge_model,
            timeout=timeout,
            concurrency=concurrency,
            retries=retries,
            api_key=os.environ.get(API_KEY_ENV) or None,
        ),
    )
    if output_format is OutputFormat.json:
        print_json(done.to_dict())
    else:
        _print_reproduction(done)
    if not done.agreement.agrees:
        raise typer.Exit(1)


def _print_reproduction(done: Reproduction) -> None:
    from upskill_hub.formatting import cases_runs

    out = console()
    out.print(
        f"Replicated {done.of_dataset}:{done.of_split} as {done.dataset}:{done.split} "
        f"({cases_runs(done.cases, done.runs)})",
        markup=False,
        highlight=False,
    )
    if done.pushed.skill_card_pr_url:
        out.print(f"  skill card pull request: {done.pushed.skill_card_pr_url}", markup=False)
    out.print(done.line(), markup=False, highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.add_typer(results_app, name="results")
