"""What an eval reports: :class:`Progress` after each sample and :class:`EvalResult` at the end."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from upskill_hub.evaluation.types import Sample

if TYPE_CHECKING:
    from upskill_hub.evaluation.statistics import ModelStats

__all__ = ["EvalResult", "Progress"]


@dataclass(frozen=True)
class Progress:
    """Where a run stands after a sample finished (``done`` counts resumed samples too)."""

    done: int
    total: int
    passed: int
    failed: int
    errors: int
    resumed: int
    elapsed_s: float


@dataclass
class EvalResult:
    """What :func:`~upskill_hub.evaluation.runner.run_eval` returns; ``samples`` hold one sample
    per finished key, in key order."""

    run_dir: Path
    samples: list[Sample]
    stats: list[ModelStats]
    summary: dict[str, Any]
    expected: int
    cancelled: bool = False
    warnings: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for s in self.samples if s.outcome == "error")

    @property
    def missing(self) -> int:
        """Keys without a finished, non-error sample (what a resume would run)."""
        return self.expected - sum(1 for s in self.samples if s.outcome != "error")
