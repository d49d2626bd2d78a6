"""Read published (or local) results back: one run's summary, or two runs side by side.

A source is a run folder, or a results dataset ``NS/NAME`` with an optional ``:split``. From the
Hub the ``summary`` config is loaded with ``datasets.load_dataset``; without a split the latest
run (by its start time) is shown. Both give the same rows (``schemas/summary.schema.json``).
A trigger eval (its folder, or a split of the ``triggers`` config) reads back as
:class:`TriggerRunResults`: the same figures as its ``trigger_summary.json``, recomputed from
the published per-query counts.

:func:`compare_results` pairs the two runs' rows by model; when each run has exactly one model
and they differ, those two are paired (labelled ``X vs Y``: comparing two models on one skill
is a comparison people make). :func:`comparison_warning` says, in one line, when the runs did
not measure the same thing (another skill or commit, other test cases).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from upskill_hub.errors import HubError, Param, RepoNotFoundError, UsageError
from upskill_hub.publish.summary_text import ModelResult, by_model


@dataclass(frozen=True)
class RunResults:
    """The summary rows of one run and where they came from."""

    source: str
    split: str
    rows: list[dict[str, Any]]
    case_ids: tuple[str, ...] | None = None  # known for a run folder
    # per model: summary.json's case table and pass^k per arm (run folders, stats_version 2)
    case_tables: dict[str, dict[str, Any]] | None = None
    mode: str | None = None  # "inline" or "agent"; known for a run folder

    @property
    def models(self) -> list[ModelResult]:
        return by_model(self.rows)

    @property
    def skill(self) -> str:
        """The skill as ``name`` (``repo@commit`` when it came from the Hub)."""
        row = self.rows[0] if self.rows else {}
        name = str(row.get("skill_name") or "?")
        repo, commit = row.get("skill_repo"), row.get("skill_commit")
        if repo:
            return f"{name} ({repo}@{str(commit)[:12]})" if commit else f"{name} ({repo})"
        return name

    @property
    def case_count(self) -> int | None:
        if self.case_ids is not None:
            return len(self.case_ids)
        counts = {int(r["cases"]) for r in self.rows if r.get("cases") is not None}
        return counts.pop() if len(counts) == 1 else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "split": self.split,
            "models": [m.to_dict() for m in self.models],
        }


@dataclass(frozen=True)
class TriggerRunResults:
    """A trigger eval read back: ``summary`` in ``trigger_summary.json``'s shape (``skill``,
    ``models`` with their ``sets`` and ``queries``, ``errors``)."""

    source: str
    split: str
    summary: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.summary


@dataclass(frozen=True)
class ModelComparison:
    """One model in runs A and B (either may lack it)."""

    model: str
    a: ModelResult | None
    b: ModelResult | None

    @property
    def lift_delta(self) -> float | None:
        if self.a is None or self.b is None or self.a.lift is None or self.b.lift is None:
            return None
        return self.b.lift - self.a.lift

    @property
    def with_skill_delta(self) -> float | None:
        rate_a = _rate(self.a.with_skill) if self.a else None
        rate_b = _rate(self.b.with_skill) if self.b else None
        return None if rate_a is None or rate_b is None else rate_b - rate_a

    @property
    def with_skill_cost_ratio(self) -> float | None:
        """B's with-skill cost per passed sample over A's (None: either unpriced or passing
        nothing, or rows from before costs)."""
        cost_a = _cost(self.a.with_skill) if self.a else None
        cost_b = _cost(self.b.with_skill) if self.b else None
        return None if not cost_a or cost_b is None else cost_b / cost_a

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "a": self.a.to_dict() if self.a else None,
            "b": self.b.to_dict() if self.b else None,
            "lift_delta": self.lift_delta,
            "with_skill_delta": self.with_skill_delta,
            "with_skill_cost_ratio": self.with_skill_cost_ratio,
        }


def _rate(row: dict[str, Any] | None) -> float | None:
    return None if not row else row.get("pass_rate")


def _cost(row: dict[str, Any] | None) -> float | None:
    return None if not row else row.get("cost_per_passed")


def load_results(
    source: str | Path, split: str | None = None, *, evals_only: bool = False
) -> RunResults | TriggerRunResults:
    """The summary of a run folder, or of one split (default: the latest) of a dataset; with
    ``evals_only`` the default is the dataset's latest eval run (its trigger runs aside)."""
    text = str(source)
    path = Path(text).expanduser()
    if path.exists():
        if split:
            raise UsageError(
                f"{text}: ", Param("split"), " applies to a Hub dataset, not a run folder"
            )
        return _local(path)
    repo, sep, named = text.partition(":")
    if sep and split and named != split:
        raise UsageError(
            f"{text}: give the split once (':{named}' or ", Param("split"), f" {split})"
        )
    if sep and not named:
        raise UsageError(f"{text!r}: empty split after ':'")
    if "/" not in repo or repo.startswith((".", "/", "~")):
        raise UsageError(f"{text}: no such run folder (nor a Hub dataset id NS/NAME[:split])")
    return _hub(repo, named or split, evals_only=evals_only)


