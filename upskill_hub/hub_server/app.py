"""The Starlette app: routes Hub API paths (matched on the raw, still-encoded path) to handlers.

Starlette decodes ``%2F`` before routing, so revisions such as ``refs%2Fpr%2F1`` and folder
paths sent as one encoded segment would be split wrongly by ordinary routes. The app has one
catch-all route and splits ``scope["raw_path"]`` itself, decoding each segment separately.
"""

from __future__ import annotations

import hmac
import ipaddress
from pathlib import Path
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from upskill_hub.errors import UsageError
from upskill_hub.hub_server.api_errors import HubApiError
from upskill_hub.hub_server.call import Call, Handler, error_response
from upskill_hub.hub_server.storage import REPO_TYPES, HubStore, RepoRef, RepoType

_TYPE_BY_PLURAL: dict[str, RepoType] = {f"{t}s": t for t in REPO_TYPES}
#: Who owns the Jobs of the local user (the offline stand-in's Jobs API: see job_processes).
_JOBS_OWNER = {"id": "local-user-id", "name": "local-user", "type": "user"}


#: The largest request body read (an NDJSON commit carries regular files base64-encoded).
MAX_BODY_BYTES = 256 << 20
#: The largest body read from a caller without a valid token (anonymous ``paths-info`` and
#: ``validate-yaml`` reads); anything larger is refused (413) before it is read.
UNAUTHORIZED_BODY_BYTES = 1 << 20
#: ``--host`` values that listen on every interface (no name a client would address).
_WILDCARD_HOSTS = ("", "0.0.0.0", "::", "[::]")
#: Content types a web page may send cross-site without a CORS preflight.
_FORM_TYPES = ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data")


