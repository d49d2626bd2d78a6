"""What the page shows of a run: the progress line, the summary table and the per-case table.

Everything here takes samples and stats the runner produced and returns plain strings and
lists; the per-case table is HTML in which every model output, reason and id is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

from upskill_hub.evaluation.eval_result import Progress
from upskill_hub.evaluation.stats.summarize import HELPS, HURTS, UNCLEAR, summarize
from upskill_hub.evaluation.types import Sample
from upskill_hub.formatting import NONE, cases_runs, lift, rate, verdict_interval
from upskill_hub.skill.testcases import TestCase

SUMMARY_HEADERS = [
    "Model",
    "Lift (95% CI)",
    "Verdict",
    "Baseline (95% CI)",
    "With skill (95% CI)",
    "Output tokens",
    "Errors",
]
#: Column widths of the summary table (770 px in all): with ``wrap`` its long cells wrap inside
#: these instead of pushing the table wider than its column (~800 px in a 1280 px window). In
#: pixels, not percents: on a phone the table scrolls sideways rather than squeeze every word.
SUMMARY_WIDTHS = ["100px", "140px", "100px", "140px", "140px", "75px", "75px"]
_OUTPUT_MAX = 6000
_INPUT_MAX = 400
# Plain symbols (in DejaVu and every system font), coloured in HTML: emoji fonts are not
# everywhere (headless browsers, many Linux desktops).
TICK, CROSS, SKIP, WARN = "✓", "✗", NONE, "⚠"
_GREEN, _RED, _GREY = "#1a7f37", "#cf222e", "#8a8f98"


def _arm_cell(arm: dict[str, Any] | None) -> str:
    if not arm or arm.get("pass_rate") is None:
        return NONE
    return f"{rate(arm['pass_rate'], arm.get('ci95'))} · {arm['passed']}/{arm['total']}"


def _tokens(arm: dict[str, Any] | None) -> str:
    out = ((arm or {}).get("tokens") or {}).get("output")
    return NONE if out is None else f"{out:.0f}"


def verdict_label(verdict: str) -> str:
    """The verdict with a sign a reader catches at a glance."""
    if verdict == HELPS:
        return f"{TICK} the skill helps"
    if verdict == HURTS:
        return f"{CROSS} the skill hurts"
    return f"{NONE} {verdict}"


def summary_rows(models: Sequence[dict[str, Any]]) -> list[list[str]]:
    """One row per model of summary.json's ``models`` (``ModelStats.to_dict()``)."""
    rows: list[list[str]] = []
    for m in models:
        base, skill = m.get("baseline"), m.get("with_skill")
        lift_text = lift(m.get("lift"), verdict_interval(m))  # Holm-adjusted when several
        if m.get("lift_ci95") and m.get("lift") is not None:
            cases = int(m.get("lift_cases", m.get("cases")) or 0)
            lift_text += f" ({cases_runs(cases, int(m.get('runs') or 0))})"
        errors = sum(int((a or {}).get("errors", 0)) for a in (base, skill))
        rows.append(
            [
                str(m.get("model", "")),
                lift_text,
                verdict_label(str(m.get("verdict", "")))
                + (
                    f" (this eval can only see lifts above ±{m['mde80'] * 100:.0f} pts)"
                    if m.get("mde80") is not None and m.get("verdict") == UNCLEAR
                    else ""
                ),
                _arm_cell(base),
                _arm_cell(skill),
                f"{_tokens(base)} → {_tokens(skill)}",
                str(errors),
            ]
        )
    return rows


def live_summary_rows(samples: Sequence[Sample]) -> list[list[str]]:
    """Summary rows of the samples finished so far (the table fills in while a run goes)."""
    return summary_rows([s.to_dict() for s in summarize(samples)]) if samples else []


def progress_line(progress: Progress | None, *, skill: str, model: str) -> str:
    """One Markdown line: where the run stands."""
    if progress is None:
        return f"**Starting** `{skill}` on `{model}`…"
    return (
        f"**{progress.done}/{progress.total} samples** of `{skill}` on `{model}` · "
        f"{progress.passed} passed · {progress.failed} failed · {progress.errors} errors · "
        f"{progress.elapsed_s:.0f}s"
    )


def error_digest(samples: Sequence[Sample], redact: Callable[[str], str]) -> str | None:
    """A sentence when samples failed to get any answer (all, or some), with the first reason."""
    errors = [s for s in samples if s.outcome == "error"]
    if not errors:
        return None
    first = redact(" ".join((errors[0].error or "no reason recorded").split()))
    if len(errors) == len(samples):
        return f"Every request failed, so nothing was measured. First error: {first}"
    return f"{len(errors)} of {len(samples)} requests failed and are left out of the rates: {first}"


