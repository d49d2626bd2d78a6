"""Is this skill worth installing? The published lift of a skill, per model, for one commit.

A skill card names its published runs (:mod:`upskill_hub.registry.evidence.index`). For the
commit about to be installed, each model gets the run that measured the closest thing: the
same commit (``exact``), else an older commit whose skill files are identical (``same_files``:
only the card changed since, as ``results push --update-skill-card`` itself does), else the
nearest older commit (``behind``, with how many commits), else a commit outside this one's
history (``unrelated``). The figures are read from the results dataset's ``summary`` config
with ``datasets``; when a dataset cannot be read, the digest in the card stands in and a note
says so. The card is read at the head of the default branch: evidence published after a
commit still speaks for it.

A reader handed a :class:`ResultsSignatureCheck` (``info`` and ``update`` given trusted keys;
the check is :mod:`upskill_hub.publish.results_signing`'s, which the registry may not import)
also says who measured each figure read from a dataset: ``measured_by``, the trusted key that
signed exactly the rows shown, or ``signature_note`` saying why not (unsigned, an untrusted key,
rows rewritten after signing, a signature for another dataset or split).

Each model's figure carries the replications the card lists of its run
(``upskill_hub.replications``, written by ``results reproduce``): the replication's lift and
interval read from its dataset, and whether it agrees
(:func:`~upskill_hub.registry.evidence.index.replication_agrees`).


Each figure read from a dataset is then checked against the run's published samples by the
reader's :class:`~upskill_hub.registry.evidence.verification.Verifier`, if it has one
(``verification``: ``verified``, ``reported`` or ``inconsistent``; an inconsistent figure
carries no lift). Used by ``info``, ``pull``, ``update --require-lift``, ``outdated``,
``search --model`` and the Space. Looking up evidence never fails an install: Hub failures
become notes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol

from upskill_hub.datasets_quiet import quiet_datasets
from upskill_hub.errors import HubError, SignatureError, UpskillHubError, UsageError
from upskill_hub.hub.client import Hub
from upskill_hub.registry.card import CARD_FILE
from upskill_hub.registry.evidence.index import (
    MeasuredModel,
    PublishedRun,
    ReplicationEntry,
    models_of,
    published_runs,
    replication_agrees,
    replications,
    runs_from_card_data,
)
from upskill_hub.registry.evidence.locked import LockedEvidence
from upskill_hub.registry.evidence.verification import (
    Level,
    RunVerdicts,
    VerificationCache,
    Verifier,
    check_published,
)

SUMMARY_CONFIG = "summary"
#: Relations of the measured commit to the one asked about, best first.
RELATIONS = ("exact", "same_files", "behind", "unrelated")


class ResultsSignatureCheck(Protocol):
    """Who signed the run ``dataset`` (split ``split``) whose summary rows are ``rows``: the
    trusted signer, None when unsigned; a :class:`~upskill_hub.errors.SignatureError` when a
    signature does not hold (``publish.results_signing.results_signature_check`` is one)."""

    def __call__(
        self, dataset: str, split: str, rows: Sequence[dict[str, Any]], /
    ) -> str | None: ...


@dataclass(frozen=True)
class Replication:
    """A run that re-measured a figure (``results reproduce``): its lift and interval, whether
    it agrees with the figure, and who signed it (None: unsigned or no trusted key)."""

    dataset: str
    split: str
    lift: float | None
    lift_ci95: list[float] | None
    agrees: bool
    measured_by: str | None = None
    model: str | None = None
    case_agreement: float | None = None

    def independent_of(self, measured_by: str | None) -> bool:
        """Signed by a trusted key other than the one that signed the original figure."""
        return self.measured_by is not None and self.measured_by != measured_by


@dataclass(frozen=True)
class ModelEvidence:
    """One model's measured lift for a skill, and how the measured commit relates to ours."""

    model: str
    lift: float | None
    ci_low: float | None
    ci_high: float | None
    cases: int | None
    runs: int | None
    mode: str
    dataset: str
    split: str
    commit: str | None  # the skill commit the run measured
    relation: str | None = None  # see RELATIONS; None when not compared (search listings)
    behind: int | None = None  # commits between the measured one and ours
    source: str = "dataset"  # where the figures were read: "dataset" or "card"
    #: the trusted key (or certificate) that signed exactly the rows read; None otherwise
    measured_by: str | None = None
    #: why the figure is not ``measured_by`` anyone, when its signature was checked
    signature_note: str | None = None
    replications: list[Replication] = field(default_factory=list)
    #: How far the figure is checked (:mod:`.verification`); ``inconsistent`` figures carry no
    #: lift (``claimed_lift`` keeps what the summary said) and the note says why.
    verification: Level = "reported"
    verification_note: str | None = None
    results_owner: str = ""  # the results dataset's namespace
    skill_owner: str = ""  # the skill repo's namespace
    claimed_lift: float | None = None  # an inconsistent run's summary lift, never shown as lift

    @property
    def reported_by(self) -> str:
        """Who published the figures: the results dataset's owner (its namespace)."""
        return self.results_owner or _owner(self.dataset)

    @property
    def at_this_commit(self) -> bool:
        """Measured on exactly the files being installed (same commit, or same skill files)."""
        return self.relation in ("exact", "same_files")

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["lift_ci95"] = (
            None if self.ci_low is None or self.ci_high is None else [self.ci_low, self.ci_high]
        )
        del data["ci_low"], data["ci_high"]
        data["at_this_commit"] = self.at_this_commit
        data["reported_by"] = self.reported_by
        for rep, out in zip(self.replications, data["replications"], strict=True):
            out["independent"] = rep.independent_of(self.measured_by)
        return data

    def locked(self) -> LockedEvidence:
        """What the lock records of it."""
        return LockedEvidence(
            model=self.model,
            dataset=self.dataset,
            split=self.split,
            commit=self.commit,
            lift=self.lift,
            ci_low=self.ci_low,
            ci_high=self.ci_high,
            cases=self.cases,
            runs=self.runs,
            mode=self.mode,
        )


