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
agree when each case has one assertion, and ``delta.pass_rate`` is a difference of those
per-assertion means, not summary.json's lift (a mean over cases of per-case differences). The
file says so itself, under ``notes``. Runs that errored (errors left after retries and prompt
rejections, ``errors: 1``) and runs on which no check ran (``graded: false``) are left out of the
means, as summary.json leaves them out of its pass rates. ``stddev`` is the sample standard
deviation (0 for one run).

For skill-creator's viewer (which sorts ``eval_id`` numerically and takes the first
configuration of each eval as "with skill"): ``eval_id`` is a number (the evals.json id of an
``eval-<id>`` case, else the case's position in ``metadata.evals_run``, from 1), ``eval_name``
the case id, and each (case, run) lists ``with_skill`` before ``without_skill``. Several models
are never mixed under one configuration: ``benchmark.json`` holds the run's first model
(``metadata.executor_model``), and each other model has its own file
(:func:`benchmark_files`, listed in ``metadata.benchmark_files``); ``models`` holds every
model's ``run_summary``.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from upskill_hub.atomic_io import atomic_write_chunks
from upskill_hub.evaluation.run.folder import utc_now
from upskill_hub.evaluation.run.records import RunInfo
from upskill_hub.evaluation.types import Sample

__all__ = [
    "BENCHMARK_FILE",
    "NOTES",
    "benchmark",
    "benchmark_chunks",
    "benchmark_files",
    "benchmark_head",
    "eval_ids",
    "run_entry",
    "run_result",
    "sample_checks",
    "write_benchmark",
]

BENCHMARK_FILE = "benchmark.json"
_GUIDE_ARM = {"with_skill": "with_skill", "baseline": "without_skill"}
_METRICS = ("pass_rate", "time_seconds", "tokens")
_ARM_RANK = {"with_skill": 0, "baseline": 1}  # with_skill first, as the viewer expects
_NUMBERED = re.compile(r"(?:eval-)?([0-9]{1,9})")

#: What the file's figures are, in the file itself (``notes``: the guide's list of free-form
#: observations, which the viewer shows), since they differ from summary.json's.
NOTES = [
    "pass_rate is per run: the share of its assertions that passed (skipped ones left out); "
    "summary.json's pass_rate is the share of samples that passed every assertion.",
    "delta is the with_skill mean minus the without_skill mean of the per-run figures: "
    "delta.pass_rate is per assertion, while summary.json's lift is the mean over cases of "
    "each case's difference in sample pass rates (its interval and verdict are there).",
    "Runs that errored (errors: 1; errors after retries and prompt rejections) and runs on "
    "which no check ran (graded: false) are left out of the means, as summary.json leaves "
    "them out of its pass rates.",
    "eval_id is a number (the evals.json id, else the position in evals_run); eval_name is "
    "the case id. One file per model: metadata.benchmark_files.",
]


def eval_ids(case_ids: Sequence[str]) -> dict[str, int]:
    """A numeric ``eval_id`` per case: the evals.json id of ``eval-<id>`` (or an all-digit id)
    when every case has a distinct one, else the position from 1."""
    numbers = [_NUMBERED.fullmatch(c) for c in case_ids]
    if all(numbers):
        ids = [int(m.group(1)) for m in numbers if m]
        if len(set(ids)) == len(ids):
            return dict(zip(case_ids, ids, strict=True))
    return {c: i for i, c in enumerate(case_ids, 1)}


def benchmark_files(models: Sequence[str]) -> dict[str, str]:
    """The file of each model: ``benchmark.json`` for the first, ``benchmark-<model>.json``
    (the model string made a file name) for each other."""
    files: dict[str, str] = {}
    used = {BENCHMARK_FILE}
    for i, model in enumerate(models):
        if i == 0:
            files[model] = BENCHMARK_FILE
            continue
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip("-.") or "model"
        name, n = f"benchmark-{slug}.json", 1
        while name in used:
            n += 1
            name = f"benchmark-{slug}-{n}.json"
        used.add(name)
        files[model] = name
    return files


def sample_checks(sample: Sample) -> tuple[int, int]:
    """(assertions passed, assertions graded): skipped ones left out."""
    graded = [a for a in sample.assertions if a.status != "skipped"]
    return sum(1 for a in graded if a.passed), len(graded)


def run_result(
    passed: int, total: int, latency_s: float, tokens: int, tool_calls: int, errored: bool
) -> dict[str, Any]:
    """A run's ``result`` from the figures of its sample (``graded``: a check ran on it)."""
    return {
        "pass_rate": round(passed / total, 6) if total and not errored else 0.0,
        "passed": passed,
        "failed": total - passed,
        "total": total,
        "time_seconds": round(latency_s, 4),
        "tokens": tokens,
        "tool_calls": tool_calls,
        "errors": 1 if errored else 0,
        "graded": bool(total) and not errored,
    }


def in_means(result: Mapping[str, Any]) -> bool:
    """Whether a run's figures enter the means: it has an answer on which a check ran."""
    return bool(result["graded"])


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
    case_id: str, model: str, arm: str, run: int, result: dict[str, Any], eval_id: int
) -> dict[str, Any]:
    """One entry of ``runs`` (``eval_id`` from :func:`eval_ids`)."""
    return {
        "eval_id": eval_id,
        "eval_name": case_id,
        "model": model,
        "configuration": _GUIDE_ARM.get(arm, arm),
        "run_number": run,
        "result": result,
    }


