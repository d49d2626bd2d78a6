"""``upskill-hub results push | show | compare`` in a subprocess, and the no-secrets guarantee."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from huggingface_hub import snapshot_download

from tests.cli_runner import run_cli
from tests.publish.run_folders import make_run_folder
from tests.support.llm_servers import openai_server

SENTINEL = "sentinel-7c1e5a9b3d2f8e6a0b4c"
SECRET_ENV = {
    "HF_TOKEN": SENTINEL,
    "OPENAI_API_KEY": SENTINEL,
    "ANTHROPIC_API_KEY": SENTINEL,
    "UPSKILL_HUB_API_KEY": SENTINEL,
}
SKILL_MD = """---
name: leaky-skill
description: Answers questions about the Frobnitz protocol. Use when asked about Frobnitz.
---

# Frobnitz

The Frobnitz handshake starts with HELLO-42.
"""


def _ok(*args: str, env: dict[str, str] | None = None) -> str:
    done = run_cli(*args, env=env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


@pytest.mark.slow
def test_push_show_compare(tmp_path: Path, unique_repo_id: str) -> None:
    first = make_run_folder(tmp_path, "20261122-013045-kernel-builder-ab12cd")
    second = make_run_folder(
        tmp_path,
        "20261123-090000-kernel-builder-cd34ef",
        started_at="2026-11-23T09:00:00Z",
        skill_fails=("smem",),
    )
    pushed = json.loads(
        _ok("results", "push", str(first), "--repo", unique_repo_id, "--format", "json")
    )
    assert set(pushed) == {"repo_id", "url", "commit", "split"}
    assert pushed["repo_id"] == unique_repo_id and len(pushed["commit"]) == 40
    text = _ok("results", "push", str(second), "--repo", unique_repo_id)
    assert "run_20261123_090000_kernel_builder_cd34ef" in text and unique_repo_id in text

    shown = json.loads(_ok("results", "show", unique_repo_id, "--format", "json"))
    assert shown["split"] == "run_20261123_090000_kernel_builder_cd34ef"
    assert [m["model"] for m in shown["models"]] == [
        "openai:gpt-4.1-mini",
        "anthropic:claude-haiku-4-5",
    ]
    assert shown["models"][0]["with_skill"]["pass_rate"] == 0.666667
    table = _ok("results", "show", f"{unique_repo_id}:{pushed['split']}")
    assert pushed["split"] in table
    assert "33% [2, 94]" in table and "+67 pts [-100, +100] (3 cases × 2 runs)" in table
    assert "too few cases" in table  # three cases: by case, too few

    compared = _ok("results", "compare", str(first), unique_repo_id)
    assert "Δ lift" in compared and "anthropic:claude-haiku-4-5" in compared
    assert "-33 pts" in compared  # openai: with skill 100% -> 67%, lift +67 -> +33
    data = json.loads(_ok("results", "compare", str(first), str(second), "--format", "json"))
    assert data["a"]["split"] == pushed["split"]
    assert data["models"][0]["lift_delta"] == pytest.approx(-1 / 3, abs=1e-5)


def test_bad_input_is_one_line(tmp_path: Path, hub_server: object) -> None:
    empty = tmp_path / "not-a-run"
    empty.mkdir()
    (empty / "run.json").write_text("{}")
    (empty / "samples.jsonl").write_text("")
    no_samples = make_run_folder(tmp_path, "20261122-013045-x-aaaaaa")
    (no_samples / "samples.jsonl").unlink()
    run = str(make_run_folder(tmp_path, "20261122-013045-y-bbbbbb"))
    cases = [
        (("results", "push", str(tmp_path / "missing"), "--repo", "ns/name"), "no such run"),
        (("results", "push", str(no_samples), "--repo", "ns/name"), "samples.jsonl"),
        (("results", "push", str(empty), "--repo", "ns/name"), "tests.json"),
        (("results", "push", run, "--repo", "not a repo"), "not a Hub repo id"),
        (("results", "show", "nobody/missing-results"), "nobody/missing-results"),
    ]
    for args, needle in cases:
        done = run_cli(*args)
        lines = done.stderr.strip().splitlines()
        assert done.returncode != 0, args
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, done.stderr)
        assert needle in lines[0], (args, lines)
        assert done.stdout == ""


@pytest.mark.slow
def test_no_secret_reaches_rows_card_or_files(tmp_path: Path, unique_repo_id: str) -> None:
    skill = tmp_path / "leaky-skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text(SKILL_MD)
    tests = [
        {
            "id": f"q{i}",
            "input": f"Q{i}: how does Frobnitz start?",
            "expected": {"contains": "HELLO-42"},
        }
        for i in range(2)
    ]
    (skill / "skill_meta.json").write_text(json.dumps({"metadata": {}, "tests": tests}))
    # a model that leaks what it should not: the key shows up in its answer
    reply = f"HELLO-42, and by the way my key is {SENTINEL}."
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env.update(SECRET_ENV)
    with openai_server(lambda _request: reply) as srv:
        out = tmp_path / "runs"
        _ok(
            "eval",
            str(skill),
            "--model",
            "fake-model",
            "--base-url",
            srv.base_url,
            "--output",
            str(out),
            "--format",
            "json",
            env=env,
        )
    (run_dir,) = out.iterdir()
    pushed = run_cli("results", "push", str(run_dir), "--repo", unique_repo_id, env=env)
    assert pushed.returncode == 0, pushed.stderr
    assert SENTINEL not in pushed.stdout + pushed.stderr

    local = snapshot_download(unique_repo_id, repo_type="dataset", local_dir=tmp_path / "dl")
    files = [p for p in Path(local).rglob("*") if p.is_file() and ".cache" not in p.parts]
    assert {p.suffix for p in files} >= {".md", ".parquet", ".png"}
    rows = 0
    for path in files:
        data = path.read_bytes()
        assert SENTINEL.encode() not in data, path
        if path.suffix == ".parquet":
            table = pq.read_table(io.BytesIO(data))
            rows += table.num_rows
            assert SENTINEL not in json.dumps(table.to_pylist()), path
    assert rows == 4 + 2  # 4 samples (2 cases x 2 arms) + 2 summary rows
    assert "my key is ***" in json.dumps(
        pq.read_table(next(p for p in files if "samples" in p.parts)).to_pylist()
    )
