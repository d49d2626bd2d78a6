"""Signed skills: OpenSSF model signing (``model-signing``) over exactly a skill's files.

A signed skill carries ``skill.oms.sig`` beside its SKILL.md: a sigstore bundle whose DSSE
payload lists every other file of the skill folder with its sha256. ``push --sign`` writes it over
the staged (uploaded) files; ``pull``/``install``/``update`` check it on the staged download,
before anything is installed, against trusted public keys (``--trusted-key``, a keys file,
``UPSKILL_HUB_TRUSTED_KEYS``); the lock records the signer (its key fingerprint and public key)
so ``verify`` can re-check the installed copy and a later update must be signed by the same key.

Keys are elliptic-curve keys in PEM (P-256/384/521, what model-signing accepts). A key's
fingerprint is ``sha256:`` + the sha256 of its PEM SubjectPublicKeyInfo, the hint model-signing
puts in the bundle. The private key is only read from its file to sign; it is never copied,
printed or logged. ``model_signing`` (the ``sign`` extra) is imported only when a signature is
made or checked. Certificate and sigstore (keyless) signing are not offered here.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from upskill_hub.atomic_io import atomic_write_bytes
from upskill_hub.errors import SignatureError, UsageError
from upskill_hub.registry.lock import LockedSkill, hash_tree

#: The detached signature beside SKILL.md (the name NVIDIA's verified skills use).
SIGNATURE_FILE = "skill.oms.sig"
#: Files (PEM public keys, one or several each) trusted to sign, separated by ``os.pathsep``.
TRUSTED_KEYS_ENV = "UPSKILL_HUB_TRUSTED_KEYS"
#: Password of an encrypted signing key (read only when the key needs one; never printed).
KEY_PASSWORD_ENV = "UPSKILL_HUB_SIGNING_KEY_PASSWORD"
#: A bundle larger than this is not a skill signature.
MAX_SIGNATURE_BYTES = 1 << 20

_PEM_PUBLIC = re.compile(
    rb"-----BEGIN PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END PUBLIC KEY-----"
)
_HEX64 = re.compile(r"[0-9a-f]{64}")
_SHOWN = 5


@dataclass(frozen=True)
class TrustedKey:
    """A public key allowed to sign skills: its fingerprint, PEM and the file it came from."""

    fingerprint: str
    pem: str
    source: str


@dataclass(frozen=True)
class Signer:
    """Who signed a skill, as the lock records it (``method`` is ``key``)."""

    method: str
    fingerprint: str
    public_key: str

    def to_dict(self) -> dict[str, str]:
        return {"method": self.method, "signer": self.fingerprint, "public_key": self.public_key}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Signer:
        """The lock's ``signature`` entry; ValueError when malformed or inconsistent."""
        method, signer, pem = data.get("method"), data.get("signer"), data.get("public_key")
        if method != "key":
            raise ValueError(f"signature.method must be 'key', got {method!r}")
        if not isinstance(pem, str) or not isinstance(signer, str) or not pem.isascii():
            raise ValueError("signature.signer and signature.public_key must be strings")
        if key_fingerprint(pem) != signer:
            raise ValueError("signature.signer is not the fingerprint of signature.public_key")
        return cls("key", signer, pem)


@dataclass(frozen=True)
class TrustPolicy:
    """What a command accepts: ``require`` refuses unsigned skills; ``keys`` may sign."""

    keys: tuple[TrustedKey, ...] = ()
    require: bool = False

    def with_key(self, signer: Signer | None) -> TrustPolicy:
        """This policy plus a locked signer's key, required (updates stay with the signer)."""
        if signer is None:
            return self
        known = {k.fingerprint for k in self.keys}
        extra = () if signer.fingerprint in known else (_locked_key(signer),)
        return TrustPolicy(self.keys + extra, require=True)


@dataclass(frozen=True)
class SignatureInfo:
    """What a skill's signature claims and whether it holds (for ``info``; nothing refused)."""

    present: bool
    key_hint: str = ""
    signed_files: tuple[str, ...] = ()
    changes: tuple[str, ...] = ()
    verified_by: str = ""
    problem: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "signed": self.present,
            "key": self.key_hint,
            "signed_files": list(self.signed_files),
            "changed_since_signing": list(self.changes),
            "verified_by": self.verified_by or None,
            "problem": self.problem or None,
        }


# -- keys ---------------------------------------------------------------------------------------