def _mark(symbol: str, color: str) -> str:
    return f'<span style="color:{color};font-weight:700">{symbol}</span>'


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _arm_html(sample: Sample | None, redact: Callable[[str], str]) -> str:
    if sample is None:
        return '<div style="opacity:.6">pending…</div>'
    badge = {
        "pass": _mark(TICK, _GREEN) + " pass",
        "fail": _mark(CROSS, _RED) + " fail",
        "error": _mark(WARN, _RED) + " error",
    }
    parts = [f"<div><strong>{badge[sample.outcome]}</strong> · {sample.output_tokens} tokens</div>"]
    if sample.outcome == "error":
        parts.append(f"<div>{html.escape(redact(sample.error or ''))}</div>")
    else:
        out = html.escape(_clip(redact(sample.output), _OUTPUT_MAX))
        parts.append(
            '<pre style="white-space:pre-wrap;word-break:break-word;max-height:16em;'
            "overflow:auto;font-size:12px;margin:.4em 0;padding:.5em;border-radius:6px;"
            f'border:1px solid rgba(128,128,128,.35)">{out}</pre>'
        )
    if sample.turns is not None:  # agent mode: what the model loaded and read, in order
        parts.append(tool_calls_html(sample, redact))
    checks = []
    for a in sample.assertions:
        if a.status == "pass":
            sign = _mark(TICK, _GREEN)
        elif a.status == "skipped":
            sign = _mark(SKIP, _GREY)
        else:
            sign = _mark(CROSS, _RED)
        reason = html.escape(redact(a.reason)) if a.reason else ""
        checks.append(f"<li>{sign} <code>{html.escape(a.type)}</code> {reason}</li>")
    if checks:
        parts.append(
            '<ul style="list-style:none;padding-left:0;margin:0;font-size:13px">'
            + "".join(checks)
            + "</ul>"
        )
    return "".join(parts)


def tool_calls_html(sample: Sample, redact: Callable[[str], str]) -> str:
    """Agent mode: the skill loaded and the files read, in order (refused calls crossed)."""
    items = []
    for use in sample.tool_calls:
        sign = _mark(TICK, _GREEN) if use.ok else _mark(CROSS, _RED)
        what = "loaded skill" if use.tool == "Skill" else "read" if use.tool == "Read" else "called"
        name = html.escape(_clip(redact(use.input), 120)) or html.escape(use.tool)
        why = f" ({html.escape(_clip(redact(use.error), 160))})" if use.error else ""
        items.append(f"<li>{sign} {what} <code>{name}</code>{why}</li>")
    loaded = any(u.tool == "Skill" and u.ok for u in sample.tool_calls)
    head = (
        f'<div style="font-size:13px">{sample.turns} turn(s) · '
        f"{'skill loaded' if loaded else 'skill not loaded'}"
        + (f" · stopped: {html.escape(sample.stopped)}" if sample.stopped else "")
        + "</div>"
    )
    if not items:
        return head
    return (
        head + '<ul class="upskill-tools" style="list-style:none;padding-left:0;margin:.2em 0;'
        'font-size:13px">' + "".join(items) + "</ul>"
    )


def cases_html(
    cases: Sequence[TestCase],
    samples: Sequence[Sample],
    *,
    redact: Callable[[str], str] = lambda s: s,
) -> str:
    """The per-case table: each case's baseline and with-skill outputs side by side, with every
    assertion's tick or cross and its reason. Cases without a finished sample are left out."""
    by_key = {(s.case_id, s.run, s.arm): s for s in samples}
    runs = sorted({s.run for s in samples})
    blocks: list[str] = []
    column = "flex:1 1 300px;min-width:0;padding:.5em;border-radius:8px;"
    for case in cases:
        for run in runs:
            base = by_key.get((case.id, run, "baseline"))
            skill = by_key.get((case.id, run, "with_skill"))
            if base is None and skill is None:
                continue
            title = html.escape(case.id) + (f" · run {run}" if len(runs) > 1 else "")
            task = html.escape(_clip(case.input, _INPUT_MAX))
            blocks.append(
                '<div class="upskill-case" style="border:1px solid rgba(128,128,128,.35);'
                'border-radius:10px;padding:.6em;margin:.6em 0">'
                f"<div><strong>{title}</strong></div>"
                f'<div style="font-size:13px;opacity:.8;margin:.2em 0 .5em">{task}</div>'
                '<div style="display:flex;flex-wrap:wrap;gap:.6em">'
                f'<div style="{column}background:rgba(154,165,177,.12)">'
                f"<div><em>Baseline</em></div>{_arm_html(base, redact)}</div>"
                f'<div style="{column}background:rgba(255,157,0,.10)">'
                f"<div><em>With skill</em></div>{_arm_html(skill, redact)}</div>"
                "</div></div>"
            )
    if not blocks:
        return "<p>No finished cases yet.</p>"
    return '<div class="upskill-cases">' + "".join(blocks) + "</div>"


def progress_bar_html(done: int, total: int, *, finished: bool = False) -> str:
    """A progress bar (an ARIA progressbar) for ``done`` of ``total`` samples; "" when idle."""
    if total <= 0:
        return ""
    pct = max(0.0, min(100.0, 100.0 * done / total))
    color = "#1a7f37" if finished else "#ff9d00"
    # animate while running; the finished bar is drawn full at once (no half-filled "Done")
    motion = "" if finished else "transition:width .3s"
    return (
        f'<div role="progressbar" aria-label="Evaluation progress" aria-valuemin="0" '
        f'aria-valuemax="{total}" aria-valuenow="{done}" '
        'style="height:10px;border-radius:5px;background:rgba(128,128,128,.25);overflow:hidden">'
        f'<div style="height:100%;width:{pct:.1f}%;background:{color};{motion}"></div></div>'
    )