@dataclass(frozen=True)
class SkillEvidence:
    """The published lift of one skill at one commit: a row per model, and notes."""

    repo_id: str
    skill: str
    commit: str
    models: list[ModelEvidence] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return bool(self.models)

    def for_model(self, model: str) -> ModelEvidence | None:
        return next((m for m in self.models if m.model == model), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "repo_id": self.repo_id,
            "skill": self.skill,
            "commit": self.commit,
            "found": self.found,
            "models": [m.to_dict() for m in self.models],
            "notes": list(self.notes),
        }


class EvidenceReader:
    """Reads cards, histories, listings and dataset splits once per lookup session."""

    def __init__(
        self,
        hub: Hub,
        *,
        read_datasets: bool = True,
        signatures: ResultsSignatureCheck | None = None,
        verifier: Verifier | None = None,
        cache: VerificationCache | None = None,
    ) -> None:
        self.hub = hub
        self.read_datasets = read_datasets
        self.signatures = signatures
        self._signers: dict[tuple[str, str], tuple[str | None, str | None]] = {}
        self.verifier = verifier
        self.cache = cache if cache is not None else (VerificationCache() if verifier else None)
        self._verdicts: dict[tuple[str, str], RunVerdicts] = {}
        self._cards: dict[str, list[PublishedRun]] = {}
        self._replications: dict[str, list[ReplicationEntry]] = {}
        self._history: dict[tuple[str, str], list[str]] = {}
        self._listings: dict[tuple[str, str], dict[str, dict[str, str]]] = {}
        self._rows: dict[tuple[str, str], list[dict[str, Any]]] = {}

    # -- lookups -------------------------------------------------------------------------------

    def evidence(
        self, repo_id: str, commit: str, *, skill: str = "", subpath: str = ""
    ) -> SkillEvidence:
        """The evidence for ``skill`` (at ``subpath`` in the repo) at ``commit``; never raises
        for the Hub: what could not be read is a note."""
        notes: list[str] = []
        try:
            runs = self._runs(repo_id)
        except (HubError, UsageError) as exc:
            return SkillEvidence(repo_id, skill, commit, [], [f"could not read the card: {exc}"])
        runs = [r for r in runs if _about(r, skill, subpath)]
        ranked: list[tuple[tuple[int, int, int], PublishedRun, str, int | None]] = []
        for order, run in enumerate(runs):
            try:
                relation, behind = self._relation(repo_id, commit, run.skill_commit, subpath)
            except (HubError, UsageError) as exc:
                notes.append(f"could not compare commits: {exc}")
                relation, behind = "unrelated", None
            rank = (RELATIONS.index(relation), behind if behind is not None else 1 << 30, -order)
            ranked.append((rank, run, relation, behind))
        chosen: dict[str, ModelEvidence] = {}
        for _, run, relation, behind in sorted(ranked, key=lambda item: item[0]):
            measured = self._models(run, notes, skip=set(chosen))
            for m, source in measured:
                if m.model in chosen:
                    continue
                chosen[m.model] = _evidence(repo_id, run, m, relation, behind, source)
        models = [
            self._signed(self._checked(self._with_replications(repo_id, e, notes)))
            for e in chosen.values()
        ]
        return SkillEvidence(repo_id, skill, commit, models, notes)

    def _signed(self, e: ModelEvidence) -> ModelEvidence:
        """``e`` with who signed its run, when this reader checks results signatures."""
        if self.signatures is None:
            return e
        if e.source != "dataset":
            return replace(e, signature_note="figures from the skill card; no signature checked")
        key = (e.dataset, e.split)
        if key not in self._signers:
            self._signers[key] = self._signer(e.dataset, e.split)
        signer, note = self._signers[key]
        return replace(e, measured_by=signer, signature_note=note)

    def _signer(self, dataset: str, split: str) -> tuple[str | None, str | None]:
        assert self.signatures is not None
        try:
            signer = self.signatures(dataset, split, self.rows(dataset, split))
        except SignatureError as exc:
            return None, str(exc)
        except UpskillHubError as exc:
            return None, f"could not check the results signature: {exc}"
        return signer, (None if signer else "results not signed")

    def _checked(self, e: ModelEvidence) -> ModelEvidence:
        """``e`` with how far its figure is checked against the published samples."""
        if e.source != "dataset":
            return e  # reported: the card's digest, its dataset unread
        if self.verifier is None:
            return replace(e, verification_note="not checked against the published samples")
        key = (e.dataset, e.split)
        if key not in self._verdicts:
            self._verdicts[key] = check_published(
                self.hub, self.verifier, self.cache, e.dataset, e.split
            )
        v = self._verdicts[key].for_model(e.model)
        if v.verification == "inconsistent":
            return replace(
                e,
                lift=None,
                ci_low=None,
                ci_high=None,
                claimed_lift=e.lift,
                verification="inconsistent",
                verification_note=v.note,
            )
        return replace(e, verification=v.verification, verification_note=v.note)

    # -- the pieces ----------------------------------------------------------------------------

    def _runs(self, repo_id: str) -> list[PublishedRun]:
        if repo_id not in self._cards:
            head = self.hub.head(repo_id)
            text = ""
            if head is not None and CARD_FILE in {f.path for f in self._files(repo_id, head)}:
                path = self.hub.download_file(repo_id, CARD_FILE, head)
                text = path.read_text("utf-8", errors="replace")
            self._cards[repo_id] = published_runs(text)
            self._replications[repo_id] = replications(text)
        return self._cards[repo_id]

    def _with_replications(
        self, repo_id: str, evidence: ModelEvidence, notes: list[str]
    ) -> ModelEvidence:
        """``evidence`` with the replications the card lists of its run and model."""
        found: list[Replication] = []
        for entry in self._replications.get(repo_id, []):
            if entry.of != (evidence.dataset, evidence.split):
                continue
            if (entry.of_model or entry.model) != evidence.model:
                continue
            lift, ci = None, None
            if self.read_datasets:
                try:
                    rows = self.rows(entry.dataset, entry.split)
                except (HubError, UsageError) as exc:
                    notes.append(f"replication: {exc}")
                    rows = []
                named = [m for m in models_of(rows) if m.model == entry.model] or models_of(rows)
                if named:
                    lift = named[0].lift
                    if named[0].ci_low is not None and named[0].ci_high is not None:
                        ci = [named[0].ci_low, named[0].ci_high]
            original = [evidence.ci_low, evidence.ci_high]
            found.append(
                Replication(
                    dataset=entry.dataset,
                    split=entry.split,
                    lift=lift,
                    lift_ci95=ci,
                    agrees=replication_agrees(
                        original, ci, entry.case_agreement, entry.case_agreement_needed
                    ),
                    model=entry.model,
                    case_agreement=entry.case_agreement,
                    measured_by=self._replication_signer(entry.dataset, entry.split),
                )
            )
        return replace(evidence, replications=found) if found else evidence

    def _replication_signer(self, dataset: str, split: str) -> str | None:
        """The trusted key that signed a replication's rows, when this reader checks results
        signatures (a replication that is unsigned or not trusted has none)."""
        if self.signatures is None or not self.read_datasets:
            return None
        key = (dataset, split)
        if key not in self._signers:
            self._signers[key] = self._signer(dataset, split)
        return self._signers[key][0]

    def _files(self, repo_id: str, commit: str) -> list[Any]:
        return self.hub.list_files(repo_id, commit)

    def _relation(
        self, repo_id: str, commit: str, measured: str | None, subpath: str
    ) -> tuple[str, int | None]:
        if measured is None:
            return "unrelated", None
        if measured == commit:
            return "exact", 0
        key = (repo_id, commit)
        if key not in self._history:
            self._history[key] = self.hub.history(repo_id, commit)
        history = self._history[key]
        if measured not in history:
            return "unrelated", None
        behind = history.index(measured)
        same = self._skill_files(repo_id, commit, subpath) == self._skill_files(
            repo_id, measured, subpath
        )
        return ("same_files" if same else "behind"), behind

    def _skill_files(self, repo_id: str, commit: str, subpath: str) -> dict[str, dict[str, str]]:
        """Per skill folder: path -> content id, at ``commit`` (the card and repo files aside)."""
        from upskill_hub.registry.fetch import skills_in_listing

        key = (repo_id, commit)
        if key not in self._listings:
            try:
                skills = skills_in_listing(self._files(repo_id, commit))
            except Exception:  # a listing that holds no valid skill layout compares as itself
                skills = []
            self._listings[key] = {
                s.subpath: {f.path: str(f.lfs_sha256 or f.blob_id or f.size) for f in s.files}
                for s in skills
            }
        listing = self._listings[key]
        return {subpath: listing.get(subpath, {})}

    def _models(
        self, run: PublishedRun, notes: list[str], skip: set[str]
    ) -> list[tuple[MeasuredModel, str]]:
        """The run's models and where their figures came from (dataset, else card digest)."""
        digest = list(run.models)
        if digest and all(m.model in skip for m in digest):
            return []  # every model it measured already has closer evidence
        if not self.read_datasets:
            return [(m, "card") for m in digest]
        try:
            rows = self.rows(run.dataset, run.split)
        except (HubError, UsageError) as exc:
            if digest:
                notes.append(f"{exc}; figures from the skill card's digest instead")
            else:
                notes.append(str(exc))
            return [(m, "card") for m in digest]
        measured = {str(r.get("skill_commit")) for r in rows if r.get("skill_commit")}
        if run.skill_commit and measured and measured != {run.skill_commit}:
            notes.append(
                f"{run.dataset} (split {run.split}) measured commit "
                f"{', '.join(sorted(c[:7] for c in measured))}, not {run.skill_commit[:7]} as the "
                "skill card says; ignored"
            )
            return []
        return [(m, "dataset") for m in models_of(rows)]

    def rows(self, dataset: str, split: str) -> list[dict[str, Any]]:
        """The ``summary`` rows of one split of a results dataset (cached per reader)."""
        key = (dataset, split)
        if key not in self._rows:
            self._rows[key] = load_summary_split(self.hub, dataset, split)
        return self._rows[key]


