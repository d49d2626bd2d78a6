"""Signed skills: OpenSSF model signing (``model-signing``) over exactly a skill's files.

A signed skill carries ``skill.oms.sig`` beside its SKILL.md: a sigstore bundle whose DSSE
payload lists every other file of the skill folder with its sha256. ``push --sign`` writes it over
the staged (uploaded) files; ``pull``/``install``/``update`` check it on the staged download,
before anything is installed, against trusted public keys (``--trusted-key``, a keys file,
``UPSKILL_HUB_TRUSTED_KEYS``) or CA certificates (``--trusted-ca``) for certificate signing; the
lock records the signer (key fingerprint and public key, or certificate fingerprint, subject and
CA) so ``verify`` can re-check the installed copy and a later update must have the same signer.

The signed files include ``skill.oms.statement.json`` (:class:`SkillStatement`): the repo id,
skill name, a version that grows with every signed push, and the signing time, so a signature
binds the skill's identity and version, not only its bytes (TUF's mix-and-match and rollback
attacks). ``pull`` refuses signed files whose statement names another repo or skill, and a signed
version older than the locked one unless ``allow_downgrade``; a signature without a statement
(made before it existed) is verified and reported as "identity not bound", and refused as a
downgrade once the lock recorded a bound version.

Keys are elliptic-curve keys in PEM (P-256/384/521, what model-signing accepts); keys and CAs
are read in :mod:`.keys`. ``model_signing`` (the ``sign`` extra) is imported only when a
signature is made or checked. Sigstore keyless signing (it needs the network) is not offered.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from upskill_hub.errors import Param, SignatureError, UsageError
from upskill_hub.registry.project.lock import hash_tree
from upskill_hub.registry.trust.keys import (
    KEY_PASSWORD_ENV,
    TRUSTED_KEYS_ENV,
    TrustedCA,
    TrustedKey,
    ca_from_pem,
    certificate_identity,
    generate_key_pair,
    key_fingerprint,
    load_trusted_cas,
    load_trusted_keys,
    public_key_of,
)

__all__ = [
    "SIGNATURE_FILE",
    "SignatureInfo",
    "Signer",
    "SigningKey",
    "TrustPolicy",
    "check_fetched",
    "describe",
    "generate_key_pair",
    "load_trusted_cas",
    "load_trusted_keys",
    "prepare_upload",
    "sign_skill",
    "verify_skill",
]

#: The detached signature beside SKILL.md (the name NVIDIA's verified skills use).
SIGNATURE_FILE = "skill.oms.sig"
#: The signed statement of what the signature is for (repo, skill, version, time).
STATEMENT_FILE = "skill.oms.statement.json"
STATEMENT_TYPE = "upskill-hub/skill-statement/v1"
#: A bundle larger than this is not a skill signature.
MAX_SIGNATURE_BYTES = 1 << 20
MAX_STATEMENT_BYTES = 1 << 14
#: The largest statement version: what upskill-hub.lock's ``signature.version`` holds (16 digits).
MAX_STATEMENT_VERSION = 10**16 - 1

_HEX64 = re.compile(r"[0-9a-f]{64}")
_SHOWN = 5


@dataclass(frozen=True)
class SigningKey:
    """What ``push --sign`` signs with: a PEM EC private key, and for certificate signing its
    certificate and the intermediate certificates up to (not including) the root."""

    private_key: Path
    certificate: Path | None = None
    chain: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Signer:
    """Who signed a skill, as the lock records it: ``method`` ``key`` (``fingerprint`` of the
    public key) or ``certificate`` (``fingerprint`` of the certificate, its subject, the CA)."""

    method: str
    fingerprint: str
    public_key: str = ""
    subject: str = ""
    ca: str = ""

    def to_dict(self) -> dict[str, str]:
        if self.method == "key":
            return {"method": "key", "signer": self.fingerprint, "public_key": self.public_key}
        return {
            "method": "certificate",
            "signer": self.fingerprint,
            "subject": self.subject,
            "ca": self.ca,
        }

    @classmethod
    def from_dict(cls, data: dict[str, str]) -> Signer:
        """The lock's ``signature`` entry (already checked by ``read_lock``)."""
        if data["method"] == "key":
            return cls("key", data["signer"], public_key=data["public_key"])
        return cls("certificate", data["signer"], subject=data["subject"], ca=data["ca"])

    @property
    def who(self) -> str:
        return self.fingerprint if self.method == "key" else f"{self.subject} ({self.fingerprint})"


