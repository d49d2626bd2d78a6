"""The Space's "Push results" path uses the visitor's token for every Hub call.

A second local Hub that accepts exactly one token stands in for huggingface.co; the push runs
in a subprocess (huggingface_hub and datasets read HF_ENDPOINT at import) whose machine login
(HF_TOKEN) is wrong, so only a token threaded through create_repo, datasets' push_to_hub and
the card commit can succeed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from huggingface_hub import HfApi, hf_hub_download

from tests.publish.run_folders import make_run_folder

REPO = Path(__file__).resolve().parents[2]
VISITOR_TOKEN = "hf_visitorOAuthSentinel4c7e1a9b"
SCRIPT = """
import json, sys
from pathlib import Path
from upskill_hub.secrets import Redactor
from upskill_hub.space_support.push_results import push_run

token = sys.stdin.read().strip() or None
pushed = push_run(
    Path(sys.argv[1]), skill_name="kernel-builder", namespace=None, token=token,
    redactor=Redactor([token]),
)
print(json.dumps(pushed.to_dict()))
"""


@pytest.fixture
def strict_hub(tmp_path: Path) -> Iterator[str]:
    """A local Hub that only lets ``VISITOR_TOKEN`` write (its URL)."""
    from upskill_hub.hub_server import running_server

    with running_server(tmp_path / "strict-hub", token=VISITOR_TOKEN) as server:
        yield str(server.url)


def _push(run_dir: Path, hub_url: str, token: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.update(
        {
            "PYTHONPATH": str(REPO) + os.pathsep + env.get("PYTHONPATH", ""),
            "HF_ENDPOINT": hub_url,
            "HF_TOKEN": "hf_wrongMachineLogin0000",  # the Space's own token: must not be used
            "HF_HOME": str(tmp / "hf-home"),
            "HF_DATASETS_CACHE": str(tmp / "ds-cache"),
        }
    )
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, str(run_dir)],
        input=token,
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_push_run_uses_the_visitor_token_not_the_machine_login(
    strict_hub: str, tmp_path: Path
) -> None:
    run_dir = make_run_folder(tmp_path / "runs")
    refused = _push(run_dir, strict_hub, "", tmp_path)  # no visitor token: HF_TOKEN is wrong
    assert refused.returncode != 0 and "401" in refused.stderr

    done = _push(run_dir, strict_hub, VISITOR_TOKEN, tmp_path)
    assert done.returncode == 0, done.stderr
    assert VISITOR_TOKEN not in done.stdout + done.stderr
    pushed = json.loads(done.stdout)
    repo_id = "local-user/kernel-builder-upskill-results"
    assert pushed["repo_id"] == repo_id and pushed["url"].endswith(f"/datasets/{repo_id}")

    api = HfApi(endpoint=strict_hub, token=VISITOR_TOKEN)
    files = api.list_repo_files(repo_id, repo_type="dataset")
    assert "README.md" in files and any(f.endswith(".parquet") for f in files)
    assert api.dataset_info(repo_id).sha == pushed["commit"]
    for name in files:
        path = hf_hub_download(
            repo_id,
            name,
            repo_type="dataset",
            endpoint=strict_hub,
            token=VISITOR_TOKEN,
            cache_dir=tmp_path / "check",
        )
        assert VISITOR_TOKEN.encode() not in Path(path).read_bytes(), name
