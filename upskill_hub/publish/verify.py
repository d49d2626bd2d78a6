"""Check a run's figures without trusting whoever published them: recompute, then re-grade.

Two checks, on a run folder (:func:`verify_run_dir`), on rows already read
(:func:`verify_rows`) or on a split of a results dataset (:func:`verify_published`):

* **Recomputed.** Every summary figure (per model and arm: passed, total, errors, pass rate and
  its interval, tokens, latency; per model: runs, cases, lift, the interval published with the
  verdict, Holm-adjusted when several models were measured, token savings, verdict) is computed
  again from the samples with the statistics eval uses
  (:func:`upskill_hub.evaluation.stats.summarize.summarize`) and compared. A run folder's whole
  summary.json is compared (:mod:`.run_consistency`); published rows are compared on every
  column both the published row and the recomputed one have, so a summary written before a
  column existed still checks. Published samples do not say which errors were prompt
  rejections (summary.json counts those apart), so a published ``errors`` may be lower than
  the errored samples, never higher.
* **Re-graded.** Every sample's answer is graded again against the run's test cases (the run
  folder's ``tests.json``; a dataset's ``tests/<split>.json``, which for a skill on the Hub
  must be the skill's own test cases at the measured commit) by the same assertion code eval
  uses, under the same time and memory limits: ``contains``, ``contains_any``,
  ``not_contains``, ``regex``, ``json``, ``yaml``, ``toml`` and ``max_tokens`` (against the
  sample's recorded token count). Each check's status and reason, and the sample's outcome,
  must be the ones recorded. ``judge`` checks are never re-run (the recorded verdict is kept);
  ``compiles`` checks only with ``compile=True``, in the compile sandbox
  (:mod:`upskill_hub.evaluation.assertions.sandbox`): published answers are untrusted code.
  A sample with a check that was not re-run counts as ``not_regradable``.

Levels, per model: ``inconsistent`` when anything disagrees; ``verified`` when the summary
follows from the samples, at least one sample was re-graded, every re-graded one agrees and none
was left un-re-graded; ``reported`` otherwise (no tests to grade against, a judge-graded or
compile-graded sample, tests that could not be compared with the skill's). A run's ``status`` is
its worst model's. None of this says which model produced the answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from upskill_hub.errors import HubError, UsageError, VerificationUndeterminedError
from upskill_hub.evaluation.types import Sample
from upskill_hub.skill.testcases import TestCase, TestSuite

if TYPE_CHECKING:
    from upskill_hub.evaluation.run.folder import RunRecord
    from upskill_hub.hub.client import Hub

__all__ = [
    "DETERMINISTIC_KINDS",
    "Level",
    "ModelVerification",
    "RunVerification",
    "refuse_unverified",
    "verify_dataset",
    "verify_published",
    "verify_rows",
    "verify_run_dir",
]

Level = Literal["verified", "reported", "inconsistent"]
_RANK: dict[str, int] = {"verified": 0, "reported": 1, "inconsistent": 2}

#: Assertion kinds re-graded from the answer alone (``max_tokens`` uses the recorded count).
DETERMINISTIC_KINDS = frozenset(
    {"contains", "contains_any", "not_contains", "regex", "json", "yaml", "toml", "max_tokens"}
)
#: Problems kept per model (the count of the rest is said).
SHOWN = 10
#: Samples re-graded at once.
_CONCURRENCY = 32
#: Summary row columns that are not figures (who, what, when).
_ROW_META = frozenset(
    {
        "run_id",
        "skill_name",
        "skill_repo",
        "skill_commit",
        "model",
        "arm",
        "complete",
        "started_at",
        "finished_at",
        "tool_version",
        "stats_version",
    }
)


@dataclass(frozen=True)
class ModelVerification:
    """How far one model's figures in one run were checked."""

    model: str
    verification: Level
    regraded: int  # samples whose every check was graded again
    agreed: int  # of those, the same statuses, reasons and outcome
    not_regradable: int  # samples with a judge check (or compiles without compile=True)
    problems: list[str]  # the first disagreements, one line each
    problem_count: int = 0  # all of them

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "verification": self.verification,
            "regraded": self.regraded,
            "agreed": self.agreed,
            "not_regradable": self.not_regradable,
            "problems": list(self.problems),
            "problem_count": self.problem_count,
        }


