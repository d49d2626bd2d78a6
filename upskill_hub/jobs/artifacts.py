"""The artifact dataset of runs on Jobs: where each file of a run lives, and Hub calls on it.

Layout, per run, in a dataset repo (default ``<you>/upskill-hub-runs``)::

    runs/<run_id>/run.json          the run as ``eval`` describes it (no key, ever)
    runs/<run_id>/tests.json        its cases
    runs/<run_id>/plan.json         the shards: model and case ids of each
    runs/<run_id>/skill/...         the skill's files (what the prompts are made of)
    runs/<run_id>/wheel/*.whl       the upskill-hub wheel, with ``--install wheel``
    runs/<run_id>/shards/<id>/      a shard's own run folder (run.json, tests.json,
                                    samples.jsonl, status.json), committed as it goes

Every Hub call goes through :class:`~upskill_hub.hub.client.Hub`; a failure is one
:class:`HubError` line naming the repo (:func:`hub_call`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from upskill_hub.errors import HubError

if TYPE_CHECKING:
    from upskill_hub.hub.client import Hub

__all__ = ["DEFAULT_REPO_NAME", "hub_call", "read_text", "run_prefix", "shard_prefix", "upload"]

DEFAULT_REPO_NAME = "upskill-hub-runs"
T = TypeVar("T")


def run_prefix(run_id: str) -> str:
    return f"runs/{run_id}"


def shard_prefix(run_id: str, shard_id: str) -> str:
    return f"runs/{run_id}/shards/{shard_id}"


def hub_call(hub: Hub, action: str, call: Callable[[], T], repo_id: str = "") -> T:
    """``call()`` (a huggingface_hub call on ``hub.api``) through :meth:`Hub.call`: its retries,
    and one :class:`HubError` line naming ``action`` (and the repo) for any failure."""
    from huggingface_hub.errors import HfHubHTTPError

    try:
        return hub.call(call, repo_id=repo_id or action, action=action, repo_type="dataset")
    except (HfHubHTTPError, OSError) as exc:  # a failure the mapping has no line for
        raise HubError(f"{action}: {type(exc).__name__}: {exc}") from None


def upload(hub: Hub, repo_id: str, files: dict[str, bytes | Path], message: str) -> None:
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
        hub,
        f"commit to {repo_id}",
        lambda: hub.api.create_commit(repo_id, ops, commit_message=message, repo_type="dataset"),
    )


def read_text(hub: Hub, repo_id: str, path: str) -> str | None:
    """A text file of the artifact repo (None when it does not exist), fetched fresh."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="upskill-hub-jobs-") as tmp:
        local = download(hub, repo_id, path, Path(tmp))
        return None if local is None else local.read_text(encoding="utf-8")


def download(hub: Hub, repo_id: str, path: str, dest_dir: Path) -> Path | None:
    """Download one file of the artifact repo under ``dest_dir``; None when it is absent."""
    try:
        local = hub_call(
            hub,
            f"download {path}",
            lambda: hub.api.hf_hub_download(
                repo_id, path, repo_type="dataset", local_dir=str(dest_dir), force_download=True
            ),
            repo_id,
        )
    except HubError as exc:
        if exc.status == 404:
            return None
        raise
    return Path(local)


def read_json(hub: Hub, repo_id: str, path: str) -> Any:
    text = read_text(hub, repo_id, path)
    return None if text is None else json.loads(text)
