"""Does a run folder's summary.json follow from its samples? ``results push`` refuses one that
does not, so a published lift is at least the lift of the published samples.

The summary is computed again from samples.jsonl with the statistics the eval itself uses
(:func:`upskill_hub.evaluation.stats.summarize.summarize`, what the runner and the Jobs merge write
summary.json with) and compared field by field: sample and error counts, per model the runs,
cases, each arm's passed/total/errors/pass rate/interval/tokens/latency, the lift, its
interval, the Holm adjustment (the interval published with the verdict when several models
were measured), the verdict, the token savings and, when the summary has them, the costs (at
run.json's ``prices``) and token and cost ratios: every figure ``results push`` publishes. This
says nothing about whether the samples themselves are genuine (they are the publisher's word;
readers say "reported by"); it stops a summary edited by hand.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from upskill_hub.errors import UpskillHubError
from upskill_hub.evaluation.run.folder import RunRecord, load_run

__all__ = [
    "InconsistentRunError",
    "check_run_consistency",
    "refuse_inconsistent",
    "refuse_inconsistent_triggers",
    "summary_problems",
    "trigger_summary_problems",
]

#: summary.json rounds its figures (6 decimals); anything closer than this is the same figure.
_TOLERANCE = 1e-5
_SHOWN = 5
#: What is compared of each model: at least every figure ``results push`` publishes
#: (``holm`` holds the Holm-adjusted interval published with the verdict when several models
#: were measured).
_MODEL_FIELDS = (
    "runs",
    "cases",
    "lift_cases",
    "lift",
    "lift_ci95",
    "holm",
    "verdict",
    "token_savings",
    "cost_ratio",
    "token_ratio",
)
_ARM_FIELDS = ("passed", "total", "errors", "pass_rate", "ci95", "tokens", "latency_s", "cost")
#: Figures summaries written before costs lack: compared only when the summary has them (an
#: older run still passes), and then like any other.
_LATER_FIELDS = frozenset({"cost_ratio", "token_ratio", "cost"})
_LATER_TOKENS = ("cached_input", "cache_write")


class InconsistentRunError(UpskillHubError):
    """A run's summary.json does not follow from its samples (exit 1); ``problems`` lists how."""

    def __init__(self, *parts: object, problems: list[str] | None = None) -> None:
        super().__init__(*parts)
        self.problems = list(problems or [])


def check_run_consistency(run_dir: Path) -> list[str]:
    """Every way ``run_dir``'s summary.json differs from what its samples give (empty: it
    follows from them). Each problem names the file, the model and the field."""
    return summary_problems(load_run(Path(run_dir)))


def summary_problems(record: RunRecord) -> list[str]:
    """:func:`check_run_consistency` of a run folder already read."""
    from upskill_hub.evaluation.pricing import prices_from_json
    from upskill_hub.evaluation.stats.summarize import STATS_VERSION, summarize
    from upskill_hub.evaluation.stats.tallies import SampleCounts

    where = record.folder.summary_file
    summary = record.summary
    if summary is None:
        return [f"{where}: missing"]
    problems: list[str] = []
    if summary.stats_version != STATS_VERSION:
        problems.append(
            f"{where}: stats_version {summary.stats_version!r} is not {STATS_VERSION}, the "
            "statistics this version can check; resume the run to write it again"
        )
        return problems
    counts = SampleCounts.of(record.samples)
    _compare(problems, f"{where}: samples", summary.samples, counts.samples)
    _compare(problems, f"{where}: errors", summary.errors, counts.errors)
    prices = prices_from_json(record.info.prices)
    ours = {m.model: m.to_dict() for m in summarize(record.samples, prices)}
    claimed: dict[str, dict[str, Any]] = {}
    for entry in summary.models:
        name = entry.get("model") if isinstance(entry, dict) else None
        if not isinstance(name, str) or name in claimed:
            problems.append(f"{where}: a models entry without a model name, or named twice")
            continue
        claimed[name] = entry
    for name in sorted(set(claimed) - set(ours)):
        problems.append(f"{where}: model {name!r} has no samples in {record.folder.samples_file}")
    for name in sorted(set(ours) - set(claimed)):
        problems.append(f"{where}: model {name!r} has samples but no summary")
    for name in sorted(set(ours) & set(claimed)):
        _compare_model(problems, f"{where}: {name}", claimed[name], ours[name])
    return problems