@dataclass(frozen=True)
class RunVerification:
    """The verification of one run: its worst model's level, each model's, and why."""

    status: Level
    models: list[ModelVerification]
    problems: list[str]  # the first disagreements of the run and its models, one line each
    notes: list[str] = field(default_factory=list)  # why a level is not higher
    source: str = ""  # the run folder, or the dataset NS/NAME
    split: str | None = None
    commit: str | None = None  # the dataset commit checked

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "split": self.split,
            "commit": self.commit,
            "status": self.status,
            "models": [m.to_dict() for m in self.models],
            "problems": list(self.problems),
            "notes": list(self.notes),
        }


@dataclass
class _Tally:
    regraded: int = 0
    agreed: int = 0
    not_regradable: int = 0
    problems: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- entry points


def verify_rows(
    summary_rows: Sequence[Mapping[str, Any]],
    sample_rows: Sequence[Mapping[str, Any]],
    tests: TestSuite | None,
    *,
    compile: bool = False,
) -> RunVerification:
    """Verify one run given as published rows (``schemas/summary.schema.json`` and
    ``schemas/results_sample.schema.json``) and its test cases (None: nothing is re-graded).
    Raises :class:`VerificationUndeterminedError` when there are no samples."""
    if not sample_rows:
        raise VerificationUndeterminedError("no samples to verify the summary against")
    run_problems: list[str] = []
    samples = _samples_of(sample_rows, run_problems)
    recomputed, by_model, unchecked = _rows_problems(summary_rows, samples)
    notes = [] if tests is not None else ["no test cases with the run: nothing re-graded"]
    notes += [
        f"{m}: published without this version's stats_version: its intervals and verdict are "
        "the publisher's"
        for m in sorted(unchecked)
    ]
    return _verify(
        samples,
        run_problems + recomputed,
        by_model,
        None if tests is None else tests.cases,
        compile=compile,
        notes=notes,
        reported=unchecked,
    )


def verify_run_dir(run_dir: Path, *, compile: bool = False) -> RunVerification:
    """Verify a run folder: its whole summary.json recomputed from samples.jsonl, every sample
    re-graded against tests.json (whose cases must be run.json's ``case_ids``)."""
    from upskill_hub.evaluation.run.folder import SAMPLES_FILE, load_run
    from upskill_hub.publish.run_consistency import summary_problems_by_model

    path = Path(run_dir)
    if not path.is_dir():
        raise UsageError(f"{path}: no such run folder")
    if not (path / SAMPLES_FILE).is_file():
        raise VerificationUndeterminedError(f"{path}: no samples.jsonl (not a run folder?)")
    record = load_run(path)
    if not record.samples:
        raise VerificationUndeterminedError(f"{record.folder.samples_file}: no samples")
    run_problems, by_model = summary_problems_by_model(record)
    if record.summary is not None and not run_problems:  # and the rows push would publish
        from upskill_hub.publish.summary_text import model_rows

        run = {"stats_version": record.summary.stats_version}
        rows = [r for m in record.summary.models for r in model_rows(m, {}, run)]
        for model, problems in _rows_problems(rows, record.samples)[1].items():
            by_model.setdefault(model, []).extend(problems)
    listed = [c.id for c in record.cases]
    if record.info.case_ids and listed != list(record.info.case_ids):
        run_problems.insert(
            0,
            f"{record.folder.tests_file}: its cases ({_ids(listed)}) are not the cases run.json "
            f"says were run ({_ids(record.info.case_ids)})",
        )
    result = _verify(record.samples, run_problems, by_model, record.cases, compile=compile)
    return _with_source(result, str(path), None, None)


def verify_published(
    hub: Hub, dataset: str, split: str, *, compile: bool = False
) -> RunVerification:
    """Verify one split (``run_<id>``) of a results dataset, at its current commit: the
    ``summary`` rows recomputed from the ``samples`` rows, the samples re-graded against
    ``tests/<split>.json``, and those cases compared with the skill's own at the measured
    commit (when the run names a skill on the Hub). Raises
    :class:`VerificationUndeterminedError` when the dataset or the split cannot be read or it
    holds no samples."""
    from upskill_hub.publish.dataset_push import dataset_repo_id

    repo_id = dataset_repo_id(dataset)
    commit = _dataset_commit(hub, repo_id)
    summaries = _load_config(repo_id, "summary", commit, split)
    return _verify_split(hub, repo_id, commit, split, summaries.get(split), compile=compile)


