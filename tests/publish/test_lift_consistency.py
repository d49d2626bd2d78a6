"""Every surface prints the same lift and interval: the eval's table, ``--format json``,
summary.json, ``results show``, the dataset card, the skill card and the Space table.

One real eval (``upskill-hub eval`` against a local fake OpenAI server) of 10 cases x 2 runs:
the skill makes cases 2-6 pass; cases 0-1 pass either way, 7-9 never. By case, d = five 1s and
five 0s: lift +50 pts, paired t interval 0.5 +- 2.262 * 0.527 * sqrt(10/9) / sqrt(10) =
[+10, +90] (counting the 20 runs per arm as independent, Newcombe gave about [+19, +67]).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli_runner import run_cli
from tests.support.eval_runs import FACT, canary_skill, marker, quuxium_cases, run_eval
from tests.support.llm_servers import last_user_message, openai_server, system_prompt
from upskill_hub import formatting
from upskill_hub.publish.dataset_card import run_section
from upskill_hub.publish.results_dataset import read_run, summary_rows
from upskill_hub.publish.skill_card import results_markdown
from upskill_hub.space_support import tables

MARKER = marker("canary-lift")


def reply(request: dict[str, Any]) -> str:
    case = int(last_user_message(request).split(":")[0].removeprefix("Q"))
    with_skill = MARKER in system_prompt(request)
    return f"It is {FACT}." if case < 2 or (with_skill and case < 7) else "No idea."


def test_every_surface_prints_the_same_lift_and_interval(tmp_path: Path) -> None:
    folder = canary_skill(tmp_path, quuxium_cases(10), name="canary-lift")
    with openai_server(reply) as srv:
        args = ["--model", "fake-model", "--runs", "2"]
        as_json = run_eval(
            folder, srv.base_url, *args, "--output", str(tmp_path / "a"), "--format", "json"
        )
        as_text = run_eval(folder, srv.base_url, *args, "--output", str(tmp_path / "b"))
    assert as_json.returncode == 0, as_json.stderr
    assert as_text.returncode == 0, as_text.stderr
    (model,) = json.loads(as_json.stdout)["models"]
    run_dir = Path(json.loads(as_json.stdout)["run_dir"])
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["stats_version"] == 3 and summary["lift_method"] == "paired_t_by_case"
    (stored,) = summary["models"]
    # the JSON and summary.json hold the same numbers, and they are the hand-computed ones
    assert model["lift"] == stored["lift"] == 0.5
    assert model["lift_ci95"] == stored["lift_ci95"]
    half = 2.262157 * (0.5 * 0.5 * 10 / 9) ** 0.5 * (10 / 9) ** 0.5 / 10**0.5
    assert abs(stored["lift_ci95"][0] - (0.5 - half)) < 1e-5
    assert abs(stored["lift_ci95"][1] - (0.5 + half)) < 1e-5
    assert model["verdict"] == stored["verdict"] == "helps"
    assert (stored["lift_cases"], stored["runs"]) == (10, 2)

    lo, hi = (round(v * 100) for v in stored["lift_ci95"])
    assert (lo, hi) == (10, 90)
    # the eval's table
    assert "+50 pts" in as_text.stdout and f"[{lo:+d}, {hi:+d}]" in as_text.stdout
    assert "10×2" in as_text.stdout
    # results show (a run folder)
    shown = run_cli("results", "show", str(run_dir))
    assert shown.returncode == 0, shown.stderr
    # one way to write a lift everywhere (upskill_hub.formatting): +50 pts [+10, +90]
    lift_text = f"+50 pts [{lo:+d}, {hi:+d}]"
    assert formatting.lift(stored["lift"], stored["lift_ci95"]) == lift_text
    cards_text = f"{lift_text} (10 cases × 2 runs)"
    assert cards_text in shown.stdout
    # dataset card and skill card, from the dataset's summary rows
    record = read_run(run_dir)
    rows = summary_rows(record)
    assert {(r["lift"], r["lift_ci_low"], r["lift_ci_high"]) for r in rows} == {
        (0.5, *stored["lift_ci95"])
    }
    card = run_section(record, split="run_x", rows=rows, chart_path=None)
    assert cards_text in card
    skill_card = results_markdown(
        rows, record.info, dataset_repo="ns/r", dataset_url="https://h/ns/r", split="run_x"
    )
    assert cards_text in skill_card
    # the Space table
    (space_row,) = tables.summary_rows(summary["models"])
    assert space_row[1] == cards_text
    assert "the skill helps" in space_row[2]
    # the per-case table: which cases the skill fixes, and pass^k per arm
    per_case = run_cli("results", "show", str(run_dir), "--cases")
    assert per_case.returncode == 0, per_case.stderr
    out = " ".join(per_case.stdout.split())
    assert "fixed 5, broken 0, always pass 2, always fail 3, flaky 0, excluded 0" in out
    assert "pass^k (every run of a case passed): baseline 20%, with skill 70%" in out
    assert "│ q2 │ 0/2 │ 2/2 │ +100 pts │ fixed │" in out
    as_data = json.loads(
        run_cli("results", "show", str(run_dir), "--cases", "--format", "json").stdout
    )
    assert as_data["cases"]["fake-model"]["counts"]["fixed"] == 5


def test_space_says_what_a_null_result_could_have_seen() -> None:
    model = {
        "model": "m",
        "runs": 2,
        "cases": 8,
        "lift_cases": 8,
        "lift": 0.0,
        "lift_ci95": [-0.2, 0.2],
        "mde80": 0.31,
        "verdict": "no measurable effect at this n",
        "baseline": None,
        "with_skill": {"pass_rate": 0.5, "passed": 8, "total": 16, "errors": 0},
    }
    (row,) = tables.summary_rows([model])
    assert row[1] == "+0 pts [-20, +20] (8 cases × 2 runs)"
    assert row[2] == "— no measurable effect at this n (this eval can only see lifts above ±31 pts)"
    (helps,) = tables.summary_rows([{**model, "verdict": "helps"}])
    assert "can only see" not in helps[2]
