"""Signed results: who published a run, bound to exactly the rows a reader reads.

``results push --sign KEY`` signs one published split of a results dataset with OpenSSF model
signing, the machinery signed skills use (:mod:`upskill_hub.registry.trust.signing`). What is
signed is the run as a reader reads it back from the Hub at the pushed commit, staged as files:

- ``summary.jsonl`` and ``samples.jsonl``: the split's rows of the ``summary`` and ``samples``
  configs, in their published order, one canonical JSON object per line (sorted keys, no
  spaces, UTF-8);
- ``tests.json``: the published ``tests/<split>.json``, byte for byte (when the run has one);
- ``statement.json`` (:class:`ResultsStatement`): the dataset repo id, the split, the skill repo
  and commit the run measured, the run id and the signing time.

The detached signature (a sigstore bundle listing each staged file's sha256) is uploaded as
``signatures/<split>.oms.sig`` and the statement as ``signatures/<split>.statement.json``.
:func:`verify_results_signature` rebuilds the same files from what the dataset serves now
(the summary rows the caller shows, when it passes them) and checks them against the trusted
keys or CAs of a :class:`~upskill_hub.registry.trust.signing.TrustPolicy`: rows rewritten after
signing, a statement naming another dataset or split, or a key nobody trusts are each a
:class:`~upskill_hub.errors.SignatureError`.

A valid signature proves who published these rows, for this dataset and split, and that they
have not changed since; it does not prove that the named model produced the outputs, nor that
the signer ran the eval honestly.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from upskill_hub.errors import HubError, SignatureError
from upskill_hub.registry.evidence.read import load_split_rows
from upskill_hub.registry.trust.signing import (
    SIGNATURE_FILE,
    SigningKey,
    TrustPolicy,
    sign_skill,
    verify_skill,
)
from upskill_hub.registry.trust.signing import _printable as printable

if TYPE_CHECKING:
    from upskill_hub.hub.client import Hub

SAMPLES_CONFIG = "samples"
SUMMARY_CONFIG = "summary"
STATEMENT_TYPE = "upskill-hub/results-statement/v1"
#: The staged files a results signature covers (``tests.json`` only when published).
SUMMARY_FILE = "summary.jsonl"
SAMPLES_FILE = "samples.jsonl"
TESTS_FILE = "tests.json"
STATEMENT_FILE = "statement.json"
MAX_STATEMENT_BYTES = 1 << 14

__all__ = [
    "ResultsStatement",
    "SignedResults",
    "results_signature_check",
    "sign_results",
    "signature_path",
    "statement_path",
    "verify_results_signature",
]


def signature_path(split: str) -> str:
    """Where a split's signature lives in the dataset repo."""
    return f"signatures/{split}.oms.sig"


def statement_path(split: str) -> str:
    """Where a split's signed statement lives in the dataset repo."""
    return f"signatures/{split}.statement.json"


def _tests_path(split: str) -> str:
    from upskill_hub.publish.dataset_card import tests_path

    return tests_path(split)


@dataclass(frozen=True)
class ResultsStatement:
    """What a results signature is for: the dataset and split it was published as, the skill
    repo and commit the run measured, the run id, and when it was signed (UTC)."""

    dataset: str
    split: str
    skill_repo: str
    skill_commit: str
    run_id: str
    signed_at: str

    def to_bytes(self) -> bytes:
        data = {"_type": STATEMENT_TYPE, **asdict(self)}
        return (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8")

    @classmethod
    def from_bytes(cls, raw: bytes, where: str) -> ResultsStatement:
        """The statement in ``raw``; SignatureError naming ``where`` when unreadable."""
        try:
            if len(raw) > MAX_STATEMENT_BYTES:
                raise ValueError("larger than 16 KiB")
            data = json.loads(raw)
            if not isinstance(data, dict) or data.get("_type") != STATEMENT_TYPE:
                raise ValueError(f"_type is not {STATEMENT_TYPE}")
            fields = ("dataset", "split", "skill_repo", "skill_commit", "run_id", "signed_at")
            values = [data.get(f) for f in fields]
            strings = [v for v in values if isinstance(v, str)]
            if len(strings) != len(fields):
                raise ValueError(f"{', '.join(fields)} must be strings")
        except ValueError as exc:
            raise SignatureError(f"{where}: not a readable results statement ({exc})") from None
        return cls(*strings)

    def names(self, dataset: str, split: str) -> bool:
        """Whether this statement is for ``dataset`` (Hub ids ignore case) and ``split``."""
        return self.dataset.casefold() == dataset.casefold() and self.split == split

    @property
    def who(self) -> str:
        return f"{printable(self.dataset)} (split {printable(self.split)})"


@dataclass(frozen=True)
class SignedResults:
    """A signed split: who signed it, what for, and the dataset commit holding the signature."""

    signer: str
    statement: ResultsStatement
    commit: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "signed_by": self.signer,
            "signature": signature_path(self.statement.split),
            "statement": asdict(self.statement),
            "commit": self.commit,
        }


