"""What the model did with the tools in an agent-mode run, per model and arm: how often it
loaded the skill, how many turns it took, which files it read, what was refused. Written into
summary.json (``agent``) and printed under the lift table."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable
from typing import Any

from upskill_hub.evaluation.types import Sample

__all__ = ["agent_notes", "agent_usage"]


def agent_usage(samples: Iterable[Sample]) -> list[dict[str, Any]]:
    """One entry per model and arm, in order of first sample, errored samples left out."""
    groups: dict[tuple[str, str], list[Sample]] = {}
    for s in samples:
        if s.outcome != "error" and s.turns is not None:
            groups.setdefault((s.model, s.arm), []).append(s)
    out = []
    for (model, arm), group in groups.items():
        reads: Counter[str] = Counter(
            t.input for s in group for t in s.tool_calls if t.tool == "Read" and t.ok
        )
        out.append(
            {
                "model": model,
                "arm": arm,
                "samples": len(group),
                "loaded_skill": sum(
                    1 for s in group if any(t.tool == "Skill" and t.ok for t in s.tool_calls)
                ),
                "mean_turns": round(statistics.fmean(s.turns or 0 for s in group), 3),
                "stopped": sum(1 for s in group if s.stopped),
                "refused_calls": sum(1 for s in group for t in s.tool_calls if not t.ok),
                "files_read": dict(sorted(reads.items(), key=lambda kv: (-kv[1], kv[0]))),
            }
        )
    return out


def agent_notes(summary: dict[str, Any]) -> list[str]:
    """Lines for the report: per model and arm, loads, turns, files read, refusals, stops."""
    lines = []
    for entry in summary.get("agent") or []:
        if entry["arm"] != "with_skill" and not entry["loaded_skill"]:
            continue
        read = ", ".join(f"{path} x{n}" for path, n in list(entry["files_read"].items())[:5])
        text = (
            f"agent mode, {entry['model']} {entry['arm']}: skill loaded in "
            f"{entry['loaded_skill']}/{entry['samples']} samples, {entry['mean_turns']:g} turns "
            f"on average; files read: {read or 'none'}"
        )
        if entry["refused_calls"]:
            text += f"; {entry['refused_calls']} tool call(s) refused"
        if entry["stopped"]:
            text += f"; {entry['stopped']} cut short by --max-turns/--token-budget"
        lines.append(text)
    return lines
