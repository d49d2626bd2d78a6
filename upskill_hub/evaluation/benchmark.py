"""``benchmark.json``: a run in the agentskills.io guide's format ("Evaluating skills"; the file
Anthropic's skill-creator aggregates), written beside summary.json so tools built on the guide
read our runs.

Shape::

    {"metadata": {"skill_name", "executor_model", "timestamp", "evals_run",
                  "runs_per_configuration", ...},
     "runs": [{"eval_id", "configuration": "with_skill" | "without_skill", "run_number",
               "result": {"pass_rate", "passed", "failed", "total", "time_seconds", "tokens",
                          "tool_calls", "errors"}}],
     "run_summary": {"with_skill": {"pass_rate" | "time_seconds" | "tokens":
                                    {"mean", "stddev", "min", "max"}},
                     "without_skill": {...},
                     "delta": {"pass_rate": "+0.50", "time_seconds": "+1.2", "tokens": "+300"}},
     "models": {MODEL: {"with_skill", "without_skill", "delta"}}}

As in the guide, a run's ``pass_rate`` is the share of its assertions that passed (skipped
ones left out); summary.json's pass rate counts runs that passed every assertion, so the two
agree when each case has one assertion. ``run_summary`` is that of the run's first model
(``metadata.executor_model``); ``models`` holds every model's. Runs that errored are left out of
the means and counted in ``errors``. ``stddev`` is the sample standard deviation (0 for one run).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from upskill_hub.atomic_io import atomic_write_chunks
from upskill_hub.evaluation.records import RunInfo
from upskill_hub.evaluation.run_dir import utc_now
from upskill_hub.evaluation.types import Sample

__all__ = [
    "BENCHMARK_FILE",
    "benchmark",
    "benchmark_chunks",
    "benchmark_head",
    "run_entry",
    "run_result",
    "sample_checks",
    "write_benchmark",
]

BENCHMARK_FILE = "benchmark.json"
_GUIDE_ARM = {"with_skill": "with_skill", "baseline": "without_skill"}
_METRICS = ("pass_rate", "time_seconds", "tokens")


def sample_checks(sample: Sample) -> tuple[int, int]:
    """(assertions passed, assertions graded): skipped ones left out."""
    graded = [a for a in sample.assertions if a.status != "skipped"]
    return sum(1 for a in graded if a.passed), len(graded)


def run_result(
    passed: int, total: int, latency_s: float, tokens: int, tool_calls: int, errored: bool
) -> dict[str, Any]:
    """A run's ``result`` from the figures of its sample."""
    return {
        "pass_rate": round(passed / total, 6) if total and not errored else 0.0,
        "passed": passed,
        "failed": total - passed,
        "total": total,
        "time_seconds": round(latency_s, 4),
        "tokens": tokens,
        "tool_calls": tool_calls,
        "errors": 1 if errored else 0,
    }


def _run_result(sample: Sample) -> dict[str, Any]:
    passed, total = sample_checks(sample)
    return run_result(
        passed,
        total,
        sample.latency_s,
        sample.input_tokens + sample.output_tokens,
        len(sample.tool_calls),
        sample.outcome == "error",
    )


def _spread(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "stddev": 0.0, "min": 0.0, "max": 0.0}
    return {
        "mean": round(statistics.fmean(values), 6),
        "stddev": round(statistics.stdev(values), 6) if len(values) > 1 else 0.0,
        "min": round(min(values), 6),
        "max": round(max(values), 6),
    }


def _signed(value: float, digits: int) -> str:
    return f"{value:+.{digits}f}"


def _summary(values: Mapping[str, Mapping[str, Sequence[float]]]) -> dict[str, Any]:
    """Spreads per arm (``values[arm][metric]``: the non-error runs' figures) and the delta."""
    out: dict[str, Any] = {}
    counts = {}
    for arm in ("with_skill", "without_skill"):
        metrics = values.get(arm) or {}
        counts[arm] = len(metrics.get("pass_rate") or [])
        out[arm] = {m: _spread(metrics.get(m) or []) for m in _METRICS}
    if all(counts.values()):
        w, b = out["with_skill"], out["without_skill"]
        out["delta"] = {
            "pass_rate": _signed(w["pass_rate"]["mean"] - b["pass_rate"]["mean"], 2),
            "time_seconds": _signed(w["time_seconds"]["mean"] - b["time_seconds"]["mean"], 1),
            "tokens": _signed(w["tokens"]["mean"] - b["tokens"]["mean"], 0),
        }
    return out


