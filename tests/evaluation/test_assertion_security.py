"""Hostile skills and hostile model replies, through ``upskill-hub eval`` as a user runs it.

A skill's test cases come from someone else's repository and a model's reply from someone
else's server: neither may hang the run, read local files into results, or blow up the run
folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.support.llm_servers import constant, openai_server
from upskill_hub.evaluation.run_dir import read_samples

REPO = Path(__file__).resolve().parents[2]


def _skill(tmp_path: Path, tests: list[dict]) -> Path:
    folder = tmp_path / "hostile-skill"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: hostile-skill\ndescription: Tests hostile assertions.\n---\n\n# Hostile\n",
        encoding="utf-8",
    )
    (folder / "skill_meta.json").write_text(json.dumps({"tests": tests}), encoding="utf-8")
    return folder


def _eval(skill: Path, base_url: str, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    return subprocess.run(
        [
            *(sys.executable, "-m", "upskill_hub", "eval", str(skill), "--model", "fake-model"),
            *("--base-url", base_url, "--output", str(out), "--format", "json", *extra),
        ],
        cwd=REPO,
        env={**env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_catastrophic_regex_is_an_error_within_the_time_limit(tmp_path: Path) -> None:
    tests = [
        {
            "id": "redos",
            "input": "Say something.",
            "assertions": [{"type": "regex", "pattern": "^(a|a)+$"}],
        },
        {"id": "plain", "input": "Say a.", "expected": {"contains": "a"}},
    ]
    skill = _skill(tmp_path, tests)
    with openai_server(constant("a" * 34 + "b")) as srv:
        started = time.monotonic()
        done = _eval(skill, srv.base_url, tmp_path / "runs")
        elapsed = time.monotonic() - started
    assert elapsed < 60, f"eval took {elapsed:.0f} s"
    assert "Traceback" not in done.stderr
    run_dir = Path(json.loads(done.stdout)["run_dir"]) if done.stdout.strip() else None
    assert run_dir is not None, done.stderr
    samples = read_samples(run_dir / "samples.jsonl")
    redos = [s for s in samples if s.case_id == "redos"]
    assert len(redos) == 2
    for sample in redos:
        [check] = sample.assertions
        assert check.status == "error" and "ran out of time" in check.reason
    plain = [s for s in samples if s.case_id == "plain"]
    assert all(s.outcome == "pass" for s in plain)
