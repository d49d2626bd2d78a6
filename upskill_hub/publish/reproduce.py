"""``results reproduce``: run a published run again and say whether the two agree.

:func:`reproduce` reads the original run through the Hub: its ``summary`` and ``samples``
rows (the skill repo and the commit measured, the runs per case, each sample's outcome), its
test cases (``tests/<split>.json`` in the dataset) and the generation settings its card's
reproduce command names (temperature, max tokens, judge model). It fetches the skill at that
commit (:func:`upskill_hub.registry.skill_source.open_skill`, the same checks as ``pull``),
runs the ordinary runner on the chosen model over every case or a seeded random subset, and
publishes the run with :func:`upskill_hub.publish.results_dataset.push_results` as a
replication of the original (dataset card metadata ``replicates``; the skill card's
``upskill_hub.replications``).

Agreement (:func:`agreement`), both conditions:

- the two lift intervals (the 95% intervals published with each run) overlap;
- the per-case outcomes agree: over the cases both runs graded in both arms, the share whose
  majority outcome (pass when more than half the graded runs passed) is the same in each arm
  reaches :data:`AGREEMENT_RATE` (80%), or, when the original's cases are flaky, what two
  honest runs would reach (:func:`agreement_needed`: the expected share of matches, from the
  original's per-case pass rates and the replication's runs, less 1.645 standard deviations),
  never below :data:`AGREEMENT_FLOOR` (50%).

``benchmarks/replication_agreement.py`` measures how often a replication by the same model is
judged "agrees" and one by a model the skill does not help "disagrees".

The original's figure compared is the one for the same model when it measured it, else its
only model's (a replication on another model asks whether the lift carries over).
"""

from __future__ import annotations

import math
import random
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from upskill_hub.errors import Param, UsageError
from upskill_hub.registry.evidence.index import (
    AGREEMENT_RATE,
    intervals_overlap,
    replication_agrees,
)

if TYPE_CHECKING:
    from upskill_hub.evaluation.run.resume import RunOverrides
    from upskill_hub.hub.client import Hub
    from upskill_hub.publish.dataset_push import PushedResults
    from upskill_hub.skill.testcases import TestCase

__all__ = [
    "AGREEMENT_RATE",
    "Agreement",
    "Reproduction",
    "agreement",
    "agreement_needed",
    "case_agreement",
    "case_tallies",
    "common_cases",
    "majority_outcomes",
    "parse_run_ref",
    "pick_cases",
    "reproduce",
]

_SPLIT = re.compile(r"\w{1,200}", re.ASCII)
ARMS = ("baseline", "with_skill")


def parse_run_ref(text: str) -> tuple[str, str]:
    """``NS/DATASET:SPLIT`` as (dataset, split); anything else is a :class:`UsageError`."""
    from upskill_hub.hub.client import parse_spec

    dataset, sep, split = text.partition(":")
    if not sep or not _SPLIT.fullmatch(split) or "@" in dataset or "/" not in dataset:
        raise UsageError(f"{text!r}: give the run to replicate as NS/DATASET:SPLIT")
    parse_spec(dataset)
    return dataset, split


def pick_cases(cases: Sequence[TestCase], n_cases: int | None, seed: int) -> list[TestCase]:
    """Every case, or ``n_cases`` of them drawn with ``seed`` (kept in their original order)."""
    if n_cases is not None and n_cases < 1:
        raise UsageError(Param("n_cases"), f" must be at least 1 (got {n_cases})")
    if n_cases is None or n_cases >= len(cases):
        return list(cases)
    chosen = set(random.Random(seed).sample(range(len(cases)), n_cases))
    return [c for n, c in enumerate(cases) if n in chosen]


def case_tallies(
    samples: Iterable[Mapping[str, Any]], model: str
) -> dict[str, dict[str, tuple[int, int]]]:
    """Per case, per arm: (passed, graded) of ``model``'s samples (dicts with ``model``,
    ``case_id``, ``arm``, ``outcome``; errors are not graded)."""
    tally: dict[tuple[str, str], list[int]] = {}
    for s in samples:
        if s.get("model") != model or s.get("outcome") not in ("pass", "fail"):
            continue
        counts = tally.setdefault((str(s["case_id"]), str(s["arm"])), [0, 0])
        counts[0] += s["outcome"] == "pass"
        counts[1] += 1
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for (case, arm), (passed, graded) in tally.items():
        out.setdefault(case, {})[arm] = (passed, graded)
    return out


def majority_outcomes(
    samples: Iterable[Mapping[str, Any]], model: str
) -> dict[str, dict[str, bool]]:
    """Per case, per arm: whether more than half of ``model``'s graded samples passed."""
    return _majorities(case_tallies(samples, model))