def run_entry(
    case_id: str, model: str, arm: str, run: int, result: dict[str, Any]
) -> dict[str, Any]:
    """One entry of ``runs``."""
    return {
        "eval_id": case_id,
        "eval_name": case_id,
        "model": model,
        "configuration": _GUIDE_ARM.get(arm, arm),
        "run_number": run,
        "result": result,
    }


def _run(s: Sample) -> dict[str, Any]:
    return run_entry(s.case_id, s.model, s.arm, s.run, _run_result(s))


def _models(info: RunInfo, samples: Sequence[Sample]) -> list[str]:
    """run.json's models (or the samples' in order of first sample), then any other model."""
    models = list(info.models or dict.fromkeys(s.model for s in samples))
    seen = set(models)
    for s in samples:
        if s.model not in seen:
            seen.add(s.model)
            models.append(s.model)
    return models


def _values(samples: Iterable[Sample], model: str) -> dict[str, dict[str, list[float]]]:
    """``values[arm][metric]``: one model's non-error runs' figures, in sample order."""
    values: dict[str, dict[str, list[float]]] = {}
    for s in samples:
        if s.model != model or s.outcome == "error":
            continue
        result = _run_result(s)
        arm = values.setdefault(_GUIDE_ARM.get(s.arm, s.arm), {})
        for metric in _METRICS:
            arm.setdefault(metric, []).append(float(result[metric]))
    return values


def benchmark_head(
    info: RunInfo,
    models: list[str],
    values: Callable[[str], Mapping[str, Mapping[str, Sequence[float]]]],
) -> dict[str, Any]:
    """benchmark.json without its runs (``"runs": []``); ``values(model)`` gives that model's
    figures (one model's at a time, never the runs themselves)."""
    summaries = {m: _summary(values(m)) for m in models}
    first = models[0] if models else None
    return {
        "metadata": {
            "skill_name": info.skill.name or None,
            "skill_path": info.skill.ref,
            "executor_model": first,
            "mode": info.mode or "inline",
            "timestamp": utc_now(),
            "evals_run": list(info.case_ids),
            "runs_per_configuration": info.runs,
            "run_id": info.run_id or None,
            "tool": info.tool or None,
        },
        "runs": [],
        "run_summary": summaries.get(first, _summary({})) if first else _summary({}),
        "models": summaries,
    }


def _head(info: RunInfo, samples: Sequence[Sample]) -> tuple[dict[str, Any], list[str]]:
    """benchmark.json without its runs (``"runs": []``), and the models in the runs' order."""
    models = _models(info, samples)
    return benchmark_head(info, models, lambda m: _values(samples, m)), models


def benchmark(info: RunInfo, samples: Sequence[Sample]) -> dict[str, Any]:
    """The content of benchmark.json for a run (``info`` is run.json)."""
    head, models = _head(info, samples)
    head["runs"] = [_run(s) for m in models for s in samples if s.model == m]
    return head


def benchmark_chunks(head: dict[str, Any], runs: Iterable[dict[str, Any]]) -> Iterator[bytes]:
    """The text of ``json.dumps(head with its "runs", indent=2)``, one run at a time."""
    text = json.dumps(head, indent=2, ensure_ascii=False) + "\n"
    marker = '\n  "runs": [],\n'
    before, after = text.split(marker, 1)
    sep = None
    for run in runs:
        if sep is None:
            yield (before + '\n  "runs": [\n').encode("utf-8")
            sep = ""
        text_run = json.dumps(run, indent=2, ensure_ascii=False)
        yield (sep + "    " + text_run.replace("\n", "\n    ")).encode("utf-8")
        sep = ",\n"
    if sep is None:
        yield text.encode("utf-8")
        return
    yield ("\n  ],\n" + after).encode("utf-8")


def write_benchmark(run_dir: Path, info: RunInfo, samples: Sequence[Sample]) -> Path:
    """Write ``benchmark.json`` into ``run_dir`` atomically, streamed run by run (a large run
    never holds its runs' JSON in memory); returns its path."""
    head, models = _head(info, samples)
    runs = (_run(s) for m in models for s in samples if s.model == m)
    path = Path(run_dir) / BENCHMARK_FILE
    atomic_write_chunks(path, benchmark_chunks(head, runs))
    return path