def load_eval_results(source: str | Path) -> RunResults:
    """:func:`load_results` for what only eval runs have (lift, arms): a trigger eval is refused
    in one line (a dataset named without a split gives its latest eval run)."""
    results = load_results(source, evals_only=True)
    if isinstance(results, TriggerRunResults):
        raise UsageError(
            f"{source}: a trigger eval (recall and false triggers, no lift): it compares with "
            "no eval run; show it with 'results show'"
        )
    return results


def compare_results(a: RunResults, b: RunResults) -> list[ModelComparison]:
    """Per model (A's order, then B's new ones): both results and the deltas B − A.

    Two single-model runs of different models are paired as one row ``X vs Y``."""
    models_a, models_b = a.models, b.models
    if len(models_a) == 1 and len(models_b) == 1 and models_a[0].model != models_b[0].model:
        label = f"{models_a[0].model} vs {models_b[0].model}"
        return [ModelComparison(label, models_a[0], models_b[0])]
    in_a = {m.model: m for m in models_a}
    in_b = {m.model: m for m in models_b}
    names = list(dict.fromkeys([*in_a, *in_b]))
    return [ModelComparison(n, in_a.get(n), in_b.get(n)) for n in names]


def comparison_warning(a: RunResults, b: RunResults) -> str | None:
    """One line when A and B measured different skills or case sets, else None."""
    problems = []
    if a.mode and b.mode and a.mode != b.mode:
        problems.append(f"mode (A: {a.mode}; B: {b.mode}: the skill reached the model another way)")
    if a.skill != b.skill:
        problems.append(f"skill (A: {a.skill}; B: {b.skill})")
    if a.case_ids is not None and b.case_ids is not None:
        if a.case_ids != b.case_ids:
            only_a = len(set(a.case_ids) - set(b.case_ids))
            only_b = len(set(b.case_ids) - set(a.case_ids))
            problems.append(
                f"test cases (A: {len(a.case_ids)}, B: {len(b.case_ids)}; "
                f"{only_a} only in A, {only_b} only in B)"
            )
    elif a.case_count != b.case_count:
        problems.append(f"test cases (A: {a.case_count or '?'}, B: {b.case_count or '?'})")
    if not problems:
        return None
    return "the runs differ in " + " and ".join(problems) + "; the deltas compare different things"


def _local(path: Path) -> RunResults | TriggerRunResults:
    from upskill_hub.evaluation.triggers.measure import is_trigger_run
    from upskill_hub.publish.dataset_push import split_name
    from upskill_hub.publish.results_dataset import read_run, run_id_of, summary_rows

    if is_trigger_run(path):
        return _local_triggers(path)
    record = read_run(path)
    rows = summary_rows(record)
    case_ids = tuple(c.id for c in record.cases)
    tables = {
        str(m["model"]): {
            "cases": m["case_table"],
            "counts": m.get("case_counts") or {},
            "pass_all_runs": {
                arm: (m.get(arm) or {}).get("pass_all_runs") for arm in ("baseline", "with_skill")
            },
        }
        for m in (record.summary.models if record.summary else [])
        if "case_table" in m
    }
    return RunResults(
        str(path),
        split_name(run_id_of(record)),
        rows,
        case_ids,
        tables if tables else None,
        mode="agent" if record.info.mode == "agent" else "inline",
    )


def _local_triggers(path: Path) -> TriggerRunResults:
    from upskill_hub.evaluation.triggers.measure import TRIGGER_SUMMARY_FILE
    from upskill_hub.publish.dataset_push import read_run_json, split_name

    summary = read_run_json(path / TRIGGER_SUMMARY_FILE)
    info = read_run_json(path / "run.json") if (path / "run.json").is_file() else {}
    return TriggerRunResults(str(path), split_name(str(info.get("run_id") or path.name)), summary)