def canonical_public_key(pem: str | bytes) -> str:
    """A PEM public key as model-signing hashes it (SubjectPublicKeyInfo, PEM, ``\\n`` line
    ends); ValueError when ``pem`` is not an EC public key."""
    serialization, ec = _crypto()

    data = pem.encode() if isinstance(pem, str) else pem
    key = serialization.load_pem_public_key(data)
    if not isinstance(key, ec.EllipticCurvePublicKey):
        raise ValueError("not an elliptic-curve public key")
    canonical = key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return canonical.decode("ascii")


def key_fingerprint(canonical_pem: str) -> str:
    """``sha256:<hex>`` of a canonical PEM public key (the hint model-signing writes)."""
    return "sha256:" + hashlib.sha256(canonical_pem.encode("ascii")).hexdigest()


def generate_key_pair(private_path: Path, public_path: Path | None = None) -> TrustedKey:
    """Write a new P-256 key pair: the private key (mode 0600) and its public key beside it.

    Refuses to overwrite either file. Returns the public key as it would be trusted.
    """
    serialization, ec = _crypto()

    private_path = Path(private_path)
    public_path = Path(public_path) if public_path else private_path.with_suffix(".pub")
    if private_path == public_path:
        raise UsageError(f"{public_path}: the public key needs its own file")
    for path in (private_path, public_path):
        if os.path.lexists(path):
            raise UsageError(f"{path}: already exists; refusing to overwrite a key")
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    private_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(private)
    atomic_write_bytes(public_path, public)
    pem = public.decode("ascii")
    return TrustedKey(key_fingerprint(pem), pem, str(public_path))


def load_trusted_keys(
    paths: Iterable[Path | str] = (), *, use_env: bool = True
) -> list[TrustedKey]:
    """The public keys in ``paths`` (plus ``$UPSKILL_HUB_TRUSTED_KEYS`` when ``use_env``).

    Each file holds one or more PEM public keys; a file without one, or a key that is not an EC
    key, is a UsageError naming the file.
    """
    sources = [Path(p) for p in paths]
    env = os.environ.get(TRUSTED_KEYS_ENV, "") if use_env else ""
    sources += [Path(p) for p in env.split(os.pathsep) if p.strip()]
    keys: dict[str, TrustedKey] = {}
    for source in sources:
        try:
            data = source.read_bytes()
        except OSError as exc:
            raise UsageError(f"{source}: cannot read trusted key file: {exc.strerror}") from None
        blocks = _PEM_PUBLIC.findall(data)
        if not blocks:
            raise UsageError(f"{source}: no PEM public key (-----BEGIN PUBLIC KEY-----) in it")
        for block in blocks:
            try:
                pem = canonical_public_key(block)
            except ValueError as exc:
                raise UsageError(f"{source}: not a usable public key: {exc}") from None
            fingerprint = key_fingerprint(pem)
            keys.setdefault(fingerprint, TrustedKey(fingerprint, pem, str(source)))
    return list(keys.values())


def _locked_key(signer: Signer) -> TrustedKey:
    return TrustedKey(signer.fingerprint, signer.public_key, "upskill-hub.lock")


# -- signing ------------------------------------------------------------------------------------


def _hashing_config() -> Any:
    """Every file but the signature, git files included (a skill's ``.gitignore`` is content)."""
    from model_signing import hashing

    return hashing.Config().set_ignored_paths(paths=[SIGNATURE_FILE], ignore_git_paths=False)


def _crypto() -> tuple[Any, Any]:
    """``cryptography``'s serialization and ec modules (installed with the ``sign`` extra)."""
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec
    except ImportError as exc:
        raise UsageError(
            f"signing needs the 'sign' extra: pip install 'upskill-hub[sign]' ({exc})"
        ) from None
    return serialization, ec


def _model_signing() -> Any:
    try:
        import model_signing.signing
        import model_signing.verifying
    except ImportError as exc:
        raise UsageError(
            f"signing needs the 'sign' extra: pip install 'upskill-hub[sign]' ({exc})"
        ) from None
    return model_signing


def sign_skill(folder: Path, private_key: Path) -> Signer:
    """Sign every file under ``folder`` into ``folder/skill.oms.sig`` (replacing one there).

    ``folder`` is the staged copy that will be uploaded, so the signature covers exactly the
    uploaded files. An encrypted key reads its password from ``$UPSKILL_HUB_SIGNING_KEY_PASSWORD``.
    """
    public = _public_key_of(Path(private_key))
    ms = _model_signing()
    password = os.environ.get(KEY_PASSWORD_ENV) or None
    config = ms.signing.Config().set_hashing_config(_hashing_config())
    config.use_elliptic_key_signer(private_key=Path(private_key), password=password)
    target = Path(folder) / SIGNATURE_FILE
    target.unlink(missing_ok=True)
    config.sign(Path(folder), target)
    return Signer("key", key_fingerprint(public), public)


