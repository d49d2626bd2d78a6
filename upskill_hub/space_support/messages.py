"""Every failure as one readable sentence for the page: no traceback, no key, no token."""

from __future__ import annotations

import logging

from upskill_hub.errors import (
    InvalidSkillError,
    ProviderError,
    RepoNotFoundError,
    RevisionNotFoundError,
    UnknownModelError,
    UnsafeSkillError,
    UpskillHubError,
)
from upskill_hub.secrets import Redactor

log = logging.getLogger("upskill_hub.space")


def _provider_hint(exc: ProviderError) -> str:
    if exc.status == 401:
        return " Check the API key (or sign in again)."
    if exc.status == 403:
        return " Your key or token may not use this model."
    if exc.status == 404:
        return " Check the model name and base URL."
    if exc.status == 429:
        return " The provider is rate limiting you; wait a minute and try fewer runs."
    if exc.retryable:
        return " The provider did not answer in time; try again later."
    return ""


def describe_error(exc: BaseException, redactor: Redactor | None = None) -> str:
    """The page's message for ``exc``: what went wrong and what to do, secrets removed."""
    redactor = redactor or Redactor()
    text = " ".join(str(exc).split())
    if isinstance(exc, ProviderError):
        detail = text.rstrip(".")
        message = f"The model provider refused the request: {detail}.{_provider_hint(exc)}"
    elif isinstance(exc, UnknownModelError):
        message = f"Unknown model: {text}"
    elif isinstance(exc, (RepoNotFoundError, RevisionNotFoundError)):
        message = f"Skill not found on the Hub: {text}"
    elif isinstance(exc, UnsafeSkillError):
        message = f"The security scan refused this skill: {text}"
    elif isinstance(exc, InvalidSkillError):
        message = f"This skill is not valid: {text}"
    elif isinstance(exc, UpskillHubError):  # UsageError and the rest: already one sentence
        message = text
    elif isinstance(exc, TimeoutError):
        message = "The request timed out; try again, or fewer runs."
    else:
        message = (
            f"Unexpected error ({type(exc).__name__}). Please try again; if it persists, report it."
        )
    return redactor(message)


def log_failure(where: str, exc: BaseException, redactor: Redactor) -> None:
    """Log one redacted line (never a traceback: messages of SDK errors can quote keys)."""
    detail = redactor(" ".join(str(exc).split()))
    log.warning("%s failed: %s: %s", where, type(exc).__name__, detail)
