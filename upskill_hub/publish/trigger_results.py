"""Publish a trigger eval's run folder to a results dataset: the ``triggers`` config, one row
per model and query (``schemas/trigger_query.schema.json``), split ``run_<run id>`` as for
eval runs. Reads what the trigger eval wrote; never re-runs anything. The dataset card is
left as ``datasets`` writes it (its config list): the eval runs' card is not rewritten."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from upskill_hub.errors import UsageError
from upskill_hub.secrets import Redactor

__all__ = ["TRIGGERS_CONFIG", "push_trigger_results", "trigger_rows"]

TRIGGERS_CONFIG = "triggers"
TRIGGER_SCHEMA = "trigger_query"


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: unreadable ({type(exc).__name__})") from None


def trigger_rows(run_dir: Path, redactor: Redactor | None = None) -> list[dict[str, Any]]:
    """One row per model and query of a trigger run folder, secrets scrubbed."""
    from upskill_hub.evaluation.triggers import TRIGGER_SUMMARY_FILE

    redactor = redactor or Redactor()
    info = _read(Path(run_dir) / "run.json")
    summary = _read(Path(run_dir) / TRIGGER_SUMMARY_FILE)
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
) -> Any:
    """Push the ``triggers`` config's split of ``run_dir``; returns :class:`PushedResults`."""
    from upskill_hub.publish.results_dataset import (
        PushedResults,
        _refuse_links,
        check_rows,
        dataset_repo_id,
        push_config_rows,
        split_name,
    )
    from upskill_hub.registry.hub import Hub

    repo_id = dataset_repo_id(repo_id)
    path = Path(run_dir)
    _refuse_links(path)
    rows = trigger_rows(path, Redactor([token]))
    if not rows:
        raise UsageError(f"{path}: no trigger results to publish")
    check_rows(rows, TRIGGER_SCHEMA, path)
    split = split_name(rows[0]["run_id"])
    hub = Hub(token=token)
    hub.create_repo(repo_id, repo_type="dataset", private=private)
    commit = push_config_rows(hub, repo_id, TRIGGERS_CONFIG, TRIGGER_SCHEMA, rows, split, token)
    return PushedResults(repo_id, hub.repo_url(repo_id, "dataset"), commit, split)
