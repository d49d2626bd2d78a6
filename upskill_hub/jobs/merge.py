"""Bring a run on Jobs home: the shards' samples become one ordinary run folder.

:func:`merge_run` downloads the shards one at a time (only one shard's samples are held with
their outputs), writes ``samples.jsonl`` in the local run's order (model, case, run, arm),
then ``summary.json`` (the same statistics as a local run: each model's from a small record per
sample of that model only, Holm-adjusted across models at the end; the counts streamed back
from the merged file), ``lift.png`` (and ``frontier.png`` when prices are known), and updates
``run.json``. A shard is not trusted to grade: a sample whose outcome does not follow from its
assertion results (by the runner's own rule,
:func:`~upskill_hub.evaluation.assertions.outcome_of`; an ``error`` has no results) is
re-graded by that rule and counted in :attr:`MergeResult.regraded` (a forged or corrupted
shard: ``pass`` with no assertion passed is a ``fail``). The checks are not re-run. A key no
shard delivered (its Job failed, was cancelled or never ran) is an ``error`` sample saying so,
so statistics count it and ``eval --resume RUN`` re-runs it. The folder is then what
``results push`` publishes like any run.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from upskill_hub.atomic_io import atomic_write_chunks
from upskill_hub.jobs import artifacts
from upskill_hub.jobs.plan import JobsPlan, Shard

if TYPE_CHECKING:
    from upskill_hub.evaluation.run.records import RunSummary
    from upskill_hub.evaluation.stats.summarize import ModelStats
    from upskill_hub.evaluation.types import AssertionResult, Sample, SampleKey
    from upskill_hub.hub.client import Hub

__all__ = ["MergeResult", "merge_run"]


@dataclass
class MergeResult:
    run_dir: Path
    summary: RunSummary
    stats: list[ModelStats]
    expected: int
    missing: int
    errors: int
    #: Samples whose claimed outcome did not follow from their assertion results, by shard id.
    regraded: dict[str, int] = field(default_factory=dict)


class _Lightener:
    """What the statistics read of a sample (no output, no reasons), its strings and assertion
    lists shared between samples, so that 80,000 of them stay small."""

    def __init__(self) -> None:
        self.lists: dict[tuple[tuple[str, str], ...], list[AssertionResult]] = {}

    def __call__(self, data: dict[str, Any]) -> Sample:
        from upskill_hub.evaluation.types import AssertionResult, Sample

        pairs = tuple(
            (sys.intern(str(a["type"])), sys.intern(str(a["status"])))
            for a in data.get("assertions", [])
        )
        shared = self.lists.get(pairs)
        if shared is None:
            shared = self.lists[pairs] = [AssertionResult(t, s) for t, s in pairs]  # type: ignore[arg-type]
        outcome = sys.intern(str(data["outcome"]))
        return Sample(
            model=sys.intern(str(data["model"])),
            case_id=sys.intern(str(data["case_id"])),
            run=int(data["run"]),
            arm=sys.intern(str(data["arm"])),  # type: ignore[arg-type]
            prompt_hash="",
            outcome=outcome,  # type: ignore[arg-type]
            assertions=shared,
            error=data.get("error") if outcome == "error" else None,
            input_tokens=int(data.get("input_tokens", 0)),
            output_tokens=int(data.get("output_tokens", 0)),
            cached_input_tokens=int(data.get("cached_input_tokens") or 0),
            cache_write_tokens=int(data.get("cache_write_tokens") or 0),
            latency_s=float(data.get("latency_s", 0.0)),
            attempts=int(data.get("attempts", 1)),
            rejected=None if data.get("rejected") is None else str(data["rejected"]),
        )


def _shard_lines(
    plan: JobsPlan, shard: Shard, hub: Hub, tmp: Path
) -> dict[SampleKey, tuple[str, dict[str, Any]]]:
    """The last line (and its parsed data) of each of the shard's keys its Job committed;
    lines cut short by a kill are skipped."""
    path = f"{artifacts.shard_prefix(plan.run_id, shard.id)}/samples.jsonl"
    local = artifacts.download(hub, plan.artifact_repo, path, tmp)
    if local is None:
        return {}
    wanted = set(shard.keys(plan.model_ids[shard.model], plan.runs, plan.arms))
    found: dict[SampleKey, tuple[str, dict[str, Any]]] = {}
    with local.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                data = json.loads(line)
                key = (str(data["model"]), str(data["case_id"]), int(data["run"]), str(data["arm"]))
            except (ValueError, KeyError, TypeError):
                continue
            if key in wanted:
                found[key] = (line.rstrip("\n"), data)
    local.unlink()
    return found


def regraded_outcome(data: dict[str, Any]) -> str | None:
    """The outcome the runner gives a sample with these assertion results, when a shard's line
    claims another or its results are malformed (``None`` when its claim follows from them).
    Malformed results are dropped from ``data`` (the sample then has none, so it fails: the
    line must be written again); an ``error`` with no results stands."""
    from upskill_hub.evaluation.assertions import outcome_of
    from upskill_hub.evaluation.types import AssertionResult

    claimed = data.get("outcome")
    raw = data.get("assertions")
    if claimed == "error" and not raw:
        return None
    try:
        results = [AssertionResult(str(a["type"]), a["status"]) for a in raw or []]
    except (TypeError, KeyError):
        data["assertions"] = []
        return outcome_of([])
    derived = outcome_of(results)
    return None if derived == claimed else derived


def _missing(key: SampleKey, shard: Shard, prompt_hash: str) -> Sample:
    from upskill_hub.evaluation.run.folder import utc_now
    from upskill_hub.evaluation.types import Sample

    why = {
        "error": f"its Job failed ({shard.message or 'no reason given'})",
        "canceled": "its Job was cancelled",
        "pending": "its Job never ran",
        "running": "its Job had not finished",
    }.get(shard.state, "its Job did not deliver it")
    return Sample(
        model=key[0],
        case_id=key[1],
        run=key[2],
        arm="with_skill" if key[3] == "with_skill" else "baseline",
        prompt_hash=prompt_hash,
        outcome="error",
        error=f"not run: shard {shard.id}: {why}; `upskill-hub eval --resume RUN` runs it",
        attempts=0,
        finished_at=utc_now(),
    )


class _SamplesFile:
    """The merged samples.jsonl as a sized iterable of small records, read from disk each time
    it is iterated (the summary counts errors, skips and rejections without holding them)."""

    def __init__(self, path: Path, count: int, lighten: _Lightener) -> None:
        self.path, self.count, self.lighten = path, count, lighten

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[Sample]:
        with self.path.open(encoding="utf-8") as handle:
            for line in handle:
                yield self.lighten(json.loads(line))


def merge_run(plan: JobsPlan, run_dir: Path, hub: Hub | None = None) -> MergeResult:
    """Write the run folder's samples, summary and chart from the shards (see module doc)."""
    from upskill_hub.evaluation.pricing import prices_from_json
    from upskill_hub.evaluation.run.folder import RunFolder, utc_now
    from upskill_hub.evaluation.run.info import build_summary
    from upskill_hub.evaluation.run.records import RunSession
    from upskill_hub.evaluation.stats.summarize import adjust_across_models, summarize_tallies
    from upskill_hub.evaluation.stats.tallies import ModelTally

    if hub is None:
        from upskill_hub.hub.client import Hub

        hub = Hub()
    folder = RunFolder(Path(run_dir))
    info = folder.read_info()
    prices = prices_from_json(info.prices)
    arm_order = {a: i for i, a in enumerate(("baseline", "with_skill"))}
    light: dict[str, ModelTally] = {}  # one model's running tallies: what its statistics read
    position = 0  # of the sample in the merged file: the tallies' order
    stats: list[ModelStats] = []
    lighten = _Lightener()
    missing = errors = total = 0
    regraded: dict[str, int] = {}

    def merged_lines(tmp: Path) -> Iterator[bytes]:
        nonlocal missing, errors, total, position, light, stats
        for index, shard in enumerate(plan.shards):
            got = _shard_lines(plan, shard, hub, tmp)
            hashes: dict[tuple[str, str], str] = {
                (d["case_id"], d["arm"]): str(d.get("prompt_hash", "")) for _, d in got.values()
            }
            order = {c: i for i, c in enumerate(shard.case_ids)}
            keys = sorted(
                shard.keys(plan.model_ids[shard.model], plan.runs, plan.arms),
                key=lambda k: (order[k[1]], k[2], arm_order.get(k[3], 2)),
            )
            ok = 0
            for key in keys:
                found = got.pop(key, None)
                if found is None:
                    missing += 1
                    sample = _missing(key, shard, hashes.get((key[1], key[3]), ""))
                    line, data = (
                        json.dumps(sample.to_dict(), ensure_ascii=False),
                        sample.to_dict(),
                    )
                else:
                    line, data = found
                    derived = regraded_outcome(data)
                    if derived is not None:
                        regraded[shard.id] = regraded.get(shard.id, 0) + 1
                        data["outcome"] = derived
                        line = json.dumps(data, ensure_ascii=False)
                    ok += data.get("outcome") != "error"
                yield (line + "\n").encode("utf-8")
                sample = lighten(data)
                tally = light.get(sample.model)
                if tally is None:
                    tally = light[sample.model] = ModelTally(position)
                tally.add(sample, position)
                position += 1
            shard.done = ok
            total += len(keys)
            errors += len(keys) - ok
            following = plan.shards[index + 1] if index + 1 < len(plan.shards) else None
            if following is None or following.model != shard.model:
                stats += summarize_tallies(light, prices)  # shards of a model follow each other
                light = {}

    with tempfile.TemporaryDirectory() as tmp:
        atomic_write_chunks(folder.samples_file, merged_lines(Path(tmp)))
    plan.save(folder.path)
    stats = adjust_across_models(stats)  # Holm, as summarize does over several models
    expected = plan.expected
    cancelled = any(s.state == "canceled" for s in plan.shards)
    info.finished_at = utc_now()
    info.status = "complete" if errors == 0 else ("cancelled" if cancelled else "interrupted")
    info.sessions.append(
        RunSession(
            started_at=info.started_at or info.finished_at,
            finished_at=info.finished_at,
            samples=total,
            executor="jobs",
        )
    )
    folder.write_info(info)
    samples = _SamplesFile(folder.samples_file, total, lighten)
    summary = build_summary(info, folder, samples, stats, expected, cancelled)
    folder.write_summary(summary)
    if total:
        try:
            from upskill_hub.evaluation.report.chart import write_lift_chart

            write_lift_chart(summary.models, folder.chart_file, title=f"{info.skill.name}: lift")
            from upskill_hub.evaluation.report.frontier_chart import write_run_frontier_chart

            title = f"{info.skill.name}: pass rate vs cost per passed case"
            write_run_frontier_chart(summary.models, folder.frontier_chart_file, title=title)
        except Exception:  # the charts are a nicety; the numbers are in summary.json
            pass
    return MergeResult(folder.path, summary, stats, expected, missing, errors, regraded)