def _public_key_of(private_key: Path) -> str:
    """The PEM public key of a private key file; SignatureError naming only the file."""
    serialization, ec = _crypto()

    try:
        data = private_key.read_bytes()
    except OSError as exc:
        raise UsageError(f"{private_key}: cannot read the signing key: {exc.strerror}") from None
    password = os.environ.get(KEY_PASSWORD_ENV)
    try:
        key = serialization.load_pem_private_key(data, password.encode() if password else None)
    except TypeError:
        raise UsageError(
            f"{private_key}: the key is encrypted; set {KEY_PASSWORD_ENV} to its password"
        ) from None
    except ValueError:
        raise UsageError(
            f"{private_key}: not a PEM private key (or the password in {KEY_PASSWORD_ENV} is "
            "wrong); make one with `upskill-hub keygen`"
        ) from None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name not in (
        "secp256r1",
        "secp384r1",
        "secp521r1",
    ):
        raise UsageError(f"{private_key}: signing needs an EC P-256/384/521 private key")
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return public.decode()


# -- reading and verifying ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Bundle:
    key_hint: str
    files: dict[str, str]


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
        hint = bundle.get("verificationMaterial", {}).get("publicKey", {}).get("hint", "")
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
    return _Bundle(hint if isinstance(hint, str) else "", files)


def changes_since_signing(folder: Path, signed: dict[str, str]) -> list[str]:
    """``<file> (added|removed|changed)`` for every file that differs from the signed list."""
    current = {k: v for k, v in hash_tree(Path(folder)).items() if k != SIGNATURE_FILE}
    out = [f"{rel} (removed)" for rel in signed if rel not in current]
    for rel, digest in current.items():
        if rel not in signed:
            out.append(f"{rel} (added)")
        elif signed[rel] != digest:
            out.append(f"{rel} (changed)")
    return sorted(out)


def _listed(items: Sequence[str]) -> str:
    more = f" (+{len(items) - _SHOWN} more)" if len(items) > _SHOWN else ""
    return ", ".join(items[:_SHOWN]) + more


def verify_skill(folder: Path, keys: Sequence[TrustedKey], *, where: str = "") -> Signer:
    """Check ``folder/skill.oms.sig`` against ``keys`` and the files in ``folder``.

    Returns the signer. Raises :class:`SignatureError` (``kind`` unsigned, untrusted or
    mismatch) naming every file added, removed or changed since signing.
    """
    folder = Path(os.path.realpath(folder))
    where = where or str(folder)
    if not (folder / SIGNATURE_FILE).is_file():
        raise SignatureError(f"{where}: not signed (no {SIGNATURE_FILE})", kind="unsigned")
    bundle = _read_bundle(folder, where)
    changed = changes_since_signing(folder, bundle.files)
    claimed = f"sha256:{bundle.key_hint}" if bundle.key_hint else ""
    key = next((k for k in keys if k.fingerprint == claimed), None)
    if key is None:
        trusted = ", ".join(k.fingerprint[:19] for k in keys) or "none given"
        raise SignatureError(
            f"{where}: signed by key {claimed or '(unnamed)'}, which is not a trusted key "
            f"(trusted: {trusted})",
            kind="untrusted",
        )
    if changed:
        raise SignatureError(
            f"{where}: files differ from what {key.fingerprint[:19]} signed: {_listed(changed)}",
            kind="mismatch",
            files=changed,
        )
    _verify_with(folder, key, where)
    return Signer("key", key.fingerprint, key.pem)


def _verify_with(folder: Path, key: TrustedKey, where: str) -> None:
    """The cryptographic check, by model-signing (which re-hashes the folder itself)."""
    ms = _model_signing()
    with tempfile.TemporaryDirectory(prefix="upskill-key-") as tmp:
        pub = Path(tmp) / "key.pub"
        pub.write_text(key.pem, encoding="utf-8")
        config = ms.verifying.Config().set_hashing_config(_hashing_config())
        config.use_elliptic_key_verifier(public_key=pub)
        try:
            config.verify(folder, folder / SIGNATURE_FILE)
        except Exception as exc:  # model-signing raises ValueError, InvalidSignature, ...
            reason = " ".join(str(exc).split())[:200] or type(exc).__name__
            raise SignatureError(
                f"{where}: the signature does not verify with trusted key "
                f"{key.fingerprint[:19]} ({reason})",
                kind="invalid",
            ) from None