def _compare_model(
    problems: list[str], where: str, claimed: dict[str, Any], ours: dict[str, Any]
) -> None:
    for key in _MODEL_FIELDS:
        if key in _LATER_FIELDS and key not in claimed:
            continue
        _compare(problems, f"{where}: {key}", claimed.get(key), ours.get(key))
    for arm in ("baseline", "with_skill"):
        mine, theirs = ours.get(arm), claimed.get(arm)
        if mine is None or theirs is None or not isinstance(theirs, dict):
            _compare(problems, f"{where}: {arm}", theirs, mine)
            continue
        for key in _ARM_FIELDS:
            if key in _LATER_FIELDS and key not in theirs:
                continue
            value = mine.get(key)
            if key == "tokens" and isinstance(value, dict) and isinstance(theirs.get(key), dict):
                value = {
                    k: v for k, v in value.items() if k not in _LATER_TOKENS or k in theirs[key]
                }
            _compare(problems, f"{where}: {arm}.{key}", theirs.get(key), value)


def _compare(problems: list[str], where: str, claimed: Any, ours: Any) -> None:
    if not _same(claimed, ours):
        problems.append(f"{where} says {_shown(claimed)}, the samples give {_shown(ours)}")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(float(a), float(b), rel_tol=0, abs_tol=_TOLERANCE)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def trigger_summary_problems(run_dir: Path) -> list[str]:
    """The same check for a trigger eval: trigger_summary.json's counts and every model's set
    and query rates against :func:`~upskill_hub.evaluation.triggers.rates.trigger_stats` of
    trigger_samples.jsonl over queries.json."""
    from upskill_hub.evaluation.triggers.measure import (
        QUERIES_JSON,
        TRIGGER_SAMPLES_FILE,
        TRIGGER_SUMMARY_FILE,
    )
    from upskill_hub.evaluation.triggers.queries import TriggerQuery
    from upskill_hub.evaluation.triggers.rates import TriggerSample, trigger_stats
    from upskill_hub.json_input import JsonInputError, parse_json
    from upskill_hub.publish.dataset_push import read_run_json

    path = Path(run_dir)
    where = path / TRIGGER_SUMMARY_FILE
    summary = read_run_json(where)
    try:
        queries = [
            TriggerQuery(str(q["id"]), str(q["query"]), bool(q["should_trigger"]), q.get("split"))
            for q in read_run_json(path / QUERIES_JSON)
        ]
        lines = (path / TRIGGER_SAMPLES_FILE).read_text("utf-8").splitlines()
        samples = [TriggerSample.from_dict(parse_json(line)) for line in lines if line.strip()]
    except (OSError, JsonInputError, KeyError, TypeError, ValueError) as exc:
        return [f"{path}: its queries or samples cannot be read ({type(exc).__name__})"]
    problems: list[str] = []
    if not isinstance(summary, dict):
        return [f"{where}: not a JSON object"]
    _compare(problems, f"{where}: samples", summary.get("samples"), len(samples))
    errors = sum(1 for s in samples if s.error is not None)
    _compare(problems, f"{where}: errors", summary.get("errors"), errors)
    ours = {m.model: m.to_dict() for m in trigger_stats(queries, samples)}
    claimed = {str(m.get("model")): m for m in summary.get("models") or [] if isinstance(m, dict)}
    for name in sorted(set(ours) | set(claimed)):
        _compare(problems, f"{where}: model {name!r}", claimed.get(name), ours.get(name))
    return problems


def refuse_inconsistent(record: RunRecord) -> None:
    """InconsistentRunError naming the first few problems, when there are any."""
    _refuse(summary_problems(record), "summary.json does not follow from samples.jsonl")


def refuse_inconsistent_triggers(run_dir: Path) -> None:
    """InconsistentRunError when a trigger eval's summary does not follow from its samples."""
    _refuse(
        trigger_summary_problems(run_dir),
        "trigger_summary.json does not follow from trigger_samples.jsonl",
    )


def _refuse(problems: list[str], what: str) -> None:
    if problems:
        more = f" (+{len(problems) - _SHOWN} more)" if len(problems) > _SHOWN else ""
        raise InconsistentRunError(
            f"refusing to publish: {what}: " + "; ".join(problems[:_SHOWN]) + more,
            problems=problems,
        )
