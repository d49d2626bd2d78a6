"""Keys and certificates for signed skills: make a key pair, read trusted public keys and CA
certificates, name a key or certificate by its fingerprint.

A key's fingerprint is ``sha256:`` + the sha256 of its canonical PEM SubjectPublicKeyInfo (the
hint model-signing writes into a key-signed bundle); a certificate's is ``sha256:`` + the sha256
of its DER bytes. ``cryptography`` (the ``sign`` extra) is imported only when a key is read.
Private keys are read from their file and never copied, printed or logged.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from upskill_hub.atomic_io import atomic_write_bytes
from upskill_hub.errors import UsageError

#: Files (PEM public keys, one or several each) trusted to sign, separated by ``os.pathsep``.
TRUSTED_KEYS_ENV = "UPSKILL_HUB_TRUSTED_KEYS"
#: Files of CA certificates whose certificates may sign skills, separated by ``os.pathsep``.
TRUSTED_CAS_ENV = "UPSKILL_HUB_TRUSTED_CAS"
#: Password of an encrypted signing key (read only when the key needs one; never printed).
KEY_PASSWORD_ENV = "UPSKILL_HUB_SIGNING_KEY_PASSWORD"

_PEM_PUBLIC = re.compile(
    rb"-----BEGIN PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END PUBLIC KEY-----"
)
_PEM_CERT = re.compile(
    rb"-----BEGIN CERTIFICATE-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END CERTIFICATE-----"
)


@dataclass(frozen=True)
class TrustedKey:
    """A public key allowed to sign skills: its fingerprint, PEM and the file it came from."""

    fingerprint: str
    pem: str
    source: str


def canonical_public_key(pem: str | bytes) -> str:
    """A PEM public key as model-signing hashes it (SubjectPublicKeyInfo, PEM, ``\\n`` line
    ends); ValueError when ``pem`` is not an EC public key."""
    serialization, ec = crypto()

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
    serialization, ec = crypto()

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
    keys: dict[str, TrustedKey] = {}
    for source, data in _trust_files(paths, TRUSTED_KEYS_ENV if use_env else None, "trusted key"):
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


def _trust_files(
    paths: Iterable[Path | str], env_var: str | None, what: str
) -> Iterator[tuple[Path, bytes]]:
    """Each file of ``paths``, then of ``$env_var`` (``os.pathsep``-separated), with its bytes;
    one it cannot read is a UsageError naming it (``what`` says what it was meant to hold)."""
    sources = [Path(p) for p in paths]
    env = os.environ.get(env_var, "") if env_var else ""
    sources += [Path(p) for p in env.split(os.pathsep) if p.strip()]
    for source in sources:
        try:
            data = source.read_bytes()
        except OSError as exc:
            raise UsageError(f"{source}: cannot read {what} file: {exc.strerror}") from None
        yield source, data


def crypto() -> tuple[Any, Any]:
    """``cryptography``'s serialization and ec modules (installed with the ``sign`` extra)."""
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec
    except ImportError as exc:
        raise UsageError(
            f"signing needs the 'sign' extra: pip install 'upskill-hub[sign]' ({exc})"
        ) from None
    return serialization, ec


def public_key_of(private_key: Path) -> str:
    """The PEM public key of a private key file; SignatureError naming only the file."""
    serialization, ec = crypto()

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


@dataclass(frozen=True)
class TrustedCA:
    """A CA certificate whose certificates may sign skills: fingerprint, subject, PEM, file."""

    fingerprint: str
    subject: str
    pem: str
    source: str


@dataclass(frozen=True)
class CertificateIdentity:
    """The signing certificate of a bundle: its fingerprint and subject."""

    fingerprint: str
    subject: str


def certificate_fingerprint(der: bytes) -> str:
    return "sha256:" + hashlib.sha256(der).hexdigest()


def certificate_identity(der: bytes) -> CertificateIdentity:
    """Fingerprint and subject (RFC 4514) of a DER certificate; ValueError when unreadable."""
    crypto()
    from cryptography import x509

    cert = x509.load_der_x509_certificate(der)
    return CertificateIdentity(certificate_fingerprint(der), cert.subject.rfc4514_string())


def load_trusted_cas(paths: Iterable[Path | str], *, use_env: bool = True) -> list[TrustedCA]:
    """The CA certificates in ``paths`` (plus ``$UPSKILL_HUB_TRUSTED_CAS`` when ``use_env``);
    PEM, one or more per file; UsageError naming a file without one."""
    cas: dict[str, TrustedCA] = {}
    for source, data in _trust_files(paths, TRUSTED_CAS_ENV if use_env else None, "certificate"):
        if not _PEM_CERT.search(data):
            raise UsageError(f"{source}: no PEM certificate (-----BEGIN CERTIFICATE-----) in it")
        for ca in _cas_in(data, str(source)):
            cas.setdefault(ca.fingerprint, ca)
    return list(cas.values())


def ca_from_pem(pem: str, source: str) -> TrustedCA:
    """The one certificate in ``pem`` (e.g. a CA recorded in the lock)."""
    found = _cas_in(pem.encode("ascii"), source)
    if not found:
        raise UsageError(f"{source}: no PEM certificate in it")
    return found[0]


def _cas_in(data: bytes, source: str) -> list[TrustedCA]:
    out: list[TrustedCA] = []
    for match in _PEM_CERT.finditer(data):
        try:
            der = base64.b64decode(b"".join(match.group(1).split()), validate=True)
            ident = certificate_identity(der)
        except (ValueError, binascii.Error) as exc:
            raise UsageError(f"{source}: not a usable certificate: {exc}") from None
        pem = match.group(0).decode("ascii") + "\n"
        out.append(TrustedCA(ident.fingerprint, ident.subject, pem, source))
    return out
