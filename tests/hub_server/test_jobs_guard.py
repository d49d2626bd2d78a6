"""``hub serve`` against the parties it guards against: a web page reaching its port by DNS
rebinding (a hostile ``Host``), anyone posting a Job that would run a command, a token holder
reaching into another namespace's Jobs, and anonymous callers sending huge bodies. Real HTTP
throughout (httpx, huggingface_hub's own job functions, raw sockets where clients won't lie)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from huggingface_hub import HfApi
from huggingface_hub.errors import HfHubHTTPError

from tests.hub_server.cli_server import served_by_cli
from upskill_hub.errors import UsageError
from upskill_hub.hub_server import RunningServer, running_server
from upskill_hub.hub_server.app import host_allowed

REPO_ROOT = Path(__file__).resolve().parents[2]
OWNER = "owner-token-7f3e"


@pytest.fixture
def jobs_server(tmp_path: Path) -> Iterator[RunningServer]:
    with running_server(tmp_path / "data", token=OWNER, jobs=True) as server:
        yield server


def _pwn_spec(marker: Path) -> dict[str, object]:
    """A Job whose command would leave ``marker`` behind if it ever ran."""
    return {
        "command": ["sh", "-c", f"id > {marker}"],
        "arguments": [],
        "environment": {},
        "flavor": "cpu-basic",
        "dockerImage": "python:3.12",
    }


def _no_job_ran(marker: Path, data_dir: Path) -> None:
    time.sleep(0.5)  # a started process writes at once
    assert not marker.exists()
    runs = data_dir / "jobs" / "runs"
    assert not runs.exists() or not any(runs.iterdir())


# ---- DNS rebinding: a hostile Host header ----------------------------------------------------


def test_a_hostile_host_is_refused_on_every_route(tmp_path: Path) -> None:
    with running_server(tmp_path / "data") as server:
        owner = HfApi(endpoint=server.url, token="tok")
        owner.create_repo("local-user/rebind")
        owner.upload_file(path_or_fileobj=b"hi", path_in_repo="a.txt", repo_id="local-user/rebind")
        port = urlsplit(server.url).port
        auth = {"Authorization": "Bearer tok"}
        requests = [
            ("GET", "/api/whoami-v2", None),
            ("GET", "/api/models/local-user/rebind", None),
            ("GET", "/local-user/rebind/resolve/main/a.txt", None),
            ("POST", "/api/repos/create", {"name": "planted", "type": "model"}),
            ("POST", "/api/jobs/local-user", {"command": ["true"]}),
        ]
        for host in (f"rebind.attacker.example:{port}", "attacker.example", "localhost.evil:80"):
            for method, path, body in requests:
                sent = httpx.request(
                    method, server.url + path, json=body, headers={**auth, "Host": host}
                )
                assert sent.status_code == 403, (host, path, sent.status_code)
                assert "Host" in sent.json()["error"]
        names = [m.id for m in owner.list_models(author="local-user")]
        assert "local-user/planted" not in names
        # loopback names and addresses still work, with or without a port
        for host in ("localhost", f"localhost:{port}", f"127.0.0.1:{port}", "127.0.0.2"):
            sent = httpx.get(f"{server.url}/api/whoami-v2", headers={**auth, "Host": host})
            assert sent.status_code == 200, host


def test_a_request_without_exactly_one_host_is_refused(tmp_path: Path) -> None:
    with running_server(tmp_path / "data") as server:
        url = urlsplit(server.url)
        for headers in ("", f"Host: {url.netloc}\r\nHost: attacker.example\r\n"):
            request = f"GET /api/whoami-v2 HTTP/1.1\r\n{headers}Connection: close\r\n\r\n"
            with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
                sock.sendall(request.encode())
                reply = sock.recv(4096).decode("latin-1")
            assert reply.split(" ")[1] in ("400", "403"), reply[:200]


def test_which_hosts_name_the_server() -> None:
    assert host_allowed("LOCALHOST.:8000", None)
    assert host_allowed("[::1]:8000", "127.0.0.1")
    assert host_allowed("127.9.9.9", None)
    assert not host_allowed("localhost.attacker.example", None)
    assert not host_allowed("2130706433", None)  # 127.0.0.1 as a number: a name to a resolver
    assert not host_allowed("", "127.0.0.1")
    # the --host the server listens on
    assert host_allowed("myhost.lan:8000", "myhost.lan")
    assert not host_allowed("myhost.lan", None)
    # on every interface: any address literal (a rebinding page needs a name), no other name
    assert host_allowed("192.168.1.20:8000", "0.0.0.0")
    assert host_allowed("[fd00::2]:8000", "::")
    assert not host_allowed("attacker.example:8000", "0.0.0.0")


# ---- the Jobs API: off by default; on, only for the token holder in its namespaces ----------


def test_jobs_are_off_without_jobs_option(tmp_path: Path) -> None:
    """The old default: no --token, and any bearer string started a local process."""
    marker = tmp_path / "pwned"
    with running_server(tmp_path / "data") as server:
        for headers in ({"Authorization": "Bearer x"}, {}):
            sent = httpx.post(
                f"{server.url}/api/jobs/anyone", json=_pwn_spec(marker), headers=headers
            )
            assert sent.status_code == 404 and "--jobs" in sent.json()["error"]
        with pytest.raises(HfHubHTTPError) as caught:
            HfApi(endpoint=server.url, token="x").run_job(
                image="python:3.12", command=["sh", "-c", f"id > {marker}"], namespace="anyone"
            )
        assert caught.value.response.status_code == 404
        _no_job_ran(marker, server.data_dir)


def test_jobs_need_a_token(tmp_path: Path) -> None:
    with (
        pytest.raises(UsageError, match=r"^--jobs needs --token"),
        running_server(tmp_path / "data", jobs=True),
    ):
        pass
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "upskill_hub", "hub", "serve", "--jobs", "--data", str(tmp_path)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: --jobs needs --token")
    assert len(done.stderr.strip().splitlines()) == 1


def test_cli_warns_once_when_jobs_are_on(tmp_path: Path) -> None:
    with served_by_cli("--jobs", "--token", OWNER, "--data", str(tmp_path / "d")) as served:
        hardware = httpx.get(
            f"{served.url}/api/jobs/hardware", headers={"Authorization": f"Bearer {OWNER}"}
        )
        assert hardware.status_code == 200
    warnings = [line for line in served.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "--jobs" in warnings[0] and "any command" in warnings[0]


def test_only_the_token_holder_starts_jobs(jobs_server: RunningServer, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    spec = _pwn_spec(marker)
    for headers, status in (
        ({}, 401),
        ({"Authorization": "Bearer x"}, 401),
        ({"Authorization": f"Bearer {OWNER}x"}, 401),
        ({"Authorization": f"Bearer {OWNER}"}, 403),  # the holder, but not its namespace
    ):
        sent = httpx.post(f"{jobs_server.url}/api/jobs/anyone", json=spec, headers=headers)
        assert sent.status_code == status, (headers, sent.text)
    for namespace in ("local-user", "local-org"):
        sent = httpx.post(
            f"{jobs_server.url}/api/jobs/{namespace}",
            json=spec,
            headers={"Authorization": "Bearer x"},
        )
        assert sent.status_code == 401
    with pytest.raises(HfHubHTTPError) as caught:
        HfApi(endpoint=jobs_server.url, token="guess").run_job(
            image="python:3.12",
            command=spec["command"],
            namespace="local-user",  # type: ignore[arg-type]
        )
    assert caught.value.response.status_code == 401
    _no_job_ran(marker, jobs_server.data_dir)
    # the holder runs Jobs in its own namespaces
    owner = HfApi(endpoint=jobs_server.url, token=OWNER)
    job = owner.run_job(image="python:3.12", command=["python", "-c", "print('ok')"])
    assert owner.wait_for_job(job.id, timeout=60, poll_interval=0.1).status.stage == "COMPLETED"


def test_a_browser_form_cannot_start_a_job_even_with_the_token(
    jobs_server: RunningServer, tmp_path: Path
) -> None:
    """What a web page may post cross-site without a preflight (form content types) is refused
    before the body is read, on every Jobs route, whatever else the request carries."""
    marker = tmp_path / "pwned"
    body = json.dumps(_pwn_spec(marker))
    auth = {"Authorization": f"Bearer {OWNER}"}
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        for path in ("/api/jobs/local-user", "/api/scheduled-jobs/local-user"):
            sent = httpx.post(
                jobs_server.url + path, content=body, headers={**auth, "Content-Type": kind}
            )
            assert sent.status_code == 415, (kind, path, sent.text)
    _no_job_ran(marker, jobs_server.data_dir)


def _stored_job(data_dir: Path, job_id: str, namespace: str) -> None:
    """A Job of another namespace in the data folder (from an earlier server, say)."""
    folder = data_dir / "jobs" / "runs" / job_id
    folder.mkdir(parents=True)
    job = {
        "id": job_id,
        "namespace": namespace,
        "createdAt": "2026-01-01T00:00:00.000Z",
        "startedAt": "2026-01-01T00:00:00.000Z",
        "finishedAt": "2026-01-01T00:00:01.000Z",
        "command": ["true"],
        "arguments": [],
        "environment": {},
        "secrets": {},
        "flavor": "cpu-basic",
        "owner": {"id": "victim-id", "name": namespace, "type": "user"},
        "status": {"stage": "COMPLETED", "message": None},
    }
    (folder / "job.json").write_text(json.dumps(job))
    line = {"timestamp": "2026-01-01T00:00:00.500Z", "data": "victim's private log line"}
    (folder / "log.jsonl").write_text(json.dumps(line) + "\n")


def test_jobs_of_another_namespace_cannot_be_listed_read_or_cancelled(tmp_path: Path) -> None:
    data = tmp_path / "data"
    victim_id = "aaaaaaaaaaaaaaaaaaaaaaaa"
    _stored_job(data, victim_id, "victim")
    with running_server(data, token=OWNER, jobs=True) as server:
        owner = HfApi(endpoint=server.url, token=OWNER)
        sleeper = ["python", "-c", "import time; time.sleep(60)"]
        mine = owner.run_job(image="python:3.12", command=sleeper, namespace="local-user")
        holder = {"Authorization": f"Bearer {OWNER}"}
        stranger = {"Authorization": "Bearer someone-else"}
        base = f"{server.url}/api/jobs"
        for headers, status in ((holder, 403), (stranger, 401), ({}, 401)):
            for method, path in (
                ("GET", "/victim"),
                ("GET", f"/victim/{victim_id}"),
                ("GET", f"/victim/{victim_id}/logs"),
                ("POST", f"/victim/{victim_id}/cancel"),
                ("GET", "/victim-org"),
            ):
                sent = httpx.request(method, base + path, headers=headers, timeout=10)
                assert sent.status_code == status, (headers, path, sent.text)
                assert "private log line" not in sent.text
        for headers in (stranger, {}):  # and nobody else reaches the holder's Jobs
            for method, path in (
                ("GET", "/local-user"),
                ("GET", f"/local-user/{mine.id}"),
                ("GET", f"/local-user/{mine.id}/logs"),
                ("POST", f"/local-user/{mine.id}/cancel"),
            ):
                sent = httpx.request(method, base + path, headers=headers, timeout=10)
                assert sent.status_code == 401, (headers, path)
        # the victim's Job is not the holder's under its own namespace either
        sent = httpx.get(f"{base}/local-user/{victim_id}/logs", headers=holder, timeout=10)
        assert sent.status_code == 404 and "private log line" not in sent.text
        listed = [j.id for j in owner.list_jobs(namespace="local-user")]
        assert listed == [mine.id]
        with pytest.raises(HfHubHTTPError) as caught:
            owner.cancel_job(job_id=victim_id, namespace="victim")
        assert caught.value.response.status_code == 403
        assert owner.inspect_job(job_id=mine.id).status.stage == "RUNNING"
        owner.cancel_job(job_id=mine.id)
    stored = json.loads((data / "jobs" / "runs" / victim_id / "job.json").read_text())
    assert stored["status"]["stage"] == "COMPLETED"


@pytest.mark.parametrize(
    "timeout",
    ['"soon"', "-5", "0", "true", "NaN", "Infinity", "1e308", "[60]"],
)
def test_an_invalid_timeout_is_a_400_and_starts_nothing(
    jobs_server: RunningServer, timeout: str
) -> None:
    body = (
        '{"command": ["python", "-c", "import time; time.sleep(30)"], "flavor": "cpu-basic", '
        f'"timeoutSeconds": {timeout}}}'
    )
    headers = {"Authorization": f"Bearer {OWNER}", "Content-Type": "application/json"}
    for path, wrapped in (
        ("/api/jobs/local-user", body),
        ("/api/scheduled-jobs/local-user", f'{{"jobSpec": {body}, "schedule": "@daily"}}'),
    ):
        sent = httpx.post(jobs_server.url + path, content=wrapped, headers=headers)
        assert sent.status_code == 400, sent.text
        assert sent.json()["error"].startswith("timeoutSeconds: a number of seconds")
    owner = HfApi(endpoint=jobs_server.url, token=OWNER)
    assert list(owner.list_jobs(namespace="local-user")) == []
    assert list(owner.list_scheduled_jobs(namespace="local-user")) == []


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("command", []),
        ("command", "id"),
        ("arguments", [1, 2]),
        ("arguments", "-c"),
        ("environment", ["A=1"]),
        ("secrets", {"K": {"nested": 1}}),
        ("labels", "x"),
    ],
)
def test_a_malformed_spec_is_a_400_naming_its_field(
    jobs_server: RunningServer, field: str, value: object
) -> None:
    spec: dict[str, object] = {"command": ["python", "-c", "import time; time.sleep(30)"]}
    spec[field] = value
    headers = {"Authorization": f"Bearer {OWNER}"}
    sent = httpx.post(f"{jobs_server.url}/api/jobs/local-user", json=spec, headers=headers)
    assert sent.status_code == 400 and sent.json()["error"].startswith(f"{field}: ")
    runs = jobs_server.data_dir / "jobs" / "runs"
    assert not any(runs.iterdir())


def test_a_valid_timeout_still_ends_the_job(jobs_server: RunningServer) -> None:
    headers = {"Authorization": f"Bearer {OWNER}"}
    spec = {"command": ["python", "-c", "import time; time.sleep(30)"], "timeoutSeconds": 0.5}
    sent = httpx.post(f"{jobs_server.url}/api/jobs/local-user", json=spec, headers=headers)
    assert sent.status_code == 200
    owner = HfApi(endpoint=jobs_server.url, token=OWNER)
    info = owner.wait_for_job(sent.json()["id"], timeout=30, poll_interval=0.1)
    assert info.status.stage == "ERROR" and "timed out" in (info.status.message or "")


# ---- auth before any body --------------------------------------------------------------------


def _first_reply(url: str, request: str) -> str:
    """What the server answers to a request whose body is never sent (5 s at most)."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
        sock.sendall(request.encode())
        return sock.recv(4096).decode("latin-1")


