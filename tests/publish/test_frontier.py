"""``results frontier``: the cheapest model + arm whose lower bound reaches the target."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import run_cli
from upskill_hub.errors import UsageError
from upskill_hub.evaluation.report.frontier_chart import points_from_models, render_frontier_chart
from upskill_hub.formatting import dollars as D
from upskill_hub.publish.frontier import (
    FrontierEntry,
    check_target,
    choose_frontier,
    entry_from_row,
)

CHEAP, DEAR, LOCAL = "openai:gpt-4.1-nano", "anthropic:claude-opus-4-1", "local:qwen3-0.6b"


def _arm(rate: float, ci: tuple[float, float], per_passed: float | None) -> dict[str, Any]:
    """A summary.json arm with its cost (per_passed None: unpriced)."""
    cost: dict[str, Any] = {"usd": None, "per_sample": None, "per_passed": None}
    cost["per_passed_ci95"] = None
    if per_passed is not None:
        cost = {
            "usd": round(per_passed * rate * 40, 6),
            "per_sample": per_passed * rate,
            "per_passed": per_passed,
            "per_passed_ci95": [per_passed * 0.8, per_passed * 1.3],
        }
    return {"pass_rate": rate, "ci95": list(ci), "passed": round(rate * 40), "cost": cost}


#: summary.json's models: the cheap model reaches 80% only with the skill, the dear one both
#: ways; the local model is best of all but unpriced.
MODELS: list[dict[str, Any]] = [
    {
        "model": CHEAP,
        "baseline": _arm(0.40, (0.25, 0.57), 0.008),
        "with_skill": _arm(0.95, (0.85, 0.99), 0.012),
    },
    {
        "model": DEAR,
        "baseline": _arm(0.92, (0.82, 0.97), 0.30),
        "with_skill": _arm(0.97, (0.88, 0.99), 0.45),
    },
    {
        "model": LOCAL,
        "baseline": _arm(0.90, (0.81, 0.95), None),
        "with_skill": _arm(0.99, (0.95, 1.0), None),
    },
]


def _entries(models: list[dict[str, Any]]) -> list[FrontierEntry]:
    return [
        entry_from_row({"model": m["model"], "arm": arm, **m[arm]})
        for m in models
        for arm in ("baseline", "with_skill")
    ]


def test_cheap_model_with_the_skill_is_chosen_with_its_saving() -> None:
    result = choose_frontier(_entries(MODELS), 0.8)
    assert result.chosen is not None and (result.chosen.model, result.chosen.arm) == (
        CHEAP,
        "with_skill",
    )
    assert result.best_baseline is not None
    assert (result.best_baseline.model, result.best_baseline.arm) == (DEAR, "baseline")
    assert result.saving == pytest.approx(0.30 - 0.012)
    assert result.saving_fraction == pytest.approx(0.96)
    assert result.sentence == (
        f"Cheapest to reach 80% at the lower bound of its 95% interval: {CHEAP} with the skill, "
        f"95% [85, 99] at {D(0.012)} per passed case [{D(0.0096)}, {D(0.0156)}], {D(0.288)} (96%) "
        f"less per passed case than the best baseline, {DEAR} without the skill (92% [82, 97] at "
        f"{D(0.30)} per passed case [{D(0.24)}, {D(0.39)}]). "
        f"Unpriced, never chosen: {LOCAL} without the skill, {LOCAL} with the skill."
    )
    statuses = {(e["model"], e["arm"]): e["status"] for e in result.to_dict()["entries"]}
    assert statuses[(LOCAL, "with_skill")] == "unpriced"
    assert statuses[(CHEAP, "baseline")] == "below"
    assert statuses[(DEAR, "with_skill")] == "reaches"


def test_unpriced_is_never_chosen_even_when_it_is_the_only_one_reaching() -> None:
    result = choose_frontier(_entries(MODELS), 0.9)  # only the unpriced local arm reaches 90%
    assert result.chosen is None
    assert result.sentence.startswith(
        "No priced model + arm reaches 90% at the lower bound of its 95% interval; the closest "
        f"is {DEAR} with the skill, 97% [88, 99] at {D(0.45)} per passed case [{D(0.36)}, "
        f"{D(0.585)}] (lower bound 88%). "
    )
    assert f"Unpriced, never chosen: {LOCAL} without the skill, {LOCAL} with the skill." in (
        result.sentence
    )
    only_unpriced = choose_frontier(_entries(MODELS[2:]), 0.8)
    assert only_unpriced.chosen is None
    assert only_unpriced.sentence.startswith("No priced model + arm to choose from for 80%")


def test_best_baseline_falls_back_to_the_highest_pass_rate() -> None:
    # no baseline reaches 85%: the best baseline is the dear one (92%), and the cheap model with
    # the skill is still chosen: its saving is against that baseline, which is named as below
    result = choose_frontier(_entries(MODELS[:2]), 0.85)
    assert result.chosen is not None and result.chosen.model == CHEAP
    assert result.best_baseline is not None and result.best_baseline.model == DEAR
    assert (
        f"(92% [82, 97] at {D(0.30)} per passed case [{D(0.24)}, {D(0.39)}], below 85%)"
        in result.sentence
    )
    # a baseline that reaches the target and is the cheapest of all: the skill saves nothing
    cheap_baseline = [
        {**MODELS[0], "baseline": _arm(0.95, (0.86, 0.99), 0.008)},
        MODELS[1],
    ]
    result = choose_frontier(_entries(cheap_baseline), 0.8)
    assert result.chosen is result.best_baseline
    assert result.saving == 0
    assert "it is the best baseline itself, so the skill saves nothing here" in result.sentence


def test_a_dearer_choice_says_more_not_less() -> None:
    models = [
        {"model": CHEAP, "baseline": _arm(0.70, (0.55, 0.82), 0.01)},
        {"model": DEAR, "with_skill": _arm(0.95, (0.85, 0.99), 0.04)},
    ]
    entries = [
        entry_from_row({"model": m["model"], "arm": arm, **m[arm]})
        for m in models
        for arm in ("baseline", "with_skill")
        if arm in m
    ]
    result = choose_frontier(entries, 0.8)
    assert result.saving == pytest.approx(-0.03)
    assert f"{D(0.03)} (300%) more per passed case than the best baseline" in result.sentence


def test_dataset_row_columns_read_like_summary_json() -> None:
    row = {
        "model": CHEAP,
        "arm": "with_skill",
        "pass_rate": 0.95,
        "ci_low": 0.85,
        "ci_high": 0.99,
        "cost_usd": 0.456,
        "cost_per_passed": 0.012,
        "cost_per_passed_ci_low": 0.0096,
        "cost_per_passed_ci_high": 0.0156,
    }
    from_row = entry_from_row(row)
    from_summary = _entries(MODELS)[1]
    assert from_row.label == from_summary.label
    assert from_row.ci95 == from_summary.ci95 and from_row.per_passed == from_summary.per_passed
    assert from_row.per_passed_ci95 == pytest.approx(from_summary.per_passed_ci95)


@pytest.mark.parametrize("bad", [1.5, 0.0, -0.2, float("nan")])
def test_bad_target_names_the_parameter(bad: float) -> None:
    with pytest.raises(UsageError) as caught:
        check_target(bad)
    assert caught.value.param == "target"


def test_bad_target_on_the_command_line_is_one_line(tmp_path: Path) -> None:
    done = run_cli("results", "frontier", str(tmp_path), "--target", "1.5")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: --target must be a pass rate above 0 and at most 1 (got 1.5)"
    ]


def test_chart_draws_priced_arms_and_names_the_unpriced() -> None:
    points, unpriced = points_from_models(MODELS)
    assert len(points) == 4
    assert unpriced == [f"{LOCAL} (without skill)", f"{LOCAL} (with skill)"]
    png = render_frontier_chart(points, target=0.8, unpriced=unpriced)
    assert png.startswith(b"\x89PNG")
    assert json.dumps([p.label for p in points])  # labels are plain text


FACT = "ZORBLAT-42"
SKILL_MD = f"""---
name: zorblat
description: Knows the Zorblat code. Use when asked about Zorblat.
---

