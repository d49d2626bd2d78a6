"""The bundled skill's EVALUATION.md quotes the intervals the current statistics give for the
counts it reports (every case 0 of 5 in both arms, 18 cases)."""

from __future__ import annotations

from pathlib import Path

from upskill_hub.evaluation.stats.intervals import clustered_rate_interval, paired_lift
from upskill_hub.evaluation.stats.summarize import STATS_VERSION

DOC = Path(__file__).resolve().parents[2] / "skills/kernel-builder-cuda-kernels/EVALUATION.md"


def test_quoted_intervals_are_what_the_code_computes() -> None:
    text = DOC.read_text(encoding="utf-8")
    lift = paired_lift([0.0] * 18)
    low, high = lift.ci95
    assert f"95% CI [−{-low * 100:.1f}, +{high * 100:.1f}]" in text
    assert lift.mde80 is not None and f"about {lift.mde80 * 100:.0f} points" in text
    (arm_low, arm_high), n_eff = clustered_rate_interval([(0, 5)] * 18)
    assert n_eff == 18
    assert text.count(f"[{arm_low * 100:.1f}, {arm_high * 100:.1f}]") == 2
    assert "(Newcombe)" not in text
    assert f"(`stats_version` {STATS_VERSION}," in text  # the statistics it calls current
