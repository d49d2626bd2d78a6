"""Cost figures through publishing: ``results push`` checks them when a summary has them, a
summary from before costs still pushes and shows, and a forged cost is refused."""

from __future__ import annotations

import json
from pathlib import Path

from datasets import load_dataset

from tests.cli_runner import run_cli
from tests.publish.run_folders import MODELS, make_run_folder
from upskill_hub.evaluation.pricing import Price, prices_to_json
from upskill_hub.evaluation.run.folder import RunFolder
from upskill_hub.evaluation.stats.summarize import summarize
from upskill_hub.publish.results_dataset import push_results
from upskill_hub.publish.results_view import compare_results, load_results
from upskill_hub.publish.run_consistency import check_run_consistency

FIXTURE_0_1 = Path(__file__).resolve().parents[1] / "fixtures" / "run_folder_0_1" / "run"
FIRST = "20261122-013045-kernel-builder-ab12cd"
SECOND = "20261123-090000-kernel-builder-cd34ef"
#: The first model priced by hand, the second left unpriced.
PRICES = {MODELS[0]: Price(0.4, 1.6, 0.1, source="--price"), MODELS[1]: None}


def priced_run(root: Path, run_id: str = FIRST, **kwargs: object) -> Path:
    """A hand-built run folder whose run.json has prices and whose summary.json was written
    with them, as eval writes one."""
    path = make_run_folder(root, run_id, **kwargs)  # type: ignore[arg-type]
    folder = RunFolder(path)
    info = json.loads(folder.run_file.read_text())
    info["prices"] = prices_to_json(PRICES)
    folder.run_file.write_text(json.dumps(info, indent=2))
    summary = json.loads(folder.summary_file.read_text())
    summary["models"] = [m.to_dict(extended=True) for m in summarize(folder.read_samples(), PRICES)]
    folder.summary_file.write_text(json.dumps(summary, indent=2))
    return path


def strip_costs(run_dir: Path) -> None:
    """Make the run look like one written before costs: no prices, no cost or cache keys."""
    folder = RunFolder(run_dir)
    info = json.loads(folder.run_file.read_text())
    info.pop("prices", None)
    folder.run_file.write_text(json.dumps(info, indent=2))
    summary = json.loads(folder.summary_file.read_text())
    for model in summary["models"]:
        model.pop("cost_ratio")
        model.pop("token_ratio")
        for arm in ("baseline", "with_skill"):
            if model.get(arm):
                model[arm].pop("cost")
                model[arm]["tokens"] = {
                    k: v for k, v in model[arm]["tokens"].items() if k in ("input", "output")
                }
    folder.summary_file.write_text(json.dumps(summary, indent=2))


def test_a_priced_run_checks_and_a_forged_cost_is_refused(tmp_path: Path) -> None:
    run_dir = priced_run(tmp_path / "runs")
    assert check_run_consistency(run_dir) == []
    summary_file = run_dir / "summary.json"
    summary = json.loads(summary_file.read_text())
    priced, unpriced = summary["models"]
    assert priced["with_skill"]["cost"]["usd"] > 0 and priced["cost_ratio"] is not None
    assert unpriced["with_skill"]["cost"]["usd"] is None and unpriced["cost_ratio"] is None
    # the skill owner halves the with-skill cost per pass and the cost ratio
    priced["with_skill"]["cost"]["per_passed"] /= 2
    priced["cost_ratio"] = 0.5
    summary_file.write_text(json.dumps(summary, indent=2))
    problems = check_run_consistency(run_dir)
    assert any(f"{MODELS[0]}: with_skill.cost says" in p for p in problems), problems
    assert any(f"{MODELS[0]}: cost_ratio says 0.5" in p for p in problems), problems
    # ... or prices its unpriced model after the fact in summary.json alone
    summary = json.loads(summary_file.read_text())
    summary["models"][1]["with_skill"]["cost"]["usd"] = 0.01
    summary_file.write_text(json.dumps(summary, indent=2))
    assert any(f"{MODELS[1]}: with_skill.cost says" in p for p in check_run_consistency(run_dir))


def test_a_summary_from_before_costs_still_checks_shows_and_pushes(
    tmp_path: Path, unique_repo_id: str
) -> None:
    run_dir = make_run_folder(tmp_path / "runs", FIRST)
    strip_costs(run_dir)
    assert check_run_consistency(run_dir) == []
    pushed = push_results(run_dir, unique_repo_id)
    rows = load_dataset(unique_repo_id, "summary", split=pushed.split)
    assert {r["cost_usd"] for r in rows} == {None}
    assert {r["cached_input_tokens"] for r in rows} == {None}
    shown = run_cli("results", "show", unique_repo_id, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    text = run_cli("results", "show", str(run_dir))
    assert text.returncode == 0, text.stderr
    assert "$" not in text.stdout  # no model priced: no cost column, never $0


def test_the_0_1_run_folder_still_shows(tmp_path: Path) -> None:
    results = load_results(FIXTURE_0_1)
    (model,) = results.models
    assert model.cost_ratio is None and model.with_skill is not None
    assert model.with_skill.get("cost_usd") is None
    done = run_cli("results", "show", str(FIXTURE_0_1))
    assert done.returncode == 0, done.stderr
    assert "fake-model" in done.stdout and "$" not in done.stdout
    compared = run_cli("results", "compare", str(FIXTURE_0_1), str(FIXTURE_0_1))
    assert compared.returncode == 0, compared.stderr
    assert "A $/pass" in compared.stdout


def test_results_compare_shows_the_cost_columns(tmp_path: Path) -> None:
    first = priced_run(tmp_path / "runs", FIRST)
    second = priced_run(tmp_path / "runs", SECOND, skill_fails=("arch-guard",))
    a, b = load_results(first), load_results(second)
    rows = {r.model: r for r in compare_results(a, b)}  # type: ignore[arg-type]
    priced, unpriced = rows[MODELS[0]], rows[MODELS[1]]
    cost_a = priced.a.with_skill["cost_per_passed"]  # type: ignore[union-attr,index]
    cost_b = priced.b.with_skill["cost_per_passed"]  # type: ignore[union-attr,index]
    assert cost_b > cost_a  # fewer passes for about the same tokens
    assert priced.with_skill_cost_ratio == cost_b / cost_a
    assert unpriced.with_skill_cost_ratio is None
    assert priced.to_dict()["with_skill_cost_ratio"] == priced.with_skill_cost_ratio
    done = run_cli("results", "compare", str(first), str(second), "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    by_model = {m["model"]: m for m in data["models"]}
    assert by_model[MODELS[1]]["with_skill_cost_ratio"] is None
    shown = run_cli("results", "show", str(first))
    assert shown.returncode == 0, shown.stderr
    assert "$/pass (base → skill)" in shown.stdout
    base_cost = priced.a.baseline["cost_per_passed"]  # type: ignore[union-attr,index]
    assert f"${base_cost:.3g}" in shown.stdout
    text = run_cli("results", "compare", str(first), str(second))
    assert text.returncode == 0, text.stderr
    assert "B/A $/pass" in text.stdout
    assert f"{cost_b / cost_a:.2f}×" in text.stdout
