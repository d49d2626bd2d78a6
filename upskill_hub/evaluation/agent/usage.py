"""What the model did with the tools in an agent-mode run, per model and arm: how often it
loaded the skill, how many turns it took, which files it read, what was refused. Written into
summary.json (``agent``) and printed under the lift table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from upskill_hub.evaluation.types import Sample

__all__ = ["AgentTally", "agent_notes", "agent_usage"]


class _Group:
    __slots__ = ("first", "loaded", "reads", "refused", "samples", "stopped", "turns")

    def __init__(self, first: int) -> None:
        self.first = first
        self.samples = self.loaded = self.turns = self.stopped = self.refused = 0
        self.reads: Counter[str] = Counter()


class AgentTally:
    """:func:`agent_usage` kept as running counts per model and arm (a Counter of the files
    read), updated one sample at a time; ``index`` is the sample's position (its order)."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str], _Group] = {}

    def add(self, s: Sample, index: int) -> None:
        if s.outcome == "error" or s.turns is None:
            return
        group = self.groups.get((s.model, s.arm))
        if group is None:
            group = self.groups[(s.model, s.arm)] = _Group(index)
        group.first = min(group.first, index)
        group.samples += 1
        group.loaded += any(t.tool == "Skill" and t.ok for t in s.tool_calls)
        group.turns += s.turns or 0
        group.stopped += bool(s.stopped)
        group.refused += sum(1 for t in s.tool_calls if not t.ok)
        group.reads.update(t.input for t in s.tool_calls if t.tool == "Read" and t.ok)

    def entries(self) -> list[dict[str, Any]]:
        """One entry per model and arm, in order of first sample."""
        out = []
        for (model, arm), g in sorted(self.groups.items(), key=lambda kv: kv[1].first):
            out.append(
                {
                    "model": model,
                    "arm": arm,
                    "samples": g.samples,
                    "loaded_skill": g.loaded,
                    # fmean of ints: the exact sum rounded once, over n
                    "mean_turns": round(float(g.turns) / g.samples, 3),
                    "stopped": g.stopped,
                    "refused_calls": g.refused,
                    "files_read": dict(sorted(g.reads.items(), key=lambda kv: (-kv[1], kv[0]))),
                }
            )
        return out


def agent_usage(samples: Iterable[Sample]) -> list[dict[str, Any]]:
    """One entry per model and arm, in order of first sample, errored samples left out."""
    tally = AgentTally()
    for index, sample in enumerate(samples):
        tally.add(sample, index)
    return tally.entries()


def agent_notes(agent: Sequence[dict[str, Any]]) -> list[str]:
    """Lines for the report from summary.json's ``agent`` entries: per model and arm, loads,
    turns, files read, refusals, stops."""
    lines = []
    for entry in agent:
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
