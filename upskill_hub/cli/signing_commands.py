"""Signing on the command line: ``keygen``, and the trust options ``pull``, ``install``,
``update``, ``verify`` and ``info`` share (``--require-signature``, ``--trusted-key``,
``--trusted-keys``). The logic is in :mod:`upskill_hub.registry.trust.signing`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from upskill_hub.cli.output import OutputFormat, console, print_json, safe

if TYPE_CHECKING:
    from upskill_hub.registry.evidence.read import ResultsSignatureCheck
    from upskill_hub.registry.trust.signing import SigningKey, TrustPolicy

TRUSTED_KEYS_ENV = "UPSKILL_HUB_TRUSTED_KEYS"  # trust.signing.TRUSTED_KEYS_ENV, for help text

REQUIRE_SIGNATURE_OPTION = typer.Option(
    False,
    "--require-signature",
    help="Refuse a skill that is not signed by a trusted key or whose files differ from what "
    "was signed; checked before anything is installed.",
)
TRUSTED_KEY_OPTION = typer.Option(
    [],
    "--trusted-key",
    metavar="PUB",
    help="A PEM public key trusted to sign skills and published results (repeatable; also "
    f"${TRUSTED_KEYS_ENV}).",
)
TRUSTED_KEYS_OPTION = typer.Option(
    None,
    "--trusted-keys",
    metavar="FILE",
    help="A file of PEM public keys trusted to sign skills and published results (one or "
    "more keys).",
)
TRUSTED_CA_OPTION = typer.Option(
    [],
    "--trusted-ca",
    metavar="CERT",
    help="A PEM CA certificate: skills signed with a certificate it issued are trusted "
    "(repeatable; also $UPSKILL_HUB_TRUSTED_CAS).",
)
SIGN_CERTIFICATE_OPTION = typer.Option(
    None,
    "--sign-certificate",
    metavar="CERT",
    help="With --sign: sign with this PEM certificate of the key (certificate signing).",
)
CERTIFICATE_CHAIN_OPTION = typer.Option(
    [],
    "--certificate-chain",
    metavar="CERT",
    help="With --sign-certificate: intermediate CA certificates to include (repeatable).",
)
ALLOW_DOWNGRADE_OPTION = typer.Option(
    False,
    "--allow-downgrade",
    help="Accept a signed version older than the locked one (a deliberate rollback); refused "
    "by default.",
)
SIGN_OPTION = typer.Option(
    None,
    "--sign",
    metavar="KEY",
    help="Sign the uploaded files with this PEM EC private key (OpenSSF model signing); the "
    "signature is uploaded as skill.oms.sig beside SKILL.md. The key never leaves the machine.",
)


def trust_policy(
    require: bool,
    keys: list[Path] | None,
    keys_file: Path | None,
    cas: list[Path] | None = None,
    allow_downgrade: bool = False,
) -> TrustPolicy:
    """The trust the options, ``$UPSKILL_HUB_TRUSTED_KEYS`` and ``$UPSKILL_HUB_TRUSTED_CAS``
    give."""
    from upskill_hub.registry.trust.signing import TrustPolicy, load_trusted_cas, load_trusted_keys

    paths = [*(keys or []), *([keys_file] if keys_file else [])]
    return TrustPolicy(
        tuple(load_trusted_keys(paths)),
        require=require,
        cas=tuple(load_trusted_cas(cas or [])),
        allow_downgrade=allow_downgrade,
    )


def results_signatures(policy: TrustPolicy) -> ResultsSignatureCheck | None:
    """The check of signed results an evidence reader is handed: None unless ``policy`` trusts
    a key or CA (without one, nobody can be said to have measured a figure)."""
    if not policy.trusts_anyone:
        return None
    from upskill_hub.hub.client import Hub
    from upskill_hub.publish.results_signing import results_signature_check

    return results_signature_check(Hub(), policy)


def signing_key(
    key: Path | None, certificate: Path | None, chain: list[Path] | None
) -> SigningKey | None:
    """What ``push`` signs with; UsageError for a certificate without a key."""
    from upskill_hub.errors import UsageError
    from upskill_hub.registry.trust.signing import SigningKey

    if key is None:
        if certificate is not None or chain:
            raise UsageError("--sign-certificate and --certificate-chain need --sign KEY")
        return None
    return SigningKey(key, certificate, tuple(chain or []))


def keygen(
    private_key: Path = typer.Argument(..., help="Where to write the private key (mode 0600)."),
    public_key: Path = typer.Option(
        None, "--public", help="Where to write the public key (default: PRIVATE_KEY with .pub)."
    ),
    output_format: OutputFormat = typer.Option(
        OutputFormat.text, "--format", help="Output format: text or json."
    ),
) -> None:
    """Make a P-256 key pair for push --sign; share the .pub with whoever installs your skills.

    Never overwrites a file. Keep the private key out of the skill folder and out of git.
    """
    from upskill_hub.registry.trust.signing import generate_key_pair

    made = generate_key_pair(private_key, public_key)
    if output_format is OutputFormat.json:
        print_json(
            {"private_key": str(private_key), "public_key": made.source, "key": made.fingerprint}
        )
        return
    out = console()
    out.print(f"private key {safe(private_key)} (keep it secret; mode 0600)")
    out.print(f"public key  {safe(made.source)}")
    out.print(f"key         {made.fingerprint}")


def register(app: typer.Typer) -> None:
    app.command()(keygen)
