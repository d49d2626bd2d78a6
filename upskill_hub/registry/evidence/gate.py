"""Compare a new commit's measured lift with the locked one's: ``outdated`` and
``update --require-lift``.

The rule, per model: the new commit must have been measured on exactly its files (same commit,
or an older commit with identical skill files), and its lift must not be lower than the
reference beyond its own 95% interval, that is, refused when ``new upper bound < reference``.
The reference is the lift the lock recorded for that model; when the lock has none, the
published lift of the locked commit itself; when that is unknown too, 0 (the new commit must
not measurably hurt). Only a ``verified`` figure counts (a ``reported`` one too with
``accept_reported``; an ``inconsistent`` one never). Which models: ``--model M`` alone;
otherwise every model the lock recorded, or, with nothing recorded, every model measured at the
new commit. With ``--require-signed-results`` the new commit's figure must also be
``measured_by`` a trusted key (its results split signed by that key, rows unchanged since, for
that dataset and split).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from upskill_hub.registry.evidence.read import EvidenceReader, ModelEvidence, SkillEvidence
from upskill_hub.registry.evidence.text import lift_text
from upskill_hub.registry.project.lock import LockedSkill


@dataclass(frozen=True)
class LiftCheck:
    """One model: the reference lift, the new commit's measurement, and the decision."""

    model: str
    reference: float  # the locked lift (or 0 when nothing is known of the locked commit)
    reference_source: str  # "lock", "published" or "none"
    new_lift: float | None
    new_ci_high: float | None
    ok: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _reference(
    model: str, locked: LockedSkill, locked_now: SkillEvidence | None
) -> tuple[float, str]:
    recorded = next((e for e in locked.evidence if e.model == model), None)
    if recorded is not None and recorded.lift is not None:
        return recorded.lift, "lock"
    published = locked_now.for_model(model) if locked_now else None
    if published is not None and published.at_this_commit and published.lift is not None:
        return published.lift, "published"
    return 0.0, "none"


def models_to_check(locked: LockedSkill, new: SkillEvidence, model: str | None) -> list[str]:
    """``model``; else the models the lock recorded; else those measured at the new commit."""
    if model:
        return [model]
    recorded = [e.model for e in locked.evidence]
    if recorded:
        return list(dict.fromkeys(recorded))
    return [m.model for m in new.models if m.at_this_commit]


def check_model(
    model: str,
    locked: LockedSkill,
    new: SkillEvidence,
    locked_now: SkillEvidence | None = None,
    require_signed: bool = False,
    *,
    accept_reported: bool = False,
) -> LiftCheck:
    """The decision for one model (see the module docstring)."""
    reference, source = _reference(model, locked, locked_now)
    measured: ModelEvidence | None = new.for_model(model)
    short = new.commit[:7]
    if measured is not None and measured.at_this_commit:
        unchecked = _unchecked(measured, short, accept_reported)
        if unchecked:
            return LiftCheck(model, reference, source, None, None, False, unchecked)
    if measured is None or not measured.at_this_commit or measured.lift is None:
        return LiftCheck(
            model,
            reference,
            source,
            None,
            None,
            False,
            f"{model}: commit {short} has no published lift (publish a run of it with "
            "`upskill-hub results push RUN --repo NS/RESULTS --update-skill-card`)",
        )
    high = measured.ci_high if measured.ci_high is not None else measured.lift
    was = _reference_text(reference, source)
    now = lift_text(measured.lift, measured.ci_low, measured.ci_high)
    if require_signed and not measured.measured_by:
        why = measured.signature_note or "results not signed"
        return LiftCheck(
            model,
            reference,
            source,
            measured.lift,
            high,
            False,
            f"{model}: lift at {short} ({now}) is not signed by a trusted key: {why}",
        )
    if high < reference:
        return LiftCheck(
            model,
            reference,
            source,
            measured.lift,
            high,
            False,
            f"{model}: lift at {short} is {now}, below {was} beyond its interval",
        )
    return LiftCheck(
        model, reference, source, measured.lift, high, True, f"{model}: {now} (was {was})"
    )