def verify_dataset(hub: Hub, dataset: str, *, compile: bool = False) -> list[RunVerification]:
    """:func:`verify_published` of every run split of a results dataset (its trigger runs
    aside), in the order the dataset lists them."""
    from upskill_hub.publish.dataset_push import dataset_repo_id

    repo_id = dataset_repo_id(dataset)
    commit = _dataset_commit(hub, repo_id)
    summaries = _load_config(repo_id, "summary", commit, None)
    if not summaries:
        raise VerificationUndeterminedError(f"{repo_id}: the dataset holds no eval runs")
    return [
        _verify_split(hub, repo_id, commit, split, rows, compile=compile)
        for split, rows in summaries.items()
    ]


def refuse_unverified(record: RunRecord) -> None:
    """What ``results push`` checks before uploading anything: an InconsistentRunError naming
    the first problems when summary.json does not follow from samples.jsonl, or when
    :func:`verify_run_dir` finds a disagreement (``compiles`` checks are not re-run)."""
    from upskill_hub.publish.run_consistency import refuse, refuse_inconsistent

    refuse_inconsistent(record)
    checked = verify_run_dir(record.folder.path)
    if checked.status == "inconsistent":
        total = max(len(checked.problems), sum(m.problem_count for m in checked.models))
        refuse(checked.problems, "the run does not verify (results verify)", total=total)


# --------------------------------------------------------------------------- published runs


def _verify_split(
    hub: Hub,
    repo_id: str,
    commit: str,
    split: str,
    summary: list[dict[str, Any]] | None,
    *,
    compile: bool,
) -> RunVerification:
    if summary is None:
        raise VerificationUndeterminedError(f"{repo_id}: no run split {split!r}")
    samples = _load_config(repo_id, "samples", commit, split).get(split) or []
    if not samples:
        raise VerificationUndeterminedError(f"{repo_id}:{split}: no samples to verify against")
    tests, notes, problems, confirmed = _published_tests(hub, repo_id, commit, split, summary)
    result = verify_rows(summary, samples, tests, compile=compile)
    notes += [n for n in result.notes if n not in notes]
    models = result.models
    if problems:
        models = [_downgrade(m, "inconsistent", problems) for m in models]
    elif not confirmed:
        models = [_downgrade(m, "reported") for m in models]
    result = RunVerification(_worst(models), models, problems + result.problems, notes)
    return _with_source(result, repo_id, split, commit)


def _published_tests(
    hub: Hub, repo_id: str, commit: str, split: str, summary: list[dict[str, Any]]
) -> tuple[TestSuite | None, list[str], list[str], bool]:
    """The run's test cases as published, notes, problems (the published cases are not the
    skill's) and whether they were confirmed as the skill's (or the skill is not on the Hub)."""
    from upskill_hub.publish.dataset_card import tests_path
    from upskill_hub.skill.testcases import read_suite

    where = f"{repo_id}@{commit[:12]}:{tests_path(split)}"
    first = summary[0] if summary else {}
    skill_repo, skill_commit = first.get("skill_repo"), first.get("skill_commit")
    on_hub = bool(skill_repo and skill_commit)
    at = f"{skill_repo}@{str(skill_commit)[:12]}"
    name = first.get("skill_name")
    try:
        path = hub.download_file(repo_id, tests_path(split), commit, "dataset")
        tests = read_suite(path)
    except HubError:
        if on_hub:  # no tests with the run: the skill's own are the ones it was measured on
            own, why = _skill_tests(
                hub, str(skill_repo), str(skill_commit), first.get("skill_name")
            )
            if own is not None:
                return own, [f"{where}: not found; graded against the tests of {at}"], [], True
        return None, [f"{where}: not found; nothing re-graded"], [], True
    except Exception as exc:  # an unreadable test file is the publisher's problem
        return None, [], [f"{where}: unreadable ({_first_line(exc)})"], True
    if not on_hub:
        note = "the skill is not on the Hub: the answers were graded against the run's own tests"
        return tests, [note], [], True
    own, why = _skill_tests(hub, str(skill_repo), str(skill_commit), name)
    if own is None:
        return tests, [f"the tests of {at} could not be read ({why})"], [], False
    mismatch = _cases_mismatch(tests.cases, own.cases)
    if mismatch:
        return tests, [], [f"{where}: not the test cases of {at}: {mismatch}"], True
    return tests, [], [], True


