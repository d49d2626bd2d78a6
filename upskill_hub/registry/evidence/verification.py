"""How far a published figure is checked: ``verified``, ``reported`` or ``inconsistent``.

The check itself (recompute the summary from the published samples, re-grade what can be
re-graded offline) belongs to :mod:`upskill_hub.publish.verify`, which the registry may not
import. The registry states what it needs as a :class:`Verifier` protocol; an
:class:`~upskill_hub.registry.evidence.read.EvidenceReader` given one shows each model's level.
The front door (``upskill_hub.info``, ``pull``, ``update``, ``outdated``, ``skill_evidence``), the
CLI and the Space pass the real one (:mod:`upskill_hub.publish.readers`); a reader given none
shows every figure as ``reported``.

Results are cached on disk per results-dataset commit (a commit never changes, so neither does
its verdict): ``$HF_HOME/upskill-hub/verification/<namespace>/<name>/<commit>.json``, one file
per commit with one entry per split, written atomically.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from upskill_hub.atomic_io import atomic_write_text
from upskill_hub.errors import UpskillHubError
from upskill_hub.hub.client import Hub

Level = Literal["verified", "reported", "inconsistent"]
LEVELS: tuple[Level, ...] = ("verified", "reported", "inconsistent")
#: Bumped when what a cached verdict means changes; older files are ignored.
CACHE_VERSION = 1
_COMMIT_RE = re.compile(r"[0-9a-f]{40}")
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


class ModelCheck(Protocol):
    """One model's outcome of a check (``publish.verify.ModelVerification`` is one)."""

    @property
    def model(self) -> str: ...
    @property
    def verification(self) -> str: ...
    @property
    def regraded(self) -> int: ...
    @property
    def not_regradable(self) -> int: ...
    @property
    def problems(self) -> list[str]: ...


class RunCheck(Protocol):
    """The outcome of checking one published run (``publish.verify.RunVerification``)."""

    @property
    def models(self) -> Sequence[ModelCheck]: ...
    @property
    def problems(self) -> list[str]: ...
    @property
    def notes(self) -> list[str]: ...  # why a level is not higher
    @property
    def commit(self) -> str | None: ...  # the dataset commit checked


class Verifier(Protocol):
    """Checks the published run ``dataset`` (split ``split``) against its samples; raises an
    :class:`~upskill_hub.errors.UpskillHubError` when it cannot tell."""

    def __call__(self, hub: Hub, dataset: str, split: str) -> RunCheck: ...


@dataclass(frozen=True)
class Verdict:
    """What a reader shows of one model's check: the level and, unless verified, why."""

    verification: Level
    note: str | None = None
    regraded: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"verification": self.verification, "note": self.note, "regraded": self.regraded}


def verdict_of(
    check: ModelCheck, run_problems: Sequence[str] = (), run_notes: Sequence[str] = ()
) -> Verdict:
    """A model's check as a reader shows it; the run's problems and notes (those about this
    model, ``MODEL: ...``, or about none) explain a level the model's own do not (test cases
    that are not the skill's, tests that cannot be read)."""
    level = check.verification if check.verification in LEVELS else "inconsistent"
    if level == "inconsistent":
        problems = list(check.problems) or list(run_problems)
        first = problems[0] if problems else "a figure disagrees with the samples"
        more = len(problems) - 1
        tail = f" (and {more} more)" if more > 0 else ""
        return Verdict(
            "inconsistent",
            f"does not check out against its published samples and tests: {first}{tail}",
            check.regraded,
        )
    if level == "reported":
        own = f"{check.model}: "
        why = [n[len(own) :] if n.startswith(own) else n for n in run_notes]
        if not why and check.not_regradable:
            why = [f"{check.not_regradable} sample(s) graded by a judge or by compiling"]
        text = "; ".join(why) if why else "nothing in the published samples could be re-graded"
        return Verdict("reported", text, check.regraded)
    return Verdict("verified", None, check.regraded)