@dataclass(frozen=True)
class TrustPolicy:
    """What a command accepts: ``require`` refuses unsigned skills; ``keys`` may sign, and so
    may certificates issued by ``cas``."""

    keys: tuple[TrustedKey, ...] = ()
    require: bool = False
    cas: tuple[TrustedCA, ...] = ()
    #: accept a signed version older than the locked one (a deliberate rollback)
    allow_downgrade: bool = False

    def with_key(self, signer: Signer | None) -> TrustPolicy:
        """This policy plus a locked signer's key or CA, required (updates stay with it).

        Only for a policy that trusts nobody yet (the lock is then the one record of who signed):
        a lock never adds to keys or CAs the user gave (see :func:`check_fetched`).
        """
        if signer is None:
            return self
        if signer.method == "certificate":
            ca = ca_from_pem(signer.ca, "upskill-hub.lock")
            known = {c.fingerprint for c in self.cas}
            cas = self.cas if ca.fingerprint in known else (*self.cas, ca)
            return replace(self, require=True, cas=cas)
        known = {k.fingerprint for k in self.keys}
        extra = () if signer.fingerprint in known else (_locked_key(signer),)
        return replace(self, keys=self.keys + extra, require=True)

    @property
    def trusts_anyone(self) -> bool:
        return bool(self.keys or self.cas)

    def trusts(self, signer: Signer) -> bool:
        """Whether ``signer`` (e.g. one a lock records) is one of this policy's keys, or a
        certificate issued by one of its CAs."""
        if signer.method == "key":
            return signer.fingerprint in {k.fingerprint for k in self.keys}
        ca = ca_from_pem(signer.ca, "upskill-hub.lock")
        return ca.fingerprint in {c.fingerprint for c in self.cas}


@dataclass(frozen=True)
class SignatureInfo:
    """What a skill's signature claims and whether it holds (for ``info``; nothing refused)."""

    present: bool
    key_hint: str = ""
    signed_files: tuple[str, ...] = ()
    changes: tuple[str, ...] = ()
    verified_by: str = ""
    problem: str = ""
    #: what the signed statement says it is for, or that there is none ("identity not bound")
    statement: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "signed": self.present,
            "key": self.key_hint,
            "signed_files": list(self.signed_files),
            "changed_since_signing": list(self.changes),
            "verified_by": self.verified_by or None,
            "problem": self.problem or None,
            "statement": self.statement or None,
        }