def load_summary_split(hub: Hub, dataset: str, split: str) -> list[dict[str, Any]]:
    """``load_dataset(dataset, "summary", split=split)`` as rows; failures are one-line
    :class:`HubError` s naming the dataset and split."""
    return load_split_rows(hub, dataset, SUMMARY_CONFIG, split)


def load_split_rows(
    hub: Hub, dataset: str, config: str, split: str, revision: str | None = None
) -> list[dict[str, Any]]:
    """``load_dataset(dataset, config, split=split, revision=revision)`` as rows, in their
    published order; failures are one-line :class:`HubError` s naming the dataset and split."""
    from datasets import load_dataset
    from datasets.exceptions import DatasetNotFoundError

    where = f"results dataset {dataset} (split {split})"
    if os.path.exists(dataset):  # load_dataset would read a local folder of that name
        raise HubError(f"{where}: names a local path; only Hub datasets are read")
    try:
        hub.check_access(dataset, "dataset")  # a hosted visitor's, before the shared cache
    except HubError as exc:
        raise HubError(f"{where}: {exc}") from exc
    try:
        with quiet_datasets():
            loaded = load_dataset(dataset, config, split=split, revision=revision, token=hub.token)
    except DatasetNotFoundError as exc:
        raise HubError(f"{where}: not found on {hub.endpoint}") from exc
    except (ValueError, KeyError) as exc:
        first = (str(exc).splitlines() or [""])[0][:160]
        raise HubError(f"{where}: cannot be read ({first})") from exc
    except Exception as exc:
        mapped = hub.map_error(exc, repo_id=dataset, action=f"load the {config}")
        if mapped is None:
            raise HubError(f"{where}: cannot be read ({type(exc).__name__})") from exc
        raise HubError(f"{where}: {mapped}") from exc
    return [dict(r) for r in loaded.to_list()]


