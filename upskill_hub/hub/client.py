"""The one place that talks to the Hub: repos, files, commits, and Jobs.

Builds :class:`huggingface_hub.HfApi` (which honours ``HF_TOKEN``, ``HF_ENDPOINT`` and
``HF_HOME`` itself) with our ``library_name``/``library_version``, retries transient failures
as its :class:`~upskill_hub.backoff.RetryPolicy` says, and turns huggingface_hub's exceptions
into our typed errors with a one-line message that names the repo (or the Job) and says what
to do. Tokens are never put into messages. Nothing else in the package constructs ``HfApi``
(``tests/hub/test_one_client.py``).
"""

from __future__ import annotations

import glob
import logging
import re
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from huggingface_hub import (
    HfApi,
    constants,
    get_cached_repo_tree,
    get_token,
    hf_hub_download,
    snapshot_download,
)
from huggingface_hub.errors import (
    CachedRepoTreeNotFoundError,
)
from huggingface_hub.hf_api import CommitInfo, ModelInfo, RepoFile
from huggingface_hub.utils import (
    build_hf_headers,
    disable_progress_bars,
    get_session,
    hf_raise_for_status,
)

from upskill_hub import __version__
from upskill_hub.backoff import RetryPolicy
from upskill_hub.errors import HubError, Param, UsageError
from upskill_hub.hub.errors import map_hub_error, transient

if TYPE_CHECKING:
    from huggingface_hub import JobHardwareInfo, JobInfo, ScheduledJobInfo

T = TypeVar("T")

COMMIT_RE = re.compile(r"[0-9a-f]{40}")
_REPO_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


#: The Hub's retries: four tries, waits capped at 10 s (a Retry-After too).
HUB_RETRY = RetryPolicy(retries=3, base_s=0.5, max_s=10.0, retry_after_max_s=10.0)


@dataclass(frozen=True)
class RemoteFile:
    """A file in a Hub repo listing (as the server claims it; never trusted before scanning)."""

    path: str
    size: int
    blob_id: str | None = None
    lfs_sha256: str | None = None


