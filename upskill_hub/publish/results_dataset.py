"""Publish a run folder as a Hub dataset: ``samples`` and ``summary`` configs, a split per run.

:func:`push_results` reads what the eval wrote (never re-runs anything), turns it into rows
(``schemas/results_sample.schema.json``, ``schemas/summary.schema.json``; the dataset's
features are derived from those schemas so every run has the same columns), pushes both
configs with ``datasets`` under the split ``run_<run id>`` (a second run adds a split; pushing
the same run again replaces only its own split), then rewrites the dataset card and uploads
the chart and the run's test cases (``tests/<split>.json``, what the card's reproduce step
downloads) in one commit, and optionally updates the skill repo's card. Every string is
scrubbed of secrets before it leaves the machine. ``datasets`` is imported only when pushing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from upskill_hub.datasets_quiet import quiet_datasets
from upskill_hub.errors import Param, UsageError
from upskill_hub.evaluation.run.folder import SAMPLES_FILE, RunRecord, load_run
from upskill_hub.evaluation.run.records import RunSummary
from upskill_hub.publish.dataset_push import (
    PushedResults,
    check_rows,
    dataset_repo_id,
    push_config_rows,
    refuse_links,
    split_name,
    write_card,
)
from upskill_hub.publish.summary_text import model_rows
from upskill_hub.publish.trigger_results import push_trigger_results
from upskill_hub.publish.verify import refuse_unverified
from upskill_hub.registry.trust.keys import public_key_of
from upskill_hub.registry.trust.signing import SigningKey
from upskill_hub.secrets import Redactor

if TYPE_CHECKING:
    from upskill_hub.hub.client import Hub

SAMPLES_CONFIG = "samples"
SUMMARY_CONFIG = "summary"
SAMPLE_SCHEMA = "results_sample"
SUMMARY_SCHEMA = "summary"


def read_run(run_dir: Path) -> RunRecord:
    """The run folder read back, refusing folders that hold nothing publishable."""
    path = Path(run_dir)
    if not path.is_dir():
        raise UsageError(f"{path}: no such run folder")
    if not (path / SAMPLES_FILE).is_file():  # before walking it: /tmp is no run folder
        raise UsageError(f"{path}: no samples.jsonl (not a run folder, or nothing ran yet)")
    refuse_links(path)
    record = load_run(path)
    if not record.samples:
        raise UsageError(f"{record.folder.samples_file}: no samples to publish")
    if record.summary is None:
        hint = record.info.resume or "upskill-hub eval ... --resume RUN_DIR"
        raise UsageError(f"{path}: no summary.json; finish the run first ({hint})")
    return record


def run_id_of(record: RunRecord) -> str:
    return record.info.run_id or record.folder.path.name


def _skill_fields(record: RunRecord) -> dict[str, Any]:
    skill = record.info.skill
    summary_skill = record.summary.skill if record.summary else ""
    return {
        "skill_name": skill.name or summary_skill or "skill",
        "skill_repo": skill.repo_id,
        "skill_commit": skill.revision,
    }


def _tool_version(record: RunRecord) -> str:
    return record.info.tool_version or ""


def sample_rows(record: RunRecord, redactor: Redactor | None = None) -> list[dict[str, Any]]:
    """One ``samples`` row per sample (schema ``results_sample``), secrets scrubbed
    (``redactor`` default: the environment's secrets and key shapes)."""
    redactor = redactor or Redactor()
    inputs = {case.id: case.input for case in record.cases}
    skill = _skill_fields(record)
    run_id, version = run_id_of(record), _tool_version(record)
    rows = []
    for s in record.samples:
        row = {
            "run_id": run_id,
            "model": s.model,
            "case_id": s.case_id,
            "input": inputs.get(s.case_id, ""),
            "arm": s.arm,
            "run": s.run,
            "output": s.output,
            "assertions": [a.to_dict() for a in s.assertions],
            "passed": s.outcome == "pass",
            "outcome": s.outcome,
            "error": s.error,
            "input_tokens": s.input_tokens,
            "output_tokens": s.output_tokens,
            "cached_input_tokens": s.cached_input_tokens,
            "cache_write_tokens": s.cache_write_tokens,
            "latency_s": float(s.latency_s),
            "attempts": s.attempts,
            **skill,
            "prompt_hash": s.prompt_hash,
            "tool_version": version,
            "finished_at": s.finished_at,
            "mode": "agent" if record.info.mode == "agent" else "inline",
            "turns": s.turns,
            "tool_calls": [t.to_dict() for t in s.tool_calls],
        }
        rows.append(redactor.scrub(row))
    return rows


def summary_rows(record: RunRecord, redactor: Redactor | None = None) -> list[dict[str, Any]]:
    """One ``summary`` row per model and arm (schema ``summary``), from summary.json, secrets
    scrubbed as in :func:`sample_rows`."""
    redactor = redactor or Redactor()
    summary = record.summary or RunSummary()
    base = {"run_id": run_id_of(record), **_skill_fields(record)}
    run = {
        "complete": summary.complete,
        "started_at": record.info.started_at,
        "finished_at": record.info.finished_at,
        "tool_version": _tool_version(record),
        "stats_version": summary.stats_version,
    }
    return [redactor.scrub(row) for model in summary.models for row in model_rows(model, base, run)]


def _push_split(
    hub: Hub,
    repo_id: str,
    config: str,
    rows: list[dict[str, Any]],
    split: str,
    token: str | None,
) -> str:
    """Push one config's split with ``datasets``; ``token`` None lets it read HF_TOKEN/login."""
    return push_config_rows(hub, repo_id, config, config_schema(config), rows, split, token)


def config_schema(config: str) -> str:
    return {SAMPLES_CONFIG: SAMPLE_SCHEMA, SUMMARY_CONFIG: SUMMARY_SCHEMA}[config]


def _run_card_files(
    record: RunRecord, split: str, redactor: Redactor
) -> tuple[str | None, dict[str, bytes]]:
    """An eval run's chart path in the dataset (None without one) and the files to upload
    beside its card: the chart and the run's test cases."""
    from upskill_hub.publish.dataset_card import tests_path

    files: dict[str, bytes] = {}
    chart = record.folder.chart_file
    chart_path = f"charts/{split}.png" if chart.is_file() else None
    if chart_path:
        files[chart_path] = chart.read_bytes()
    tests = record.folder.tests_file
    if tests.is_file():
        files[tests_path(split)] = redactor(tests.read_text("utf-8")).encode("utf-8")
    return chart_path, files


def push_results(
    run_dir: Path,
    repo_id: str,
    *,
    private: bool = False,
    update_skill_card: bool = False,
    skill_repo: str | None = None,
    create_pr: bool = False,
    token: str | None = None,
    sign: Path | SigningKey | None = None,
    replicates: tuple[str, str] | None = None,
    case_agreement: float | None = None,
    case_agreement_needed: float | None = None,
    original_model: str | None = None,
) -> PushedResults:
    """Publish ``run_dir`` to the dataset ``repo_id`` as a new split; see the module docstring.

    ``update_skill_card`` also rewrites the ``## Results`` section of the skill's model repo
    card (``skill_repo``, else the repo recorded in run.json), directly or, with ``create_pr``,
    as a pull request. Everything is checked before the first upload. ``token`` (e.g. a Space
    visitor's OAuth token) is used for every Hub call instead of HF_TOKEN / the saved login;
    it is passed to huggingface_hub and ``datasets`` only, and redacted like any secret.
    ``sign`` (a private key) signs the split as published, rows, tests and a statement binding
    dataset, split, skill commit and run id (:mod:`upskill_hub.publish.results_signing`).

    ``replicates`` (dataset, split) publishes the run as a replication of that run: the
    dataset card's metadata says so (``upskill_hub.runs.<split>.replicates``) and, with
    ``update_skill_card``, the skill card's ``upskill_hub.replications`` lists it (with
    ``case_agreement``, ``case_agreement_needed`` and the ``original_model`` compared)
    instead of the run becoming its results.
    """
    from upskill_hub.evaluation.triggers.measure import is_trigger_run
    from upskill_hub.hub.client import Hub
    from upskill_hub.publish.skill_card import results_markdown, skill_card_repo, update_results
    from upskill_hub.registry.evidence.index import published_run

    if is_trigger_run(run_dir):  # a trigger eval: its own config
        if sign is not None:
            raise UsageError(
                f"{run_dir}: a trigger eval is not signed; ", Param("sign"), " applies to eval runs"
            )
        if update_skill_card or skill_repo or create_pr:
            raise UsageError(f"{run_dir}: a trigger eval updates no skill card; push it alone")
        with quiet_datasets():
            pushed: PushedResults = push_trigger_results(
                run_dir, repo_id, private=private, token=token
            )
        return pushed
    repo_id = dataset_repo_id(repo_id)
    record = read_run(run_dir)
    target = None
    if update_skill_card:
        target = skill_card_repo(record.info, skill_repo)
    elif skill_repo or create_pr:
        raise UsageError(
            Param("skill_repo"),
            " and ",
            Param("create_pr"),
            " apply only with ",
            Param("update_skill_card"),
        )
    refuse_unverified(record)  # an edited summary, answer or test file never reaches the dataset
    redactor = Redactor([token])
    split = split_name(run_id_of(record))
    samples = sample_rows(record, redactor)
    summary = summary_rows(record, redactor)
    check_rows(samples, SAMPLE_SCHEMA, record.folder.samples_file)
    check_rows(summary, SUMMARY_SCHEMA, record.folder.summary_file)
    if not summary:
        raise UsageError(f"{record.folder.summary_file}: no model results to publish")
    if sign is not None:  # an unreadable key stops the push before the first upload
        public_key_of(sign.private_key if isinstance(sign, SigningKey) else Path(sign))

    hub = Hub(token=token)
    hub.create_repo(repo_id, repo_type="dataset", private=private)
    with quiet_datasets():
        _push_split(hub, repo_id, SAMPLES_CONFIG, samples, split, token)
        _push_split(hub, repo_id, SUMMARY_CONFIG, summary, split, token)
    from upskill_hub.publish.dataset_card import build_dataset_card, with_replicates

    chart_path, files = _run_card_files(record, split, redactor)

    def card(existing: str | None) -> str:
        text = build_dataset_card(
            existing, record, repo_id=repo_id, split=split, rows=summary, chart_path=chart_path
        )
        return text if replicates is None else with_replicates(text, split, replicates)

    commit = write_card(hub, repo_id, card, files, split, redactor)
    signed_by = None
    if sign is not None:
        from upskill_hub.publish.results_signing import sign_results

        signed = sign_results(hub, repo_id, split, sign, revision=commit)
        commit, signed_by = signed.commit, signed.signer
    url = hub.repo_url(repo_id, "dataset")
    card_commit = card_pr = None
    if target is not None and replicates is not None:
        from upskill_hub.publish.skill_card import add_replication
        from upskill_hub.registry.evidence.index import ReplicationEntry

        entry = ReplicationEntry(
            dataset=repo_id,
            split=split,
            of_dataset=replicates[0],
            of_split=replicates[1],
            model=str(summary[0]["model"]),
            case_agreement=case_agreement,
            of_model=original_model,
            case_agreement_needed=case_agreement_needed,
        )
        card_commit, card_pr = add_replication(hub, target, entry, create_pr=create_pr)
    elif target is not None:
        markdown = results_markdown(
            summary, record.info, dataset_repo=repo_id, dataset_url=url, split=split
        )
        run = published_run(summary, record.info.to_dict(), dataset=repo_id, split=split)
        card_commit, card_pr = update_results(
            hub, target, redactor(markdown), create_pr=create_pr, run=run
        )
    return PushedResults(repo_id, url, commit, split, card_commit, card_pr, signed_by)
