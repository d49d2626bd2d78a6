"""What every Hub API handler gets: the parsed request (:class:`Call`), and the helpers they
share (revision splitting, error responses). Kept apart from :mod:`.app` so the handler modules
(``repo_api``, ``file_api``) and the app that routes to them do not import each other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from upskill_hub.hub_server.api_errors import HubApiError, repo_not_found
from upskill_hub.hub_server.storage import HubStore, RepoRef


@dataclass
class Call:
    """One request, parsed: who is asking, for which repo, with which path segments."""

    request: Request
    store: HubStore
    body: bytes
    base_url: str
    authorized: bool
    anonymous: bool
    repo: RepoRef | None = None
    segments: list[str] = field(default_factory=list)

    @property
    def method(self) -> str:
        return self.request.method

    def query(self, name: str, default: str = "") -> str:
        return self.request.query_params.get(name, default)

    def flag(self, name: str) -> bool:
        return self.query(name).lower() in ("1", "true", "yes")

    def require_write(self) -> None:
        if not self.authorized:
            message = (
                "Unauthorized: this server needs a write token"
                if self.anonymous
                else "Invalid credentials in Authorization header"
            )
            raise HubApiError(401, message)

    def require_repo(self) -> tuple[RepoRef, dict[str, Any]]:
        """The addressed repo and its metadata; private repos hide from unauthorized readers."""
        assert self.repo is not None
        meta = self.store.require_repo(self.repo)
        if meta.get("private") and not self.can_read_private():
            raise repo_not_found(self.repo.id, 401 if self.anonymous else 404)
        return self.repo, meta

    def can_read_private(self) -> bool:
        return self.authorized and not self.anonymous

    def repo_url(self, repo: RepoRef) -> str:
        return f"{self.base_url}/{repo.url_prefix}{repo.id}"


Handler = Callable[[Call], Response]


def error_response(err: HubApiError) -> Response:
    safe = err.message.replace("\n", " ").encode("latin-1", "replace").decode("latin-1")
    headers = {"X-Error-Message": safe[:500], **err.headers}
    if err.code:
        headers["X-Error-Code"] = err.code
    return JSONResponse({"error": err.message}, status_code=err.status, headers=headers)


def take_revision(segments: list[str]) -> tuple[str, list[str]]:
    """Split ``[rev, *rest]``; an unencoded ``refs/pr/N`` or ``refs/convert/X`` spans 3 segments."""
    if not segments:
        raise HubApiError(400, "Missing revision")
    if len(segments) >= 3 and segments[0] == "refs" and segments[1] in ("pr", "convert"):
        return "/".join(segments[:3]), segments[3:]
    return segments[0], segments[1:]
