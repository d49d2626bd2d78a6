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
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from upskill_hub.atomic_io import atomic_write_chunks
from upskill_hub.evaluation.records import RunInfo
from upskill_hub.evaluation.run_dir import utc_now
from upskill_hub.evaluation.types import Sample

__all__ = ["BENCHMARK_FILE", "benchmark", "write_benchmark"]

BENCHMARK_FILE = "benchmark.json"
_GUIDE_ARM = {"with_skill": "with_skill", "baseline": "without_skill"}
_METRICS = ("pass_rate", "time_seconds", "tokens")


def _run_result(sample: Sample) -> dict[str, Any]:
    graded = [a for a in sample.assertions if a.status != "skipped"]
    passed = sum(1 for a in graded if a.passed)
    total = len(graded)
    errored = sample.outcome == "error"
    return {
        "pass_rate": round(passed / total, 6) if total and not errored else 0.0,
        "passed": passed,
        "failed": total - passed,
        "total": total,
        "time_seconds": round(sample.latency_s, 4),
        "tokens": sample.input_tokens + sample.output_tokens,
        "tool_calls": len(sample.tool_calls),
        "errors": 1 if errored else 0,
    }


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


def _summary(values: dict[str, dict[str, list[float]]]) -> dict[str, Any]:
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


def _run(s: Sample) -> dict[str, Any]:
    return {
        "eval_id": s.case_id,
        "eval_name": s.case_id,
        "model": s.model,
        "configuration": _GUIDE_ARM.get(s.arm, s.arm),
        "run_number": s.run,
        "result": _run_result(s),
    }


def _models(info: RunInfo, samples: Sequence[Sample]) -> list[str]:
    """run.json's models (or the samples' in order of first sample), then any other model."""
    models = list(info.models or dict.fromkeys(s.model for s in samples))
    seen = set(models)
    for s in samples:
        if s.model not in seen:
            seen.add(s.model)
            models.append(s.model)
    return models


def _head(info: RunInfo, samples: Sequence[Sample]) -> tuple[dict[str, Any], list[str]]:
    """benchmark.json without its runs (``"runs": []``), and the models in the runs' order.
    Holds a few floats per sample, never the runs themselves."""
    models = _models(info, samples)
    values: dict[str, dict[str, dict[str, list[float]]]] = {m: {} for m in models}
    for s in samples:
        if s.outcome == "error":
            continue
        result = _run_result(s)
        arm = values[s.model].setdefault(_GUIDE_ARM.get(s.arm, s.arm), {})
        for metric in _METRICS:
            arm.setdefault(metric, []).append(float(result[metric]))
    summaries = {m: _summary(values[m]) for m in models}
    first = models[0] if models else None
    head = {
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
    return head, models


def benchmark(info: RunInfo, samples: Sequence[Sample]) -> dict[str, Any]:
    """The content of benchmark.json for a run (``info`` is run.json)."""
    head, models = _head(info, samples)
    head["runs"] = [_run(s) for m in models for s in samples if s.model == m]
    return head


def _chunks(info: RunInfo, samples: Sequence[Sample]) -> Iterator[bytes]:
    """The text of ``json.dumps(benchmark(...), indent=2)``, one run at a time."""
    head, models = _head(info, samples)
    text = json.dumps(head, indent=2, ensure_ascii=False) + "\n"
    marker = '\n  "runs": [],\n'
    before, after = text.split(marker, 1)
    if not samples:
        yield text.encode("utf-8")
        return
    yield (before + '\n  "runs": [\n').encode("utf-8")
    sep = ""
    for model in models:
        for s in samples:
            if s.model == model:
                run = json.dumps(_run(s), indent=2, ensure_ascii=False)
                yield (sep + "    " + run.replace("\n", "\n    ")).encode("utf-8")
                sep = ",\n"
    yield ("\n  ],\n" + after).encode("utf-8")


def write_benchmark(run_dir: Path, info: RunInfo, samples: Sequence[Sample]) -> Path:
    """Write ``benchmark.json`` into ``run_dir`` atomically, streamed run by run (a large run
    never holds its runs' JSON in memory); returns its path."""
    path = Path(run_dir) / BENCHMARK_FILE
    atomic_write_chunks(path, _chunks(info, samples))
    return path
