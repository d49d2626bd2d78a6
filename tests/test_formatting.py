"""One way to write rates, lifts and intervals on every surface (``upskill_hub.formatting``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from upskill_hub.formatting import NONE, cases_runs, interval, lift, percent, points, rate

PACKAGE = Path(__file__).resolve().parents[1] / "upskill_hub"


def test_the_one_way() -> None:
    assert lift(1 / 3, (0.05, 0.5555)) == "+33 pts [+5, +56]"
    assert lift(-0.2, [-0.5, 0.1]) == "-20 pts [-50, +10]"
    assert lift(0.5) == lift(0.5, (None, None)) == "+50 pts"
    assert rate(0.85, (0.62, 0.95)) == "85% [62, 95]" and rate(0.85) == "85%"
    assert points(0.0) == "+0 pts" and percent(1.0) == "100%"
    assert interval(None) == "" and interval([0.1, 0.2], signed=True) == "[+10, +20]"
    assert lift(None, (0.1, 0.2)) == rate(None) == points(None) == percent(None) == NONE == "—"


def test_the_n_behind_a_lift() -> None:
    assert cases_runs(10, 5) == "10 cases × 5 runs" and cases_runs(1, 1) == "1 case × 1 run"
    assert cases_runs(0, 2) == "0 cases × 2 runs" and cases_runs(None, None) == "? cases × ? runs"
    assert cases_runs(10, 5, short=True) == "10×5" and cases_runs(None, 3, short=True) == "?×3"


def test_no_other_module_writes_a_rate_another_way() -> None:
    """No string literal outside formatting.py uses percentage-point ``pp`` or an en dash for a
    missing value (regexes that accept dashes in model replies aside)."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "formatting.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if re.search(r"\bpp\b", text):
                    offenders.append(f"{path.name}: {text!r}")
                if text.strip() == "–":
                    offenders.append(f"{path.name}: {text!r}")
    assert not offenders, offenders
