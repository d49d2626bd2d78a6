"""Run the local Hub server: blocking (:func:`serve`) or in a background thread."""

from __future__ import annotations

import contextlib
import errno
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.utils import formatdate
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.types import Message, Receive, Scope, Send

from upskill_hub.errors import UpskillHubError, UsageError
from upskill_hub.hub_server.app import check_options, create_app
from upskill_hub.hub_server.locations import default_data_dir


@dataclass(frozen=True)
class RunningServer:
    """A server started by :func:`running_server`."""

    url: str
    host: str
    port: int
    data_dir: Path


class _Server(uvicorn.Server):
    """A uvicorn server that reports once it listens."""

    def __init__(self, config: uvicorn.Config, on_started: Callable[[], None] | None) -> None:
        super().__init__(config)
        self._on_started = on_started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and self._on_started is not None:
            self._on_started()


def _prepare_data_dir(data_dir: Path) -> Path:
    data_dir = Path(data_dir).expanduser()
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        probe = data_dir / ".write-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"--data {data_dir}: not a writable directory ({exc.strerror})") from exc
    return data_dir


def _bind(host: str, port: int) -> socket.socket:
    if not 0 <= port <= 65535:
        raise UsageError(f"--port {port}: must be between 0 and 65535")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(f"--port {port}: already in use on {host}") from exc
        raise UsageError(f"cannot listen on {host}:{port} ({exc.strerror})") from exc
    sock.listen(128)
    sock.setblocking(False)
    return sock


def _url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def _stop_jobs(server: uvicorn.Server) -> None:
    jobs = getattr(getattr(server.config.app, "state", None), "jobs", None)
    if jobs is not None:
        jobs.close()


def _make_server(
    data_dir: Path,
    token: str | None,
    jobs: bool,
    host: str,
    on_started: Callable[[], None] | None,
) -> _Server:
    app = _FreshDate(create_app(data_dir, token=token, jobs=jobs, host=host))
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", date_header=False
    )
    return _Server(config, on_started)


class _FreshDate:
    """The app, with a ``Date`` header of the moment each response starts. uvicorn's own is
    refreshed by its event loop and can lag a second behind under load, and
    ``fetch_job_logs`` ends its replay at the first log event later than Date + 1 s."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.state = app.state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_dated(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"date"]
                headers.append((b"date", formatdate(usegmt=True).encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_dated)


def serve(
    host: str = "127.0.0.1",
    port: int = 0,
    data_dir: Path | str | None = None,
    token: str | None = None,
    on_ready: Callable[[str], None] | None = None,
    jobs: bool = False,
) -> None:
    """Serve the local Hub API until interrupted (blocking).

    A local stand-in for offline work, CI and tests; NOT a Hub replacement. ``port=0`` picks a
    free port; ``data_dir=None`` uses :func:`default_data_dir`; ``on_ready(url)`` is called
    once the server listens; ``jobs=True`` (needs ``token``) turns on the Jobs API, which runs
    the token holder's commands as local processes.
    """
    check_options(token, jobs)
    data = _prepare_data_dir(Path(data_dir) if data_dir is not None else default_data_dir())
    sock = _bind(host, port)
    url = _url(host, sock.getsockname()[1])
    server = _make_server(data, token, jobs, host, (lambda: on_ready(url)) if on_ready else None)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        _stop_jobs(server)  # running Jobs end with their server
    if not server.started:
        raise UpskillHubError(f"the hub server on {url} failed to start")


@contextlib.contextmanager
def running_server(
    data_dir: Path | str,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str | None = None,
    jobs: bool = False,
) -> Iterator[RunningServer]:
    """Run the server in a background thread; yields a handle with ``.url``; stops on exit.
    ``jobs=True`` (needs ``token``) turns on the Jobs API, as ``hub serve --jobs`` does."""
    check_options(token, jobs)
    data = _prepare_data_dir(Path(data_dir))
    sock = _bind(host, port)
    actual_port = sock.getsockname()[1]
    ready = threading.Event()
    server = _make_server(data, token, jobs, host, ready.set)
    failure: list[BaseException] = []

    def run() -> None:
        try:
            server.run(sockets=[sock])
        except BaseException as exc:  # reported to the caller below
            failure.append(exc)
        finally:
            ready.set()

    thread = threading.Thread(target=run, name=f"hub-server-{actual_port}", daemon=True)
    thread.start()
    try:
        ready.wait(timeout=30)
        if failure or not server.started:
            raise UpskillHubError(f"the hub server on port {actual_port} failed to start")
        yield RunningServer(url=_url(host, actual_port), host=host, port=actual_port, data_dir=data)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        _stop_jobs(server)  # running Jobs end with their server
