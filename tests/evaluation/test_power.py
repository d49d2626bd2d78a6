"""Planning an eval (issue 22, item 3): the chance of "helps" and the cases 80% power needs, by
simulating evals judged with the shipped statistics; ``upskill-hub power`` prints it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from upskill_hub.errors import UsageError
from upskill_hub.evaluation.stats.power import (
    MAX_CASES,
    plan,
    population_for_lift,
    population_from_run,
    power_of,
    too_few_tests_note,
)

PILOT = Path(__file__).resolve().parents[1] / "fixtures" / "run_folder_0_1" / "run"


@pytest.mark.parametrize("lift", [-0.7, -0.2, 0.0, 0.1, 0.3, 0.5, 0.8, 1.0])
def test_default_population_has_the_asked_lift(lift: float) -> None:
    pop = population_for_lift(lift)
    assert pop.lift == pytest.approx(lift, abs=1e-9)
    assert all(0 <= a <= 1 and 0 <= b <= 1 for a, b in pop.pairs)


def test_power_rises_with_cases_and_is_deterministic() -> None:
    pop = population_for_lift(0.3)
    small = power_of(pop, 6, 5, sims=300, seed=1)
    large = power_of(pop, 30, 5, sims=300, seed=1)
    assert small.helps < large.helps and large.helps > 0.9
    assert power_of(pop, 6, 5, sims=300, seed=1) == small
    # 3 cases can never show a lift: every simulated eval says so
    three = power_of(pop, 3, 5, sims=200)
    assert three.helps == 0.0 and three.too_few == 1.0
    # no effect: "helps" stays rare
    null = power_of(population_for_lift(0.0), 20, 5, sims=400)
    assert null.helps <= 0.05 and null.hurts <= 0.05


def test_plan_finds_the_fewest_cases_for_the_power() -> None:
    pop = population_for_lift(0.3)
    found = plan(pop, 10, 5, sims=300)
    need = found.cases_needed
    assert need is not None
    assert power_of(pop, need, 5, sims=300).helps >= 0.8
    assert power_of(pop, need - 1, 5, sims=300).helps < 0.8
    assert plan(population_for_lift(0.0), 10, 5, sims=100).cases_needed is None
    assert plan(population_for_lift(0.01), 10, 1, sims=50).cases_needed in (None, MAX_CASES)


def test_pilot_population_is_the_runs_cases() -> None:
    pop = population_from_run(PILOT)
    assert pop.pairs == ((0.0, 1.0),) * 3 and "3 cases" in pop.source
    with pytest.raises(UsageError, match="not a run folder"):
        population_from_run(PILOT.parent)
    with pytest.raises(UsageError, match="nope is not in"):
        population_from_run(PILOT, "nope")


def test_too_few_tests_note() -> None:
    note = too_few_tests_note(3, 1)
    assert note is not None and note.startswith("3 tests x 1 run(s) are too few to judge")
    assert too_few_tests_note(200, 5) is None


def test_power_command_prints_the_plan_from_the_library(tmp_path: Path) -> None:
    done = run_cli(
        "power",
        "--cases",
        "10",
        "--runs",
        "5",
        "--lift",
        "0.3",
        "--sims",
        "300",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    lib = plan(population_for_lift(0.3), 10, 5, sims=300)
    assert data == lib.to_dict()
    text = run_cli("power", "--cases", "10", "--runs", "5", "--lift", "0.3", "--sims", "300")
    assert text.returncode == 0, text.stderr
    assert f"'helps' in {lib.p_helps * 100:.1f}% of 300 simulated evals" in text.stdout
    assert f"cases needed for 80% power at 5 runs: {lib.cases_needed}" in text.stdout


def test_power_command_from_a_pilot_run_folder(tmp_path: Path) -> None:
    pilot = tmp_path / "pilot"
    shutil.copytree(PILOT, pilot)
    done = run_cli("power", "--pilot", str(pilot), "--sims", "200", "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["cases"], data["runs"], data["lift"]) == (3, 2, 1.0)  # the pilot's own design
    assert data["p_helps"] == 0.0 and data["cases_needed"] is not None


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--cases", "0"], "error: --cases 0 must be at least 1"),
        (["--cases", "5", "--runs", "0"], "error: --runs 0 must be at least 1"),
        (["--cases", "5", "--lift", "3"], "error: --lift 3 must be between -1 and 1"),
        (["--cases", "5", "--power", "1.5"], "error: --power 1.5 must be between 0 and 1"),
        (["--lift", "0.2"], "error: give --cases (or --pilot RUN_DIR)"),
        (["--pilot", "nowhere"], "error: --pilot nowhere: not a run folder"),
        (["--pilot", str(PILOT), "--lift", "0.2"], "error: give --lift or --pilot, not both"),
    ],
)
def test_power_command_bad_input_is_one_line(args: list[str], line: str) -> None:
    done = run_cli("power", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(line) and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