class _QuietHfLogs(logging.Filter):
    """Drop huggingface_hub's own retry chatter and the no-op commit notice.

    We report failures ourselves in one line; "Retrying in 1s [Retry 1/5]" and friends from
    its HTTP backoff, and "No files have been modified since last commit", are noise to users.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.funcName == "_http_backoff_base":
            return False
        return not record.getMessage().startswith("No files have been modified")


_QUIET = _QuietHfLogs()


def quiet_huggingface_hub(*, progress: bool | None = None) -> None:
    """Silence huggingface_hub's retry logs; hide its progress bars unless ``progress``.

    ``progress=None`` shows them only when stderr is a terminal (no tqdm lines in CI logs).
    """
    for name in ("huggingface_hub.utils._http", "huggingface_hub.hf_api"):
        logger = logging.getLogger(name)
        if _QUIET not in logger.filters:
            logger.addFilter(_QUIET)
    if progress is None:
        progress = sys.stderr.isatty()
    if not progress and constants.HF_HUB_DISABLE_PROGRESS_BARS is not False:
        disable_progress_bars()  # HF_HUB_DISABLE_PROGRESS_BARS=0 (asked for bars) wins


def parse_spec(spec: str) -> tuple[str, str | None]:
    """Split ``ns/name[@rev]`` into repo id and revision; a malformed id is a UsageError."""
    repo_id, sep, rev = spec.strip().partition("@")
    if not _REPO_ID_RE.fullmatch(repo_id) or ".." in repo_id:
        raise UsageError(f"{spec!r} is not a Hub repo id (expected namespace/name[@revision])")
    if sep and not rev:
        raise UsageError(f"{spec!r}: empty revision after '@'")
    return repo_id, (rev or None)


class Hub:
    """A Hub endpoint plus the retry policy; every Hub call of the registry goes through here."""

    def __init__(
        self,
        *,
        endpoint: str | None = None,
        token: str | bool | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        """``token`` as in huggingface_hub: None reads HF_TOKEN / the saved login, False sends
        none."""
        self.endpoint = (endpoint or constants.ENDPOINT).rstrip("/")
        self._token = token
        self.retry = retry or HUB_RETRY
        quiet_huggingface_hub()
        self.api = HfApi(
            endpoint=self.endpoint,
            token=token,
            library_name="upskill-hub",
            library_version=__version__,
        )

    def repo_url(self, repo_id: str, repo_type: str = "model") -> str:
        prefix = "" if repo_type == "model" else f"{repo_type}s/"
        return f"{self.endpoint}/{prefix}{repo_id}"

    # -- the retry / error-mapping core -------------------------------------------------------

    def call(
        self,
        fn: Callable[[], T],
        *,
        repo_id: str,
        revision: str | None = None,
        action: str = "request",
        retries: bool = True,
        idempotent: bool = True,
        repo_type: str = "model",
    ) -> T:
        """Run ``fn`` with retries on transient failures; map any Hub failure to a typed error.

        Pass ``retries=False`` for huggingface_hub calls that already retry on their own
        (listings, which go through its ``http_backoff``): stacking both multiplies the wait.
        ``idempotent=False`` (starting a Job) retries only failures the server cannot have
        acted on (:func:`~upskill_hub.hub.errors.transient`).
        """
        attempt = 0
        while True:
            attempt += 1
            try:
                return fn()
            except Exception as exc:
                retry, retry_after = transient(exc, idempotent=idempotent)
                delay = self.retry.next_delay(attempt, retry and retries, retry_after)
                if delay is not None:
                    time.sleep(delay)
                    continue
                mapped = self.map_error(
                    exc,
                    repo_id=repo_id,
                    revision=revision,
                    action=action,
                    attempts=attempt,
                    repo_type=repo_type,
                )
                if mapped is None:
                    raise
                raise mapped from exc

    def map_error(
        self,
        exc: BaseException,
        *,
        repo_id: str,
        revision: str | None = None,
        action: str = "request",
        attempts: int = 1,
        repo_type: str = "model",
    ) -> HubError | UsageError | None:
        """The typed error for a huggingface_hub / network exception, or None if it is not one.

        The token every call sends (given, or HF_TOKEN / the saved login) is redacted from the
        server's text."""
        token = self._token if self._token is not None else get_token()
        return map_hub_error(
            exc,
            endpoint=self.endpoint,
            repo_url=self.repo_url(repo_id, repo_type),
            token=token if isinstance(token, str) else None,
            repo_id=repo_id,
            revision=revision,
            action=action,
            attempts=attempts,
        )

    # -- reads ---------------------------------------------------------------------------------

    def search_models(self, *, filter: str, search: str | None, limit: int) -> list[ModelInfo]:
        """One page of ``GET /api/models`` (what ``HfApi.list_models`` asks, with card data).

        Requested directly so only our retry policy applies: ``list_models`` retries five
        times on its own (about 23 s against a stopped server) and would stack with ours.
        """
        params: dict[str, Any] = {"filter": filter, "limit": limit, "cardData": True}
        if search:
            params["search"] = search
        headers = build_hf_headers(
            token=self._token, library_name="upskill-hub", library_version=__version__
        )

        def fetch() -> list[Any]:
            response = get_session().get(
                f"{self.endpoint}/api/models", params=params, headers=headers
            )
            hf_raise_for_status(response)
            data = response.json()
            if not isinstance(data, list):
                raise HubError(f"{self.endpoint}/api/models: the Hub returned no list")
            return data

        items = self.call(fetch, repo_id=f"search {search or ''!r}", action="search")
        return [ModelInfo(**item) for item in items[:limit] if isinstance(item, dict)]

    def resolve(self, repo_id: str, revision: str | None, repo_type: str = "model") -> str:
        """The 40-hex commit a branch, tag or commit names (cache fallback when offline)."""
        if revision and COMMIT_RE.fullmatch(revision):
            return revision
        resolved = self.call(
            lambda: self.api.resolve_revision(repo_id, repo_type=repo_type, revision=revision),
            repo_id=repo_id,
            revision=revision,
            action="resolve revision",
        )
        commit = resolved.resolved
        if not COMMIT_RE.fullmatch(commit or ""):
            raise HubError(f"{repo_id}@{revision}: the Hub returned no commit sha")
        return commit

    def resolve_online(self, repo_id: str, revision: str | None, repo_type: str = "model") -> str:
        """The commit ``revision`` names now, asked of the Hub (never the cached ref).

        :meth:`resolve` falls back to huggingface_hub's cached ref when the Hub cannot be
        reached, which is right for installing a locked commit and wrong for "is there a newer
        one": this raises instead.
        """
        if revision and COMMIT_RE.fullmatch(revision):
            return revision
        if constants.HF_HUB_OFFLINE:
            raise HubError(
                f"{repo_id}@{revision or 'main'}: HF_HUB_OFFLINE is set; "
                "this needs to ask the Hub for the current commit"
            )
        info = self.call(
            lambda: self.api.repo_info(repo_id, revision=revision, repo_type=repo_type),
            repo_id=repo_id,
            revision=revision,
            action="resolve revision",
        )
        if not COMMIT_RE.fullmatch(info.sha or ""):
            raise HubError(f"{repo_id}@{revision}: the Hub returned no commit sha")
        return str(info.sha)

    def list_files(self, repo_id: str, commit: str, repo_type: str = "model") -> list[RemoteFile]:
        """Every file of the repo at ``commit``: from the local tree cache when present."""
        try:
            cached: Iterable[Any] = get_cached_repo_tree(
                repo_id, repo_type=repo_type, revision=commit
            )
        except (CachedRepoTreeNotFoundError, OSError, ValueError):
            cached = self.call(
                lambda: list(
                    self.api.list_repo_tree(
                        repo_id, recursive=True, revision=commit, repo_type=repo_type
                    )
                ),
                repo_id=repo_id,
                revision=commit,
                action="list files",
                retries=False,  # list_repo_tree retries through huggingface_hub's own backoff
            )
        return [_remote_file(f) for f in cached if isinstance(f, RepoFile)]

    def download(
        self, repo_id: str, commit: str, paths: Sequence[str], repo_type: str = "model"
    ) -> Path:
        """Download exactly ``paths`` at ``commit`` into the huggingface_hub cache; its folder.

        A commit already in the cache costs no request (works with ``HF_HUB_OFFLINE=1``).
        """
        patterns = [glob.escape(p) for p in paths]
        folder = self.call(
            lambda: snapshot_download(
                repo_id,
                repo_type=repo_type,
                revision=commit,
                allow_patterns=patterns,
                endpoint=self.endpoint,
                token=self._token,
                library_name="upskill-hub",
                library_version=__version__,
                max_workers=4,
            ),
            repo_id=repo_id,
            revision=commit,
            action="download",
        )
        return Path(folder)

    def download_file(
        self, repo_id: str, filename: str, revision: str | None = None, repo_type: str = "model"
    ) -> Path:
        """One file through the huggingface_hub cache (a commit ``revision`` is cached for good)."""
        local = self.call(
            lambda: hf_hub_download(
                repo_id,
                filename,
                repo_type=repo_type,
                revision=revision,
                endpoint=self.endpoint,
                token=self._token,
                library_name="upskill-hub",
                library_version=__version__,
            ),
            repo_id=repo_id,
            revision=revision,
            action=f"download {filename}",
        )
        return Path(local)

    # -- writes --------------------------------------------------------------------------------

    def create_repo(
        self,
        repo_id: str,
        *,
        repo_type: str = "model",
        private: bool = False,
        space_sdk: str | None = None,
    ) -> None:
        """Create the repo unless it exists (an existing repo is left as it is)."""
        self.call(
            lambda: self.api.create_repo(
                repo_id,
                repo_type=repo_type,
                private=private,
                exist_ok=True,
                space_sdk=space_sdk,
            ),
            repo_id=repo_id,
            action="create repo",
        )

    def create_commit(
        self,
        repo_id: str,
        operations: Sequence[Any],
        *,
        message: str,
        description: str | None = None,
        repo_type: str = "model",
        revision: str | None = None,
        create_pr: bool = False,
        parent_commit: str | None = None,
    ) -> CommitInfo:
        """One commit of ``operations`` (huggingface_hub ``CommitOperation*``) or a PR."""
        return self.call(
            lambda: self.api.create_commit(
                repo_id,
                list(operations),
                commit_message=message,
                commit_description=description,
                repo_type=repo_type,
                revision=revision,
                create_pr=create_pr,
                parent_commit=parent_commit,
            ),
            repo_id=repo_id,
            revision=revision,
            action="commit",
        )

    def create_tag(
        self,
        repo_id: str,
        tag: str,
        *,
        revision: str,
        message: str | None = None,
        repo_type: str = "model",
    ) -> None:
        """Tag ``revision``; an existing tag is a :class:`HubError` with ``status == 409``."""
        self.call(
            lambda: self.api.create_tag(
                repo_id, tag=tag, revision=revision, tag_message=message, repo_type=repo_type
            ),
            repo_id=repo_id,
            revision=tag,
            action="create tag",
        )

    # -- repo metadata -------------------------------------------------------------------------

    def check_access(self, repo_id: str, repo_type: str = "model") -> None:
        """Raise :class:`HubError` unless this client may read ``repo_id``, before a library
        that falls back to its own cache when refused reads it (``datasets.load_dataset``).

        Nothing to check here: the cache is this machine's own (see
        :class:`~upskill_hub.space_support.visitor_hub.VisitorHub`, whose cache is shared).
        """

    def head(self, repo_id: str, repo_type: str = "model") -> str | None:
        """The commit the default branch is at (None for a repo without commits)."""
        info = self.call(
            lambda: self.api.repo_info(repo_id, repo_type=repo_type),
            repo_id=repo_id,
            action="read the repo",
        )
        return str(info.sha) if info.sha else None

    def repo_files(self, repo_id: str, repo_type: str = "model") -> list[str]:
        """Every file path on the default branch."""
        return self.call(
            lambda: self.api.list_repo_files(repo_id, repo_type=repo_type),
            repo_id=repo_id,
            action="list",
            retries=False,  # list_repo_files retries through huggingface_hub's own backoff
        )

    def history(self, repo_id: str, revision: str, repo_type: str = "model") -> list[str]:
        """The commit ids reachable from ``revision``, newest first (``revision``'s own first)."""
        commits = self.call(
            lambda: self.api.list_repo_commits(repo_id, repo_type=repo_type, revision=revision),
            repo_id=repo_id,
            revision=revision,
            action="list commits",
            retries=False,  # list_repo_commits pages through huggingface_hub's own backoff
        )
        return [str(c.commit_id) for c in commits]

    @property
    def token(self) -> str | bool | None:
        """The token every call sends, as given (None: HF_TOKEN / the saved login)."""
        return self._token

    def tags(self, repo_id: str, repo_type: str = "model") -> list[str]:
        """The repo's tag names."""
        refs = self.call(
            lambda: self.api.list_repo_refs(repo_id, repo_type=repo_type),
            repo_id=repo_id,
            action="list refs",
        )
        return [t.name for t in refs.tags]

    def whoami(self, *, action: str = "whoami") -> str:
        """The user name the token belongs to (for default push namespaces); ``action`` names
        the call in an error message."""
        info = self.call(lambda: self.api.whoami(), repo_id=action, action=action)
        name = info.get("name") if isinstance(info, dict) else None
        if not isinstance(name, str) or not name:
            raise HubError(
                "whoami: the Hub returned no user name; pass ", Param("repo_id", "NS/NAME")
            )
        return name

    # -- Jobs ----------------------------------------------------------------------------------

    def run_job(
        self,
        *,
        image: str,
        command: list[str],
        env: dict[str, Any],
        secrets: dict[str, str],
        flavor: str,
        timeout: str,
        labels: dict[str, str],
        name: str,
        namespace: str,
        action: str = "run_job",
    ) -> JobInfo:
        """Start a Job; retried only when the Hub cannot have started it (never twice).
        ``action`` names the call in an error message."""
        return self.call(
            lambda: self.api.run_job(
                image=image,
                command=command,
                env=env,
                secrets=secrets,
                flavor=flavor,
                timeout=timeout,
                labels=labels,
                name=name,
                namespace=namespace,
            ),
            repo_id=action,
            action=action,
            idempotent=False,
        )

    def inspect_job(self, job_id: str, namespace: str) -> JobInfo:
        """The Job's spec and status (its stage: RUNNING, COMPLETED, ERROR, CANCELED...)."""
        action = f"inspect_job {job_id}"
        return self.call(
            lambda: self.api.inspect_job(job_id=job_id, namespace=namespace),
            repo_id=action,
            action=action,
        )

    def cancel_job(self, job_id: str, namespace: str) -> None:
        """Cancel a Job (one already finished stays as it is)."""
        action = f"cancel_job {job_id}"
        self.call(
            lambda: self.api.cancel_job(job_id=job_id, namespace=namespace),
            repo_id=action,
            action=action,
        )

    def fetch_job_logs(self, job_id: str, namespace: str) -> list[str]:
        """The Job's log lines so far."""
        action = f"fetch_job_logs {job_id}"
        return self.call(
            lambda: list(self.api.fetch_job_logs(job_id=job_id, namespace=namespace)),
            repo_id=action,
            action=action,
            retries=False,  # the log stream reconnects through huggingface_hub's own backoff
        )

    def list_jobs_hardware(self) -> list[JobHardwareInfo]:
        """The Job flavors and their prices."""
        action = "list_jobs_hardware"
        return self.call(lambda: self.api.list_jobs_hardware(), repo_id=action, action=action)

    def create_scheduled_job(
        self,
        *,
        image: str,
        command: list[str],
        schedule: str,
        env: dict[str, Any],
        secrets: dict[str, str],
        flavor: str,
        timeout: str,
        labels: dict[str, str],
    ) -> ScheduledJobInfo:
        """Create a scheduled Job; retried only when the Hub cannot have created it."""
        action = "create_scheduled_job"
        return self.call(
            lambda: self.api.create_scheduled_job(
                image=image,
                command=command,
                schedule=schedule,
                env=env,
                secrets=secrets,
                flavor=flavor,
                timeout=timeout,
                labels=labels,
            ),
            repo_id=action,
            action=action,
            idempotent=False,
        )

    def list_scheduled_jobs(self, labels: dict[str, str]) -> list[ScheduledJobInfo]:
        """The token's scheduled Jobs carrying ``labels``."""
        action = "list_scheduled_jobs"
        return self.call(
            lambda: list(self.api.list_scheduled_jobs(labels=labels)),
            repo_id=action,
            action=action,
        )

    def delete_scheduled_job(self, scheduled_job_id: str) -> None:
        """Delete a scheduled Job (the Jobs it already ran stay)."""
        action = f"delete_scheduled_job {scheduled_job_id}"
        self.call(
            lambda: self.api.delete_scheduled_job(scheduled_job_id=scheduled_job_id),
            repo_id=action,
            action=action,
        )


def _remote_file(f: RepoFile) -> RemoteFile:
    lfs = getattr(f, "lfs", None)
    return RemoteFile(
        path=str(f.path),
        size=int(f.size or 0),
        blob_id=getattr(f, "blob_id", None),
        lfs_sha256=getattr(lfs, "sha256", None) if lfs is not None else None,
    )
