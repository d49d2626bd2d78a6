"""Measure a skill: providers -> runner -> assertions -> statistics. Exports load lazily."""

from __future__ import annotations

from typing import TYPE_CHECKING

from upskill_hub._lazy import lazy_exports

if TYPE_CHECKING:  # the names of _EXPORTS, for type checkers (``X as X``: re-exported)
    from upskill_hub.evaluation.config import EvalConfig as EvalConfig
    from upskill_hub.evaluation.eval_result import EvalResult as EvalResult
    from upskill_hub.evaluation.eval_result import Progress as Progress
    from upskill_hub.evaluation.providers.resolve import resolve_model as resolve_model
    from upskill_hub.evaluation.run.folder import load_run as load_run
    from upskill_hub.evaluation.runner import evaluate as evaluate
    from upskill_hub.evaluation.runner import run_eval as run_eval
    from upskill_hub.evaluation.stats.summarize import summarize as summarize
    from upskill_hub.evaluation.types import GenerationParams as GenerationParams
    from upskill_hub.evaluation.types import Sample as Sample

_EXPORTS = {
    "EvalConfig": "upskill_hub.evaluation.config",
    "EvalResult": "upskill_hub.evaluation.eval_result",
    "GenerationParams": "upskill_hub.evaluation.types",
    "Progress": "upskill_hub.evaluation.eval_result",
    "Sample": "upskill_hub.evaluation.types",
    "evaluate": "upskill_hub.evaluation.runner",
    "load_run": "upskill_hub.evaluation.run.folder",
    "resolve_model": "upskill_hub.evaluation.providers.resolve",
    "run_eval": "upskill_hub.evaluation.runner",
    "summarize": "upskill_hub.evaluation.stats.summarize",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
