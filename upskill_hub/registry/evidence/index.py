"""The published runs a skill card points at: ``upskill_hub.results`` in its YAML metadata.

``results push --update-skill-card`` adds one entry per run: the results dataset and split,
the skill (name and the commit that was measured), the mode the run used and, per model, a
digest of its lift (estimate, 95% interval, cases and runs), so ``search --model`` can rank
skills from one Hub listing. The dataset stays the source of the figures: ``info`` and ``pull``
read them from it (:mod:`upskill_hub.registry.evidence.read`).

``results reproduce`` adds to ``upskill_hub.replications`` one :class:`ReplicationEntry` per
replication: where its rows are, the run it re-measured (``of``), its model and the share of
common cases whose outcomes agreed with the original's.

Cards written before this metadata existed carry only the Markdown section; their one run is
recovered from its link (dataset and split) and the ``at revision`` it names. Entries that do
not parse are ignored, never an error: a card is text anybody can edit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from upskill_hub.errors import UsageError
from upskill_hub.registry.card import (
    REPLICATIONS_META_KEY,
    RESULTS_META_KEY,
    has_results,
    results_metadata,
    results_section,
)

#: A replication agrees when its lift interval overlaps the original's and, over the cases
#: both graded, enough have the same majority outcome in each arm: this share, or less when
#: the original's own flaky cases make that many matches unlikely (``results reproduce``).
AGREEMENT_RATE = 0.8
#: Entries kept in a card (the newest); older runs stay in their datasets.
MAX_ENTRIES = 50
DEFAULT_MODE = "inline"

_COMMIT = re.compile(r"[0-9a-f]{40}")
_SPLIT = re.compile(r"\w{1,200}", re.ASCII)
_LEGACY_LINK = re.compile(r"dataset \[([^\]\s]+/[^\]\s]+)\]\([^)]*\) \(split `([^`]+)`\)")
_LEGACY_REVISION = re.compile(r"at revision `([0-9a-f]{40})`")


@dataclass(frozen=True)
class MeasuredModel:
    """One model's lift in a published run (lift and bounds are fractions: 0.33 is +33 pts)."""

    model: str
    lift: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    cases: int | None = None
    runs: int | None = None

    def to_meta(self) -> dict[str, Any]:
        ci = None if self.ci_low is None or self.ci_high is None else [self.ci_low, self.ci_high]
        return {
            "model": self.model,
            "lift": self.lift,
            "lift_ci95": ci,
            "cases": self.cases,
            "runs": self.runs,
        }

    @classmethod
    def from_meta(cls, data: Any) -> MeasuredModel | None:
        if not isinstance(data, Mapping) or not isinstance(data.get("model"), str):
            return None
        ci = data.get("lift_ci95")
        low, high = (ci[0], ci[1]) if isinstance(ci, list) and len(ci) == 2 else (None, None)
        return cls(
            model=data["model"],
            lift=_number(data.get("lift")),
            ci_low=_number(low),
            ci_high=_number(high),
            cases=_count(data.get("cases")),
            runs=_count(data.get("runs")),
        )


@dataclass(frozen=True)
class PublishedRun:
    """One run the card points at: where its rows are and which skill commit it measured."""

    dataset: str
    split: str
    skill_commit: str | None
    skill: str | None = None
    mode: str = DEFAULT_MODE
    started_at: str | None = None
    models: tuple[MeasuredModel, ...] = field(default_factory=tuple)

    @property
    def key(self) -> tuple[str, str]:
        return (self.dataset, self.split)

    def to_meta(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "split": self.split,
            "skill": self.skill,
            "skill_commit": self.skill_commit,
            "mode": self.mode,
            "started_at": self.started_at,
            "models": [m.to_meta() for m in self.models],
        }

    @classmethod
    def from_meta(cls, data: Any) -> PublishedRun | None:
        if not isinstance(data, Mapping):
            return None
        dataset, split = data.get("dataset"), data.get("split")
        if not _is_repo_id(dataset) or not isinstance(split, str) or not _SPLIT.fullmatch(split):
            return None
        commit = data.get("skill_commit")
        skill, mode, started = data.get("skill"), data.get("mode"), data.get("started_at")
        models = data.get("models")
        parsed = (MeasuredModel.from_meta(m) for m in (models if isinstance(models, list) else []))
        return cls(
            dataset=str(dataset),
            split=split,
            skill_commit=commit if isinstance(commit, str) and _COMMIT.fullmatch(commit) else None,
            skill=skill if isinstance(skill, str) and skill else None,
            mode=mode if isinstance(mode, str) and mode else DEFAULT_MODE,
            started_at=started if isinstance(started, str) else None,
            models=tuple(m for m in parsed if m is not None),
        )


