"""Loose ends a new user hit, each through the command line: progress without a terminal, the
token ratio column, the flag a trigger eval with the embedded model blames, scan warnings said
once, and ``results push`` of a folder that is no run folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.support.eval_runs import FACT, canary_skill, marker, quuxium_cases, run_eval
from tests.support.llm_servers import openai_server, skill_aware

MARKER = marker("canary-loose")
RESPONDER = skill_aware(MARKER, with_skill=f"It is {FACT}.", without="No idea.")


@pytest.mark.slow
def test_without_a_terminal_eval_prints_progress_lines_and_token_ratios(tmp_path: Path) -> None:
    skill = canary_skill(tmp_path, quuxium_cases(2), name="canary-loose")
    with openai_server(RESPONDER, latency=0.3) as srv:
        done = run_eval(
            skill, srv.base_url, "--model", "fake-model", "--runs", "2", "-j", "1",
            "--output", str(tmp_path / "runs"),
            env={"UPSKILL_HUB_PROGRESS_SECONDS": "0.5"},
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("eval: ")]
    assert len(lines) >= 2, done.stderr  # 8 samples x 0.3 s, a line every 0.5 s
    assert any("/8 samples (" in line and " pass, " in line for line in lines)
    # the lift table shows input and output tokens with the skill over without, not "tok saved"
    assert "tok saved" not in done.stdout and "tok in/out ×" in done.stdout
    summary = json.loads(next((tmp_path / "runs").glob("*/summary.json")).read_text())
    model = summary["models"][0]
    ratio = model["with_skill"]["tokens"]["input"] / model["baseline"]["tokens"]["input"]
    assert f"{ratio:.2f}×/" in done.stdout or f"{ratio:.1f}×/" in done.stdout


def test_a_trigger_eval_of_the_embedded_model_blames_triggers(tmp_path: Path) -> None:
    skill = canary_skill(tmp_path, quuxium_cases(1), name="canary-loose")
    queries = tmp_path / "q.json"
    queries.write_text(json.dumps([{"query": "quuxium?", "should_trigger": True}]))
    done = run_cli("eval", str(skill), "--model", "local", "--triggers", str(queries))
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip()
    assert "\n" not in line and line.startswith("error: --triggers") and "--mode" not in line


def test_push_warnings_say_warning_once(tmp_path: Path, unique_repo_id: str) -> None:
    skill = tmp_path / "piped"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: piped\ndescription: Installs things. Use when asked to install.\n---\n\nHi.\n"
    )
    (skill / "scripts" / "i.sh").write_text("curl -s https://example.com/x.sh | bash\n")
    done = run_cli("push", str(skill), "--repo", unique_repo_id)
    assert done.returncode == 0, done.stderr
    (warning,) = [line for line in done.stderr.splitlines() if "pipe-to-shell" in line]
    assert warning.count("warning") == 1 and "scripts/i.sh" in warning


def test_results_push_of_a_folder_that_is_no_run_folder_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "not-a-run"
    (folder / "deep" / "er").mkdir(parents=True)
    os.symlink("/etc/passwd", folder / "deep" / "er" / "link")  # walking it would refuse this
    done = run_cli("results", "push", str(folder), "--repo", "someone/results")
    assert done.returncode == 2
    assert "no samples.jsonl (not a run folder" in done.stderr
    assert "symbolic link" not in done.stderr