@dataclass(frozen=True)
class SkillStatement:
    """What a signature is for, signed with the files (``skill.oms.statement.json``): the Hub
    repo and skill it was pushed as, a version one higher than the repo's previous signed
    version, and when it was signed (UTC)."""

    repo_id: str
    skill: str
    version: int
    signed_at: str

    def to_bytes(self) -> bytes:
        data = {
            "_type": STATEMENT_TYPE,
            "repo_id": self.repo_id,
            "skill": self.skill,
            "version": self.version,
            "signed_at": self.signed_at,
        }
        return (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8")

    @classmethod
    def read(cls, folder: Path, where: str) -> SkillStatement | None:
        """The statement in ``folder`` (None when it has none); SignatureError when unreadable."""
        path = Path(folder) / STATEMENT_FILE
        if not path.is_file():
            return None
        try:
            with open(path, "rb") as fh:
                raw = fh.read(MAX_STATEMENT_BYTES + 1)
            if len(raw) > MAX_STATEMENT_BYTES:
                raise ValueError("larger than 16 KiB")
            data = json.loads(raw)
            if not isinstance(data, dict) or data.get("_type") != STATEMENT_TYPE:
                raise ValueError(f"_type is not {STATEMENT_TYPE}")
            repo_id, skill = data["repo_id"], data["skill"]
            version, signed_at = data["version"], data["signed_at"]
            if not all(isinstance(v, str) for v in (repo_id, skill, signed_at)):
                raise ValueError("repo_id, skill and signed_at must be strings")
            if not isinstance(version, int) or isinstance(version, bool):
                raise ValueError("version must be a whole number")
            if not 1 <= version <= MAX_STATEMENT_VERSION:
                raise ValueError(f"version must be from 1 to {MAX_STATEMENT_VERSION}")
        except (OSError, ValueError, KeyError) as exc:
            raise SignatureError(
                f"{where}: {STATEMENT_FILE} is not a readable statement ({exc})"
            ) from None
        return cls(repo_id, skill, version, signed_at)

    @property
    def who(self) -> str:
        return f"{_printable(self.repo_id)} (skill {_printable(self.skill)}, v{self.version})"

    def names(self, repo_id: str, skill: str) -> bool:
        """Whether this statement is for ``repo_id`` (Hub ids ignore case) and ``skill``."""
        return self.repo_id.casefold() == repo_id.casefold() and self.skill == skill


def _locked_key(signer: Signer) -> TrustedKey:
    return TrustedKey(signer.fingerprint, signer.public_key, "upskill-hub.lock")


# -- signing ------------------------------------------------------------------------------------


def _hashing_config() -> Any:
    """Every file but the signature, git files included (a skill's ``.gitignore`` is content)."""
    from model_signing import hashing

    return hashing.Config().set_ignored_paths(paths=[SIGNATURE_FILE], ignore_git_paths=False)


def _model_signing() -> Any:
    try:
        import model_signing.signing
        import model_signing.verifying
    except ImportError as exc:
        raise UsageError(
            f"signing needs the 'sign' extra: pip install 'upskill-hub[sign]' ({exc})"
        ) from None
    return model_signing


def sign_skill(folder: Path, private_key: Path | SigningKey) -> Signer:
    """Sign every file under ``folder`` into ``folder/skill.oms.sig`` (replacing one there).

    ``folder`` is the staged copy that will be uploaded, so the signature covers exactly the
    uploaded files. An encrypted key reads its password from ``$UPSKILL_HUB_SIGNING_KEY_PASSWORD``.
    """
    key = private_key if isinstance(private_key, SigningKey) else SigningKey(Path(private_key))
    public = public_key_of(key.private_key)
    ms = _model_signing()
    config = ms.signing.Config().set_hashing_config(_hashing_config())
    if key.certificate is None:
        password = os.environ.get(KEY_PASSWORD_ENV)
        # model-signing 1.1 hands the password to cryptography as is, which wants bytes
        secret: Any = password.encode() if password else None
        config.use_elliptic_key_signer(private_key=key.private_key, password=secret)
        signer = Signer("key", key_fingerprint(public), public_key=public)
    else:
        signer = _certificate_signer(config, key)
    target = Path(folder) / SIGNATURE_FILE
    target.unlink(missing_ok=True)
    config.sign(Path(folder), target)
    return signer


def _certificate_signer(config: Any, key: SigningKey) -> Signer:
    """Configure certificate signing; the signer as far as it is known before a CA checks it."""
    assert key.certificate is not None
    try:
        own = load_trusted_cas([key.certificate], use_env=False)[0]  # the first is the key's
        config.use_certificate_signer(
            private_key=key.private_key,
            signing_certificate=key.certificate,
            # model-signing 1.1 cannot load an empty chain; the certificate itself stands in
            # (verification trusts only the CAs given to it, never certificates in the bundle)
            certificate_chain=list(key.chain) or [key.certificate],
        )
    except ValueError as exc:  # the certificate is not the private key's
        raise UsageError(f"{key.certificate}: {exc}") from None
    except TypeError:  # model-signing takes no password for certificate signing
        raise UsageError(
            f"{key.private_key}: certificate signing needs an unencrypted private key"
        ) from None
    except OSError as exc:
        raise UsageError(f"{exc.filename}: cannot read it: {exc.strerror}") from None
    return Signer("certificate", own.fingerprint, subject=own.subject)


# -- reading and verifying ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Bundle:
    key_hint: str
    files: dict[str, str]
    certificate: bytes | None = None  # DER of the signing certificate, when certificate-signed
    keyless: bool = False  # a sigstore (Fulcio certificate + transparency log) bundle


def _read_bundle(folder: Path, where: str) -> _Bundle:
    """The key hint and signed file digests of ``folder/skill.oms.sig`` (not yet verified)."""
    path = Path(folder) / SIGNATURE_FILE
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_SIGNATURE_BYTES + 1)
        if len(raw) > MAX_SIGNATURE_BYTES:
            raise ValueError("larger than 1 MiB")
        bundle = json.loads(raw)
        envelope = bundle["dsseEnvelope"]
        statement = json.loads(base64.b64decode(envelope["payload"], validate=True))
        predicate = statement["predicate"]
        serialization = predicate["serialization"]
        resources = predicate["resources"]
        material = bundle.get("verificationMaterial", {})
        hint = material.get("publicKey", {}).get("hint", "")
        chain = material.get("x509CertificateChain", {}).get("certificates", [])
        certificate = base64.b64decode(chain[0]["rawBytes"], validate=True) if chain else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError, binascii.Error) as exc:
        raise SignatureError(
            f"{where}: {SIGNATURE_FILE} is not a readable signature ({exc})"
        ) from None
    if serialization.get("method") != "files" or serialization.get("hash_type") != "sha256":
        raise SignatureError(f"{where}: {SIGNATURE_FILE} is not a per-file sha256 signature")
    ignored = serialization.get("ignore_paths") or []
    if any(p != SIGNATURE_FILE for p in ignored):
        raise SignatureError(
            f"{where}: {SIGNATURE_FILE} leaves files out of the signature "
            f"({', '.join(str(p) for p in ignored if p != SIGNATURE_FILE)}); refusing it"
        )
    files: dict[str, str] = {}
    for item in resources if isinstance(resources, list) else []:
        name, digest = item.get("name"), item.get("digest")
        if isinstance(name, str) and isinstance(digest, str) and _HEX64.fullmatch(digest):
            files[name] = digest
    if not files:
        raise SignatureError(f"{where}: {SIGNATURE_FILE} lists no signed files")
    keyless = "certificate" in material  # sigstore's short-lived certificate, not a chain
    hint = hint if isinstance(hint, str) and _HEX64.fullmatch(hint) else ""
    return _Bundle(hint, files, certificate, keyless)