def _case_ids(info: RunInfo, samples: Iterable[Sample]) -> list[str]:
    """run.json's cases, then any other case of the samples in order of first sample."""
    cases = list(dict.fromkeys(info.case_ids))
    seen = set(cases)
    for s in samples:
        if s.case_id not in seen:
            seen.add(s.case_id)
            cases.append(s.case_id)
    return cases


def _runs(info: RunInfo, samples: Sequence[Sample], model: str) -> Iterator[dict[str, Any]]:
    """One model's runs: by case (run.json's order), run, then with_skill before baseline."""
    cases = _case_ids(info, samples)
    ids, position = eval_ids(cases), {c: i for i, c in enumerate(cases)}
    mine = sorted(
        (s for s in samples if s.model == model),
        key=lambda s: (position[s.case_id], s.run, _ARM_RANK.get(s.arm, 2)),
    )
    for s in mine:
        yield run_entry(s.case_id, s.model, s.arm, s.run, _run_result(s), ids[s.case_id])


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
        if not in_means(result):
            continue
        arm = values.setdefault(_GUIDE_ARM.get(s.arm, s.arm), {})
        for metric in _METRICS:
            arm.setdefault(metric, []).append(float(result[metric]))
    return values


def benchmark_head(
    info: RunInfo,
    models: list[str],
    values: Callable[[str], Mapping[str, Mapping[str, Sequence[float]]]],
    model: str | None = None,
) -> dict[str, Any]:
    """One model's benchmark file without its runs (``"runs": []``; ``model`` None: the first
    model's, benchmark.json); ``values(model)`` gives a model's figures (one model's at a time,
    never the runs themselves)."""
    summaries = {m: _summary(values(m)) for m in models}
    first = model if model is not None else (models[0] if models else None)
    return {
        "metadata": {
            "skill_name": info.skill.name or None,
            "skill_path": info.skill.ref,
            "executor_model": first,
            "benchmark_files": benchmark_files(models),
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
        "notes": list(NOTES),
    }


def benchmark(info: RunInfo, samples: Sequence[Sample], model: str | None = None) -> dict[str, Any]:
    """The content of one model's benchmark file for a run (``info`` is run.json; ``model``
    None: the first model's, benchmark.json)."""
    models = _models(info, samples)
    head = benchmark_head(info, models, lambda m: _values(samples, m), model)
    chosen = head["metadata"]["executor_model"]
    head["runs"] = list(_runs(info, samples, chosen)) if chosen is not None else []
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
    """Write each model's benchmark file into ``run_dir`` atomically, streamed run by run (a
    large run never holds its runs' JSON in memory); returns benchmark.json's path."""
    models = _models(info, samples)
    files = benchmark_files(models)
    chosen_models: list[str | None] = list(models) or [None]  # no sample: an empty file
    for model in chosen_models:
        head = benchmark_head(info, models, lambda m: _values(samples, m), model)
        chosen = head["metadata"]["executor_model"]
        runs = _runs(info, samples, chosen) if chosen is not None else iter(())
        name = files.get(chosen, BENCHMARK_FILE) if chosen is not None else BENCHMARK_FILE
        atomic_write_chunks(Path(run_dir) / name, benchmark_chunks(head, runs))
    return Path(run_dir) / BENCHMARK_FILE