@dataclass(frozen=True)
class ReplicationEntry:
    """One replication a card lists: its split, the run it re-measured and what agreed."""

    dataset: str
    split: str
    of_dataset: str
    of_split: str
    model: str | None = None
    case_agreement: float | None = None  # share of common cases with the same outcomes
    of_model: str | None = None  # the original's model it was compared with
    case_agreement_needed: float | None = None  # the share it had to reach

    @property
    def key(self) -> tuple[str, str]:
        return (self.dataset, self.split)

    @property
    def of(self) -> tuple[str, str]:
        return (self.of_dataset, self.of_split)

    def to_meta(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "split": self.split,
            "of": {"dataset": self.of_dataset, "split": self.of_split, "model": self.of_model},
            "model": self.model,
            "case_agreement": self.case_agreement,
            "case_agreement_needed": self.case_agreement_needed,
        }

    @classmethod
    def from_meta(cls, data: Any) -> ReplicationEntry | None:
        if not isinstance(data, Mapping) or not isinstance(data.get("of"), Mapping):
            return None
        of = data["of"]
        pairs = [(data.get("dataset"), data.get("split")), (of.get("dataset"), of.get("split"))]
        for dataset, split in pairs:
            if not _is_repo_id(dataset) or not isinstance(split, str):
                return None
            if not _SPLIT.fullmatch(split):
                return None
        model, of_model = data.get("model"), of.get("model")
        return cls(
            dataset=str(data["dataset"]),
            split=str(data["split"]),
            of_dataset=str(of["dataset"]),
            of_split=str(of["split"]),
            model=model if isinstance(model, str) and model else None,
            case_agreement=_number(data.get("case_agreement")),
            of_model=of_model if isinstance(of_model, str) and of_model else None,
            case_agreement_needed=_number(data.get("case_agreement_needed")),
        )


def intervals_overlap(a: Sequence[float | None] | None, b: Sequence[float | None] | None) -> bool:
    """Whether two closed intervals share a point (False when either is unknown)."""
    if not a or not b or None in (a[0], a[1], b[0], b[1]):
        return False
    return bool(a[0] <= b[1] and b[0] <= a[1])  # type: ignore[operator]


def replication_agrees(
    original_ci: Sequence[float | None] | None,
    ci: Sequence[float | None] | None,
    case_agreement: float | None,
    needed: float | None = None,
) -> bool:
    """Both lift intervals overlap and the case outcomes agree at ``needed`` or more (at most,
    and by default, :data:`AGREEMENT_RATE`)."""
    bar = AGREEMENT_RATE if needed is None else min(needed, AGREEMENT_RATE)
    rate_ok = case_agreement is not None and case_agreement >= bar - 1e-9
    return intervals_overlap(original_ci, ci) and rate_ok


def with_replication(
    entries: Sequence[Mapping[str, Any]], entry: ReplicationEntry
) -> list[dict[str, Any]]:
    """``entries`` with ``entry`` last (replacing one of the same dataset and split), keeping
    the newest :data:`MAX_ENTRIES`; entries that do not parse are dropped."""
    parsed = map(ReplicationEntry.from_meta, entries)
    kept = [e for e in parsed if e is not None and e.key != entry.key]
    return [e.to_meta() for e in [*kept, entry][-MAX_ENTRIES:]]


def replications(card_text: str) -> list[ReplicationEntry]:
    """The replications a card lists (``upskill_hub.replications``), oldest first."""
    entries = results_metadata(card_text, REPLICATIONS_META_KEY)
    return [e for e in map(ReplicationEntry.from_meta, entries) if e is not None]