def _about(run: PublishedRun, skill: str, subpath: str) -> bool:
    """Whether ``run`` measured this skill: a run names its skill; a root skill (no subpath)
    is the repo's only one, so its runs all count."""
    return not subpath or not run.skill or run.skill == skill


def _owner(repo_id: str) -> str:
    return repo_id.split("/", 1)[0] if "/" in repo_id else (repo_id or "?")


def _evidence(
    repo_id: str,
    run: PublishedRun,
    m: MeasuredModel,
    relation: str | None,
    behind: int | None,
    source: str,
) -> ModelEvidence:
    return ModelEvidence(
        model=m.model,
        lift=m.lift,
        ci_low=m.ci_low,
        ci_high=m.ci_high,
        cases=m.cases,
        runs=m.runs,
        mode=run.mode,
        dataset=run.dataset,
        split=run.split,
        commit=run.skill_commit,
        relation=relation,
        behind=behind,
        source=source,
        verification_note=(
            "figures from the skill card's digest; not checked against the published samples"
            if source == "card"
            else None
        ),
        results_owner=_owner(run.dataset),
        skill_owner=_owner(repo_id),
    )


def skill_evidence(
    repo_id: str,
    commit: str,
    *,
    skill: str = "",
    subpath: str = "",
    hub: Hub | None = None,
    reader: EvidenceReader | None = None,
    verifier: Verifier | None = None,
) -> SkillEvidence:
    """The published lift of ``skill`` in ``repo_id`` for ``commit`` (see the module doc),
    each figure checked by ``verifier`` (none: every figure is ``reported``)."""
    reader = reader or EvidenceReader(hub or Hub(), verifier=verifier)
    return reader.evidence(repo_id, commit, skill=skill, subpath=subpath)


