"""Signatures of installed skills: ``verify`` re-checks each locked signer against the installed
copies, and ``install --require-signature`` refuses copies already in place that no trusted
signer backs. The checks themselves are :func:`.signing.verify_skill`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from upskill_hub.errors import SignatureError
from upskill_hub.registry.project.lock import LockedSkill, read_lock
from upskill_hub.registry.trust.signing import (
    Signer,
    SkillStatement,
    TrustPolicy,
    refuse_widening,
    require_trust_roots,
    verify_skill,
)


def check_installed(
    root: Path, locked: LockedSkill, policy: TrustPolicy | None = None
) -> list[str]:
    """Problems with a locked skill's signature in its installed copies (empty when fine).

    An entry that recorded a signer is re-checked against that key (each installed copy, every
    file named when one was added, removed or changed); with a ``policy`` the signer must also be
    trusted, and under ``require`` an entry without a signer is a problem.
    """
    if locked.signature is None:
        return [f"{locked.name}: not signed"] if policy and policy.require else []
    signer = Signer.from_dict(locked.signature)
    problems: list[str] = []
    if policy and policy.trusts_anyone and not policy.trusts(signer):
        problems.append(f"{locked.name}: signed by {signer.who}, not a trusted key or CA")
    pinned = TrustPolicy().with_key(signer)
    seen: set[str] = set()
    for entry, path in zip(locked.targets, locked.target_paths(root), strict=True):
        real = os.path.realpath(path)
        if real in seen or not Path(real).is_dir():
            continue  # a missing copy is verify's own finding
        seen.add(real)
        try:
            found = verify_skill(Path(real), pinned, where=f"{locked.name}: {entry}")
        except SignatureError as exc:
            problems.append(str(exc))
            continue
        if found.fingerprint != signer.fingerprint:
            problems.append(f"{locked.name}: {entry}: signed by {found.who}, not {signer.who}")
        problems += _statement_problems(Path(real), locked, entry)
    return problems


def _statement_problems(folder: Path, locked: LockedSkill, entry: str) -> list[str]:
    """An installed copy's signed statement must name the locked repo and skill, and the
    version the lock recorded (the checks ``pull`` made, on the installed files)."""
    where = f"{locked.name}: {entry}"
    try:
        statement = SkillStatement.read(folder, where)
    except SignatureError as exc:
        return [str(exc)]
    recorded = (locked.signature or {}).get("version")
    if statement is None:
        return (
            [f"{where}: signed without a statement, but the lock records version {recorded}"]
            if recorded
            else []
        )
    if not statement.names(locked.repo_id, locked.name):
        return [f"{where}: signed for {statement.who}, not for {locked.repo_id}"]
    if recorded and str(statement.version) != recorded:
        return [f"{where}: signed version {statement.version}, the lock records {recorded}"]
    return []


def verify_signatures(root: Path, policy: TrustPolicy | None = None) -> dict[str, list[str]]:
    """:func:`check_installed` for every skill in the project's lock (only those with problems)."""
    require_trust_roots(policy)
    lock = read_lock(root)
    found = {name: check_installed(root, lock.skills[name], policy) for name in sorted(lock.skills)}
    return {name: problems for name, problems in found.items() if problems}


def refuse_unverified(
    root: Path, skills: Sequence[LockedSkill], policy: TrustPolicy | None
) -> None:
    """Skills already installed (nothing to download): under ``require`` their installed copies
    must hold a signature by a trusted signer; with trusted keys or CAs given, a signer the lock
    records must be one of them (a lock narrows trust, never widens it). SignatureError."""
    if policy is None or not (policy.require or policy.trusts_anyone):
        return
    require_trust_roots(policy)
    if not policy.require:
        for locked in skills:
            if locked.signature is not None:
                refuse_widening(Signer.from_dict(locked.signature), policy, locked.name)
        return
    problems = [p for locked in skills for p in check_installed(root, locked, policy)]
    if problems:
        raise SignatureError("; ".join(problems), kind="unsigned")
