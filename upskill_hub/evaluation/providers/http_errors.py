"""Turn HTTP API failures into :class:`ProviderError`, the same way for every SDK.

Retryable: 408, 409, 429, 5xx, timeouts, dropped connections, malformed responses. Everything
else (400, 401, 403, 404...) is final, with a one-line message naming the model and what to do;
so is a redirect (3xx), which providers never follow.

A **prompt rejection** (:attr:`ProviderError.rejection`) is decided only from structured fields,
never from message text: a 400 or 413 whose error ``code`` or ``type`` is one of
:data:`REJECTION_CODES` (OpenAI's ``context_length_exceeded``, Azure's ``content_filter``,
Anthropic's ``request_too_large``), or a reply whose ``finish_reason`` is ``content_filter``
(OpenAI) or whose ``stop_reason`` is ``refusal`` (Anthropic) (:func:`reply_rejection`). A 429 or
5xx is never one, whatever it says ("Too many tokens, please wait" is throttling).
Messages never carry an API key: :func:`redact` scrubs the key and anything shaped like one.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from upskill_hub import secrets
from upskill_hub.errors import ProviderError

RETRYABLE_STATUSES = frozenset({408, 409, 429})
_DETAIL_MAX = 200

#: Error ``code`` / ``type`` values of a 400 or 413 that mean "this prompt is refused", and the
#: rejection each is recorded as.
REJECTION_CODES = {
    "context_length_exceeded": "context_length",
    "request_too_large": "context_length",
    "content_filter": "content_filter",
}
REJECTION_STATUSES = frozenset({400, 413})
#: Reply ``finish_reason`` (OpenAI) / ``stop_reason`` (Anthropic) values that withhold the answer.
REPLY_REJECTIONS = {"content_filter": "content_filter", "refusal": "refusal"}


def status_rejection(status: int, body: Any) -> str | None:
    """The prompt rejection an HTTP error means (``context_length``, ``content_filter``), from
    its status and the ``code``/``type`` fields of its error body; None for anything else."""
    if status not in REJECTION_STATUSES:
        return None
    found: list[Any] = []
    for obj in (body, body.get("error") if isinstance(body, dict) else None):
        if isinstance(obj, dict):
            found += [obj.get("code"), obj.get("type")]
    for value in found:
        if isinstance(value, str) and value in REJECTION_CODES:
            return REJECTION_CODES[value]
    return None


def reply_rejection(model_id: str, reason: str | None) -> ProviderError | None:
    """The final error for a reply withheld by the API (``finish_reason: content_filter``,
    ``stop_reason: refusal``), None for any other finish reason."""
    rejection = REPLY_REJECTIONS.get(reason or "")
    if rejection is None:
        return None
    return ProviderError(
        f"{model_id}: the reply was withheld (finish reason {reason})", rejection=rejection
    )


def parse_retry_after(
    headers: Mapping[str, str] | None, *, now: float | None = None
) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT by definition
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def redact(text: str, secret: str | None) -> str:
    """``text`` without ``secret``, the environment's secrets and anything shaped like a key."""
    return secrets.redact(text, (secret,))


def display_url(url: str | None) -> str | None:
    """``url`` without user:password, for repr and messages."""
    if not url:
        return url
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(parts._replace(netloc=netloc))


def error_detail(body: Any, fallback: str = "") -> str:
    """The server's own error message from an OpenAI/Anthropic error body, on one short line."""
    detail: Any = None
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            detail = error.get("message")
        elif isinstance(error, str):
            detail = error
        detail = detail or body.get("message")
    elif isinstance(body, str):
        detail = body
    text = " ".join(str(detail or fallback).split())
    return text if len(text) <= _DETAIL_MAX else text[: _DETAIL_MAX - 1] + "…"


