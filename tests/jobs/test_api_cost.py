"""The API-cost estimate of a grid on Jobs: a prior run's tokens x prices x grid size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.publish.run_folders import CASES, MODELS, make_run_folder
from upskill_hub.errors import UsageError
from upskill_hub.evaluation.pricing import Price
from upskill_hub.jobs.api_cost import find_prior_run, plan_api_cost, plan_grid, run_tokens
from upskill_hub.jobs.plan import JobsPlan, make_shards

GPT = MODELS[0]  # the run folder's samples: baseline 412 in / 188 out, with skill 1630 / 141


def _plan(models: list[str], runs: int = 2) -> JobsPlan:
    return JobsPlan(
        run_id="r",
        artifact_repo="me/runs",
        namespace="me",
        flavor="cpu-basic",
        max_parallel=2,
        timeout="2h",
        image="python:3.12",
        install="pypi",
        models=models,
        model_ids={m: m for m in models},
        runs=runs,
        arms=["baseline", "with_skill"],
        shards=make_shards(models, [c.id for c in CASES], runs, 2, shard_samples=4),
    )


def test_pilot_tokens_times_a_given_price_is_the_hand_computed_figure(tmp_path: Path) -> None:
    pilot = make_run_folder(tmp_path / "pilots")
    assert run_tokens(pilot)[GPT]["baseline"]["input"] == 412
    plan = _plan([GPT])  # 3 cases x 2 runs: 6 samples per arm
    assert plan_grid(plan) == {GPT: {"baseline": 6, "with_skill": 6}}
    price = Price(input=1.0, output=4.0, source="--price")
    estimate = plan_api_cost(
        plan,
        "kernel-builder",
        output_root=tmp_path / "none",
        pilot=pilot,
        price_overrides={GPT: price},
    )
    # baseline 6 x (412 x $1 + 188 x $4) / 1e6 + with skill 6 x (1630 x $1 + 141 x $4) / 1e6
    expected = (6 * (412 + 188 * 4) + 6 * (1630 + 141 * 4)) / 1e6
    assert expected == pytest.approx(0.020148)
    assert estimate.usd == pytest.approx(expected)
    assert estimate.lines() == [f"estimated API cost: $0.0201 (tokens per sample from {pilot})"]
    data = estimate.to_dict()
    assert data["models"][0]["price_source"] == "--price"
    assert data["models"][0]["tokens_per_sample"]["with_skill"]["output"] == 141


def test_unknown_without_a_price_or_a_prior_run(tmp_path: Path) -> None:
    pilot = make_run_folder(tmp_path / "pilots")
    plan = _plan([GPT, "mock:echo"])  # mock models have no price unless given
    estimate = plan_api_cost(plan, "kernel-builder", output_root=tmp_path, pilot=pilot)
    assert estimate.usd is None
    assert estimate.lines() == [
        "estimated API cost: unknown (no price for mock:echo; give one with --price MODEL=IN/OUT)"
    ]
    echo = next(m for m in estimate.models if m.model == "mock:echo")
    assert echo.tokens_from == "mean of the prior run's models" and echo.usd is None
    assert json.loads(json.dumps(estimate.to_dict()))["usd"] is None
    nothing = plan_api_cost(_plan([GPT]), "kernel-builder", output_root=tmp_path / "empty")
    assert nothing.usd is None
    assert nothing.lines() == [
        "estimated API cost: unknown (no prior run of this skill to take tokens from)"
    ]


def test_the_last_run_of_the_same_skill_is_found(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    older = make_run_folder(runs, "20261120-010000-kernel-builder-aaaaaa")
    newer = make_run_folder(runs, "20261121-010000-kernel-builder-bbbbbb")
    planned = runs / "20261122-010000-kernel-builder-cccccc"  # the new run's own folder
    planned.mkdir()
    assert find_prior_run(runs, "kernel-builder", exclude=planned) == newer
    (newer / "summary.json").unlink()  # unfinished: skipped
    assert find_prior_run(runs, "kernel-builder", exclude=planned) == older
    assert find_prior_run(runs, "another-skill") is None
    price = {GPT: Price(1.0, 4.0)}
    estimate = plan_api_cost(
        _plan([GPT]), "kernel-builder", output_root=runs, run_dir=planned, price_overrides=price
    )
    assert estimate.source == str(older) and estimate.usd == pytest.approx(0.020148)


def test_a_bad_pilot_names_the_flag(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        run_tokens(tmp_path)
    assert caught.value.param == "pilot" and "no summary.json" in str(caught.value)