def _check_write_request(request: Request, authorized: bool, anonymous: bool) -> None:
    """Refuse a write before its body is read: no/wrong token, or a browser form's type."""
    if not authorized:
        message = (
            "Unauthorized: writes need a token (Authorization: Bearer ...)"
            if anonymous
            else "Invalid credentials in Authorization header"
        )
        raise HubApiError(401, message)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind in _FORM_TYPES:
        raise HubApiError(415, f"Unsupported content type {kind!r}: send JSON or NDJSON")


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The request body, refusing (413) more than ``limit`` bytes without reading them all."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise HubApiError(413, f"Request body over {limit} bytes")
    chunks: list[bytes] = []
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise HubApiError(413, f"Request body over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def check_options(token: str | None, jobs: bool) -> None:
    """Refuse ``--jobs`` without ``--token``: the Jobs API runs commands on this machine."""
    if jobs and not token:
        raise UsageError(
            "--jobs needs --token TOKEN: the Jobs API runs commands on this machine, "
            "so only the holder of the token may use it"
        )


def _host_name(header: str) -> str:
    """The name or address of a ``Host`` header, without port, brackets or trailing dot."""
    text = header.strip().lower()
    if text.startswith("["):
        return text[1 : text.find("]")] if "]" in text else ""
    if text.count(":") == 1:
        text = text.partition(":")[0]
    return text.rstrip(".")


def host_allowed(header: str, bound: str | None) -> bool:
    """Whether a request's ``Host`` names this server: a loopback name or address, the
    ``--host`` it listens on, or (listening on every interface) any address literal. A name
    that resolves elsewhere is refused: it is what a web page uses for DNS rebinding."""
    name = _host_name(header)
    if not name:
        return False
    if name == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        address = None
    if address is not None and address.is_loopback:
        return True
    bound_text = (bound or "").strip().lower()
    if bound_text in _WILDCARD_HOSTS:
        return bound is not None and address is not None
    return name == _host_name(bound_text)


def split_raw_path(raw_path: bytes) -> list[str]:
    text = raw_path.decode("latin-1")
    parts = [unquote(p) for p in text.split("/")[1:]]
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def create_app(
    data_dir: Path, token: str | None = None, *, jobs: bool = False, host: str | None = None
) -> Starlette:
    """A Starlette app serving the Hub API from ``data_dir``.

    A local stand-in for offline work, CI and tests; NOT a Hub replacement. Like the Hub, every
    write needs ``Authorization: Bearer <token>`` (401 without one); with ``token`` set only that
    token may write or read private repos, without it any token may. A write is refused before
    its body is read: no token, a browser form's content type (``text/plain``, form data: what
    any web page may post cross-site), or a body over :data:`MAX_BODY_BYTES`; a caller without
    a valid token never gets more than :data:`UNAUTHORIZED_BODY_BYTES` read.

    Every request whose ``Host`` is not a loopback name or address (or ``host``, the address
    the server listens on) is refused (403): a web page cannot reach it by DNS rebinding
    (``host=None``: loopback names only). The Jobs API (which runs commands as local
    processes) answers only with ``jobs=True``, which needs ``token``, and only that token's
    holder, in its own namespaces.
    """
    from upskill_hub.hub_server import file_api, jobs_api, repo_api
    from upskill_hub.hub_server.job_processes import JobsEngine

    check_options(token, jobs)
    store = HubStore(Path(data_dir))
    jobs_engine = JobsEngine(Path(data_dir) / "jobs", owner=_JOBS_OWNER) if jobs else None
    uploads = file_api.UploadGrants()

    def is_authorized(header: str) -> tuple[bool, bool]:
        anonymous = not header.lower().startswith("bearer ") or not header[7:].strip()
        if token is None:
            return not anonymous, anonymous
        ok = hmac.compare_digest(header.encode(), f"Bearer {token}".encode())
        return ok, anonymous

    async def dispatch(request: Request) -> Response:
        segments = split_raw_path(request.scope.get("raw_path") or request.url.path.encode())
        authorized, anonymous = is_authorized(request.headers.get("authorization", ""))
        try:
            hosts = request.headers.getlist("host")
            if len(hosts) != 1 or not host_allowed(hosts[0], host):
                shown = hosts[0][:100] if hosts else ""
                raise HubApiError(
                    403,
                    f"Host {shown!r} is not allowed: this server answers only requests "
                    "addressed to a loopback name or address, or to its --host",
                )
            base_url = str(request.base_url).rstrip("/")
            if request.method == "PUT" and segments[:1] == ["_lfs-upload"]:
                return await file_api.lfs_upload(request, store, segments[1:], uploads)
            handler, repo, rest = _route(request.method, segments)
            if handler in writes or handler in jobs_api.HANDLERS:
                _check_write_request(request, authorized, anonymous)
            limit = MAX_BODY_BYTES if authorized else UNAUTHORIZED_BODY_BYTES
            body = b"" if request.method in ("GET", "HEAD") else await read_body(request, limit)
            call = Call(
                request=request,
                store=store,
                body=body,
                base_url=base_url,
                authorized=authorized,
                anonymous=anonymous,
                repo=repo,
                segments=rest,
            )
            return await _run(handler, call)
        except HubApiError as err:
            return error_response(err)

    async def _run(handler: Handler, call: Call) -> Response:
        return await run_in_threadpool(handler, call)

    def _route(method: str, segs: list[str]) -> tuple[Handler, RepoRef | None, list[str]]:
        if segs[:1] == ["api"]:
            return _route_api(method, segs[1:])
        repo_type: RepoType = "model"
        if len(segs) >= 4 and segs[0] in ("datasets", "spaces"):
            repo_type = _TYPE_BY_PLURAL[segs[0]]
            segs = segs[1:]
        if (
            len(segs) >= 2
            and segs[1].endswith(".git")
            and segs[2:]
            == [
                "info",
                "lfs",
                "objects",
                "batch",
            ]
        ):
            repo = RepoRef(repo_type, f"{segs[0]}/{segs[1][: -len('.git')]}")
            return _only(method, "POST", file_api.lfs_batch), repo, []
        if len(segs) >= 5 and segs[2] == "resolve":
            repo = RepoRef(repo_type, f"{segs[0]}/{segs[1]}")
            return _only(method, ("GET", "HEAD"), file_api.resolve), repo, segs[3:]
        raise HubApiError(404, f"Not found: /{'/'.join(segs)}")

    def _route_api(method: str, segs: list[str]) -> tuple[Handler, RepoRef | None, list[str]]:
        if segs == ["whoami-v2"]:
            return _only(method, "GET", repo_api.whoami), None, []
        if segs == ["validate-yaml"]:
            return _only(method, "POST", repo_api.validate_yaml), None, []
        if segs == ["repos", "create"]:
            return _only(method, "POST", repo_api.create_repo), None, []
        if segs == ["repos", "delete"]:
            return _only(method, "DELETE", repo_api.delete_repo), None, []
        if segs[:1] in (["jobs"], ["scheduled-jobs"]) and len(segs) > 1:
            if jobs_engine is None:
                raise HubApiError(
                    404,
                    "The Jobs API is off: it runs commands on this machine; start the server "
                    "with `upskill-hub hub serve --jobs --token TOKEN` to use it",
                )
            jobs_handler, jobs_rest = jobs_api.route(method, segs)
            return jobs_handler, None, jobs_rest
        if not segs or segs[0] not in _TYPE_BY_PLURAL:
            raise HubApiError(404, f"Not found: /api/{'/'.join(segs)}")
        repo_type = _TYPE_BY_PLURAL[segs[0]]
        if len(segs) == 1:
            return _only(method, "GET", repo_api.list_repos), RepoRef(repo_type, ""), []
        if len(segs) < 3:
            raise HubApiError(404, f"Not found: /api/{'/'.join(segs)}")
        repo = RepoRef(repo_type, f"{segs[1]}/{segs[2]}")
        action, rest = (segs[3], segs[4:]) if len(segs) > 3 else ("", [])
        table: dict[tuple[str, str], Handler] = {
            ("", "GET"): repo_api.info,
            ("revision", "GET"): repo_api.info,
            ("tree", "GET"): repo_api.tree,
            ("paths-info", "POST"): repo_api.paths_info,
            ("preupload", "POST"): repo_api.preupload,
            ("commit", "POST"): repo_api.commit,
            ("refs", "GET"): repo_api.refs,
            ("commits", "GET"): repo_api.commits,
            ("branch", "POST"): repo_api.create_branch,
            ("branch", "DELETE"): repo_api.delete_branch,
            ("tag", "POST"): repo_api.create_tag,
            ("tag", "DELETE"): repo_api.delete_tag,
            ("settings", "PUT"): repo_api.settings,
        }
        handler = table.get((action, "GET" if method == "HEAD" else method))
        if handler is None:
            raise HubApiError(404, f"Not found: {method} /api/{'/'.join(segs)}")
        return handler, repo, rest

    def _only(method: str, allowed: str | tuple[str, ...], handler: Handler) -> Handler:
        if method not in ((allowed,) if isinstance(allowed, str) else allowed):
            raise HubApiError(405, f"Method {method} not allowed here")
        return handler

    writes: set[Handler] = {
        repo_api.create_repo,
        repo_api.delete_repo,
        repo_api.preupload,
        repo_api.commit,
        repo_api.create_branch,
        repo_api.delete_branch,
        repo_api.create_tag,
        repo_api.delete_tag,
        repo_api.settings,
        file_api.lfs_batch,
    }
    app = Starlette(
        routes=[
            Route("/{path:path}", dispatch, methods=["GET", "HEAD", "POST", "PUT", "DELETE"]),
        ]
    )
    app.state.store = store
    app.state.upload_grants = uploads
    app.state.jobs = jobs_engine
    return app