#: The least share of matching cases a replication needs, however flaky the original.
AGREEMENT_FLOOR = 0.5
#: The prior of a case's pass rate given its original runs: Jeffreys', Beta(1/2, 1/2).
PRIOR = 0.5


def _majority_pass(passed: int, graded: int, runs: int) -> float:
    """P(more than half of ``runs`` new runs pass), the case's pass rate drawn from its
    posterior after ``passed`` of ``graded`` (beta-binomial with prior :data:`PRIOR`)."""
    a, b = passed + PRIOR, graded - passed + PRIOR
    log_beta_ab = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    total = 0.0
    for k in range(runs // 2 + 1, runs + 1):
        log_beta = math.lgamma(k + a) + math.lgamma(runs - k + b) - math.lgamma(runs + a + b)
        total += math.comb(runs, k) * math.exp(log_beta - log_beta_ab)
    return total


def agreement_needed(
    original: Mapping[str, Mapping[str, tuple[int, int]]], cases: Sequence[str], runs: int
) -> float | None:
    """The share of ``cases`` a same-model replication of ``runs`` runs per case reaches with
    95% probability (one-sided, normal approximation), between :data:`AGREEMENT_FLOOR` and
    :data:`AGREEMENT_RATE`: per
    case, the chance its majority matches the original's in both arms, with the original's pass
    rates taken as the truth. None without a case."""
    expected = variance = 0.0
    for case in cases:
        chance = 1.0
        for arm in ARMS:
            passed, graded = original[case][arm]
            p = _majority_pass(passed, graded, max(runs, 1))
            chance *= p if 2 * passed > graded else 1 - p
        expected += chance
        variance += chance * (1 - chance)
    if not cases:
        return None
    bar = (expected - 1.645 * math.sqrt(variance)) / len(cases)
    return max(AGREEMENT_FLOOR, min(AGREEMENT_RATE, bar))


def common_cases(
    a: Mapping[str, Mapping[str, Any]], b: Mapping[str, Mapping[str, Any]]
) -> list[str]:
    """The cases both runs graded in both arms, in ``a``'s order."""
    return [c for c in a if c in b and all(arm in a[c] and arm in b[c] for arm in ARMS)]


def case_agreement(
    a: Mapping[str, Mapping[str, bool]], b: Mapping[str, Mapping[str, bool]]
) -> tuple[float | None, int]:
    """(share of common cases whose majority outcome is the same in every arm, common cases);
    None without a common case."""
    common = common_cases(a, b)
    if not common:
        return None, 0
    same = sum(all(a[c][arm] == b[c][arm] for arm in ARMS) for c in common)
    return same / len(common), len(common)


@dataclass(frozen=True)
class Agreement:
    """Whether a replication agrees with the run it re-measured (see the module docstring)."""

    original_lift: float | None
    original_ci: tuple[float, float] | None
    lift: float | None
    ci: tuple[float, float] | None
    intervals_overlap: bool
    case_agreement: float | None
    common_cases: int
    case_agreement_needed: float | None = None

    @property
    def agrees(self) -> bool:
        return replication_agrees(
            self.original_ci, self.ci, self.case_agreement, self.case_agreement_needed
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "agrees": self.agrees,
            "original_lift": self.original_lift,
            "original_lift_ci95": list(self.original_ci) if self.original_ci else None,
            "lift": self.lift,
            "lift_ci95": list(self.ci) if self.ci else None,
            "intervals_overlap": self.intervals_overlap,
            "case_agreement": self.case_agreement,
            "common_cases": self.common_cases,
            "case_agreement_needed": self.case_agreement_needed,
        }


def _lift_of(rows: Sequence[Mapping[str, Any]], model: str) -> tuple[Any, Any]:
    from upskill_hub.registry.evidence.index import models_of

    found = next((m for m in models_of(rows) if m.model == model), None)
    if found is None:
        return None, None
    ci = None if found.ci_low is None or found.ci_high is None else (found.ci_low, found.ci_high)
    return found.lift, ci


def agreement(
    original_rows: Sequence[Mapping[str, Any]],
    original_samples: Iterable[Mapping[str, Any]],
    original_model: str,
    rows: Sequence[Mapping[str, Any]],
    samples: Iterable[Mapping[str, Any]],
    model: str,
    runs: int = 1,
) -> Agreement:
    """The replication (``rows``, ``samples`` of ``model``, ``runs`` per case) against the
    original's figure for ``original_model``: summary rows give the lifts and intervals,
    samples the outcomes."""
    o_lift, o_ci = _lift_of(original_rows, original_model)
    lift, ci = _lift_of(rows, model)
    before = case_tallies(original_samples, original_model)
    after = case_tallies(samples, model)
    rate, common = case_agreement(_majorities(before), _majorities(after))
    needed = agreement_needed(before, common_cases(before, after), runs)
    return Agreement(o_lift, o_ci, lift, ci, intervals_overlap(o_ci, ci), rate, common, needed)


def _majorities(
    tallies: Mapping[str, Mapping[str, tuple[int, int]]],
) -> dict[str, dict[str, bool]]:
    return {c: {arm: 2 * p > g for arm, (p, g) in arms.items()} for c, arms in tallies.items()}


@dataclass(frozen=True)
class Reproduction:
    """A finished replication: where it went, what it re-measured, whether it agrees."""

    dataset: str
    split: str
    of_dataset: str
    of_split: str
    model: str
    original_model: str
    run_dir: Path
    cases: int
    runs: int
    agreement: Agreement
    pushed: PushedResults

    def line(self) -> str:
        """One line: agrees / disagrees, with both lifts and intervals and the case rate."""
        from upskill_hub.formatting import lift

        a = self.agreement
        word = "agrees" if a.agrees else "disagrees"
        rate = "?" if a.case_agreement is None else f"{a.case_agreement:.0%}"
        needed = AGREEMENT_RATE if a.case_agreement_needed is None else a.case_agreement_needed
        return (
            f"{word}: replication {lift(a.lift, a.ci)} on {self.model}, original "
            f"{lift(a.original_lift, a.original_ci)} on {self.original_model}; "
            f"intervals {'overlap' if a.intervals_overlap else 'do not overlap'}; case outcomes "
            f"agree on {rate} of {a.common_cases} cases (needs {needed:.0%})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "split": self.split,
            "replicates": {"dataset": self.of_dataset, "split": self.of_split},
            "model": self.model,
            "original_model": self.original_model,
            "run_dir": str(self.run_dir),
            "cases": self.cases,
            "runs": self.runs,
            **self.agreement.to_dict(),
            "skill_card_commit": self.pushed.skill_card_commit,
            "skill_card_pr_url": self.pushed.skill_card_pr_url,
        }


@dataclass(frozen=True)
class _Original:
    dataset: str
    split: str
    rows: list[dict[str, Any]]
    samples: list[dict[str, Any]]
    skill_repo: str
    skill_commit: str
    skill_name: str | None
    cases: list[TestCase]
    settings: dict[str, str]


def _read_original(hub: Hub, dataset: str, split: str) -> _Original:
    """The original run's rows, skill, cases and settings, read through ``hub``."""
    import json

    from upskill_hub.errors import HubError
    from upskill_hub.publish.dataset_card import tests_path
    from upskill_hub.registry.evidence.read import load_split_rows, load_summary_split
    from upskill_hub.skill.testcases import suite_from_obj

    where = f"{dataset}:{split}"
    rows = load_summary_split(hub, dataset, split)
    if not rows:
        raise UsageError(f"{where}: no summary rows (not an eval run)")
    repos = {(r.get("skill_repo"), r.get("skill_commit")) for r in rows}
    repo, commit = repos.pop() if len(repos) == 1 else (None, None)
    if not repo or not isinstance(commit, str) or not re.fullmatch(r"[0-9a-f]{40}", commit):
        raise UsageError(
            f"{where}: the run measured no Hub skill at a pinned commit (skill_repo, "
            "skill_commit); a skill evaluated from a local folder cannot be replicated"
        )
    samples = load_split_rows(hub, dataset, "samples", split)
    if any(s.get("mode") == "agent" for s in samples):
        raise UsageError(f"{where}: an agent-mode run; reproduce replicates inline runs only")
    try:
        path = hub.download_file(dataset, tests_path(split), repo_type="dataset")
        suite = suite_from_obj(json.loads(path.read_text("utf-8")), tests_path(split))
    except HubError as exc:
        raise HubError(f"{where}: its test cases ({tests_path(split)}): {exc}") from exc
    except ValueError as exc:
        raise UsageError(f"{where}: {tests_path(split)} is not a test file ({exc})") from exc
    card = hub.download_file(dataset, "README.md", repo_type="dataset").read_text("utf-8")
    name = rows[0].get("skill_name")
    return _Original(
        dataset=dataset,
        split=split,
        rows=rows,
        samples=samples,
        skill_repo=str(repo),
        skill_commit=commit,
        skill_name=name if isinstance(name, str) and name else None,
        cases=list(suite.cases),
        settings=_card_settings(card, split),
    )


#: The generation settings a replication takes from the original's reproduce command.
_SETTINGS = ("--temperature", "--max-tokens", "--judge-model")


def _card_settings(card_text: str, split: str) -> dict[str, str]:
    """The flags of :data:`_SETTINGS` in the ``upskill-hub eval`` command of run ``split``'s
    section of a results dataset card (empty when there is none)."""
    from upskill_hub.publish.dataset_card import run_sections

    section = run_sections(card_text).get(split, "")
    line = next((x for x in section.splitlines() if x.startswith("upskill-hub eval ")), "")
    try:
        argv = shlex.split(line)
    except ValueError:
        return {}
    return {flag: argv[n + 1] for n, flag in enumerate(argv[:-1]) if flag in _SETTINGS}


def _original_model(rows: Sequence[Mapping[str, Any]], model: str, where: str) -> str:
    """The original's model to compare with: ``model`` itself, else its only model."""
    measured = list(dict.fromkeys(str(r.get("model")) for r in rows))
    if model in measured:
        return model
    if len(measured) == 1:
        return measured[0]
    raise UsageError(
        Param("model"),
        f" {model}: {where} measured {', '.join(measured)}; replicate one of them",
    )


def reproduce(
    source: str,
    *,
    model: str,
    repo: str,
    overrides: RunOverrides,
    n_cases: int | None = None,
    seed: int = 0,
    output_root: Path = Path("runs"),
    private: bool = False,
    create_pr: bool = False,
    hub: Hub | None = None,
) -> Reproduction:
    """Replicate the run ``source`` (``NS/DATASET:SPLIT``) on ``model``; see the module doc.

    ``overrides`` are the provider flags (base URL, key, concurrency, timeout, retries; a
    judge model replaces the original's); its ``runs`` default to the original's runs per
    case. ``n_cases`` picks that many cases at random with ``seed``. The run goes to the
    dataset ``repo`` (a new split) and the skill card lists it (directly, or as a pull
    request with ``create_pr``)."""
    from upskill_hub._sync import run_sync
    from upskill_hub.errors import ProviderError
    from upskill_hub.evaluation.providers.resolve import canonical_model_id
    from upskill_hub.evaluation.run.folder import load_run
    from upskill_hub.evaluation.run.resume import run_settings
    from upskill_hub.evaluation.runner import run_eval
    from upskill_hub.hub.client import Hub
    from upskill_hub.publish.results_dataset import push_results
    from upskill_hub.registry.skill_source import open_skill

    dataset, split = parse_run_ref(source)
    if n_cases is not None and n_cases < 1:
        raise UsageError(Param("n_cases"), f" must be at least 1 (got {n_cases})")
    hub = hub or Hub()
    original = _read_original(hub, dataset, split)
    model_id = canonical_model_id(model, overrides.base_url)
    original_model = _original_model(original.rows, model_id, source)
    runs = overrides.runs
    if runs is None:
        counts = [int(r["runs"]) for r in original.rows if r.get("model") == original_model]
        runs = max(counts or [1])
    settings = original.settings
    overrides = replace(
        overrides,
        models=[model],
        runs=runs,
        temperature=_float(settings.get("--temperature"), overrides.temperature),
        max_tokens=_int(settings.get("--max-tokens"), overrides.max_tokens),
        judge_model=overrides.judge_model or settings.get("--judge-model"),
        no_baseline=False,
    )
    chosen = pick_cases(original.cases, n_cases, seed)
    opened = open_skill(
        f"{original.skill_repo}@{original.skill_commit}",
        skill=original.skill_name,
        hub=hub,
        local=False,
    )
    config, chosen = run_settings(opened.skill.tests, overrides, tests=chosen)
    result = run_sync(
        run_eval(
            opened.skill,
            chosen,
            config,
            output_root=output_root,
            repo_id=opened.repo_id,
            revision=opened.commit,
        )
    )
    failure = result.unmeasured()
    if failure is not None:
        raise ProviderError(f"{failure}; run folder: {result.run_dir}; nothing published")
    record = load_run(result.run_dir)
    measured = str(result.stats[0].model)
    from upskill_hub.publish.results_dataset import summary_rows

    agreed = agreement(
        original.rows,
        original.samples,
        original_model,
        summary_rows(record),
        [s.to_dict() for s in record.samples],
        measured,
        runs,
    )
    pushed = push_results(
        result.run_dir,
        repo,
        private=private,
        update_skill_card=True,
        skill_repo=original.skill_repo,
        create_pr=create_pr,
        token=hub.token if isinstance(hub.token, str) else None,
        replicates=(dataset, split),
        case_agreement=agreed.case_agreement,
        case_agreement_needed=agreed.case_agreement_needed,
        original_model=original_model,
    )
    return Reproduction(
        dataset=pushed.repo_id,
        split=pushed.split,
        of_dataset=dataset,
        of_split=split,
        model=measured,
        original_model=original_model,
        run_dir=result.run_dir,
        cases=len(chosen),
        runs=runs,
        agreement=agreed,
        pushed=pushed,
    )


def _float(value: str | None, given: float | None) -> float | None:
    try:
        return given if given is not None or value is None else float(value)
    except ValueError:
        return None


def _int(value: str | None, given: int | None) -> int | None:
    try:
        return given if given is not None or value is None else int(value)
    except ValueError:
        return None
