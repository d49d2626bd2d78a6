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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from upskill_hub.atomic_io import atomic_write_text
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


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    counts = {}
    for arm in ("with_skill", "without_skill"):
        results = [r["result"] for r in runs if r["configuration"] == arm and not r["errors"]]
        counts[arm] = len(results)
        out[arm] = {m: _spread([float(r[m]) for r in results]) for m in _METRICS}
    if all(counts.values()):
        w, b = out["with_skill"], out["without_skill"]
        out["delta"] = {
            "pass_rate": _signed(w["pass_rate"]["mean"] - b["pass_rate"]["mean"], 2),
            "time_seconds": _signed(w["time_seconds"]["mean"] - b["time_seconds"]["mean"], 1),
            "tokens": _signed(w["tokens"]["mean"] - b["tokens"]["mean"], 0),
        }
    return out


def benchmark(info: RunInfo, samples: Sequence[Sample]) -> dict[str, Any]:
    """The content of benchmark.json for a run (``info`` is run.json)."""
    models = list(info.models or dict.fromkeys(s.model for s in samples))
    by_model: dict[str, list[dict[str, Any]]] = {m: [] for m in models}
    for s in samples:
        run = {
            "eval_id": s.case_id,
            "eval_name": s.case_id,
            "model": s.model,
            "configuration": _GUIDE_ARM.get(s.arm, s.arm),
            "run_number": s.run,
            "result": _run_result(s),
            "errors": s.outcome == "error",
        }
        by_model.setdefault(s.model, []).append(run)
    summaries = {m: _summary(runs) for m, runs in by_model.items()}
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
        "runs": [
            {k: v for k, v in run.items() if k != "errors"}
            for runs in by_model.values()
            for run in runs
        ],
        "run_summary": summaries.get(first, _summary([])) if first else _summary([]),
        "models": summaries,
    }


def write_benchmark(run_dir: Path, info: RunInfo, samples: Sequence[Sample]) -> Path:
    """Write ``benchmark.json`` into ``run_dir`` atomically; returns its path."""
    path = Path(run_dir) / BENCHMARK_FILE
    text = json.dumps(benchmark(info, samples), indent=2, ensure_ascii=False) + "\n"
    atomic_write_text(path, text)
    return path