def canonical_rows(rows: Sequence[dict[str, Any]]) -> bytes:
    """Rows as signed: one JSON object per line, sorted keys, no spaces, UTF-8."""
    lines = (
        json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
        for row in rows
    )
    return "".join(lines).encode("utf-8")


def _where(dataset: str, split: str) -> str:
    return f"results dataset {dataset} (split {split})"


def _stage(
    folder: Path,
    summary: Sequence[dict[str, Any]],
    samples: Sequence[dict[str, Any]],
    tests: bytes | None,
    statement: bytes | None,
) -> None:
    (folder / SUMMARY_FILE).write_bytes(canonical_rows(summary))
    (folder / SAMPLES_FILE).write_bytes(canonical_rows(samples))
    if tests is not None:
        (folder / TESTS_FILE).write_bytes(tests)
    if statement is not None:
        (folder / STATEMENT_FILE).write_bytes(statement)


def _optional_file(
    hub: Hub, dataset: str, path: str, commit: str, listed: set[str]
) -> bytes | None:
    if path not in listed:
        return None
    return hub.download_file(dataset, path, commit, "dataset").read_bytes()


def sign_results(
    hub: Hub,
    dataset: str,
    split: str,
    key: Path | SigningKey,
    *,
    revision: str | None = None,
) -> SignedResults:
    """Sign the split ``split`` of ``dataset`` as it reads at ``revision`` (default: the
    head) with ``key`` and upload the signature and statement (see the module doc)."""
    commit = revision or hub.head(dataset, "dataset")
    if commit is None:
        raise HubError(f"{_where(dataset, split)}: the Hub returned no commit for the dataset")
    summary = load_split_rows(hub, dataset, SUMMARY_CONFIG, split, commit)
    samples = load_split_rows(hub, dataset, SAMPLES_CONFIG, split, commit)
    listed = {f.path for f in hub.list_files(dataset, commit, "dataset")}
    tests = _optional_file(hub, dataset, _tests_path(split), commit, listed)
    first = summary[0] if summary else {}
    statement = ResultsStatement(
        dataset=dataset,
        split=split,
        skill_repo=str(first.get("skill_repo") or ""),
        skill_commit=str(first.get("skill_commit") or ""),
        run_id=str(first.get("run_id") or ""),
        signed_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    with tempfile.TemporaryDirectory(prefix="upskill-results-sign-") as tmp:
        folder = Path(tmp)
        _stage(folder, summary, samples, tests, statement.to_bytes())
        signer = sign_skill(folder, key)
        bundle = (folder / SIGNATURE_FILE).read_bytes()
    from huggingface_hub import CommitOperationAdd

    ops = [
        CommitOperationAdd(signature_path(split), bundle),
        CommitOperationAdd(statement_path(split), statement.to_bytes()),
    ]
    info = hub.create_commit(
        dataset, ops, message=f"Sign {split}", repo_type="dataset", parent_commit=commit
    )
    return SignedResults(signer.who, statement, str(info.oid))


def verify_results_signature(
    hub: Hub,
    dataset: str,
    split: str,
    policy: TrustPolicy,
    *,
    summary_rows: Sequence[dict[str, Any]] | None = None,
) -> str | None:
    """Who signed the split ``split`` of ``dataset``: the trusted signer's identity (a key's
    fingerprint, or a certificate's subject and fingerprint) when a key or CA of ``policy``
    signed exactly these rows for this dataset and split; None when the split is unsigned.

    ``summary_rows`` are the summary rows the caller reads (and shows); without them they are
    loaded. A signature that does not hold is a :class:`SignatureError` whose ``kind`` says
    why: ``untrusted`` (no key or CA of ``policy`` signed it), ``mismatch`` (rows or files
    changed since signing; ``files`` names them), ``identity`` (signed for another dataset or
    split), ``invalid`` (unreadable, or the cryptographic check fails).
    """
    where = _where(dataset, split)
    commit = hub.head(dataset, "dataset")
    if commit is None:
        raise HubError(f"{where}: the Hub returned no commit for the dataset")
    listed = {f.path for f in hub.list_files(dataset, commit, "dataset")}
    if signature_path(split) not in listed:
        return None
    bundle = hub.download_file(dataset, signature_path(split), commit, "dataset").read_bytes()
    statement_raw = _optional_file(hub, dataset, statement_path(split), commit, listed)
    if statement_raw is None:
        raise SignatureError(
            f"{where}: {signature_path(split)} has no {statement_path(split)} beside it; the "
            "signature binds no dataset or split",
            kind="identity",
        )
    summary = (
        list(summary_rows)
        if summary_rows is not None
        else load_split_rows(hub, dataset, SUMMARY_CONFIG, split, commit)
    )
    samples = load_split_rows(hub, dataset, SAMPLES_CONFIG, split, commit)
    tests = _optional_file(hub, dataset, _tests_path(split), commit, listed)
    with tempfile.TemporaryDirectory(prefix="upskill-results-verify-") as tmp:
        folder = Path(tmp)
        _stage(folder, summary, samples, tests, statement_raw)
        (folder / SIGNATURE_FILE).write_bytes(bundle)
        try:
            signer = verify_skill(folder, policy, where=where)
        except SignatureError as exc:
            raise _explained(exc, where, split) from None
    statement = ResultsStatement.from_bytes(statement_raw, f"{where}: {statement_path(split)}")
    if not statement.names(dataset, split):
        raise SignatureError(
            f"{where}: signed for {statement.who}, not for this dataset and split; a signature "
            "copied from another run is refused",
            kind="identity",
        )
    return signer.who


def _explained(exc: SignatureError, where: str, split: str) -> SignatureError:
    """``verify_skill``'s refusal in the words of a results signature."""
    if exc.kind == "untrusted":
        detail = str(exc).split(": ", 1)[-1]
        key = re.match(r"signed by key (\S+), which is not a trusted key", detail)
        return SignatureError(
            f"{where}: signed by an untrusted key "
            + (key.group(1) if key else f"({detail})")
            + "; not counted as measured by anyone",
            kind="untrusted",
            files=exc.files,
        )
    if exc.kind == "mismatch":
        changed = ", ".join(exc.files) or "files"
        return SignatureError(
            f"{where}: the signature in {signature_path(split)} no longer matches the published "
            f"run ({changed}); rows were rewritten after signing",
            kind="mismatch",
            files=exc.files,
        )
    message = str(exc).replace(SIGNATURE_FILE, signature_path(split))
    return SignatureError(message, kind=exc.kind, files=exc.files)


def results_signature_check(
    hub: Hub, policy: TrustPolicy
) -> Callable[[str, str, Sequence[dict[str, Any]]], str | None]:
    """The check an evidence reader is handed (it may not import this package):
    ``(dataset, split, summary_rows) -> signer or None``, raising SignatureError."""

    def check(dataset: str, split: str, rows: Sequence[dict[str, Any]]) -> str | None:
        return verify_results_signature(hub, dataset, split, policy, summary_rows=rows)

    return check
