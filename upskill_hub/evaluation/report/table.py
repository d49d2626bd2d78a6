"""The eval results as a rich table, from summary.json's ``models`` list.

Works on plain dicts (``ModelStats.to_dict(extended=True)``) so that a finished run folder can be
shown again without re-running anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from upskill_hub.formatting import (
    NONE,
    cases_runs,
    dollars,
    dollars_interval,
    interval,
    percent,
    points,
    ratio,
    verdict_interval,
)

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from upskill_hub.evaluation.run.records import RunSummary

VERDICT_STYLES = {"helps": "bold green", "hurts": "bold red"}


def _num(value: float | None, fmt: str = ".0f") -> str:
    return NONE if value is None else format(value, fmt)


def _arm_cells(arm: dict[str, Any]) -> list[str]:
    tokens = arm.get("tokens") or {}
    latency = arm.get("latency_s")
    return [
        percent(arm.get("pass_rate")),
        interval(arm.get("ci95")),
        str(arm.get("total", 0)),
        str(int(arm.get("errors") or 0) + int(arm.get("rejected") or 0)),
        f"{_num(tokens.get('input'))}/{_num(tokens.get('output'))}",
        dollars((arm.get("cost") or {}).get("per_passed")),
        NONE if latency is None else f"{latency:.2f}s",
    ]


def build_tables(models: Sequence[dict[str, Any]], *, title: str | None = None) -> list[Table]:
    """Two tables that fit 80 columns: pass rates per model and arm, then lift per model.

    Rates in percent with their 95% interval (clustered by case); ``n`` graded samples, ``err``
    samples without an answer (errors after retries and prompt rejections: missing, excluded
    from the rates); tokens are means per graded
    sample (input/output), ``$/pass`` the US dollars per passed sample (``—`` when the model is
    unpriced or nothing passed), latency the median. Lift is in percentage points with its 95%
    interval by test case (marked ``H`` when Holm-adjusted over several models: the interval at
    the adjusted level, see the notes); ``cases×runs`` is the n behind it (cases graded in both
    arms); ``tok in/out ×`` the with-skill arm's mean input and output
    tokens over the baseline's.
    """
    from rich.table import Table

    rates = Table(title=title, title_justify="left")
    rates.add_column("model / arm", overflow="fold", min_width=12)
    for name in ("pass", "95% CI", "n", "err", "tok in/out", "$/pass", "latency"):
        rates.add_column(name, justify="right", no_wrap=True)
    lift = Table()
    lift.add_column("model", overflow="fold", min_width=12)
    for name in ("lift", "95% CI", "cases×runs", "tok in/out ×"):
        lift.add_column(name, justify="right", no_wrap=True)
    lift.add_column("verdict")
    for i, stats in enumerate(models):
        rates.add_row(f"[bold]{stats['model']}[/]")
        base = stats.get("baseline")
        if base is not None:
            rates.add_row("  baseline", *_arm_cells(base))
        rates.add_row(
            "  with skill", *_arm_cells(stats["with_skill"]), end_section=i < len(models) - 1
        )
        value = stats.get("lift")
        verdict = str(stats.get("verdict", ""))
        lift.add_row(
            stats["model"],
            points(value),
            lift_interval_cell(stats),
            lift_n(stats),
            token_ratios(base, stats["with_skill"]),
            f"[{VERDICT_STYLES.get(verdict, 'yellow')}]{verdict}[/]",
        )
    return [rates, lift]


def token_ratios(base: dict[str, Any] | None, skill: dict[str, Any]) -> str:
    """``17.1×/0.92×``: mean input and output tokens with the skill over without it (the skill
    arm's prompt is longer; its answers may be shorter)."""

    def of(kind: str) -> str:
        without = ((base or {}).get("tokens") or {}).get(kind)
        with_ = (skill.get("tokens") or {}).get(kind)
        return NONE if not without or with_ is None else ratio(with_ / without)

    return f"{of('input')}/{of('output')}"


def lift_interval_cell(stats: dict[str, Any]) -> str:
    """The lift's interval as printed: the Holm-adjusted one (marked ``H``) when there is one,
    so that it always agrees with the verdict."""
    marked = "H" if (stats.get("holm") or {}).get("ci") else ""
    return interval(verdict_interval(stats), signed=True) + marked


def lift_n(stats: dict[str, Any]) -> str:
    """``10×5``: the cases behind the lift (graded in both arms) and the runs per case."""
    if stats.get("lift") is None:
        return NONE
    return cases_runs(
        stats.get("lift_cases", stats.get("cases", 0)), stats.get("runs", 0), short=True
    )


def cost_note(stats: dict[str, Any]) -> str | None:
    """``m: cost per passed sample $0.012 [$0.010, $0.015] baseline, $0.018 [...] with the
    skill; with/without per sample 1.50×; $0.42 in all`` for a priced model (None unpriced)."""
    arms = [
        (name, stats.get(key))
        for name, key in (("baseline", "baseline"), ("with the skill", "with_skill"))
    ]
    priced = [
        (name, arm["cost"])
        for name, arm in arms
        if arm and (arm.get("cost") or {}).get("usd") is not None
    ]
    if not priced:
        return None
    parts = []
    for name, cost in priced:
        ci = dollars_interval(cost.get("per_passed_ci95"))
        parts.append(f"{dollars(cost.get('per_passed'))}{' ' + ci if ci else ''} {name}")
    total = sum(float(cost["usd"]) for _, cost in priced)
    text = f"{stats.get('model', '')}: cost per passed sample {', '.join(parts)}"
    if stats.get("cost_ratio") is not None:
        text += f"; with/without per sample {ratio(stats['cost_ratio'])}"
    return text + f"; {dollars(total)} in all."


def model_notes(stats: dict[str, Any]) -> list[str]:
    """What a reader needs to judge one model's lift: excluded cases, rejections, the minimum
    detectable lift, Holm adjustment."""
    model = stats.get("model", "")
    lines = []
    if stats.get("excluded_reason"):
        lines.append(f"{model}: {stats['excluded_reason']} (not in the lift).")
    arms = (("baseline", "baseline"), ("with skill", "with_skill"))
    rejected = [
        f"{arm} {stats[key]['rejected']}"
        for arm, key in arms
        if stats.get(key) and stats[key].get("rejected")
    ]
    if rejected and "missing" not in stats:  # a stats_version 2 summary: graded as fails
        lines.append(
            f"{model}: requests refused for their prompt (context length, content filter), "
            f"counted as fails: {', '.join(rejected)}."
        )
    elif rejected:
        lines.append(
            f"{model}: requests refused for their prompt (context length, content filter, "
            f"refusal): {', '.join(rejected)}; missing like errors: not in the rates, in the "
            "bounds."
        )
    ungraded = [
        f"{arm} {stats[key]['ungraded']}"
        for arm, key in arms
        if stats.get(key) and stats[key].get("ungraded")
    ]
    if ungraded:
        lines.append(
            f"{model}: answers on which no check ran (every assertion skipped), not graded: "
            f"{', '.join(ungraded)}."
        )
    missing = stats.get("missing") or {}
    bounds = stats.get("lift_bounds")
    if bounds and (missing.get("baseline") or missing.get("with_skill")):
        n = int(missing.get("baseline", 0)) + int(missing.get("with_skill", 0))
        ci = interval(stats.get("lift_bounds_ci95"), signed=True)
        lines.append(
            f"{model}: lift with the {n} missing sample(s) (baseline "
            f"{missing.get('baseline', 0)}, with skill {missing.get('with_skill', 0)}) counted "
            f"against / for the skill: {points(bounds[0])} / {points(bounds[1])}"
            + (f" (interval ends {ci})." if ci else ".")
        )
    cost = cost_note(stats)
    if cost:
        lines.append(cost)
    mde = stats.get("mde80")
    if mde is not None and str(stats.get("verdict", "")).startswith("no measurable"):
        lines.append(
            f"{model}: with {lift_n(stats)} this eval can only see lifts above "
            f"±{mde * 100:.0f} pts (80% power)."
        )
    holm = stats.get("holm") or {}
    if holm.get("ci"):
        level = holm.get("level")
        at = f" ({level * 100:.1f}% level)" if level is not None else ""
        what = "verdict adjusted" if holm.get("changed_verdict") else "verdict unchanged"
        lines.append(
            f"{model}: H = interval Holm-adjusted over the models{at}, p = "
            f"{holm['p_adjusted']:.3f}: {what}; unadjusted 95% interval "
            f"{interval(stats.get('lift_ci95'), signed=True)}."
        )
    elif holm.get("changed_verdict"):  # a stats_version 2 summary: no adjusted interval
        lines.append(
            f"{model}: the interval excludes zero, but not after Holm adjustment over the "
            f"models (p = {holm['p_adjusted']:.3f}): verdict adjusted."
        )
    return lines


def notes(summary: RunSummary) -> list[str]:
    """Lines to print under the table: per-model notes, errors, skipped assertions,
    incomplete runs, and old (stats_version 1) results."""
    lines: list[str] = []
    for stats in summary.models:
        lines += model_notes(stats)
    if summary.agent:
        from upskill_hub.evaluation.agent.usage import agent_notes

        lines += agent_notes(summary.agent)
    if summary.models and summary.stats_version is None:
        lines.append(
            "stats_version 1 run: its lift interval counts every run as independent (too narrow "
            "with several runs); re-run it for intervals by test case."
        )
    errors = summary.errors
    if errors:
        rejected = summary.rejected or 0
        refused = f", {rejected} of them refused for their prompt" if rejected else ""
        if (summary.stats_version or 0) >= 3:
            lines.append(
                f"{errors} sample(s) without an answer (outcome error{refused}): missing, not "
                "in the pass rates, and counted in the verdict's worst-case bounds; --resume "
                "the run folder to retry them."
            )
        else:  # stats_version 2: refusals were graded as fails, other errors left out
            other = errors - rejected
            counted = f"; {rejected} refused for their prompt counted as fails" if rejected else ""
            lines.append(
                f"{other} sample(s) failed after retries (outcome error): excluded from pass "
                f"rates{counted}; --resume the run folder to retry them."
            )
    skipped = summary.skipped_assertions
    if skipped:
        lines.append(
            f"{skipped} assertion check(s) skipped (no judge model, no compiler or no token "
            "count): they neither passed nor failed their sample."
        )
    expected, samples = summary.expected_samples, summary.samples
    if summary.cancelled or (expected is not None and samples != expected):
        lines.append(f"incomplete run: {samples} of {expected} samples.")
    return lines


def print_report(console: Console, summary: RunSummary) -> None:
    """Print the table and the notes of a run's summary.json."""
    title = summary.skill
    if summary.revision:
        title += f" @ {summary.revision[:12]}"
    for table in build_tables(summary.models, title=title):
        console.print(table)
    for line in notes(summary):
        console.print(f"[yellow]note:[/] {line}", highlight=False)
