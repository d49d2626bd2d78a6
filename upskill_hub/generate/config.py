"""How to generate: :class:`GenerateConfig` (task or source, teacher, students, budgets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from upskill_hub.errors import Param, UsageError
from upskill_hub.evaluation.types import GenerationParams
from upskill_hub.generate.failures import DEFAULT_EVIDENCE_BUDGET
from upskill_hub.generate.teacher import DEFAULT_REPAIRS, DEFAULT_TEACHER_PARAMS
from upskill_hub.generate.traces import DEFAULT_TRACE_BUDGET

__all__ = ["GenerateConfig"]


@dataclass
class GenerateConfig:
    """How to generate. ``api_key`` goes only to ``base_url`` servers and is never written."""

    task: str = ""
    source: Path | None = None
    teacher: str = "opus"
    students: list[str] = field(default_factory=lambda: ["local"])
    runs: int = 1
    max_iterations: int = 3
    output: Path = Path("skills")
    work_root: Path = Path("runs")
    base_url: str | None = None
    teacher_base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    student_params: GenerationParams = field(default_factory=GenerationParams)
    teacher_params: GenerationParams = DEFAULT_TEACHER_PARAMS
    concurrency: int = 4
    retries: int = 3
    judge_model: str | None = None
    repairs: int = DEFAULT_REPAIRS
    trace_budget: int = DEFAULT_TRACE_BUDGET
    evidence_budget: int = DEFAULT_EVIDENCE_BUDGET
    force: bool = False

    def validate(self) -> None:
        if not self.task.strip() and self.source is None:
            raise UsageError("give a TASK (or ", Param("source"), " a trace or skill folder)")
        if self.max_iterations < 1:
            raise UsageError(
                Param("max_iterations"), f" must be at least 1 (got {self.max_iterations})"
            )
        if self.runs < 1:
            raise UsageError(Param("runs"), f" must be at least 1 (got {self.runs})")
        if not self.students:
            raise UsageError("no student model (", Param("students"), ")")
        dupes = sorted({s for s in self.students if self.students.count(s) > 1})
        if dupes:
            raise UsageError(Param("students"), f" given twice: {', '.join(dupes)}")
        if self.repairs < 0:
            raise UsageError("repairs must be 0 or more")