def run_mode(info: Mapping[str, Any]) -> str:
    """The mode a run used, from its run.json (``mode``, or ``config.mode``); default inline."""
    config = info.get("config")
    for value in (info.get("mode"), config.get("mode") if isinstance(config, Mapping) else None):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return DEFAULT_MODE


def models_of(rows: Iterable[Mapping[str, Any]]) -> list[MeasuredModel]:
    """Per model of a run's summary rows (first row wins; both arms carry the same lift): its
    lift and its n."""
    seen: dict[str, MeasuredModel] = {}
    for row in rows:
        name = str(row.get("model"))
        if name not in seen:
            seen[name] = MeasuredModel(
                model=name,
                lift=_number(row.get("lift")),
                ci_low=_number(row.get("lift_ci_low")),
                ci_high=_number(row.get("lift_ci_high")),
                cases=_count(row.get("cases")),
                runs=_count(row.get("runs")),
            )
    return list(seen.values())


def published_run(
    summary_rows: Iterable[Mapping[str, Any]],
    info: Mapping[str, Any],
    *,
    dataset: str,
    split: str,
) -> PublishedRun:
    """The card entry for a run pushed to ``dataset`` as ``split`` (rows of its summary)."""
    skill = info.get("skill") or {}
    models = models_of(summary_rows)
    commit = skill.get("revision")
    name = skill.get("name")
    started = info.get("started_at")
    return PublishedRun(
        dataset=dataset,
        split=split,
        skill_commit=commit if isinstance(commit, str) and _COMMIT.fullmatch(commit) else None,
        skill=name if isinstance(name, str) and name else None,
        mode=run_mode(info),
        started_at=started if isinstance(started, str) else None,
        models=tuple(models),
    )


def with_run(entries: Sequence[Mapping[str, Any]], run: PublishedRun) -> list[dict[str, Any]]:
    """``entries`` with ``run`` last (replacing an entry of the same dataset and split),
    keeping the newest :data:`MAX_ENTRIES`; entries that do not parse are dropped."""
    kept = [p for p in map(PublishedRun.from_meta, entries) if p is not None and p.key != run.key]
    return [p.to_meta() for p in [*kept, run][-MAX_ENTRIES:]]


def published_runs(card_text: str) -> list[PublishedRun]:
    """The runs a card points at, oldest first: its metadata, else its Markdown section."""
    runs = [p for p in map(PublishedRun.from_meta, results_metadata(card_text)) if p is not None]
    if runs:
        return runs
    legacy = _legacy_run(card_text)
    return [legacy] if legacy is not None else []


def runs_from_card_data(card_data: Any) -> list[PublishedRun]:
    """The runs in a Hub listing's ``cardData`` (a dict or huggingface_hub ``CardData``)."""
    section = card_data.get("upskill_hub") if card_data is not None else None
    entries = section.get(RESULTS_META_KEY) if isinstance(section, Mapping) else None
    if not isinstance(entries, list):
        return []
    return [p for p in map(PublishedRun.from_meta, entries) if p is not None]


def _legacy_run(card_text: str) -> PublishedRun | None:
    """The run a card's Markdown names (cards from before ``upskill_hub.results``)."""
    if not has_results(card_text):
        return None
    section = results_section(card_text) or ""
    link = _LEGACY_LINK.search(section)
    if link is None:
        return None
    revision = _LEGACY_REVISION.search(section)
    if not _is_repo_id(link.group(1)) or not _SPLIT.fullmatch(link.group(2)):
        return None
    return PublishedRun(
        dataset=link.group(1),
        split=link.group(2),
        skill_commit=revision.group(1) if revision else None,
    )


def _is_repo_id(value: Any) -> bool:
    """A Hub dataset id ``NS/NAME`` (never a path or a revision: a card is anyone's text)."""
    from upskill_hub.hub.client import parse_spec

    if not isinstance(value, str) or "@" in value:
        return False
    try:
        parse_spec(value)
    except UsageError:
        return False
    return True


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if value == value else None  # NaN is no figure


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
