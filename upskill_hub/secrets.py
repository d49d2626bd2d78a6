"""The one rule for keeping secrets out of logs, run folders, datasets, cards and pages.

A secret is the value of an environment variable whose name contains ``API_KEY``, ``TOKEN``,
``SECRET`` or ``PASSWORD`` (at least 8 characters), any key given explicitly (an ``--api-key``,
a visitor's key or OAuth token; at least 4 characters), and anything shaped like an API key
(``sk-...``, ``sk-ant-...``, ``hf_...``). Every part of the tool that writes or shows text a
model, a provider or an error produced goes through :class:`Redactor` (or :func:`redact`).

A known secret of 8 or more letters and digits is also removed when it comes back disguised:
spaced out or split by up to 3 other characters between its letters (``s k - a n t``, one
character a line), reversed, base64 (standard or URL-safe, at any alignment inside a longer
base64 text), hex or URL-encoded; and so is each piece of it between ``-``, ``_`` or other
punctuation that is at least 8 characters long and mixes letters and digits or cases (a key
printed as separate words, ``sk``, ``ant``, ``api03``, ``Xy12...``).
"""

from __future__ import annotations

import base64
import functools
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

__all__ = [
    "REDACTED",
    "Redactor",
    "is_secret_name",
    "redact",
    "secret_values",
]

REDACTED = "***"
SECRET_NAME = re.compile(r"(API_KEY|TOKEN|SECRET|PASSWORD)", re.IGNORECASE)
#: Shorter environment values are too likely to occur by chance (``HF_TOKEN=short``).
MIN_ENV_SECRET = 8
#: Explicit keys are known secrets; only trivially short ones are ignored.
MIN_EXPLICIT_SECRET = 4
KEY_SHAPES = re.compile(r"\b(sk-[A-Za-z0-9_*\-]{6,}|hf_[A-Za-z0-9]{6,})")
#: Shortest secret (letters and digits) or piece of one whose disguises are removed too.
MIN_DISGUISED = 8
#: How many other characters may stand between two letters or digits of a spaced-out secret
#: (plus three for each punctuation character the secret itself has there).
_GAP = 3
_ALNUM = re.compile(r"[0-9A-Za-z]+")


def is_secret_name(name: str) -> bool:
    """True for environment variable names that hold secrets (``*_API_KEY``, ``HF_TOKEN``...)."""
    return SECRET_NAME.search(name) is not None


def secret_values(
    extra: Iterable[str | None] = (), *, environ: Mapping[str, str] | None = None
) -> list[str]:
    """Secret values: ``extra`` plus secret-named variables of ``environ`` (default
    ``os.environ``), longest first so that a secret containing another is removed whole."""
    env = os.environ if environ is None else environ
    found = {v for k, v in env.items() if is_secret_name(k) and len(v) >= MIN_ENV_SECRET}
    found |= {s for s in extra if s and len(s) >= MIN_EXPLICIT_SECRET}
    return sorted(found, key=lambda s: (-len(s), s))


def _mixed(piece: str) -> bool:
    """True for text that mixes letters and digits or cases (a key's piece, not a word)."""
    kinds = (any(c.isdigit() for c in piece), any(c.islower() for c in piece))
    return sum((*kinds, any(c.isupper() for c in piece))) >= 2


def _base64_cores(raw: bytes) -> set[str]:
    """The base64 characters that depend on ``raw`` alone, for each of the three alignments
    ``raw`` can have inside a longer encoded text (standard and URL-safe alphabets)."""
    found: set[str] = set()
    for offset, start in ((0, 0), (1, 2), (2, 3)):
        padded = b"\0" * offset + raw
        end = 4 * (len(padded) // 3) + len(padded) % 3
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            found.add(encode(padded).decode("ascii")[start:end])
    return found


def _spaced(text: str) -> str:
    """A pattern for the letters and digits of ``text`` in order, with up to :data:`_GAP` other
    characters between any two of them (more where ``text`` has punctuation: ``-`` spaced out
    is `` - ``)."""
    parts: list[str] = []
    skipped = 0
    for char in text:
        if not char.isascii() or not char.isalnum():
            skipped += 1
            continue
        if parts:
            parts.append(f"[^0-9A-Za-z]{{0,{_GAP + 3 * skipped}}}")
        parts.append(re.escape(char))
        skipped = 0
    return "".join(parts)


@functools.lru_cache(maxsize=256)
def _disguises(secret: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The encodings of ``secret`` (plain strings) and the patterns of its spaced-out,
    reversed and split forms (see the module docstring); nothing for a short secret."""
    letters = "".join(_ALNUM.findall(secret))
    if len(letters) < MIN_DISGUISED:
        return frozenset(), ()
    raw = secret.encode("utf-8")
    plain = {quote(secret, safe=""), quote_plus(secret), raw.hex(), raw.hex().upper()}
    plain |= _base64_cores(raw)
    plain = {p for p in plain if len(p) >= MIN_DISGUISED and p != secret}
    pieces = [
        p for p in _ALNUM.findall(secret) if len(p) >= MIN_DISGUISED and p != letters and _mixed(p)
    ]
    forms = [secret, *pieces]
    patterns = {_spaced(f) for f in forms} | {_spaced(f[::-1]) for f in forms}
    return frozenset(plain), tuple(sorted(patterns, key=lambda p: (-len(p), p)))


class Redactor:
    """Removes a fixed set of secrets (read once, see :func:`secret_values`), their disguises
    (see the module docstring) and key shapes."""

    def __init__(
        self, extra: Iterable[str | None] = (), *, environ: Mapping[str, str] | None = None
    ) -> None:
        self.secrets = secret_values(extra, environ=environ)
        plain: set[str] = set()
        patterns: list[str] = []
        for secret in self.secrets:
            encoded, spaced = _disguises(secret)
            plain |= encoded
            patterns += spaced
        self._plain = sorted(plain | set(self.secrets), key=lambda s: (-len(s), s))
        self._disguised = re.compile("|".join(patterns)) if patterns else None

    def __repr__(self) -> str:
        return f"Redactor({len(self.secrets)} secrets)"

    def __call__(self, text: str) -> str:
        for secret in self._plain:
            text = text.replace(secret, REDACTED)
        if self._disguised is not None:
            text = self._disguised.sub(REDACTED, text)
        return KEY_SHAPES.sub(REDACTED, text)

    def leaks(self, text: str) -> bool:
        """True when ``text`` holds one of the secrets, verbatim or disguised."""
        if any(secret in text for secret in self._plain):
            return True
        return self._disguised is not None and self._disguised.search(text) is not None

    def scrub(self, value: Any) -> Any:
        """``value`` (a string, or lists and dicts of them) with every string redacted."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, list):
            return [self.scrub(v) for v in value]
        if isinstance(value, dict):
            return {k: self.scrub(v) for k, v in value.items()}
        return value


def redact(text: str, extra: Iterable[str | None] = ()) -> str:
    """``text`` without the environment's secrets, ``extra`` and anything shaped like a key."""
    return Redactor(extra)(text)