def changes_since_signing(folder: Path, signed: dict[str, str]) -> list[str]:
    """``<file> (added|removed|changed)`` for every file that differs from the signed list."""
    current = {k: v for k, v in hash_tree(Path(folder)).items() if k != SIGNATURE_FILE}
    out = [f"{_printable(rel)} (removed)" for rel in signed if rel not in current]
    for rel, digest in current.items():
        if rel not in signed:
            out.append(f"{_printable(rel)} (added)")
        elif signed[rel] != digest:
            out.append(f"{_printable(rel)} (changed)")
    return sorted(out)


def _printable(text: str) -> str:
    """Names from a signature (not yet trusted) with invisible characters escaped."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)


def _listed(items: Sequence[str]) -> str:
    more = f" (+{len(items) - _SHOWN} more)" if len(items) > _SHOWN else ""
    return ", ".join(items[:_SHOWN]) + more


def verify_skill(folder: Path, trust: TrustPolicy, *, where: str = "") -> Signer:
    """Check ``folder/skill.oms.sig`` against ``trust`` and the files in ``folder``.

    Returns the signer. Raises :class:`SignatureError` (``kind`` unsigned, untrusted, mismatch
    or invalid) naming every file added, removed or changed since signing.
    """
    folder = Path(os.path.realpath(folder))
    where = where or str(folder)
    if not (folder / SIGNATURE_FILE).is_file():
        raise SignatureError(f"{where}: not signed (no {SIGNATURE_FILE})", kind="unsigned")
    bundle = _read_bundle(folder, where)
    changed = changes_since_signing(folder, bundle.files)
    if bundle.certificate is not None:
        return _verify_certificate(folder, bundle, changed, trust.cas, where)
    if bundle.keyless:
        raise SignatureError(
            f"{where}: signed with sigstore (keyless), which upskill-hub does not verify; "
            "ask for a key- or certificate-signed version",
            kind="untrusted",
        )
    claimed = f"sha256:{bundle.key_hint}" if bundle.key_hint else ""
    key = next((k for k in trust.keys if k.fingerprint == claimed), None)
    if key is None:
        trusted = ", ".join(k.fingerprint[:19] for k in trust.keys) or "none given"
        raise SignatureError(
            f"{where}: signed by key {claimed or '(unnamed)'}, which is not a trusted key "
            f"(trusted: {trusted})",
            kind="untrusted",
        )
    _refuse_changes(changed, key.fingerprint[:19], where)
    try:
        _model_signing_verify(folder, key.pem, "key")
    except SignatureError as exc:
        raise SignatureError(
            f"{where}: the signature does not verify with trusted key {key.fingerprint[:19]} "
            f"({exc})",
            kind="invalid",
        ) from None
    return Signer("key", key.fingerprint, public_key=key.pem)


def _refuse_changes(changed: list[str], who: str, where: str) -> None:
    if changed:
        raise SignatureError(
            f"{where}: files differ from what {who} signed: {_listed(changed)}",
            kind="mismatch",
            files=changed,
        )


def _verify_certificate(
    folder: Path, bundle: _Bundle, changed: list[str], cas: Sequence[TrustedCA], where: str
) -> Signer:
    """A certificate-signed bundle: the certificate must chain to one of ``cas``."""
    assert bundle.certificate is not None
    try:
        ident = certificate_identity(bundle.certificate)
    except ValueError as exc:
        raise SignatureError(f"{where}: unreadable signing certificate ({exc})") from None
    who = f"certificate {_printable(ident.subject)} ({ident.fingerprint[:19]})"
    if not cas:
        raise SignatureError(
            f"{where}: signed with {who}, and no CA is trusted (",
            Param("trusted_ca"),
            ")",
            kind="untrusted",
        )
    _refuse_changes(changed, who, where)
    reasons: list[str] = []
    for ca in cas:
        try:
            _model_signing_verify(folder, ca.pem, "certificate")
        except SignatureError as exc:
            reasons.append(str(exc))
            continue
        return Signer("certificate", ident.fingerprint, subject=ident.subject, ca=ca.pem)
    names = ", ".join(ca.subject for ca in cas)
    raise SignatureError(
        f"{where}: signed with {who}, which does not verify against a trusted CA ({names}): "
        f"{reasons[-1]}",
        kind="untrusted",
    )


def _model_signing_verify(folder: Path, pem: str, method: str) -> None:
    """The cryptographic check by model-signing (which re-hashes the folder itself): with a
    public key, or a CA certificate the signing certificate must chain to."""
    ms = _model_signing()
    with tempfile.TemporaryDirectory(prefix="upskill-trust-") as tmp:
        trusted = Path(tmp) / "trusted.pem"
        trusted.write_text(pem, encoding="utf-8")
        config = ms.verifying.Config().set_hashing_config(_hashing_config())
        if method == "key":
            config.use_elliptic_key_verifier(public_key=trusted)
        else:
            config.use_certificate_verifier(certificate_chain=[trusted])
        try:
            config.verify(folder, folder / SIGNATURE_FILE)
        except Exception as exc:  # model-signing raises ValueError, InvalidSignature, ...
            reason = " ".join(str(exc).split())[:200] or type(exc).__name__
            raise SignatureError(reason) from None


def check_staged(folder: Path, policy: TrustPolicy | None, *, where: str) -> Signer | None:
    """The signer of a staged download under ``policy``, before it is installed.

    With ``require`` an unsigned or unverifiable skill is a SignatureError. Without it a
    signature is checked only when trusted keys or CAs were given.
    """
    if policy is None or (not policy.require and not policy.trusts_anyone):
        return None
    if not policy.require and not (Path(folder) / SIGNATURE_FILE).is_file():
        return None
    require_trust_roots(policy)
    return verify_skill(folder, policy, where=where)


def require_trust_roots(policy: TrustPolicy | None) -> None:
    """``require`` needs keys or CAs the user gave; a key recorded in a lock is not one (a lock
    arrives by pull request)."""
    if policy is not None and policy.require and not policy.trusts_anyone:
        raise UsageError(
            Param("require_signature"),
            " needs a trusted key: ",
            Param("trusted_key", "PUB"),
            ", ",
            Param("trusted_keys", "FILE"),
            f", {TRUSTED_KEYS_ENV} or ",
            Param("trusted_ca", "CERT"),
            " (a signer recorded in the lock is not trusted on its own)",
        )


def refuse_widening(pinned: Signer, policy: TrustPolicy | None, where: str) -> None:
    """A lock may pin a signer, never add one: when the user gave keys or CAs, the locked
    signer must be among them (SignatureError, kind ``untrusted``)."""
    if policy is None or not policy.trusts_anyone or policy.trusts(pinned):
        return
    raise SignatureError(
        f"{where}: upskill-hub.lock records the signer {pinned.who}, which is not one of your "
        "trusted keys or CAs; a lock can only narrow trust, never widen it (trust that signer "
        "with ",
        Param("trusted_key", "PUB"),
        "/",
        Param("trusted_ca", "CERT"),
        " if you mean to)",
        kind="untrusted",
    )


def describe(
    folder: Path,
    trust: TrustPolicy | None = None,
    *,
    where: str = "",
    repo_id: str = "",
    skill: str = "",
) -> SignatureInfo:
    """What ``folder``'s signature says and whether it holds against ``trust`` (never raises
    for a bad signature: ``info`` shows it); a statement naming another repo than ``repo_id``
    (or skill than ``skill``) is a problem."""
    if not (Path(folder) / SIGNATURE_FILE).is_file():
        return SignatureInfo(present=False)
    try:
        bundle = _read_bundle(Path(folder), where or str(folder))
    except SignatureError as exc:
        return SignatureInfo(present=True, problem=str(exc))
    changed = tuple(changes_since_signing(Path(folder), bundle.files))
    claimed = "sigstore (keyless)" if bundle.keyless else f"sha256:{bundle.key_hint}"
    if bundle.certificate is not None:
        try:
            ident = certificate_identity(bundle.certificate)
            claimed = f"certificate {_printable(ident.subject)} ({ident.fingerprint})"
        except ValueError:
            claimed = "an unreadable certificate"
    info = SignatureInfo(True, claimed, tuple(sorted(bundle.files)), changed)
    try:
        statement = SkillStatement.read(Path(folder), where or str(folder))
    except SignatureError as exc:
        return replace(info, problem=str(exc))
    if statement is None:
        info = replace(info, statement=f"identity not bound (no {STATEMENT_FILE})")
    else:
        signed = _printable(statement.signed_at)
        info = replace(info, statement=f"for {statement.who}, signed {signed}")
        if repo_id and not statement.names(repo_id, skill):
            problem = f"signed for {statement.who}, not for this repo; pull refuses it"
            return replace(info, problem=problem)
    if trust is None or not trust.trusts_anyone:
        return info
    try:
        signer = verify_skill(Path(folder), trust, where=where or str(folder))
    except SignatureError as exc:
        return replace(info, problem=str(exc))
    return replace(info, verified_by=signer.who)


def stale_signature(folder: Path) -> list[str]:
    """Files differing from a signature already in ``folder`` (empty when none or it matches);
    push refuses to upload a signature that no longer covers the files."""
    if not (Path(folder) / SIGNATURE_FILE).is_file():
        return []
    try:
        bundle = _read_bundle(Path(folder), str(folder))
    except SignatureError as exc:
        return [str(exc)]
    return changes_since_signing(Path(folder), bundle.files)


def prepare_upload(
    staged: Path,
    files: Sequence[str],
    private_key: Path | SigningKey | None,
    *,
    where: str,
    statement: SkillStatement | None = None,
) -> tuple[list[str], Signer | None]:
    """The files ``push`` uploads from ``staged`` and who signed them.

    With ``private_key`` the staged files are signed (the signature joins the upload), with
    ``statement`` written among them first so it is signed too; without, a signature already in
    the folder must still cover every file, or push refuses.
    """
    if private_key is None:
        stale = stale_signature(staged)
        if stale:
            raise SignatureError(
                f"{where}: {SIGNATURE_FILE} no longer matches the skill's files "
                f"({_listed(stale)}); sign again with push ",
                Param("sign", "KEY"),
                ", or delete it",
                kind="mismatch",
                files=stale,
            )
        return list(files), None
    key = private_key if isinstance(private_key, SigningKey) else SigningKey(Path(private_key))
    _refuse_uploading_the_key(staged, files, key.private_key, where)
    extra = {SIGNATURE_FILE}
    if statement is not None:
        (Path(staged) / STATEMENT_FILE).write_bytes(statement.to_bytes())
        extra.add(STATEMENT_FILE)
    signer = sign_skill(staged, key)
    return sorted({*files, *extra}), signer


def next_version(previous: Path | None, where: str) -> int:
    """The version a new signed push gets: one more than the statement ``previous`` (a file
    downloaded from the repo as ``where``; None: 1). An unreadable statement, or one at
    :data:`MAX_STATEMENT_VERSION`, stops the push (SignatureError): anyone with write access can
    put it there, and a version guessed from it would be too low (a downgrade to everyone who
    installed the skill) or one no lock can hold."""
    if previous is None:
        return 1
    try:
        found = SkillStatement.read(previous.parent, where)
        if found is not None and found.version >= MAX_STATEMENT_VERSION:
            raise SignatureError(f"{where}: version {found.version} has no successor")
    except SignatureError as exc:
        raise SignatureError(
            f"{exc}; it was not written by a signed push, refusing to guess the next signed "
            "version (delete it from the repo if you mean to start again at 1)"
        ) from None
    return 1 if found is None else found.version + 1


def _refuse_uploading_the_key(staged: Path, files: Sequence[str], key: Path, where: str) -> None:
    """A private key kept inside the skill folder would be published with it: refuse."""
    try:
        secret = key.read_bytes()
    except OSError:
        return  # sign_skill names the unreadable key
    for rel in files:
        path = staged / rel
        if path.stat().st_size == len(secret) and path.read_bytes() == secret:
            raise UsageError(
                f"{where}: {rel} is the signing key and would be uploaded; keep the private "
                "key outside the skill folder"
            )


def check_fetched(
    folder: Path,
    policy: TrustPolicy | None,
    locked: dict[str, str] | None,
    *,
    where: str,
    repo_id: str = "",
    skill: str = "",
) -> tuple[dict[str, str] | None, str | None]:
    """The lock's ``signature`` for a staged download, and a warning; SignatureError refuses.

    A skill locked with a signer stays with it: the new files must be signed by that key or
    by a trusted one, and a signer the lock records must be one the user trusts when the user
    gave keys or CAs (a lock narrows trust, never widens it). Without ``require``, a signature
    by a key nobody trusts is reported (a warning) and not recorded; one by a trusted key that
    does not match the files is refused. A verified signature's statement must name
    ``repo_id`` and ``skill``, and its version must not be older than the locked one
    (:func:`check_statement`).
    """
    pinned = Signer.from_dict(locked) if locked else None
    require_trust_roots(policy)
    if pinned is not None:
        refuse_widening(pinned, policy, where)
    # the locked signer is added only to a policy with no keys or CAs (it is already in any other)
    effective = (policy or TrustPolicy()).with_key(pinned)
    try:
        signer = check_staged(folder, effective, where=where)
    except SignatureError as exc:
        if pinned is not None and not (policy and policy.require):
            raise SignatureError(
                f"{exc} (the lock records this skill as signed by {pinned.who}; trust the new "
                "signer with ",
                Param("trusted_key", "PUB"),
                "/",
                Param("trusted_ca", "CERT"),
                ", or `upskill-hub remove` it first)",
                kind=exc.kind,
                files=exc.files,
            ) from None
        if effective.require or exc.kind != "untrusted":
            raise
        return None, f"{exc}; not recorded as signed"
    if signer is None:
        return None, None
    asked = policy or TrustPolicy()
    recorded, warning = check_statement(
        folder,
        locked,
        where=where,
        repo_id=repo_id,
        skill=skill,
        require=asked.require,
        allow_downgrade=asked.allow_downgrade,
    )
    return {**signer.to_dict(), **recorded}, warning


def check_statement(
    folder: Path,
    locked: dict[str, str] | None,
    *,
    where: str,
    repo_id: str,
    skill: str,
    require: bool = False,
    allow_downgrade: bool = False,
) -> tuple[dict[str, str], str | None]:
    """The verified statement of ``folder`` against where it was fetched from and the lock:
    what the lock records of it (``version``, ``signed_at``) and a warning.

    Refused (SignatureError): a statement naming another repo or skill (signed files copied
    elsewhere); a version older than the locked one, or no statement where the lock recorded
    a version, unless ``allow_downgrade``. A signature without a statement (made before
    statements existed) binds no identity: refused under ``require`` (the user asked for a
    signature, and one that any repo could carry does not prove what it was asked to), else
    a warning, "identity not bound".
    """
    statement = SkillStatement.read(folder, where)
    locked_version = _locked_version(locked)
    if statement is None:
        if locked_version is not None and not allow_downgrade:
            raise SignatureError(
                f"{where}: signed without a statement ({STATEMENT_FILE}), but the lock records "
                f"signed version {locked_version}; an older signature is a rollback (pass ",
                Param("allow_downgrade"),
                " to accept it)",
                kind="downgrade",
            )
        if require:
            raise SignatureError(
                f"{where}: identity not bound: the signature covers the files but not the repo "
                f"or version (no {STATEMENT_FILE}; signed before upskill-hub added it); ask for "
                "it to be signed again with push ",
                Param("sign", "KEY"),
                ", or install without ",
                Param("require_signature"),
                kind="unbound",
            )
        return {}, (
            f"{where}: identity not bound: the signature covers the files but not the repo or "
            f"version (no {STATEMENT_FILE}; signed before upskill-hub added it); re-sign with push"
        )
    if repo_id and not statement.names(repo_id, skill):
        raise SignatureError(
            f"{where}: signed for {statement.who}, not for {_printable(repo_id)} (skill "
            f"{_printable(skill)}); signed files copied to another repo are refused",
            kind="identity",
        )
    older = locked_version is not None and statement.version < locked_version
    if older and not allow_downgrade:
        raise SignatureError(
            f"{where}: signed version {statement.version} ({_printable(statement.signed_at)}) "
            f"is older than the locked version {locked_version}; refusing a rollback (pass ",
            Param("allow_downgrade"),
            " to accept it)",
            kind="downgrade",
        )
    return {"version": str(statement.version), "signed_at": statement.signed_at}, None


def _locked_version(locked: dict[str, str] | None) -> int | None:
    value = (locked or {}).get("version")
    return int(value) if value is not None and value.isdigit() else None
