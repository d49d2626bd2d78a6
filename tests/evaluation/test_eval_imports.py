"""``upskill-hub eval`` loads only what its models need: one SDK, no Hub client for a local
skill, no Space or dataset libraries; the run folder still gets its chart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.llm_servers import anthropic_server, openai_server, skill_aware

REPO = Path(__file__).resolve().parents[2]
HEAVY = (
    "openai",
    "anthropic",
    "huggingface_hub",
    "datasets",
    "gradio",
    "jsonschema",
    "llama_cpp",
    "matplotlib",
)
# the real console entry point, reporting at exit which heavy libraries the process imported
PROBE = (
    "import atexit, sys\n"
    "atexit.register(lambda: sys.stderr.write("
    f"'loaded=' + ','.join(m for m in {HEAVY!r} if m in sys.modules) + '\\n'))\n"
    "sys.argv = ['upskill-hub', *sys.argv[1:]]\n"
    "from upskill_hub.cli.entry import main\n"
    "main()\n"
)
SKILL_MD = """---
name: import-probe
description: A skill for the import test.
---

The probe answer is PROBE-7.
"""
RESPONDER = skill_aware('<skill name="import-probe">', with_skill="PROBE-7", without="no")


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "import-probe"
    folder.mkdir()
    (folder / "SKILL.md").write_text(SKILL_MD)
    tests = [{"id": f"q{i}", "input": f"Q{i}?", "expected": {"contains": "PROBE-7"}} for i in "12"]
    (folder / "skill_meta.json").write_text(json.dumps({"metadata": {}, "tests": tests}))
    return folder


def _run(
    skill_dir: Path, out: Path, *args: str, path: str = ""
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [path, str(REPO)]))
    return subprocess.run(
        [sys.executable, "-c", PROBE, "eval", str(skill_dir), "--output", str(out), *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _eval(skill_dir: Path, out: Path, *args: str) -> tuple[set[str], Path]:
    """Run the eval; the heavy libraries it loaded and its run folder."""
    done = _run(skill_dir, out, *args)
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("loaded="))
    (run_dir,) = out.iterdir()
    return set(filter(None, line.removeprefix("loaded=").split(","))), run_dir


def test_an_openai_compatible_model_loads_openai_only(skill_dir: Path, tmp_path: Path) -> None:
    with openai_server(RESPONDER) as srv:
        loaded, run_dir = _eval(
            skill_dir, tmp_path / "runs", "--model", "fake-model", "--base-url", srv.base_url
        )
        assert len(srv.requests) == 4
    assert loaded == {"openai", "matplotlib"}, loaded
    assert (run_dir / "lift.png").read_bytes()[:4] == b"\x89PNG"
    assert len((run_dir / "samples.jsonl").read_text().splitlines()) == 4


def test_an_anthropic_model_loads_anthropic_only(skill_dir: Path, tmp_path: Path) -> None:
    with anthropic_server(RESPONDER) as srv:
        loaded, run_dir = _eval(
            skill_dir,
            tmp_path / "runs",
            *("--model", "anthropic:claude-test", "--base-url", srv.base_url),
        )
        assert len(srv.requests) == 4
    assert loaded == {"anthropic", "matplotlib"}, loaded
    assert json.loads((run_dir / "summary.json").read_text())["models"][0]["lift"] == 1.0


def test_a_broken_matplotlib_costs_the_chart_only(skill_dir: Path, tmp_path: Path) -> None:
    # matplotlib loads in a background thread during the run: its failure is one warning at
    # the end, never a traceback, and every other file is written
    broken = tmp_path / "site" / "matplotlib"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('matplotlib is broken here')\n")
    out = tmp_path / "runs"
    with openai_server(RESPONDER) as srv:
        done = _run(
            skill_dir,
            out,
            *("--model", "fake-model", "--base-url", srv.base_url),
            path=str(broken.parent),
        )
    assert done.returncode == 0, done.stderr
    assert "warning: lift.png not written: ImportError: matplotlib is broken here" in done.stderr
    assert "Traceback" not in done.stderr
    (run_dir,) = out.iterdir()
    assert sorted(p.name for p in run_dir.iterdir()) == [
        "benchmark.json",
        "run.json",
        "samples.jsonl",
        "summary.json",
        "tests.json",
    ]