def _hub(repo: str, split: str | None, *, evals_only: bool) -> RunResults | TriggerRunResults:
    from upskill_hub.publish.dataset_push import dataset_repo_id
    from upskill_hub.publish.results_dataset import SUMMARY_CONFIG
    from upskill_hub.publish.trigger_results import TRIGGERS_CONFIG

    repo_id = dataset_repo_id(repo)
    evals = _load_splits(repo_id, SUMMARY_CONFIG)
    if evals and split is None and evals_only:
        split = _latest(evals)
    if evals and split in evals:
        return RunResults(repo_id, split, evals[split])
    triggers = _load_splits(repo_id, TRIGGERS_CONFIG)
    if evals is None and triggers is None:
        raise UsageError(
            f"{repo_id}: not a results dataset (no '{SUMMARY_CONFIG}' or '{TRIGGERS_CONFIG}' "
            "config)"
        )
    runs = {**(triggers or {}), **(evals or {})}
    if not runs:
        raise UsageError(f"{repo_id}: the dataset holds no runs")
    if split is None:
        split = _latest(runs)
    elif split not in runs:
        raise UsageError(f"{repo_id}: no split {split!r} (runs: {', '.join(runs)})")
    if evals and split in evals:
        return RunResults(repo_id, split, evals[split])
    return TriggerRunResults(repo_id, split, trigger_summary_of(runs[split], repo_id, split))


def trigger_summary_of(rows: list[dict[str, Any]], source: str, split: str) -> dict[str, Any]:
    """A published ``triggers`` split as ``trigger_summary.json``'s shape, every rate
    recomputed from the per-query counts
    (:func:`~upskill_hub.evaluation.triggers.rates.stats_from_counts`)."""
    from upskill_hub.evaluation.triggers.queries import TriggerQuery
    from upskill_hub.evaluation.triggers.rates import stats_from_counts

    by_model: dict[str, list[tuple[TriggerQuery, int, int, int]]] = {}
    for row in rows:
        query = TriggerQuery(
            str(row["query_id"]), str(row["query"]), bool(row["should_trigger"]), row.get("split")
        )
        counts = (query, int(row["runs"]), int(row["triggered"]), int(row["errors"]))
        by_model.setdefault(str(row["model"]), []).append(counts)
    first = rows[0] if rows else {}
    return {
        "source": source,
        "split": split,
        "skill": first.get("skill_name"),
        "distractors": list(first.get("distractors") or []),
        "models": [stats_from_counts(m, counts).to_dict() for m, counts in by_model.items()],
        "errors": sum(int(r["errors"]) for r in rows),
    }


def _load_splits(repo_id: str, config: str) -> dict[str, list[dict[str, Any]]] | None:
    """Every split of ``config`` as rows (None when the dataset has no such config); Hub
    failures become typed one-line errors."""
    from datasets import load_dataset
    from datasets.exceptions import DatasetNotFoundError

    from upskill_hub.datasets_quiet import quiet_datasets
    from upskill_hub.hub.client import Hub

    hub = Hub()
    try:
        with quiet_datasets():
            loaded = load_dataset(repo_id, config)
    except DatasetNotFoundError as exc:
        message = f"{repo_id}: no such dataset on {hub.endpoint} (private ones need HF_TOKEN)"
        raise RepoNotFoundError(message) from exc
    except ConnectionError as exc:
        raise HubError(
            f"{repo_id}: cannot reach the Hub at {hub.endpoint}; check the network or HF_ENDPOINT"
        ) from exc
    except ValueError as exc:
        if "config" in str(exc).lower():
            return None
        raise
    except Exception as exc:
        mapped = hub.map_error(exc, repo_id=repo_id, action="load the summary")
        if mapped is None:
            raise
        raise mapped from exc
    return {name: ds.to_list() for name, ds in loaded.items()}


def _latest(runs: dict[str, list[dict[str, Any]]]) -> str:
    """The split of the run that started last (the later one of a tie)."""
    return max(runs, key=lambda s: (_started(runs[s]), list(runs).index(s)))


def _started(rows: list[dict[str, Any]]) -> str:
    return max((str(r.get("started_at") or "") for r in rows), default="")
