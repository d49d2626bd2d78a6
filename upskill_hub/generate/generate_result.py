"""What a generate run records: one :class:`IterationRecord` per measured skill, and the
:class:`GenerateResult` (where the skill went, its lift history, why the loop stopped)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = ["GenerateResult", "IterationRecord", "Origin", "StopReason"]

Origin = Literal["original", "generated", "improved", "refined"]
StopReason = Literal["max_iterations", "plateau", "all_passed"]


@dataclass
class IterationRecord:
    """One measured skill: its numbers, whether it was accepted, and why."""

    iteration: int
    origin: Origin
    lift: float | None
    lift_ci95: tuple[float, float] | None
    margin: float | None
    baseline_pass_rate: float | None
    with_skill_pass_rate: float | None
    per_student: list[dict[str, Any]]
    accepted: bool
    improved: bool | None
    reason: str
    skill_sha256: str
    run_id: str
    failed_samples: int = 0  # with-skill samples that failed or errored
    graded_samples: int = 0  # with-skill samples graded (not errored)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 6)

        return {
            "iteration": self.iteration,
            "origin": self.origin,
            "lift": r(self.lift),
            "lift_ci95": None if self.lift_ci95 is None else [r(v) for v in self.lift_ci95],
            "margin": r(self.margin),
            "pass_rates": {
                "baseline": r(self.baseline_pass_rate),
                "with_skill": r(self.with_skill_pass_rate),
            },
            "per_student": self.per_student,
            "accepted": self.accepted,
            "improved": self.improved,
            "reason": self.reason,
            "skill_sha256": self.skill_sha256,
            "run_id": self.run_id,
            "failed_samples": self.failed_samples,
            "graded_samples": self.graded_samples,
            "notes": self.notes,
        }


@dataclass
class GenerateResult:
    """Where the skill went and how it got there."""

    skill_dir: Path
    name: str
    history: list[IterationRecord]
    best_iteration: int
    stop_reason: StopReason
    work_dir: Path
    tests: int
    dropped_tests: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def best(self) -> IterationRecord:
        return next(r for r in self.history if r.iteration == self.best_iteration)

    def to_dict(self) -> dict[str, Any]:
        return {
            "skill_dir": str(self.skill_dir),
            "name": self.name,
            "best_iteration": self.best_iteration,
            "lift": self.best.to_dict()["lift"],
            "lift_ci95": self.best.to_dict()["lift_ci95"],
            "stop_reason": self.stop_reason,
            "tests": self.tests,
            "dropped_tests": [{"id": k, "reason": v} for k, v in self.dropped_tests.items()],
            "work_dir": str(self.work_dir),
            "history": [r.to_dict() for r in self.history],
            "warnings": self.warnings,
        }
