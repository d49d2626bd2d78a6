"""``update``: move locked skills to the current commit of their ref, refusing a move whose
published lift fails :mod:`~upskill_hub.registry.evidence.gate` when ``require_lift`` is given.
Fetching, installing and the report it returns are :mod:`.pull`'s."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from upskill_hub.errors import LocalModificationsError, Param, UsageError
from upskill_hub.hub.client import COMMIT_RE, Hub
from upskill_hub.registry.evidence.gate import refusal
from upskill_hub.registry.evidence.read import EvidenceReader, ResultsSignatureCheck
from upskill_hub.registry.evidence.verification import Verifier
from upskill_hub.registry.fetch import fetch_skills
from upskill_hub.registry.project.lock import locked_project, read_lock, refuse_outside_project
from upskill_hub.registry.project.pull import InstalledSkill, InstallReport, _install, _signatures
from upskill_hub.registry.project.state import (
    DEFAULT_REF,
    locked_skills,
    project_root_for,
    skill_state,
)
from upskill_hub.registry.trust.signing import TrustPolicy


def update(
    names: Sequence[str] = (),
    *,
    force: bool = False,
    allow_unsafe: bool = False,
    project_root: Path | None = None,
    hub: Hub | None = None,
    require_lift: bool = False,
    model: str | None = None,
    trust: TrustPolicy | None = None,
    global_: bool = False,
    require_signed_results: bool = False,
    results_signatures: ResultsSignatureCheck | None = None,
    accept_reported: bool = False,
    verifier: Verifier | None = None,
) -> InstallReport:
    """Move the named skills (all when none) to the current commit of their ref.

    Edited skills are never touched without ``force``: a named one is an error, and with no
    names they are reported as skipped. With ``require_lift`` a skill moves only when the new
    commit's published lift (on ``model``, else every model the lock recorded) passes
    :mod:`~upskill_hub.registry.evidence.gate`, counting only figures ``verifier`` verified
    (also ``reported`` ones with ``accept_reported``); the others are skipped with the reason.
    Locked folders outside the project (user folders) are refused (LockError) unless ``global_``.
    With ``require_signed_results`` only figures ``measured_by`` a trusted key count: the
    reader checks them with ``results_signatures`` (the front end builds it from the trusted
    keys, :func:`upskill_hub.publish.results_signing.results_signature_check`).
    """
    if model and not require_lift:
        raise UsageError(Param("model"), " applies only with ", Param("require_lift"))
    if require_signed_results and not require_lift:
        raise UsageError(
            Param("require_signed_results"), " applies only with ", Param("require_lift")
        )
    if require_signed_results and results_signatures is None:
        raise UsageError(
            Param("require_signed_results"),
            " needs a trusted key: ",
            Param("trusted_key", "PUB"),
            ", ",
            Param("trusted_keys", "FILE"),
            " or UPSKILL_HUB_TRUSTED_KEYS",
        )
    if accept_reported and not require_lift:
        raise UsageError(Param("accept_reported"), " applies only with ", Param("require_lift"))
    root = project_root_for(project_root)
    with locked_project(root):
        return _update(
            root,
            names,
            force=force,
            allow_unsafe=allow_unsafe,
            hub=hub or Hub(),
            require_lift=require_lift,
            model=model,
            trust=trust,
            global_=global_,
            require_signed_results=require_signed_results,
            results_signatures=results_signatures,
            accept_reported=accept_reported,
            verifier=verifier,
        )


def _update(
    root: Path,
    names: Sequence[str],
    *,
    force: bool,
    allow_unsafe: bool,
    hub: Hub,
    require_lift: bool = False,
    model: str | None = None,
    trust: TrustPolicy | None = None,
    global_: bool = False,
    require_signed_results: bool = False,
    results_signatures: ResultsSignatureCheck | None = None,
    accept_reported: bool = False,
    verifier: Verifier | None = None,
) -> InstallReport:
    """:func:`update` with the project lock held."""
    lock = read_lock(root)
    chosen = locked_skills(lock, names)
    refuse_outside_project(chosen, root, global_=global_, action="update")
    report: list[InstalledSkill] = []
    reader = EvidenceReader(hub, signatures=results_signatures, verifier=verifier)
    for locked in chosen:
        state = skill_state(root, locked)
        if state.modified and not force:
            files = ", ".join(f for f in state.differing_files() if "(missing)" not in f)
            if names:
                raise LocalModificationsError(
                    f"skill '{locked.name}' was modified locally: {files}; use ", Param("force")
                )
            report.append(
                InstalledSkill(
                    locked.name,
                    locked.repo_id,
                    locked.ref,
                    locked.commit,
                    "skipped",
                    list(locked.targets),
                    detail=(
                        f"modified locally: {files}; `upskill-hub update {locked.name} --force` "
                        "overwrites the edits"
                    ),
                )
            )
            continue
        ref = locked.ref or DEFAULT_REF
        current = locked.commit if COMMIT_RE.fullmatch(ref) else hub.resolve(locked.repo_id, ref)
        if current == locked.commit and state.clean:
            report.append(InstalledSkill.unchanged(locked))
            continue
        found = None
        if current != locked.commit:
            found = reader.evidence(
                locked.repo_id, current, skill=locked.name, subpath=locked.subpath
            )
            reason = (
                refusal(
                    locked,
                    found,
                    model,
                    reader,
                    require_signed_results,
                    accept_reported=accept_reported,
                )
                if require_lift
                else None
            )
            if reason is not None:
                skipped = InstalledSkill.unchanged(locked)
                report.append(replace(skipped, status="skipped", detail=reason, evidence=found))
                continue
        [fetched] = fetch_skills(
            f"{locked.repo_id}@{current}", [locked.name], hub=hub, allow_unsafe=allow_unsafe
        )
        [fetched], signed = _signatures([fetched], trust, lock)
        dirs = [p.parent for p in locked.target_paths(root)]
        report.append(
            _install(
                root,
                lock,
                fetched,
                dirs,
                explicit=True,
                force=force,
                ref=locked.ref,
                evidence=found,
                signature=signed[fetched.name],
            )
        )
    return InstallReport(root, report)