@pytest.mark.parametrize(
    ("method", "path", "auth", "status"),
    [
        ("POST", "/api/jobs/local-user", "", "401"),
        ("POST", "/api/jobs/local-user", "Authorization: Bearer wrong\r\n", "401"),
        ("POST", "/api/scheduled-jobs/local-user", "", "401"),
        ("POST", "/api/models/local-user/x/paths-info/main", "", "413"),
        ("POST", "/api/validate-yaml", "", "413"),
        ("POST", "/api/models/local-user/x/commit/main", "Authorization: Bearer wrong\r\n", "401"),
        ("POST", "/local-user/x.git/info/lfs/objects/batch", "", "401"),
        ("PUT", "/_lfs-upload/" + "0" * 64 + "?grant=guess", "", "401"),
        ("GET", "/api/whoami-v2", "", "401"),
        ("DELETE", "/api/repos/delete", "", "401"),
    ],
)
def test_unauthorized_bodies_are_refused_unread(
    jobs_server: RunningServer, method: str, path: str, auth: str, status: str
) -> None:
    """200 MB declared, none sent: the answer comes at once (the old server waited for it)."""
    host = urlsplit(jobs_server.url).netloc
    request = (
        f"{method} {path} HTTP/1.1\r\nHost: {host}\r\n{auth}"
        f"Content-Type: application/json\r\nContent-Length: {200 << 20}\r\n\r\n{{"
    )
    reply = _first_reply(jobs_server.url, request)
    assert reply.startswith(f"HTTP/1.1 {status}"), reply[:200]
