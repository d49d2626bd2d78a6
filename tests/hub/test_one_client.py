"""One Hub client for the package: nothing outside ``upskill_hub/hub/`` builds ``HfApi`` (checked
by parsing every module with ``ast``), and Jobs calls through :class:`Hub` get its typed errors
with the token redacted, against ``upskill-hub hub serve --jobs --token`` over real HTTP."""

from __future__ import annotations

import ast
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx2
import pytest
from huggingface_hub.errors import HfHubHTTPError

from tests.hub_server.cli_server import served_by_cli
from upskill_hub.errors import HubError
from upskill_hub.hub.client import HUB_RETRY, Hub
from upskill_hub.hub.errors import transient
from upskill_hub.secrets import REDACTED

PACKAGE = Path(__file__).resolve().parents[2] / "upskill_hub"
HUB_PACKAGE = PACKAGE / "hub"
TOKEN = "hf_local_one_client_owner_token"
NAMESPACE = "local-user"


def hfapi_uses(source: str) -> list[int]:
    """Lines of ``source`` that import the name ``HfApi`` or call anything named ``HfApi``
    (``HfApi(...)``, ``huggingface_hub.HfApi(...)``; an import counts, so an alias cannot hide
    a construction)."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and any(a.name == "HfApi" for a in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name == "HfApi":
                lines.append(node.lineno)
    return sorted(set(lines))


def test_no_module_outside_the_hub_package_builds_hfapi() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if HUB_PACKAGE not in path.parents
        for line in hfapi_uses(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "build the client with upskill_hub.hub.client.Hub instead"
    inside = [p.name for p in HUB_PACKAGE.rglob("*.py") if hfapi_uses(p.read_text("utf-8"))]
    assert inside == ["client.py"]  # the scan sees the one construction there is


@pytest.mark.parametrize(
    "source",
    [
        "from huggingface_hub import HfApi\napi = HfApi()\n",
        "import huggingface_hub\napi = huggingface_hub.HfApi(endpoint='x')\n",
        "def f():\n    from huggingface_hub import HfApi as Api\n    return Api()\n",
        "from huggingface_hub import hf_api\napi = hf_api.HfApi()\n",
    ],
)
def test_the_scan_sees_every_spelling(source: str) -> None:
    assert hfapi_uses(source)


def test_the_scan_leaves_other_names_alone() -> None:
    assert hfapi_uses("from huggingface_hub import HfFileSystem\nfs = HfFileSystem()\n") == []


@pytest.fixture(scope="module")
def jobs_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("one-client") / "data"
    with served_by_cli("--jobs", "--token", TOKEN, "--port", "0", "--data", str(data)) as served:
        yield served.url


def test_jobs_through_the_hub_client(jobs_url: str) -> None:
    hub = Hub(endpoint=jobs_url, token=TOKEN, retry=replace(HUB_RETRY, base_s=0.01))
    job = hub.run_job(
        image="python:3.12",
        command=["python", "-c", "print('hello from a job')"],
        env={},
        secrets={},
        flavor="cpu-basic",
        timeout="5m",
        labels={"suite": "one-client"},
        name="one-client",
        namespace=NAMESPACE,
    )
    deadline = time.monotonic() + 60
    while hub.inspect_job(job.id, NAMESPACE).status.stage == "RUNNING":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert hub.inspect_job(job.id, NAMESPACE).status.stage == "COMPLETED"
    assert hub.fetch_job_logs(job.id, NAMESPACE) == ["hello from a job"]
    assert "cpu-basic" in [h.name for h in hub.list_jobs_hardware()]


def test_a_refused_jobs_call_is_a_typed_error_without_the_token(jobs_url: str) -> None:
    """The server echoes the namespace it refuses; here that is the token itself."""
    hub = Hub(endpoint=jobs_url, token=TOKEN, retry=replace(HUB_RETRY, base_s=0.01))
    job_id = "0123456789abcdef01234567"
    with pytest.raises(HubError) as refused:
        hub.inspect_job(job_id, namespace=TOKEN)
    message = str(refused.value)
    assert refused.value.status == 403
    assert message.startswith(
        f"inspect_job {job_id}: the Jobs API refused it (403): Namespace '{REDACTED}' is not yours"
    )
    assert TOKEN not in message
    stranger = Hub(endpoint=jobs_url, token="hf_not_the_owner", retry=hub.retry)
    with pytest.raises(HubError) as anonymous:
        stranger.cancel_job(job_id, NAMESPACE)
    assert anonymous.value.status == 401
    assert str(anonymous.value).startswith(f"cancel_job {job_id}: the Jobs API refused it (401)")


def _http_error(status: int) -> HfHubHTTPError:
    request = httpx2.Request("POST", "http://127.0.0.1:1/api/jobs/local-user")
    return HfHubHTTPError(f"{status}", response=httpx2.Response(status, request=request))


def test_starting_a_job_is_retried_only_when_it_cannot_have_started() -> None:
    assert transient(_http_error(503)) == (True, None)
    assert transient(_http_error(503), idempotent=False) == (False, None)
    assert transient(_http_error(429), idempotent=False) == (True, None)
    refused = httpx2.ConnectError("connection refused")
    dropped = httpx2.ReadTimeout("no answer")
    assert transient(refused, idempotent=False) == (True, None)
    assert transient(dropped) == (True, None)
    assert transient(dropped, idempotent=False) == (False, None)
