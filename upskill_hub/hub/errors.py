"""huggingface_hub and network exceptions -> our typed Hub errors, and which ones to retry.

:func:`map_hub_error` gives every failure one line that names the repo and says what to do, and
data on the error (``status``, ``repo_id``, ``revision``) so callers branch on fields, never on
message text. Error bodies come from the server and are redacted (an endpoint may echo the
Authorization header back); a refusal of the Jobs API quotes the server's reason. :func:`transient`
says whether a failure is worth retrying and the server's Retry-After. Used by
:class:`upskill_hub.hub.client.Hub` only.
"""

from __future__ import annotations

from typing import Any

import httpx2
from huggingface_hub import constants
from huggingface_hub.errors import (
    EntryNotFoundError,
    GatedRepoError,
    HfHubHTTPError,
    HFValidationError,
    LocalEntryNotFoundError,
    LocalTokenNotFoundError,
    OfflineModeIsEnabled,
    RepositoryNotFoundError,
    RevisionResolutionError,
)
from huggingface_hub.errors import (
    RevisionNotFoundError as HfRevisionNotFoundError,
)

from upskill_hub.errors import HubError, RepoNotFoundError, RevisionNotFoundError, UsageError
from upskill_hub.secrets import Redactor

_TRANSIENT_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
_TRANSIENT_EXC: tuple[type[BaseException], ...] = (
    httpx2.TimeoutException,
    httpx2.NetworkError,
    httpx2.RemoteProtocolError,
)
#: Failures before a request reached the server: safe to retry even a call that starts a Job.
_UNSENT_EXC: tuple[type[BaseException], ...] = (httpx2.ConnectError, httpx2.ConnectTimeout)


def map_hub_error(
    exc: BaseException,
    *,
    endpoint: str,
    repo_url: str,
    token: str | None,
    repo_id: str,
    revision: str | None = None,
    action: str = "request",
    attempts: int = 1,
) -> HubError | UsageError | None:
    """The typed error for a huggingface_hub / network exception, or None if it is not one."""
    where = f"{repo_id}@{revision}" if revision else repo_id
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    root = root_cause(exc)
    ids: dict[str, Any] = {"repo_id": repo_id, "revision": revision}
    if in_chain(exc, LocalTokenNotFoundError):
        return HubError(
            f"{where}: no Hugging Face token ({action}); set HF_TOKEN or run `hf auth login`",
            **ids,
        )
    refusal = _jobs_refusal(root, token) if isinstance(root, HfHubHTTPError) else ""
    if refusal:  # the repo-oriented line ("check the id") would mislead here
        return HubError(f"{action}: {refusal}", status=_status_of(root))
    if isinstance(exc, HFValidationError):
        return UsageError(f"{repo_id!r} is not a valid Hub repo id or revision")
    if isinstance(root, HfRevisionNotFoundError):
        return RevisionNotFoundError(
            f"{where}: revision not found on {endpoint}; check the branch, tag or commit",
            status=404,
            **ids,
        )
    if isinstance(root, GatedRepoError):
        return HubError(
            f"{repo_id}: gated repository; accept its terms on {repo_url} and set HF_TOKEN",
            status=_status_of(root),
            **ids,
        )
    if isinstance(root, RepositoryNotFoundError):
        return RepoNotFoundError(
            f"{repo_id}: repository not found on {endpoint}; check the id "
            "(private repos need HF_TOKEN)",
            status=_status_of(root),
            **ids,
        )
    if isinstance(root, EntryNotFoundError) and not isinstance(exc, LocalEntryNotFoundError):
        return HubError(f"{where}: file not found in the repository ({action})", status=404, **ids)
    if isinstance(root, OfflineModeIsEnabled) or (
        isinstance(exc, LocalEntryNotFoundError) and constants.HF_HUB_OFFLINE
    ):
        return HubError(
            f"{where}: not in the local cache and HF_HUB_OFFLINE is set; "
            "run once with network access",
            **ids,
        )
    if isinstance(root, HfHubHTTPError):
        return _status_error(root, where, tries, endpoint, token, repo_id, revision)
    if isinstance(root, httpx2.TransportError):
        return HubError(
            f"{where}: cannot reach the Hub at {endpoint} ({type(root).__name__}){tries}; "
            "check the network or HF_ENDPOINT",
            **ids,
        )
    if isinstance(exc, (LocalEntryNotFoundError, RevisionResolutionError)):
        return HubError(
            f"{where}: the Hub at {endpoint} could not be reached and nothing is "
            "cached; check the network or HF_ENDPOINT",
            **ids,
        )
    return None


