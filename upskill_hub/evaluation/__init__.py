"""Measure a skill: providers -> runner -> assertions -> statistics. Exports load lazily.

- :mod:`.config`: what an eval is given (:class:`~.config.EvalConfig`);
- :mod:`.types`: the nouns that flow through an eval (samples, completions, parameters);
- :mod:`.runner`: running an eval (``evaluate``, ``run_eval``), every sample saved as it finishes;
- :mod:`.session`: the workers of one eval: requests, retries, grading, recording;
- :mod:`.model_queue`: one model's keys still to run and those waiting out a retry delay;
- :mod:`.provider_pool`: one provider per model of a run;
- :mod:`.retry`: model calls with retries, written once;
- :mod:`.pricing`: model prices (``--price``, the built-in table ``data/prices.json``) and what
  tokens cost;
- :mod:`.prompts`: the exact messages each arm sends;
- :mod:`.judges`: where a ``judge`` assertion's model runs and with which key;
- :mod:`.fenced`: fenced code blocks in a model's answer;
- :mod:`.eval_result`: what an eval reports (:class:`~.eval_result.Progress`,
  :class:`~.eval_result.EvalResult`);
- :mod:`.providers`: one class per model API, and the model-string resolver;
- :mod:`.assertions`: one class per assertion kind;
- :mod:`.agent`: agent mode (the ``Skill`` and ``Read`` tools, the tool loop);
- :mod:`.run`: the run folder and what a run keeps while it runs;
- :mod:`.stats`: pass rates, lift, intervals and the verdict;
- :mod:`.triggers`: trigger evals (does a model load the skill when it should?);
- :mod:`.report`: terminal tables and the lift chart.
"""

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
