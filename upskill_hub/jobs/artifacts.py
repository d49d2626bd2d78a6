"""The artifact dataset of runs on Jobs: where each file of a run lives, and Hub calls on it.

Layout, per run, in a dataset repo (default ``<you>/upskill-hub-runs``)::

    runs/<run_id>/run.json          the run as ``eval`` describes it (no key, ever)
    runs/<run_id>/tests.json        its cases
    runs/<run_id>/plan.json         the shards: model and case ids of each
    runs/<run_id>/skill/...         the skill's files (what the prompts are made of)
    runs/<run_id>/wheel/*.whl       the upskill-hub wheel, with ``--install wheel``
    runs/<run_id>/shards/<id>/      a shard's own run folder (run.json, tests.json,
                                    samples.jsonl, status.json), committed as it goes

Every Hub failure becomes one :class:`HubError` line naming the repo (:func:`hub_call`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from upskill_hub.errors import HubError, UpskillHubError

if TYPE_CHECKING:
    from huggingface_hub import HfApi

__all__ = ["DEFAULT_REPO_NAME", "hub_call", "read_text", "run_prefix", "shard_prefix", "upload"]

DEFAULT_REPO_NAME = "upskill-hub-runs"
T = TypeVar("T")


def run_prefix(run_id: str) -> str:
    return f"runs/{run_id}"


def shard_prefix(run_id: str, shard_id: str) -> str:
    return f"runs/{run_id}/shards/{shard_id}"


def hub_call(action: str, call: Callable[[], T], repo_id: str = "") -> T:
    """``call()``, with huggingface_hub's errors turned into one :class:`HubError` line by the
    project's mapping (:func:`upskill_hub.hub.errors.map_hub_error`, which redacts
    the token from server messages)."""
    from huggingface_hub import constants, get_token
    from huggingface_hub.errors import HfHubHTTPError

    from upskill_hub.hub.errors import map_hub_error

    try:
        return call()
    except UpskillHubError:
        raise
    except (HfHubHTTPError, OSError) as exc:
        mapped = map_hub_error(
            exc,
            endpoint=constants.ENDPOINT,
            repo_url=f"{constants.ENDPOINT}/datasets/{repo_id}",
            token=get_token(),
            repo_id=repo_id or action,
            action=action,
        )
        if mapped is None:
            mapped = HubError(f"{action}: {type(exc).__name__}: {exc}")
        refusal = _jobs_refusal(exc, get_token())
        if refusal:  # the repo-oriented line ("check the id") would mislead here
            mapped = HubError(f"{action}: {refusal}", status=getattr(mapped, "status", None))
        raise mapped from None


def _jobs_refusal(exc: BaseException, token: str | None) -> str:
    """The server's own reason (redacted, one line) when the Jobs API refused a call with
    401/403/404: e.g. ``hub serve`` without ``--jobs``, or a namespace not the token's."""
    from huggingface_hub.errors import HfHubHTTPError

    from upskill_hub.secrets import Redactor

    if not isinstance(exc, HfHubHTTPError) or exc.response is None:
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


def upload(api: HfApi, repo_id: str, files: dict[str, bytes | Path], message: str) -> None:
    """One commit adding ``files`` (path in repo -> bytes or a local file) to ``repo_id``."""
    from huggingface_hub import CommitOperationAdd

    ops = [
        CommitOperationAdd(
            path_in_repo=path,
            path_or_fileobj=content if isinstance(content, bytes) else str(content),
        )
        for path, content in files.items()
    ]
    hub_call(
        f"commit to {repo_id}",
        lambda: api.create_commit(repo_id, ops, commit_message=message, repo_type="dataset"),
    )


def read_text(api: HfApi, repo_id: str, path: str) -> str | None:
    """A text file of the artifact repo (None when it does not exist), fetched fresh."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="upskill-hub-jobs-") as tmp:
        local = download(api, repo_id, path, Path(tmp))
        return None if local is None else local.read_text(encoding="utf-8")


def download(api: HfApi, repo_id: str, path: str, dest_dir: Path) -> Path | None:
    """Download one file of the artifact repo under ``dest_dir``; None when it is absent."""
    try:
        local = hub_call(
            f"download {path}",
            lambda: api.hf_hub_download(
                repo_id, path, repo_type="dataset", local_dir=str(dest_dir), force_download=True
            ),
            repo_id,
        )
    except HubError as exc:
        if exc.status == 404:
            return None
        raise
    return Path(local)


def read_json(api: HfApi, repo_id: str, path: str) -> Any:
    text = read_text(api, repo_id, path)
    return None if text is None else json.loads(text)
