"""The error the server answers with: an HTTP status, a message and the Hub's ``X-Error-Code``."""

from __future__ import annotations


class HubApiError(Exception):
    """Raised anywhere in the server; the app turns it into a JSON error response."""

    def __init__(
        self,
        status: int,
        message: str,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers or {}


def repo_not_found(repo_id: str, status: int = 404) -> HubApiError:
    return HubApiError(status, f"Repository not found: {repo_id}", "RepoNotFound")


def revision_not_found(revision: str) -> HubApiError:
    return HubApiError(404, f"Invalid rev id: {revision}", "RevisionNotFound")


def entry_not_found(path: str, commit: str | None = None) -> HubApiError:
    headers = {"X-Repo-Commit": commit} if commit else None
    return HubApiError(404, f"Entry not found: {path}", "EntryNotFound", headers)