def verdicts_of(run: RunCheck) -> dict[str, Verdict]:
    """Per model, the verdict of one checked run (with the run's notes that name no model)."""
    prefixes = tuple(f"{m.model}: " for m in run.models)
    shared = [n for n in run.notes if not n.startswith(prefixes)]
    return {
        m.model: verdict_of(
            m, run.problems, [n for n in run.notes if n.startswith(f"{m.model}: ")] + shared
        )
        for m in run.models
    }


class VerificationCache:
    """Verdicts per results-dataset commit and split, on disk (see the module doc)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else default_cache_dir()

    def path(self, dataset: str, commit: str) -> Path | None:
        """The file for ``dataset`` at ``commit`` (None for names that are not plain ids)."""
        parts = dataset.split("/")
        if not _COMMIT_RE.fullmatch(commit) or not all(_NAME_RE.fullmatch(p) for p in parts):
            return None
        if any(p in (".", "..") for p in parts) or len(parts) > 2:
            return None
        return self.root.joinpath(*parts, f"{commit}.json")

    def _read(self, path: Path) -> dict[str, Any]:
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
            return {}
        splits = data.get("splits")
        return splits if isinstance(splits, dict) else {}

    def get(self, dataset: str, commit: str, split: str) -> dict[str, Verdict] | None:
        path = self.path(dataset, commit)
        if path is None:
            return None
        entry = self._read(path).get(split)
        if not isinstance(entry, dict):
            return None
        out: dict[str, Verdict] = {}
        for model, v in entry.items():
            if not isinstance(v, dict) or v.get("verification") not in LEVELS:
                return None
            note = v.get("note")
            regraded = v.get("regraded")
            out[str(model)] = Verdict(
                v["verification"],
                note if isinstance(note, str) else None,
                regraded if isinstance(regraded, int) else 0,
            )
        return out

    def put(self, dataset: str, commit: str, split: str, verdicts: Mapping[str, Verdict]) -> None:
        path = self.path(dataset, commit)
        if path is None:
            return
        splits = self._read(path)
        splits[split] = {m: v.to_dict() for m, v in verdicts.items()}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, json.dumps({"version": CACHE_VERSION, "splits": splits}))
        except OSError:
            pass  # a cache that cannot be written only costs the next reader a check


def default_cache_dir() -> Path:
    """``$HF_HOME/upskill-hub/verification``."""
    from huggingface_hub import constants

    return Path(constants.HF_HOME) / "upskill-hub" / "verification"


@dataclass(frozen=True)
class RunVerdicts:
    """One published run's verdicts per model, or why it could not be checked."""

    verdicts: dict[str, Verdict]
    note: str | None = None  # set when the run could not be checked at all
    cached: bool = False

    def for_model(self, model: str) -> Verdict:
        if model in self.verdicts:
            return self.verdicts[model]
        return Verdict("reported", self.note or "not covered by the check of its samples")


def check_published(
    hub: Hub, verifier: Verifier, cache: VerificationCache | None, dataset: str, split: str
) -> RunVerdicts:
    """The verdicts for one published run: from the cache when its commit was checked before,
    else by ``verifier`` (then cached). Never raises for what cannot be checked: that is a
    ``reported`` note."""
    try:
        commit = hub.head(dataset, "dataset")
    except UpskillHubError as exc:
        return RunVerdicts({}, f"could not check against the samples: {exc}")
    if commit and cache is not None:
        hit = cache.get(dataset, commit, split)
        if hit is not None:
            return RunVerdicts(hit, cached=True)
    try:
        run = verifier(hub, dataset, split)
    except UpskillHubError as exc:
        first = (str(exc).splitlines() or [""])[0]
        return RunVerdicts({}, f"could not check against the samples: {first}")
    verdicts = verdicts_of(run)
    checked = run.commit or commit  # the commit the check read, should the dataset have moved
    if checked and cache is not None:
        cache.put(dataset, checked, split, verdicts)
    return RunVerdicts(verdicts)