def _skill_tests(hub: Hub, repo: str, commit: str, name: Any) -> tuple[TestSuite | None, str]:
    """The test cases of the skill ``name`` in ``repo`` at ``commit`` (None and why not)."""
    from upskill_hub.registry.fetch import inspect_repo
    from upskill_hub.skill.model import load_skill

    try:
        remote = inspect_repo(f"{repo}@{commit}", hub=hub)
        skills = [s for s in remote.skills if s.name == name] or (
            list(remote.skills) if len(remote.skills) == 1 else []
        )
        if not skills:
            return None, f"no skill named {name!r} in the repository"
        skill = skills[0]
        snapshot = hub.download(repo, remote.commit, [skill.repo_path(f.path) for f in skill.files])
        suite = load_skill(snapshot / skill.subpath if skill.subpath else snapshot).suite
    except Exception as exc:  # unreachable, deleted, not a skill: the tests are unconfirmed
        return None, _first_line(exc)
    if suite is None:
        return None, "the skill has no test file"
    return suite, ""


def _cases_mismatch(ours: Sequence[TestCase], theirs: Sequence[TestCase]) -> str | None:
    mine = {c.id: c.to_dict() for c in ours}
    own = {c.id: c.to_dict() for c in theirs}
    missing = [i for i in own if i not in mine]
    extra = [i for i in mine if i not in own]
    changed = [i for i in mine if i in own and mine[i] != own[i]]
    parts = []
    if changed:
        parts.append(f"case(s) {_ids(changed)} differ")
    if extra:
        parts.append(f"case(s) {_ids(extra)} are not the skill's")
    if missing:
        parts.append(f"the skill's case(s) {_ids(missing)} are left out")
    return "; ".join(parts) or None


def _dataset_commit(hub: Hub, repo_id: str) -> str:
    try:
        commit = hub.head(repo_id, "dataset")
    except HubError as exc:
        raise VerificationUndeterminedError(f"cannot verify {repo_id}: {exc}") from None
    if commit is None:
        raise VerificationUndeterminedError(f"{repo_id}: the Hub returned no commit")
    return commit


def _load_config(
    repo_id: str, config: str, commit: str, split: str | None
) -> dict[str, list[dict[str, Any]]]:
    from upskill_hub.publish.dataset_push import load_splits

    try:
        loaded = load_splits(repo_id, config, revision=commit, split=split)
    except HubError as exc:
        raise VerificationUndeterminedError(f"cannot verify {repo_id}: {exc}") from None
    if loaded is None:
        raise VerificationUndeterminedError(f"{repo_id}: no {config!r} config (not results)")
    return loaded


# --------------------------------------------------------------------------- recomputing


def _samples_of(rows: Sequence[Mapping[str, Any]], problems: list[str]) -> list[Sample]:
    """Published sample rows as samples; a row whose ``passed`` is not its outcome, a row that
    cannot be read and a sample published twice are problems."""
    samples: list[Sample] = []
    seen: set[tuple[str, str, int, str]] = set()
    for number, row in enumerate(rows, 1):
        try:
            sample = Sample.from_dict(dict(row))
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(f"samples row {number}: unreadable ({type(exc).__name__})")
            continue
        label = _label(sample)
        if "passed" in row and bool(row["passed"]) != (sample.outcome == "pass"):
            problems.append(f"{label}: passed is {row['passed']} but outcome is {sample.outcome}")
        if sample.key in seen:
            problems.append(f"{label}: published twice")
            continue
        seen.add(sample.key)
        samples.append(sample)
    return samples


#: Summary columns computed from tokens and the prices in the run's run.json, which published
#: rows do not carry: a published run's costs are the publisher's word (its tokens are checked).
_PRICED_COLUMNS = frozenset(
    {
        "cost_usd",
        "cost_per_sample",
        "cost_per_passed",
        "cost_per_passed_ci_low",
        "cost_per_passed_ci_high",
        "cost_ratio",
    }
)

#: Summary columns runs published before costs and prompt caching lack (null in their rows).
_LATER_COLUMNS = _PRICED_COLUMNS | {
    "cached_input_tokens",
    "cache_write_tokens",
    "token_ratio_input",
    "token_ratio_output",
}


#: Summary columns whose value depends on the statistics version (interval methods, the
#: verdict's rules): compared only in rows of this version.
_METHOD_COLUMNS = frozenset({"ci_low", "ci_high", "lift_ci_low", "lift_ci_high", "verdict"})


