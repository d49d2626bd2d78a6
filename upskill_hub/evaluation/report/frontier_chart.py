"""frontier.png: pass rate with its 95% interval against cost per passed case, per model and arm.

One point per priced model and arm: x is the cost per passed case (log scale, with its 95%
interval as a horizontal bar when known), y the pass rate with its 95% interval. A dashed line
marks the target pass rate; a point whose interval's lower bound reaches it is filled, the others
are hollow, so the leftmost filled point is the cheapest model + arm good enough for the target.
Unpriced arms have no x: they are named under the chart, never drawn. Colours are lift.png's
(:mod:`upskill_hub.evaluation.report.chart`): grey for the baseline, orange with the skill.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from upskill_hub.atomic_io import atomic_write_bytes
from upskill_hub.evaluation.report.chart import BASELINE_COLOR, SKILL_COLOR, wait_for_preload

__all__ = [
    "DEFAULT_TARGET",
    "FrontierPoint",
    "points_from_models",
    "render_frontier_chart",
    "write_frontier_chart",
    "write_run_frontier_chart",
]

#: The pass rate the chart's target line marks when none is given.
DEFAULT_TARGET = 0.8

_ARM_TEXT = {"baseline": "without skill", "with_skill": "with skill"}


@dataclass(frozen=True)
class FrontierPoint:
    """One priced model and arm on the chart."""

    model: str
    arm: str  # "baseline" or "with_skill"
    pass_rate: float
    ci95: tuple[float, float] | None
    per_passed: float
    per_passed_ci95: tuple[float, float] | None = None

    @property
    def label(self) -> str:
        return f"{self.model} ({_ARM_TEXT.get(self.arm, self.arm)})"


def _pair(value: Any) -> tuple[float, float] | None:
    if not value or len(value) < 2 or value[0] is None or value[1] is None:
        return None
    return (float(value[0]), float(value[1]))


def points_from_models(models: Sequence[dict[str, Any]]) -> tuple[list[FrontierPoint], list[str]]:
    """summary.json's ``models`` as chart points (arms with a pass rate and a cost per passed
    case) and the labels of the arms left out because no price was known."""
    points: list[FrontierPoint] = []
    unpriced: list[str] = []
    for model in models:
        for arm in ("baseline", "with_skill"):
            data = model.get(arm)
            if not data or data.get("pass_rate") is None:
                continue
            cost = data.get("cost") or {}
            name = str(model["model"])
            if cost.get("usd") is None:
                unpriced.append(f"{name} ({_ARM_TEXT[arm]})")
                continue
            if cost.get("per_passed") is None:
                continue  # priced, but nothing passed: no cost per passed case to plot
            points.append(
                FrontierPoint(
                    name,
                    arm,
                    float(data["pass_rate"]),
                    _pair(data.get("ci95")),
                    float(cost["per_passed"]),
                    _pair(cost.get("per_passed_ci95")),
                )
            )
    return points, unpriced


def render_frontier_chart(
    points: Sequence[FrontierPoint],
    *,
    target: float = DEFAULT_TARGET,
    unpriced: Sequence[str] = (),
    title: str = "Pass rate vs cost per passed case",
) -> bytes:
    """PNG bytes of the chart."""
    wait_for_preload()
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.5, 4.6), dpi=110)
    ax = fig.subplots()
    for number, point in enumerate(points, start=1):
        color = SKILL_COLOR if point.arm == "with_skill" else BASELINE_COLOR
        rate = point.pass_rate * 100
        lo, hi = point.ci95 or (point.pass_rate, point.pass_rate)
        reaches = point.ci95 is not None and point.ci95[0] >= target
        xerr = None
        if point.per_passed_ci95 is not None:
            c_lo, c_hi = point.per_passed_ci95
            xerr = [[max(0.0, point.per_passed - c_lo)], [max(0.0, c_hi - point.per_passed)]]
        label = point.label if len(point.label) <= 48 else point.label[:47] + "…"
        ax.errorbar(
            [point.per_passed],
            [rate],
            yerr=[[max(0.0, rate - lo * 100)], [max(0.0, hi * 100 - rate)]],
            xerr=xerr,
            fmt="o",
            markersize=7,
            capsize=3,
            color=color,
            markerfacecolor=color if reaches else "white",
            markeredgecolor="black",
            ecolor=color,
            elinewidth=1,
            label=f"{number}. {label}",
        )
        # the number by the point, staggered so that points of one rate do not overprint
        ax.annotate(
            str(number),
            (point.per_passed, rate),
            textcoords="offset points",
            xytext=(5, 3 - 9 * ((number - 1) % 3)),
            fontsize=7,
        )
    ax.axhline(target * 100, linestyle="--", color="black", linewidth=0.8)
    ax.annotate(
        f"target {target * 100:.0f}% (lower bound)",
        (0.0, target * 100),
        xycoords=("axes fraction", "data"),
        textcoords="offset points",
        xytext=(2, 3),
        fontsize=7,
    )
    if points:
        ax.set_xscale("log")
        ax.margins(x=0.15)
        ax.legend(loc="upper left", fontsize=7, bbox_to_anchor=(1.0, 1.0))
    ax.set_ylim(0, 105)
    ax.set_xlabel("US dollars per passed case (95% CI), log scale")
    ax.set_ylabel("pass rate (%) with 95% CI")
    ax.set_title(title, fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    note = "filled: lower bound reaches the target"
    if unpriced:
        note += "; unpriced (not drawn): " + ", ".join(unpriced)
    fig.text(0.01, 0.01, note, fontsize=7, wrap=True)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def write_frontier_chart(
    points: Sequence[FrontierPoint],
    path: Path,
    *,
    target: float = DEFAULT_TARGET,
    unpriced: Sequence[str] = (),
    title: str = "Pass rate vs cost per passed case",
) -> Path:
    """Render the chart and write it to ``path`` atomically."""
    data = render_frontier_chart(points, target=target, unpriced=unpriced, title=title)
    atomic_write_bytes(Path(path), data)
    return Path(path)


def write_run_frontier_chart(
    models: Sequence[dict[str, Any]], path: Path, *, title: str
) -> Path | None:
    """The chart of summary.json's ``models`` at the default target, written to ``path`` when
    at least one arm has a cost per passed case; None (and nothing written) otherwise."""
    points, unpriced = points_from_models(models)
    if not points:
        return None
    return write_frontier_chart(points, path, unpriced=unpriced, title=title)
