"""Server lifecycle: persistence across restarts, --token, and the CLI entry point."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from huggingface_hub import HfApi, hf_hub_download
from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError

from tests.hub_server.cli_server import served_by_cli
from upskill_hub.errors import UsageError
from upskill_hub.hub_server import running_server

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_restart_keeps_repos(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with running_server(data) as server:
        api = HfApi(endpoint=server.url)
        api.create_repo("local-user/kept", repo_type="dataset")
        commit = api.upload_file(
            path_or_fileobj=b"persisted",
            path_in_repo="keep.txt",
            repo_id="local-user/kept",
            repo_type="dataset",
        )
        api.create_tag("local-user/kept", tag="v1", repo_type="dataset")
    with running_server(data) as server:
        api = HfApi(endpoint=server.url)
        assert api.dataset_info("local-user/kept").sha == commit.oid
        assert api.dataset_info("local-user/kept", revision="v1").sha == commit.oid
        path = hf_hub_download(
            "local-user/kept",
            "keep.txt",
            repo_type="dataset",
            endpoint=server.url,
            cache_dir=tmp_path / "cache",
        )
        assert Path(path).read_bytes() == b"persisted"


def test_token_restricts_writes_and_private_reads(tmp_path: Path) -> None:
    with running_server(tmp_path / "data", token="s3cret") as server:
        owner = HfApi(endpoint=server.url, token="s3cret")
        stranger = HfApi(endpoint=server.url, token="wrong")
        with pytest.raises(HfHubHTTPError) as err:
            stranger.create_repo("local-user/guarded")
        assert err.value.response.status_code == 401
        owner.create_repo("local-user/guarded")
        owner.create_repo("local-user/secret", private=True)
        with pytest.raises(HfHubHTTPError) as err:
            stranger.upload_file(
                path_or_fileobj=b"x", path_in_repo="x.txt", repo_id="local-user/guarded"
            )
        assert err.value.response.status_code == 401
        assert stranger.model_info("local-user/guarded").id == "local-user/guarded"
        with pytest.raises(RepositoryNotFoundError):
            stranger.model_info("local-user/secret")
        with pytest.raises(RepositoryNotFoundError):
            HfApi(endpoint=server.url, token=False).model_info("local-user/secret")
        assert owner.model_info("local-user/secret").private is True


def test_running_server_reports_a_busy_port(hub_server: object, tmp_path: Path) -> None:
    port = int(os.environ["HF_ENDPOINT"].rsplit(":", 1)[1])
    with pytest.raises(UsageError, match="already in use"), running_server(tmp_path, port=port):
        pass


def test_cli_prints_url_first_and_serves(tmp_path: Path) -> None:
    with served_by_cli("--port", "0", "--data", str(tmp_path / "cli-data")) as served:
        url = served.url
        reply = httpx.get(f"{url}/api/whoami-v2", headers={"Authorization": "Bearer t"})
        assert reply.json()["name"] == "local-user"
        api = HfApi(endpoint=url, token="t")
        api.create_repo("local-user/from-cli")
        assert api.list_repo_files("local-user/from-cli") == [".gitattributes"]
    assert (tmp_path / "cli-data" / "repos" / "models" / "local-user" / "from-cli").is_dir()


def test_cli_rejects_an_unwritable_data_dir(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a dir")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "upskill_hub", "hub", "serve", "--data", str(blocker / "sub")],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("error: --data")
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--port", "99999"], "--port"),
        (["--port", "-1"], "--port"),
        (["--host", "bad"], "cannot listen on bad"),
    ],
)
def test_cli_rejects_a_bad_port_or_host_in_one_line(
    tmp_path: Path, args: list[str], words: str
) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "upskill_hub", "hub", "serve", "--data", str(tmp_path), *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: ") and words in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_serve_bounds_the_port_itself(tmp_path: Path) -> None:
    from upskill_hub.hub_server import serve

    with pytest.raises(UsageError, match="between 0 and 65535"):
        serve(port=70000, data_dir=tmp_path)