def status_error(
    model_id: str,
    status: int,
    *,
    headers: Mapping[str, str] | None = None,
    detail: str = "",
    key_hint: str = "check the API key",
    secret: str | None = None,
    rejection: str | None = None,
) -> ProviderError:
    """The :class:`ProviderError` for an HTTP error status from ``model_id``'s API
    (``rejection``: what :func:`status_rejection` found in its body, kept only when final)."""
    retry_after = parse_retry_after(headers)
    retryable = status in RETRYABLE_STATUSES or status >= 500
    if status == 401:
        what = f"authentication failed (401): {key_hint}"
    elif status == 403:
        what = "permission denied (403): check that your key may use this model"
    elif status == 404:
        what = "not found (404): check the model name and base URL"
    elif status == 400:
        what = "request rejected (400)"
    elif status == 413:
        what = "request too large (413)"
    elif status == 429:
        what = "rate limited (429)"
        if retry_after is not None:
            what += f", retry after {retry_after:g}s"
    elif status >= 500:
        what = f"server error ({status})"
    else:
        what = f"HTTP {status}"
    message = f"{model_id}: {what}"
    if detail:
        message += f" - {detail}"
    return ProviderError(
        redact(message, secret),
        retryable=retryable,
        status=status,
        retry_after=retry_after,
        rejection=None if retryable else rejection,
    )


def timeout_error(model_id: str, timeout: float) -> ProviderError:
    return ProviderError(f"{model_id}: no response within {timeout:g}s (timeout)", retryable=True)


def connection_error(
    model_id: str, detail: str = "", *, secret: str | None = None
) -> ProviderError:
    message = f"{model_id}: connection failed"
    if detail:
        message += f" - {' '.join(detail.split())[:_DETAIL_MAX]}"
    return ProviderError(redact(message, secret), retryable=True)


def malformed_error(model_id: str, detail: str = "") -> ProviderError:
    message = f"{model_id}: malformed response from the server"
    if detail:
        message += f" ({detail})"
    return ProviderError(message, retryable=True)


def redirect_error(
    model_id: str, status: int, location: str | None, *, secret: str | None = None
) -> ProviderError:
    """A 3xx: final, since providers never follow redirects (one could lead past the checks
    made on the base URL, e.g. to a cloud metadata address)."""
    target = display_url(" ".join((location or "").split())[:_DETAIL_MAX]) or "(no Location)"
    message = (
        f"{model_id}: the server redirected to {target} ({status}); redirects are not followed "
        "(use the final URL as the base URL)"
    )
    return ProviderError(redact(message, secret), status=status)


def missing_key_error(model_id: str, env_var: str, *, login: str | None = None) -> ProviderError:
    """``MODEL: no API key: set ENV_VAR`` (``or run `LOGIN``` when a CLI login also works)."""
    also = f" or run `{login}`" if login else ""
    return ProviderError(f"{model_id}: no API key: set {env_var}{also}")


def from_sdk_error(
    sdk: Any, exc: Exception, *, model_id: str, timeout: float, key_hint: str, secret: str | None
) -> Exception:
    """Map an ``openai`` or ``anthropic`` SDK exception (both SDKs share these class names) to
    a :class:`ProviderError`; anything else is returned unchanged."""
    if isinstance(exc, sdk.APITimeoutError):
        return timeout_error(model_id, timeout)
    if isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__
        detail = f"{type(cause).__name__}: {cause}" if cause else ""
        return connection_error(model_id, detail, secret=secret)
    if isinstance(exc, sdk.APIResponseValidationError):
        return malformed_error(model_id, "unexpected schema")
    if isinstance(exc, sdk.APIStatusError):
        if 300 <= exc.status_code < 400:
            location = exc.response.headers.get("location")
            return redirect_error(model_id, exc.status_code, location, secret=secret)
        return status_error(
            model_id,
            exc.status_code,
            headers=exc.response.headers,
            detail=error_detail(exc.body, exc.message),
            key_hint=key_hint,
            secret=secret,
            rejection=status_rejection(exc.status_code, exc.body),
        )
    if isinstance(exc, ValueError):  # a 200 whose body is not JSON
        return malformed_error(model_id, "invalid JSON")
    return exc
