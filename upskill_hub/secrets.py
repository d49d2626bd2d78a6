"""The one rule for keeping secrets out of logs, run folders, datasets, cards and pages.

A secret is the value of an environment variable whose name contains ``API_KEY``, ``TOKEN``,
``SECRET`` or ``PASSWORD`` (at least 8 characters), any key given explicitly (an ``--api-key``,
a visitor's key or OAuth token; at least 4 characters), and anything shaped like an API key
(``sk-...``, ``sk-ant-...``, ``hf_...``). Every part of the tool that writes or shows text a
model, a provider or an error produced goes through :class:`Redactor` (or :func:`redact`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

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


class Redactor:
    """Removes a fixed set of secrets (read once, see :func:`secret_values`) and key shapes."""

    def __init__(
        self, extra: Iterable[str | None] = (), *, environ: Mapping[str, str] | None = None
    ) -> None:
        self.secrets = secret_values(extra, environ=environ)

    def __repr__(self) -> str:
        return f"Redactor({len(self.secrets)} secrets)"

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return KEY_SHAPES.sub(REDACTED, text)

    def leaks(self, text: str) -> bool:
        """True when ``text`` holds one of the secrets verbatim."""
        return any(secret in text for secret in self.secrets)

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
