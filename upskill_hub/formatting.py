"""How every surface writes rates, lifts and their intervals: the CLI tables, ``results show`` and
``compare``, generate's progress lines, the dataset and skill cards, the chart and the Space.

Rates are whole percents (``85%``), a lift or any other difference of rates is in percentage
points (``+33 pts``), an interval is in square brackets in the unit of its value, without the
unit (``[+5, +56]`` for a lift, ``[62, 95]`` for a rate), and a value that does not exist is
:data:`NONE`. Text that came from a file or a server goes to a terminal through
:func:`strip_control`. Imports nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "NONE",
    "cases_runs",
    "dollars",
    "dollars_interval",
    "interval",
    "lift",
    "percent",
    "points",
    "rate",
    "ratio",
    "strip_control",
    "verdict_interval",
]

#: What a cell says when there is no value (no baseline arm, nothing graded).
NONE = "—"


def percent(value: float | None) -> str:
    """A rate (0..1) in whole percents: ``85%``."""
    return NONE if value is None else f"{value * 100:.0f}%"


def points(value: float | None) -> str:
    """A difference of rates in percentage points: ``+33 pts``."""
    return NONE if value is None else f"{value * 100:+.0f} pts"


def cases_runs(cases: int | None, runs: int | None, *, short: bool = False) -> str:
    """The n behind a lift, whose unit is the test case: ``10 cases × 5 runs``, or ``short``
    (a table cell) ``10×5``; ``?`` for an unknown count."""
    c = "?" if cases is None else str(cases)
    r = "?" if runs is None else str(runs)
    if short:
        return f"{c}×{r}"
    return f"{c} case{'' if cases == 1 else 's'} × {r} run{'' if runs == 1 else 's'}"


def interval(ci: Sequence[float | None] | None, *, signed: bool = False) -> str:
    """A 95% interval of rates (``[62, 95]``) or, ``signed``, of a difference (``[+5, +56]``);
    ``""`` without one."""
    if not ci or len(ci) < 2 or ci[0] is None or ci[1] is None:
        return ""
    spec = "+.0f" if signed else ".0f"
    return f"[{ci[0] * 100:{spec}}, {ci[1] * 100:{spec}}]"


def lift(value: float | None, ci: Sequence[float | None] | None = None) -> str:
    """A lift and its interval: ``+33 pts [+5, +56]``; :data:`NONE` without a lift."""
    if value is None:
        return NONE
    bounds = interval(ci, signed=True)
    return f"{points(value)} {bounds}" if bounds else points(value)


def rate(value: float | None, ci: Sequence[float | None] | None = None) -> str:
    """A pass rate and its interval: ``85% [62, 95]``; :data:`NONE` without a rate."""
    if value is None:
        return NONE
    bounds = interval(ci)
    return f"{percent(value)} {bounds}" if bounds else percent(value)


def dollars(value: float | None) -> str:
    """US dollars with 3 significant digits (``$0.000242``, ``$4.56``, ``$1,234``); :data:`NONE`
    for an unpriced figure (never ``$0``)."""
    if value is None:
        return NONE
    if value >= 100:
        return f"${value:,.0f}"
    if value <= 0:
        return "$0"
    digits = min(10, max(2, 2 - math.floor(math.log10(value))))
    return f"${value:.{digits}f}"


def dollars_interval(ci: Sequence[float | None] | None) -> str:
    """A 95% interval of dollars: ``[$0.011, $0.015]``; ``""`` without one."""
    if not ci or len(ci) < 2 or ci[0] is None or ci[1] is None:
        return ""
    return f"[{dollars(ci[0])}, {dollars(ci[1])}]"


def ratio(value: float | None) -> str:
    """A ratio of two arms: ``17.1×``, ``0.92×``; :data:`NONE` without one."""
    if value is None:
        return NONE
    return f"{value:.1f}×" if value >= 10 else f"{value:.2f}×"


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_control(value: object) -> str:
    """``value`` as text without control characters (ANSI escapes could rewrite the terminal)."""
    return _CONTROL.sub("", str(value))


def verdict_interval(model: Mapping[str, Any]) -> Sequence[float | None] | None:
    """The lift interval that goes with a model's verdict (a summary.json ``models`` entry):
    the Holm-adjusted one (``holm.ci``) when several models were measured, else ``lift_ci95``.
    """
    holm = model.get("holm")
    adjusted = holm.get("ci") if isinstance(holm, Mapping) else None
    return adjusted or model.get("lift_ci95")