def check_staged(folder: Path, policy: TrustPolicy | None, *, where: str) -> Signer | None:
    """The signer of a staged download under ``policy``, before it is installed.

    With ``require`` an unsigned or unverifiable skill is a SignatureError. Without it a
    signature is checked only when trusted keys were given; a signature that does not verify is
    refused all the same (a skill that claims a signer it cannot back is not installed).
    """
    if policy is None or (not policy.require and not policy.keys):
        return None
    if not policy.require and not (Path(folder) / SIGNATURE_FILE).is_file():
        return None
    if policy.require and not policy.keys:
        raise UsageError(
            "--require-signature needs a trusted key: --trusted-key PUB, --trusted-keys FILE "
            f"or {TRUSTED_KEYS_ENV}"
        )
    return verify_skill(folder, policy.keys, where=where)


def describe(folder: Path, keys: Sequence[TrustedKey] = (), *, where: str = "") -> SignatureInfo:
    """What ``folder``'s signature says and whether it holds against ``keys`` (never raises
    for a bad signature: ``info`` shows it)."""
    if not (Path(folder) / SIGNATURE_FILE).is_file():
        return SignatureInfo(present=False)
    try:
        bundle = _read_bundle(Path(folder), where or str(folder))
    except SignatureError as exc:
        return SignatureInfo(present=True, problem=str(exc))
    changed = tuple(changes_since_signing(Path(folder), bundle.files))
    info = SignatureInfo(True, f"sha256:{bundle.key_hint}", tuple(sorted(bundle.files)), changed)
    if not keys:
        return info
    try:
        signer = verify_skill(Path(folder), keys, where=where or str(folder))
    except SignatureError as exc:
        return replace(info, problem=str(exc))
    return replace(info, verified_by=signer.fingerprint)


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
    staged: Path, files: Sequence[str], private_key: Path | None, *, where: str
) -> tuple[list[str], Signer | None]:
    """The files ``push`` uploads from ``staged`` and who signed them.

    With ``private_key`` the staged files are signed (the signature joins the upload); without,
    a signature already in the folder must still cover every file, or push refuses.
    """
    if private_key is None:
        stale = stale_signature(staged)
        if stale:
            raise SignatureError(
                f"{where}: {SIGNATURE_FILE} no longer matches the skill's files "
                f"({_listed(stale)}); sign again with push --sign KEY, or delete it",
                kind="mismatch",
                files=stale,
            )
        return list(files), None
    signer = sign_skill(staged, private_key)
    return sorted({*files, SIGNATURE_FILE}), signer


def check_fetched(
    folder: Path,
    policy: TrustPolicy | None,
    locked: dict[str, str] | None,
    *,
    where: str,
) -> tuple[dict[str, str] | None, str | None]:
    """The lock's ``signature`` for a staged download, and a warning; SignatureError refuses.

    A skill locked with a signer stays with it: the new files must be signed by that key or
    by a trusted one. Without ``require``, a signature by a key nobody trusts is reported (a
    warning) and not recorded; one by a trusted key that does not match the files is refused.
    """
    effective = (policy or TrustPolicy()).with_key(Signer.from_dict(locked) if locked else None)
    try:
        signer = check_staged(folder, effective, where=where)
    except SignatureError as exc:
        if effective.require or exc.kind != "untrusted":
            raise
        return None, f"{exc}; not recorded as signed"
    return (signer.to_dict() if signer else None), None


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
    if policy and policy.keys and signer.fingerprint not in {k.fingerprint for k in policy.keys}:
        problems.append(f"{locked.name}: signed by {signer.fingerprint}, not a trusted key")
    seen: set[str] = set()
    for entry, path in zip(locked.targets, locked.target_paths(root), strict=True):
        real = os.path.realpath(path)
        if real in seen or not Path(real).is_dir():
            continue  # a missing copy is verify's own finding
        seen.add(real)
        try:
            verify_skill(Path(real), [_locked_key(signer)], where=f"{locked.name}: {entry}")
        except SignatureError as exc:
            problems.append(str(exc))
    return problems


def verify_signatures(root: Path, policy: TrustPolicy | None = None) -> dict[str, list[str]]:
    """:func:`check_installed` for every skill in the project's lock (only those with problems)."""
    from upskill_hub.registry.lock import read_lock

    lock = read_lock(root)
    found = {name: check_installed(root, lock.skills[name], policy) for name in sorted(lock.skills)}
    return {name: problems for name, problems in found.items() if problems}