def _rows_problems(
    summary_rows: Sequence[Mapping[str, Any]], samples: Sequence[Sample]
) -> tuple[list[str], dict[str, list[str]], set[str]]:
    """Published summary rows against the rows the samples give (the same function builds
    both, :func:`~upskill_hub.publish.summary_text.model_rows`), and the models whose
    intervals and verdict were left unchecked: rows of another (or an unrecorded)
    ``stats_version`` hold another version's intervals, compared by nobody."""
    from upskill_hub.evaluation.stats.summarize import STATS_VERSION, summarize
    from upskill_hub.publish.run_consistency import same_figure, shown_value
    from upskill_hub.publish.summary_text import model_rows

    ours: dict[tuple[str, str], dict[str, Any]] = {}
    for stats in summarize(samples):
        for row in model_rows(stats.to_dict(), {}, {}):
            ours[(row["model"], row["arm"])] = row
    claimed: dict[tuple[str, str], Mapping[str, Any]] = {}
    run: list[str] = []
    for entry in summary_rows:
        key = (str(entry.get("model")), str(entry.get("arm")))
        if key in claimed:
            run.append(f"summary: {key[0]} {key[1]} published twice")
        claimed[key] = entry
    per_model: dict[str, list[str]] = {m: [] for m, _ in ours}
    unchecked: set[str] = set()
    for key in sorted(set(claimed) - set(ours)):
        run.append(f"summary: {key[0]} {key[1]} has no samples")
    for key in sorted(set(ours) - set(claimed)):
        per_model[key[0]].append(f"summary: {key[0]} {key[1]}: samples but no summary row")
    for key in sorted(set(ours) & set(claimed)):
        mine, theirs = ours[key], claimed[key]
        current = theirs.get("stats_version") == STATS_VERSION
        if not current:
            unchecked.add(key[0])
        for column in mine:
            if column in _ROW_META or column not in theirs:
                continue
            if column in _METHOD_COLUMNS and not current:
                continue  # another version's intervals: not this version's to recompute
            if column in _PRICED_COLUMNS and mine[column] is None:
                continue  # the prices a run used are in its run.json, not in its rows
            if column in _LATER_COLUMNS and theirs[column] is None:
                continue  # published before the column existed
            said, given = theirs[column], mine[column]
            if column == "errors" and isinstance(said, int) and isinstance(given, int):
                if 0 <= said <= given:  # prompt rejections are errored samples, counted apart
                    continue
            elif same_figure(said, given):
                continue
            per_model[key[0]].append(
                f"summary: {key[0]} {key[1]}: {column} says {shown_value(said)}, "
                f"the samples give {shown_value(given)}"
            )
    return run, per_model, unchecked


# --------------------------------------------------------------------------- re-grading


def _verify(
    samples: Sequence[Sample],
    run_problems: list[str],
    by_model: Mapping[str, list[str]],
    cases: Sequence[TestCase] | None,
    *,
    compile: bool,
    notes: Iterable[str] = (),
    reported: Collection[str] = (),
) -> RunVerification:
    """The levels: ``reported`` models (figures left to the publisher's word) are at most
    ``reported``."""
    tallies: dict[str, _Tally] = {}
    for sample in samples:
        tallies.setdefault(sample.model, _Tally())
    for model, problems in by_model.items():
        tallies.setdefault(model, _Tally()).problems.extend(problems)
    if cases is not None:
        _run(_regrade_all(samples, {c.id: c for c in cases}, tallies, compile))
    models = []
    for model, tally in tallies.items():
        if tally.problems or run_problems:
            level: Level = "inconsistent"
        elif cases is None or tally.regraded == 0 or tally.not_regradable or model in reported:
            level = "reported"
        else:
            level = "verified"
        models.append(
            ModelVerification(
                model,
                level,
                tally.regraded,
                tally.agreed,
                tally.not_regradable,
                tally.problems[:SHOWN],
                len(tally.problems),
            )
        )
    problems = run_problems[:SHOWN] + [p for m in models for p in m.problems]
    notes = list(notes)
    for m in models:
        if m.not_regradable:
            notes.append(
                f"{m.model}: {m.not_regradable} sample(s) graded by a judge or a compiler: "
                "their outcome is the publisher's"
            )
    status = _worst(models) if models else "inconsistent" if run_problems else "reported"
    return RunVerification(status, models, problems, notes)


