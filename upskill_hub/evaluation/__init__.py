"""Measure a skill: providers -> runner -> assertions -> statistics. Exports load lazily."""

from __future__ import annotations

from typing import TYPE_CHECKING

from upskill_hub._lazy import lazy_exports

if TYPE_CHECKING:
    from upskill_hub.evaluation.config import EvalConfig
    from upskill_hub.evaluation.providers.resolve import resolve_model
    from upskill_hub.evaluation.results import EvalResult, Progress
    from upskill_hub.evaluation.run_dir import load_run
    from upskill_hub.evaluation.runner import evaluate, run_eval
    from upskill_hub.evaluation.statistics import summarize
    from upskill_hub.evaluation.types import GenerationParams, Sample

_EXPORTS = {
    "EvalConfig": "upskill_hub.evaluation.config",
    "EvalResult": "upskill_hub.evaluation.results",
    "GenerationParams": "upskill_hub.evaluation.types",
    "Progress": "upskill_hub.evaluation.results",
    "Sample": "upskill_hub.evaluation.types",
    "evaluate": "upskill_hub.evaluation.runner",
    "load_run": "upskill_hub.evaluation.run_dir",
    "resolve_model": "upskill_hub.evaluation.providers.resolve",
    "run_eval": "upskill_hub.evaluation.runner",
    "summarize": "upskill_hub.evaluation.statistics",
}
__all__ = [
    "EvalConfig",
    "EvalResult",
    "GenerationParams",
    "Progress",
    "Sample",
    "evaluate",
    "load_run",
    "resolve_model",
    "run_eval",
    "summarize",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