def _unchecked(measured: ModelEvidence, short: str, accept_reported: bool) -> str | None:
    """Why a figure at the new commit does not count: inconsistent, or only reported."""
    why = f" ({measured.verification_note})" if measured.verification_note else ""
    if measured.verification == "inconsistent":
        return f"{measured.model}: the published lift at {short} is inconsistent{why}"
    if measured.verification == "reported" and not accept_reported:
        return (
            f"{measured.model}: the published lift at {short} is reported, not verified{why}; "
            "--accept-reported counts it"
        )
    return None


def require_lift(
    locked: LockedSkill,
    new: SkillEvidence,
    model: str | None = None,
    locked_now: SkillEvidence | None = None,
    require_signed: bool = False,
    *,
    accept_reported: bool = False,
) -> list[LiftCheck]:
    """Every check ``update --require-lift`` makes for ``locked`` moving to ``new.commit``
    (the move is allowed when the list is non-empty and all are ok); ``require_signed``
    accepts only figures measured by a trusted key."""
    names = models_to_check(locked, new, model)
    if not names:
        return [
            LiftCheck(
                "(any)",
                0.0,
                "none",
                None,
                None,
                False,
                f"commit {new.commit[:7]} has no published lift for any model",
            )
        ]
    return [
        check_model(name, locked, new, locked_now, require_signed, accept_reported=accept_reported)
        for name in names
    ]


@dataclass(frozen=True)
class LiftComparison:
    """``outdated``: one model's locked lift next to the new commit's."""

    model: str
    locked: float | None
    new: ModelEvidence | None
    change: str  # "higher", "lower", "within interval", "not measured", "new", "inconsistent"

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "locked_lift": self.locked,
            "new": self.new.to_dict() if self.new else None,
            "change": self.change,
        }


def compare(locked: LockedSkill, new: SkillEvidence) -> list[LiftComparison]:
    """Per model recorded in the lock or measured at the new commit: how the lift compares.

    ``lower`` and ``higher`` mean beyond the new measurement's interval (the rule of
    ``update --require-lift``); ``within interval`` otherwise."""
    recorded = {e.model: e.lift for e in locked.evidence}
    names = list(dict.fromkeys([*recorded, *(m.model for m in new.models)]))
    out = []
    for name in names:
        measured = new.for_model(name)
        at_new = measured if measured is not None and measured.at_this_commit else None
        was = recorded.get(name)
        if at_new is not None and at_new.verification == "inconsistent":
            change = "inconsistent"
        elif at_new is None or at_new.lift is None:
            change = "not measured"
        elif was is None:
            change = "new"
        elif (at_new.ci_high if at_new.ci_high is not None else at_new.lift) < was:
            change = "lower"
        elif (at_new.ci_low if at_new.ci_low is not None else at_new.lift) > was:
            change = "higher"
        else:
            change = "within interval"
        out.append(LiftComparison(name, was, at_new, change))
    return out


def _reference_text(reference: float, source: str) -> str:
    if source == "none":
        return "0 (no lift known for the locked commit)"
    return f"the locked {lift_text(reference)}"


def refusal(
    locked: LockedSkill,
    found: SkillEvidence,
    model: str | None,
    reader: EvidenceReader,
    require_signed: bool = False,
    *,
    accept_reported: bool = False,
) -> str | None:
    """Why ``update --require-lift`` leaves ``locked`` where it is (None: it may move to
    ``found.commit``). The locked commit's own published lift is looked up only when the lock
    recorded none for a model checked."""
    checks = require_lift(
        locked, found, model, require_signed=require_signed, accept_reported=accept_reported
    )
    if any(c.reference_source == "none" for c in checks):
        locked_now = reader.evidence(
            locked.repo_id, locked.commit, skill=locked.name, subpath=locked.subpath
        )
        checks = require_lift(
            locked, found, model, locked_now, require_signed, accept_reported=accept_reported
        )
    failed = [c for c in checks if not c.ok]
    if not failed:
        return None
    flags = "--require-lift --require-signed-results" if require_signed else "--require-lift"
    return f"{flags}: not moved to {found.commit[:12]}: " + "; ".join(c.reason for c in failed)