def _jobs_refusal(exc: HfHubHTTPError, token: str | None) -> str:
    """The server's own reason (redacted, one line) when the Jobs API refused a call with
    401/403/404: e.g. ``hub serve`` without ``--jobs``, or a namespace not the token's."""
    if exc.response is None:
        return ""
    status = exc.response.status_code
    try:
        path = exc.response.request.url.path
    except RuntimeError:  # a response built without its request
        return ""
    if status not in (401, 403, 404) or not path.startswith(("/api/jobs", "/api/scheduled-jobs")):
        return ""
    message = (exc.server_message or "").strip().splitlines()
    if not message:
        return ""
    return f"the Jobs API refused it ({status}): {Redactor([token])(message[0][:300])}"


def _status_of(err: BaseException) -> int | None:
    response = getattr(err, "response", None)
    return int(response.status_code) if response is not None else None


def _status_error(
    err: HfHubHTTPError,
    where: str,
    tries: str,
    endpoint: str,
    token: str | None,
    repo_id: str,
    revision: str | None,
) -> HubError:
    status = _status_of(err) or 0
    ids: dict[str, Any] = {"status": status, "repo_id": repo_id, "revision": revision}
    if status == 401:
        return HubError(
            f"{where}: authentication failed (401); set HF_TOKEN to a valid token", **ids
        )
    if status == 403:
        return HubError(
            f"{where}: access denied (403); the token lacks permission "
            "(publishing needs a write token)",
            **ids,
        )
    if status == 404:
        return RepoNotFoundError(f"{where}: not found on {endpoint} (404); check the id", **ids)
    if status == 429:
        return HubError(f"{where}: rate limited by the Hub (429){tries}; wait and retry", **ids)
    if status >= 500:
        return HubError(f"{where}: the Hub answered {status}{tries}; try again later", **ids)
    detail = (err.server_message or "").splitlines()[0][:200] if err.server_message else ""
    detail = Redactor([token])(detail)  # the body is the server's: it may echo the token
    return HubError(f"{where}: the Hub refused the request ({status}) {detail}".rstrip(), **ids)


def in_chain(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc`` or anything it was raised from is a ``kind``."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def root_cause(exc: BaseException) -> BaseException:
    """The most specific Hub/network error behind ``exc`` (snapshot_download wraps them)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (HfHubHTTPError, httpx2.TransportError, OfflineModeIsEnabled)):
            return current
        current = current.__cause__ or current.__context__
    return exc


def transient(exc: BaseException, *, idempotent: bool = True) -> tuple[bool, float | None]:
    """Whether ``exc`` is worth retrying, and the server's Retry-After in seconds if any.

    A call that must not happen twice (``idempotent=False``: starting a Job) is retried only
    when the server surely did not act on it: a 429, or a connection never made.
    """
    root = root_cause(exc)
    if isinstance(root, (OfflineModeIsEnabled, httpx2.ProxyError)):
        return False, None
    if isinstance(root, HfHubHTTPError) and root.response is not None:
        status = root.response.status_code
        if status == 429 or (idempotent and (status in _TRANSIENT_STATUS or status >= 500)):
            return True, _retry_after(root.response.headers.get("Retry-After"))
        return False, None
    if isinstance(root, _TRANSIENT_EXC if idempotent else _UNSENT_EXC):
        return True, None
    return False, None


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        return None