# -- search ------------------------------------------------------------------------------------


def listed_evidence(repo_id: str, card_data: Any) -> list[ModelEvidence]:
    """Per model, the newest published run in a listing's card data (figures from the card's
    digest; the commit it measured is named, not compared: a listing has no commit)."""
    chosen: dict[str, ModelEvidence] = {}
    for run in reversed(runs_from_card_data(card_data)):
        for m in run.models:
            if m.model not in chosen:
                chosen[m.model] = _evidence(repo_id, run, m, None, None, "card")
    return list(chosen.values())


def rank_by_lift(
    items: Sequence[tuple[Any, list[ModelEvidence]]], model: str
) -> list[tuple[Any, ModelEvidence | None]]:
    """``items`` (anything, with its evidence) ranked by measured lift on ``model``: highest
    lift first (ties: higher lower bound), then those without a figure for it, in their order."""
    measured = [
        (item, e) for item, ev in items for e in ev if e.model == model and e.lift is not None
    ]
    measured.sort(key=lambda pair: (-(pair[1].lift or 0.0), -(pair[1].ci_low or -2.0)))
    ids = {id(item) for item, _ in measured}
    rest: list[tuple[Any, ModelEvidence | None]] = [(i, None) for i, _ in items if id(i) not in ids]
    return [*measured, *rest]