The Zorblat code is {FACT}.
"""
#: ``mock:prompt`` answers with the whole prompt: it knows the fact only with the skill; the
#: other model always says it. Priced so the first is cheap and the second dear.
CHEAP_MOCK, DEAR_MOCK = "mock:prompt", f"mock:reply={FACT}"


def _skill(tmp_path: Path, cases: int) -> Path:
    folder = tmp_path / "zorblat"
    folder.mkdir()
    (folder / "SKILL.md").write_text(SKILL_MD)
    tests = [
        {"id": f"q{i}", "input": f"Q{i}: the Zorblat code?", "expected": {"contains": FACT}}
        for i in range(cases)
    ]
    (folder / "skill_meta.json").write_text(json.dumps({"metadata": {}, "tests": tests}))
    return folder


def _json(*args: str) -> dict[str, Any]:
    done = run_cli(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


@pytest.mark.slow
def test_eval_writes_the_chart_and_a_published_run_gives_the_same_answer(
    tmp_path: Path, unique_repo_id: str
) -> None:
    skill = _skill(tmp_path, cases=12)
    runs = tmp_path / "runs"
    _json(
        "eval", str(skill), "--model", CHEAP_MOCK, "--model", DEAR_MOCK, "-o", str(runs),
        "--price", f"{CHEAP_MOCK}=0.1/0.4", "--price", f"{DEAR_MOCK}=30/60",
    )  # fmt: skip
    (run_dir,) = runs.iterdir()
    assert (run_dir / "frontier.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    local = _json("results", "frontier", str(run_dir), "--target", "0.7")
    chosen, baseline = local["chosen"], local["best_baseline"]
    assert (chosen["model"], chosen["arm"]) == (CHEAP_MOCK, "with_skill")
    assert (baseline["model"], baseline["arm"]) == (DEAR_MOCK, "baseline")
    assert chosen["ci95"][0] >= 0.7 and baseline["ci95"][0] >= 0.7
    summary = json.loads((run_dir / "summary.json").read_text())
    by_model = {m["model"]: m for m in summary["models"]}
    cheap = by_model[CHEAP_MOCK]["with_skill"]["cost"]["per_passed"]
    dear = by_model[DEAR_MOCK]["baseline"]["cost"]["per_passed"]
    assert local["saving_per_passed"] == pytest.approx(dear - cheap)
    assert local["sentence"].startswith(
        f"Cheapest to reach 70% at the lower bound of its 95% interval: {CHEAP_MOCK} with the "
        "skill, 100% ["
    )
    pushed = run_cli("results", "push", str(run_dir), "--repo", unique_repo_id)
    assert pushed.returncode == 0, pushed.stderr
    published = _json("results", "frontier", unique_repo_id, "--target", "0.7")
    assert published == local
    chart = tmp_path / "both.png"
    both = (str(run_dir), unique_repo_id)  # the same run twice: each entry names its run
    text = run_cli("results", "frontier", *both, "--target", "0.7", "--out", str(chart))
    assert text.returncode == 0, text.stderr
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    words = " ".join(text.stdout.split())
    assert f"Cheapest to reach 70% at the lower bound of its 95% interval: {CHEAP_MOCK} with " in (
        words
    )
    assert "← chosen" in words and f"chart: {chart}" in words
