"""A trigger eval's results as rich tables, from trigger_summary.json's ``models`` list (plain
dicts, so a finished run folder can be shown again).

Every text that came from a file (queries, ids, the skill and model names) is printed
literally: control characters (terminal escape codes) dropped, rich markup escaped."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from upskill_hub.formatting import strip_control

if TYPE_CHECKING:
    from rich.console import Console


def _text(value: object) -> str:
    """``value`` as a cell rich prints as it is (no escape codes, no markup)."""
    from rich.markup import escape

    return escape(strip_control("" if value is None else value))


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f}%"


def _ci(ci: Sequence[float | None] | None) -> str:
    if not ci or ci[0] is None or ci[1] is None:
        return ""
    return f"[{ci[0] * 100:.0f}, {ci[1] * 100:.0f}]"


def print_trigger_report(out: Console, summary: dict[str, Any]) -> None:
    """Per model: recall and false-trigger rate per set, then every query and its verdict."""
    from rich.table import Table

    for model in summary.get("models") or []:
        sets = Table(title=f"{_text(summary.get('skill'))}: triggers, {_text(model['model'])}")
        for header in ("set", "queries", "recall", "95% CI", "false triggers", "95% CI", "ok"):
            sets.add_column(header)
        for row in model["sets"]:
            sets.add_row(
                _text(row["set"]),
                str(row["queries"]),
                _pct(row["recall"]),
                _ci(row["recall_ci95"]),
                _pct(row["false_trigger_rate"]),
                _ci(row["false_trigger_ci95"]),
                f"{row['queries_passed']}/{row['queries']}",
            )
        out.print(sets)
        queries = Table()
        for header in ("id", "split", "should", "rate", "95% CI", "runs", "", "query"):
            queries.add_column(header, overflow="fold")
        for q in model["queries"]:
            verdict = "—" if q["passed"] is None else ("ok" if q["passed"] else "MISFIRE")
            shown = strip_control(q["query"])
            text = _text(shown if len(shown) <= 70 else shown[:69] + "…")
            queries.add_row(
                _text(q["id"]),
                _text(q["split"]),
                "yes" if q["should_trigger"] else "no",
                _pct(q["trigger_rate"]),
                _ci(q["ci95"]),
                f"{q['triggered']}/{q['runs']}" + (f" ({q['errors']} err)" if q["errors"] else ""),
                verdict,
                text,
            )
        out.print(queries)
        misfires = [m for s in model["sets"] if s["set"] == "all" for m in s["misfires"]]
        listed = ", ".join(_text(m) for m in misfires) if misfires else "none"
        out.print(f"misfiring queries: {listed}")
    if summary.get("errors"):
        out.print(f"{summary['errors']} run(s) ended in an error (left out of the rates)")