async def _regrade_all(
    samples: Sequence[Sample],
    cases: Mapping[str, TestCase],
    tallies: dict[str, _Tally],
    compile: bool,
) -> None:
    from upskill_hub.secrets import Redactor

    redactor = Redactor(environ={})  # key shapes only: what every machine redacts alike
    gate = asyncio.Semaphore(_CONCURRENCY)

    async def one(sample: Sample) -> None:
        async with gate:
            await _regrade(sample, cases, tallies[sample.model], compile, redactor)

    await asyncio.gather(*(one(s) for s in samples if s.outcome != "error"))


async def _regrade(
    sample: Sample,
    cases: Mapping[str, TestCase],
    tally: _Tally,
    compile: bool,
    redact: Any,
) -> None:
    from upskill_hub.evaluation.assertions import CheckContext, check_all, outcome_of

    label = _label(sample)
    case = cases.get(sample.case_id)
    if case is None:
        tally.regraded += 1
        tally.problems.append(f"{label}: case {sample.case_id!r} is not in the run's tests")
        return
    specs = list(case.assertions)
    kinds = [str(spec.get("type")) for spec in specs]
    recorded = list(sample.assertions)
    if kinds != [r.type for r in recorded]:
        tally.regraded += 1
        tally.problems.append(
            f"{label}: graded with checks {[r.type for r in recorded]} but the tests give {kinds}"
        )
        return
    chosen = [
        i
        for i, kind in enumerate(kinds)
        if kind in DETERMINISTIC_KINDS or (compile and kind == "compiles")
    ]
    ctx = CheckContext(case=case, output_tokens=sample.output_tokens, judge=None)
    fresh = await check_all([specs[i] for i in chosen], _graded_text(sample.output), ctx)
    merged = list(recorded)
    whole = len(chosen) == len(specs)
    problems: list[str] = []
    for i, result in zip(chosen, fresh, strict=True):
        said = recorded[i]
        if result.type == "compiles" and result.status == "skipped":  # no nvcc here
            whole = False
            continue
        merged[i] = result
        reason = redact(result.reason)
        if result.status != said.status:
            problems.append(
                f"{label}: check {i + 1} ({result.type}) gives {result.status} ({reason}), "
                f"the sample says {said.status}"
            )
        elif result.type != "compiles" and reason != said.reason:
            problems.append(
                f"{label}: check {i + 1} ({result.type}) says {reason!r}, the sample says "
                f"{said.reason!r} (the tests differ from those graded)"
            )
    outcome = outcome_of(merged)
    if outcome != sample.outcome:
        problems.append(f"{label}: outcome {sample.outcome}, its checks give {outcome}")
    tally.problems.extend(problems)
    if whole:
        tally.regraded += 1
        tally.agreed += not problems
    else:
        tally.not_regradable += 1


def _graded_text(stored: str) -> str:
    """The text eval graded: the stored answer without the note a cut reply ends with."""
    from upskill_hub.evaluation.session import MAX_REPLY_CHARS

    if stored[MAX_REPLY_CHARS:].startswith("\n[upskill-hub: reply cut at "):
        return stored[:MAX_REPLY_CHARS]
    return stored


# --------------------------------------------------------------------------- helpers


def _run(coro: Any) -> Any:
    """Run ``coro`` to its end, in a worker thread when an event loop is already running here."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:160] if text else type(exc).__name__


def _label(sample: Sample) -> str:
    return f"sample {sample.model} {sample.case_id} run {sample.run} {sample.arm}"


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:5])
    return shown + (f" +{len(ids) - 5} more" if len(ids) > 5 else "")


def _worst(models: Sequence[ModelVerification]) -> Level:
    return max((m.verification for m in models), key=lambda v: _RANK[v], default="reported")


def _downgrade(
    model: ModelVerification, level: Level, problems: Sequence[str] = ()
) -> ModelVerification:
    if _RANK[model.verification] >= _RANK[level]:
        return model
    return ModelVerification(
        model.model,
        level,
        model.regraded,
        model.agreed,
        model.not_regradable,
        [*problems, *model.problems][:SHOWN],
        model.problem_count + len(problems),
    )


def _with_source(
    result: RunVerification, source: str, split: str | None, commit: str | None
) -> RunVerification:
    return RunVerification(
        result.status, result.models, result.problems, result.notes, source, split, commit
    )
