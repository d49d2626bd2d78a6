"""Publish a trigger eval's run folder to a results dataset: the ``triggers`` config, one row
per model and query (``schemas/trigger_query.schema.json``), split ``run_<run id>`` as for
eval runs. Reads what the trigger eval wrote; never re-runs anything. The dataset card gets the
run's section (recall and false triggers per model and set, method, reproduce step) beside the
eval runs' sections, and the queries file is uploaded as ``tests/<split>.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from upskill_hub.errors import UsageError
from upskill_hub.publish.dataset_push import (
    PushedResults,
    check_rows,
    dataset_repo_id,
    push_config_rows,
    read_run_json,
    refuse_links,
    split_name,
    write_card,
)
from upskill_hub.publish.run_consistency import refuse_inconsistent_triggers
from upskill_hub.secrets import Redactor

__all__ = ["TRIGGERS_CONFIG", "push_trigger_results", "trigger_rows"]

TRIGGERS_CONFIG = "triggers"
TRIGGER_SCHEMA = "trigger_query"


def trigger_rows(run_dir: Path, redactor: Redactor | None = None) -> list[dict[str, Any]]:
    """One row per model and query of a trigger run folder, secrets scrubbed."""
    from upskill_hub.evaluation.triggers.measure import TRIGGER_SUMMARY_FILE

    redactor = redactor or Redactor()
    info = read_run_json(Path(run_dir) / "run.json")
    summary = read_run_json(Path(run_dir) / TRIGGER_SUMMARY_FILE)
    rows = []
    for model in summary.get("models") or []:
        sets = {s["set"]: s for s in model.get("sets") or []}
        for q in model.get("queries") or []:
            own = sets.get(q.get("split") or "all") or sets.get("all") or {}
            ci = q.get("ci95") or [None, None]
            row = {
                "run_id": str(info.get("run_id") or Path(run_dir).name),
                "skill_name": str(summary.get("skill") or "skill"),
                "model": str(model["model"]),
                "query_id": str(q["id"]),
                "query": str(q["query"]),
                "should_trigger": bool(q["should_trigger"]),
                "split": q.get("split"),
                "runs": int(q.get("runs", 0)),
                "triggered": int(q.get("triggered", 0)),
                "errors": int(q.get("errors", 0)),
                "trigger_rate": q.get("trigger_rate"),
                "ci_low": ci[0],
                "ci_high": ci[1],
                "passed": q.get("passed"),
                "set_recall": own.get("recall"),
                "set_false_trigger_rate": own.get("false_trigger_rate"),
                "distractors": [str(d) for d in summary.get("distractors") or []],
                "tool_version": str((info.get("tool") or {}).get("version") or ""),
                "started_at": info.get("started_at"),
            }
            rows.append(redactor.scrub(row))
    return rows


def push_trigger_results(
    run_dir: Path, repo_id: str, *, private: bool = False, token: str | None = None
) -> PushedResults:
    """Push the ``triggers`` config's split of ``run_dir``; returns :class:`PushedResults`."""
    from upskill_hub.hub.client import Hub

    repo_id = dataset_repo_id(repo_id)
    path = Path(run_dir)
    refuse_links(path)
    refuse_inconsistent_triggers(path)
    rows = trigger_rows(path, Redactor([token]))
    if not rows:
        raise UsageError(f"{path}: no trigger results to publish")
    check_rows(rows, TRIGGER_SCHEMA, path)
    split = split_name(rows[0]["run_id"])
    hub = Hub(token=token)
    hub.create_repo(repo_id, repo_type="dataset", private=private)
    push_config_rows(hub, repo_id, TRIGGERS_CONFIG, TRIGGER_SCHEMA, rows, split, token)
    commit = _write_trigger_card(hub, path, repo_id, split, Redactor([token]))
    return PushedResults(repo_id, hub.repo_url(repo_id, "dataset"), commit, split)


def _write_trigger_card(
    hub: Any, run_dir: Path, repo_id: str, split: str, redactor: Redactor
) -> str:
    """The dataset card with this trigger run's section (a dataset of trigger runs alone gets
    its license, tags and header too), and the queries (``tests/<split>.json``) its reproduce
    step downloads."""
    from upskill_hub.evaluation.run.records import RunInfo
    from upskill_hub.evaluation.triggers.measure import QUERIES_JSON, TRIGGER_SUMMARY_FILE
    from upskill_hub.publish.dataset_card import card_with_section, tests_path, trigger_run_section

    info = RunInfo.from_dict(read_run_json(run_dir / "run.json"))
    summary = read_run_json(run_dir / TRIGGER_SUMMARY_FILE)
    queries_file = run_dir / QUERIES_JSON
    queries = read_run_json(queries_file) if queries_file.is_file() else []
    section = trigger_run_section(summary, info, split=split, queries=len(queries), repo_id=repo_id)
    files = {}
    if queries_file.is_file():
        files[tests_path(split)] = redactor(queries_file.read_text("utf-8")).encode("utf-8")
    return write_card(
        hub,
        repo_id,
        lambda existing: card_with_section(
            existing, info, repo_id=repo_id, split=split, section=section
        ),
        files,
        split,
        redactor,
    )
