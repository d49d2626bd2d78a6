"""What must never be published: secret values from the environment and key-shaped strings.

Everything publish uploads (dataset rows, the dataset card, the skill card section) goes
through :func:`scrub` first. The runner already redacts errors and assertion reasons; model
outputs are taken verbatim, so this is the last line before the Hub.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from upskill_hub.evaluation.providers.http_errors import redact

REDACTED = "***"
_SECRET_ENV = re.compile(r"(API_KEY|TOKEN|SECRET|PASSWORD)", re.IGNORECASE)
_MIN_SECRET_LEN = 8


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of secret-looking environment variables (``*_API_KEY``, ``*TOKEN*``...), longest
    first so that a secret containing another is removed whole."""
    env = os.environ if environ is None else environ
    found = {v for k, v in env.items() if _SECRET_ENV.search(k) and len(v) >= _MIN_SECRET_LEN}
    return sorted(found, key=len, reverse=True)


def scrub(value: Any, secrets: list[str]) -> Any:
    """``value`` (a string, or lists and dicts of them) with every secret replaced."""
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return redact(value, None)
    if isinstance(value, list):
        return [scrub(v, secrets) for v in value]
    if isinstance(value, dict):
        return {k: scrub(v, secrets) for k, v in value.items()}
    return value
