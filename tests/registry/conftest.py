"""Registry-only fixtures: skill folders, a project, the CLI, and a hostile Hub server.

The hostile server speaks just enough of the Hub protocol for huggingface_hub downloads
(``revision``, ``tree``, ``resolve``) and lies on purpose: its listing may hold traversal or
absolute paths, hidden Unicode, wrong sizes or hashes; it can fail with any status, or drop a
download half-way. It records every request so tests can prove what was (not) fetched.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from tests.cli_runner import run_cli as run_command

#: ``fast_hub_for(url, attempts=3)`` -> a registry Hub client with quick retries.
HubFactory = Callable[..., Any]
REPO_ROOT = Path(__file__).resolve().parents[2]
COMMIT = "c0ffee" + "0" * 34


def write_skill(
    parent: Path, name: str, files: dict[str, str] | None = None, description: str | None = None
) -> Path:
    """A valid skill folder ``parent/name`` with SKILL.md plus ``files``."""
    folder = parent / name
    folder.mkdir(parents=True, exist_ok=True)
    desc = description or f"Helps with {name} tasks in tests."
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {desc}\nlicense: Apache-2.0\n---\n"
        f"# {name}\n\nRun `scripts/run.py` when asked about {name}.\n",
        encoding="utf-8",
    )
    for rel, text in (files or {"scripts/run.py": "print('hello')\n"}).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


def key_pairs(folder: Path, *names: str) -> dict[str, Path]:
    """A signing key pair per name under ``folder``: ``out[name]`` is the private key,
    ``out[name + ".pub"]`` the public one."""
    from upskill_hub.registry.trust.signing import generate_key_pair

    out: dict[str, Path] = {}
    for name in names:
        generate_key_pair(folder / f"{name}.key")
        out[name] = folder / f"{name}.key"
        out[f"{name}.pub"] = folder / f"{name}.pub"
    return out


def tree_state(root: Path) -> dict[str, bytes | str]:
    """Every file, link and folder under ``root`` (to prove nothing was written)."""
    state: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                state[rel] = "link:" + os.readlink(path)
            elif path.is_dir():
                state[rel] = "dir"
            else:
                state[rel] = path.read_bytes()
    return state


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project (a folder with .git) to install into."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


@pytest.fixture
def run_cli(hub_server: object) -> Callable[..., CliResult]:
    """Run ``python -m upskill_hub ARGS`` in a subprocess (real exit codes and stderr)."""

    def run(
        *args: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        unset: tuple[str, ...] = (),
    ) -> CliResult:
        proc = run_command(*args, cwd=cwd, env=env, unset=unset)
        return CliResult(proc.returncode, proc.stdout, proc.stderr)

    return run


@pytest.fixture
def pushed(hub_server: object, tmp_path: Path, unique_repo_id: str) -> tuple[str, str]:
    """A one-skill repo on the local Hub, tagged v1: ``(repo_id, commit)``."""
    from upskill_hub.registry.push import push_skills

    name = unique_repo_id.split("/")[1]
    skill = write_skill(tmp_path / "src", name)
    result = push_skills(skill, repo_id=unique_repo_id, tag="v1")
    return result.repo_id, result.commit


# -- the hostile server -------------------------------------------------------------------------


def git_oid(data: bytes) -> str:
    return hashlib.sha1(f"blob {len(data)}\0".encode() + data).hexdigest()


@dataclass
class HostileFile:
    """What the listing claims (``path``, ``size``, ``oid``) and what is served (``data``)."""

    path: str
    data: bytes
    size: int | None = None
    oid: str | None = None
    drop_after: int | None = None  # close the connection after this many body bytes
    served: int = 0  # GETs answered so far (a dropped file answers 503 after the first)

    def listing(self) -> dict[str, Any]:
        size = len(self.data) if self.size is None else self.size
        return {
            "type": "file",
            "path": self.path,
            "size": size,
            "oid": self.oid or git_oid(self.data),
        }


@dataclass
class HostileRepo:
    repo_id: str
    files: list[HostileFile]
    commit: str = COMMIT


@dataclass
class HostileHub:
    url: str
    repos: dict[str, HostileRepo] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    fail_status: int | None = None  # answer every request with this status
    fail_first: int = 0  # ... or only the first N requests
    echo_auth: int | None = None  # answer with this status, echoing the Authorization header
    retry_after: str = "0"  # the Retry-After sent with fail_status answers
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, files: list[HostileFile]) -> str:
        repo_id = f"evil/hostile-{uuid.uuid4().hex[:10]}"
        self.repos[repo_id] = HostileRepo(repo_id, files)
        return repo_id

    def gets(self, suffix: str) -> list[str]:
        return [p for m, p in self.requests if m == "GET" and unquote(p).endswith(suffix)]


def _handler(hub: HostileHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_HEAD(self) -> None:
            self._serve(body=False)

        def do_GET(self) -> None:
            self._serve(body=True)

        def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        def _json(
            self, data: Any, status: int = 200, headers: dict[str, str] | None = None
        ) -> None:
            self._send(
                status,
                json.dumps(data).encode(),
                {"Content-Type": "application/json", **(headers or {})},
            )

        def _serve(self, body: bool) -> None:
            path = urlsplit(self.path).path
            with hub.lock:
                hub.requests.append((self.command, path))
                failing = hub.fail_status is not None and (
                    hub.fail_first == 0 or len(hub.requests) <= hub.fail_first
                )
            if hub.echo_auth is not None:
                seen = self.headers.get("Authorization", "")
                self._json({"error": f"Bad request; you sent {seen}"}, hub.echo_auth)
                return
            if failing:
                assert hub.fail_status is not None
                self._json({"error": "nope"}, hub.fail_status, {"Retry-After": hub.retry_after})
                return
            parts = path.strip("/").split("/")
            if parts[:2] == ["api", "models"] and len(parts) >= 6:
                repo = hub.repos.get(f"{parts[2]}/{parts[3]}")
                if repo is None:
                    self._json(
                        {"error": "Repository not found"}, 404, {"X-Error-Code": "RepoNotFound"}
                    )
                elif parts[4] == "revision":
                    self._json(
                        {
                            "id": repo.repo_id,
                            "sha": repo.commit,
                            "siblings": [{"rfilename": f.path} for f in repo.files],
                        }
                    )
                elif parts[4] == "tree":
                    self._json([f.listing() for f in repo.files])
                else:
                    self._json({"error": "unsupported"}, 404)
                return
            if len(parts) >= 5 and parts[2] == "resolve":
                repo = hub.repos.get(f"{parts[0]}/{parts[1]}")
                rel = unquote("/".join(parts[4:]))
                found = [f for f in repo.files if f.path == rel] if repo else []
                if not found or repo is None:
                    self._json({"error": "Entry not found"}, 404, {"X-Error-Code": "EntryNotFound"})
                    return
                self._file(repo, found[0], body)
                return
            self._json({"error": "unsupported"}, 404)

        def _file(self, repo: HostileRepo, f: HostileFile, body: bool) -> None:
            headers = {
                "X-Repo-Commit": repo.commit,
                "ETag": f'"{f.oid or git_oid(f.data)}"',
                "Accept-Ranges": "bytes",
            }
            if body:
                f.served += 1
            if body and f.drop_after is not None and f.served > 1:
                self._json({"error": "gone"}, 503)
                return
            self.send_response(200)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(f.data)))
            self.end_headers()
            if not body:
                return
            if f.drop_after is not None:
                self.wfile.write(f.data[: f.drop_after])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
            self.wfile.write(f.data)

    return Handler


@pytest.fixture
def hostile_hub() -> Iterator[HostileHub]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    hub = HostileHub(url=f"http://127.0.0.1:{server.server_address[1]}")
    server.RequestHandlerClass = _handler(hub)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def fast_hub_for() -> HubFactory:
    """A registry Hub client for ``url`` with quick retries (tests need not wait seconds)."""
    from dataclasses import replace

    from upskill_hub.hub.client import HUB_RETRY, Hub

    def make(url: str, attempts: int = 3) -> Any:
        return Hub(endpoint=url, retry=replace(HUB_RETRY, retries=attempts - 1, base_s=0.01))

    return make
