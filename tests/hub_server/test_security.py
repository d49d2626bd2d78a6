"""``hub serve`` refuses what the Hub refuses: writes without a token, browser-form posts,
unauthorized LFS uploads, oversized bodies and ``parentCommit`` paths (real HTTP throughout)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import httpx
import pytest
from huggingface_hub import HfApi
from huggingface_hub.errors import HfHubHTTPError

from upskill_hub.hub_server import running_server


def _stored_lfs(data_dir: Path) -> list[Path]:
    return [p for p in (data_dir).rglob("*") if p.is_file() and "lfs" in p.parts]


def test_writes_without_a_token_are_401_even_without_token_option(tmp_path: Path) -> None:
    with running_server(tmp_path / "data") as server:
        anonymous = HfApi(endpoint=server.url, token=False)
        with pytest.raises(HfHubHTTPError) as err:
            anonymous.create_repo("local-user/no-token")
        assert err.value.response.status_code == 401
        HfApi(endpoint=server.url, token="any-token").create_repo("local-user/with-token")
        raw = httpx.post(
            f"{server.url}/api/models/local-user/with-token/commit/main",
            content=json.dumps({"key": "header", "value": {"summary": "x"}}) + "\n",
            headers={"Content-Type": "application/x-ndjson"},
        )
        assert raw.status_code == 401


def test_a_browser_form_post_is_refused_before_the_body_is_read(tmp_path: Path) -> None:
    with running_server(tmp_path / "data") as server:
        api = HfApi(endpoint=server.url, token="tok")
        api.create_repo("local-user/csrf")
        line = {"key": "file", "value": {"path": "x.txt", "content": "eA==", "encoding": "base64"}}
        body = json.dumps({"key": "header", "value": {"summary": "x"}}) + "\n" + json.dumps(line)
        for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
            sent = httpx.post(
                f"{server.url}/api/models/local-user/csrf/commit/main",
                content=body,
                headers={"Content-Type": kind, "Authorization": "Bearer tok"},
            )
            assert sent.status_code == 415, kind
        assert [f.rfilename for f in api.model_info("local-user/csrf").siblings or []] == [
            ".gitattributes"
        ] or not api.model_info("local-user/csrf").siblings


def test_lfs_upload_needs_the_grant_from_an_authorized_batch(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with running_server(data, token="s3cret") as server:
        blob = b"\x00binary" * 100_000
        oid = hashlib.sha256(blob).hexdigest()
        for url in (
            f"{server.url}/_lfs-upload/{oid}?size={len(blob)}",
            f"{server.url}/_lfs-upload/{oid}?size={len(blob)}&grant=guessed",
        ):
            assert httpx.put(url, content=blob).status_code == 401
        assert _stored_lfs(data) == []
        # the real client still uploads LFS files (its PUT carries no Authorization header)
        api = HfApi(endpoint=server.url, token="s3cret")
        api.create_repo("local-user/lfs-ok")
        api.upload_file(path_or_fileobj=blob, path_in_repo="b.bin", repo_id="local-user/lfs-ok")
        assert hf_bytes(server.url, "local-user/lfs-ok", "b.bin", tmp_path) == blob


def hf_bytes(endpoint: str, repo: str, name: str, tmp_path: Path) -> bytes:
    from huggingface_hub import hf_hub_download

    path = hf_hub_download(repo, name, endpoint=endpoint, cache_dir=tmp_path / "c", token="s3cret")
    return Path(path).read_bytes()


def test_parent_commit_is_a_commit_id_not_a_path(tmp_path: Path) -> None:
    with running_server(tmp_path / "data") as server:
        api = HfApi(endpoint=server.url, token="tok")
        api.create_repo("other-ns/private-repo", private=True)
        secret = api.upload_file(
            path_or_fileobj=b"private", path_in_repo="p.txt", repo_id="other-ns/private-repo"
        )
        api.create_repo("local-user/public-repo")
        header = {
            "summary": "steal",
            "parentCommit": f"../../../other-ns/private-repo/commits/{secret.oid}",
        }
        sent = httpx.post(
            f"{server.url}/api/models/local-user/public-repo/commit/main?create_pr=1",
            content=json.dumps({"key": "header", "value": header}) + "\n",
            headers={"Content-Type": "application/x-ndjson", "Authorization": "Bearer tok"},
        )
        assert sent.status_code == 400 and "parentCommit" in sent.text
        files = api.list_repo_files("local-user/public-repo")
        assert "p.txt" not in files


def test_oversized_bodies_are_refused_unread(tmp_path: Path) -> None:
    """A 1 TiB declared body is answered 413 at once (raw socket: clients won't lie)."""
    import socket
    from urllib.parse import urlsplit

    with running_server(tmp_path / "data") as server:
        url = urlsplit(server.url)
        request = (
            "POST /api/repos/create HTTP/1.1\r\n"
            f"Host: {url.netloc}\r\n"
            "Authorization: Bearer tok\r\nContent-Type: application/json\r\n"
            f"Content-Length: {1 << 40}\r\n\r\n{{"
        )
        with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
            sock.sendall(request.encode())
            reply = sock.recv(4096).decode("latin-1")
        assert reply.startswith("HTTP/1.1 413"), reply[:200]


def test_short_commit_prefixes_resolve(tmp_path: Path) -> None:
    with running_server(tmp_path / "data") as server:
        api = HfApi(endpoint=server.url, token="tok")
        api.create_repo("local-user/short")
        commit = api.upload_file(
            path_or_fileobj=b"hi", path_in_repo="a.txt", repo_id="local-user/short"
        ).oid
        assert api.model_info("local-user/short", revision=commit[:12]).sha == commit
        assert api.model_info("local-user/short", revision=commit[:7]).sha == commit
