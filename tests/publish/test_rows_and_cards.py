"""Rows, schemas, card text and secret scrubbing, without a Hub."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.publish.run_folders import make_run_folder
from upskill_hub.errors import UsageError
from upskill_hub.evaluation.run.folder import read_samples
from upskill_hub.evaluation.run.records import RunInfo
from upskill_hub.publish.dataset_card import build_dataset_card, run_section, run_sections
from upskill_hub.publish.dataset_push import dataset_features
from upskill_hub.publish.results_dataset import (
    check_rows,
    push_results,
    read_run,
    sample_rows,
    split_name,
    summary_rows,
)
from upskill_hub.publish.results_view import load_results
from upskill_hub.publish.skill_card import results_markdown, skill_card_repo
from upskill_hub.secrets import Redactor, secret_values
from upskill_hub.skill.schemas import load_schema


def test_split_names_are_valid_dataset_splits() -> None:
    assert split_name("20261122-013045-kernel-builder-ab12cd") == (
        "run_20261122_013045_kernel_builder_ab12cd"
    )
    assert split_name("run_20261122_013045_ab12cd") == "run_20261122_013045_ab12cd"
    assert split_name("ünïcode run!") == "run_n_code_run"
    with pytest.raises(UsageError):
        split_name("---")


def test_sample_rows_mirror_samples_jsonl_and_fit_the_schema(run_folder: Path) -> None:
    record = read_run(run_folder)
    rows = sample_rows(record)
    check_rows(rows, "results_sample", run_folder)
    lines = [json.loads(line) for line in (run_folder / "samples.jsonl").read_text().splitlines()]
    assert len(rows) == len(lines) == 24
    for row, line in zip(rows, lines, strict=True):
        for key in ("model", "case_id", "run", "arm", "output", "outcome", "error", "prompt_hash"):
            assert row[key] == line[key]
        assert row["assertions"] == line["assertions"]
        assert row["passed"] == (line["outcome"] == "pass")
        assert row["skill_repo"] == "local-user/kernel-builder"
        assert row["input"].startswith(("Write", "How"))
    assert sum(r["outcome"] == "error" for r in rows) == 1


def test_summary_rows_one_per_model_and_arm(run_folder: Path) -> None:
    rows = summary_rows(read_run(run_folder))
    check_rows(rows, "summary", run_folder)
    summary = json.loads((run_folder / "summary.json").read_text())
    assert [(r["model"], r["arm"]) for r in rows] == [
        (m["model"], arm) for m in summary["models"] for arm in ("baseline", "with_skill")
    ]
    first = summary["models"][0]
    assert rows[1]["pass_rate"] == first["with_skill"]["pass_rate"]
    assert [rows[1]["ci_low"], rows[1]["ci_high"]] == first["with_skill"]["ci95"]
    assert [rows[0]["lift_ci_low"], rows[0]["lift_ci_high"]] == first["lift_ci95"]
    assert rows[0]["verdict"] == first["verdict"]
    assert first["verdict"].startswith("too few cases: 3 cases cannot detect any lift at this n")


def test_features_follow_the_schemas() -> None:
    for schema in ("results_sample", "summary"):
        properties = load_schema(schema)["properties"]
        assert list(dataset_features(schema)) == list(properties)
        assert load_schema(schema)["required"] == list(properties)


def test_rows_that_break_the_schema_are_refused(run_folder: Path) -> None:
    line = json.loads((run_folder / "samples.jsonl").read_text().splitlines()[0])
    line["arm"] = "sideways"
    with (run_folder / "samples.jsonl").open("a") as fh:
        fh.write(json.dumps(line) + "\n")
    rows = sample_rows(read_run(run_folder))
    with pytest.raises(UsageError, match=r"row 25 .*\$\.arm"):
        check_rows(rows, "results_sample", run_folder)


def test_unpublishable_folders_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such run folder"):
        read_run(tmp_path / "missing")
    folder = make_run_folder(tmp_path)
    (folder / "summary.json").unlink()
    with pytest.raises(UsageError, match=r"no summary\.json"):
        read_run(folder)
    (folder / "samples.jsonl").unlink()
    with pytest.raises(UsageError, match=r"no samples\.jsonl"):
        read_run(folder)


def test_secrets_are_scrubbed_from_rows(tmp_path: Path) -> None:
    sentinel = "sentinel-9f8e7d6c5b4a3210"
    env = {"OPENAI_API_KEY": sentinel, "HOME": "/home/someone-long-enough", "HF_TOKEN": "short"}
    redactor = Redactor(environ=env)
    assert redactor.secrets == secret_values(environ=env) == [sentinel]
    folder = make_run_folder(tmp_path, output=f"my key is {sentinel} and hf_abcdefghijkl")
    rows = sample_rows(read_run(folder), redactor)
    text = json.dumps(rows)
    assert sentinel not in text and "hf_abcdefghijkl" not in text
    assert rows[0]["output"] == "my key is *** and ***"
    assert redactor.scrub({"a": [f"x{sentinel}"]}) == {"a": ["x***"]}


def test_card_keeps_metadata_and_earlier_runs(tmp_path: Path) -> None:
    first = read_run(make_run_folder(tmp_path, "20261122-013045-kb-aaaaaa"))
    second = read_run(
        make_run_folder(tmp_path, "20261123-090000-kb-bbbbbb", started_at="2026-11-23T09:00:00Z")
    )
    datasets_wrote = (
        "---\nconfigs:\n- config_name: summary\n  data_files:\n  - split: run_a\n"
        "    path: summary/run_a-*\nlicense: mit\n---\n"
    )
    card1 = build_dataset_card(
        datasets_wrote,
        first,
        repo_id="ns/results",
        split="run_a",
        rows=summary_rows(first),
        chart_path="charts/run_a.png",
    )
    assert "config_name: summary" in card1 and "license: mit" in card1
    assert "- agent-skills" in card1 and "- skill-evaluation" in card1
    assert "pretty_name: kernel-builder skill evaluation results" in card1
    assert "![Pass rate per model with and without the skill](charts/run_a.png)" in card1
    row1 = "| `openai:gpt-4.1-mini` | 33% [2, 94] | 100% [14, 100] | +67 pts [-100, +100] (3 "
    assert row1 + "cases × 2 runs)" in card1
    assert "upskill-hub eval local-user/kernel-builder@0123456789abcdef" in card1
    old_section = run_sections(card1.split("---\n", 2)[2])["run_a"]

    card2 = build_dataset_card(
        card1,
        second,
        repo_id="ns/results",
        split="run_b",
        rows=summary_rows(second),
        chart_path=None,
    )
    sections = run_sections(card2)
    assert list(sections) == ["run_b", "run_a"]  # newest first
    assert sections["run_a"] == old_section
    assert '"summary", split="run_b"' in card2 and "2 run(s)" in card2
    assert card2.count("## Run `") == 2 and card2.count("config_name: summary") == 1


def test_card_method_states_the_real_pass_rule(run_folder: Path) -> None:
    record = read_run(run_folder)
    card = build_dataset_card(
        "", record, repo_id="ns/results", split="run_x", rows=summary_rows(record), chart_path=None
    )
    method = card.split("### Method", 1)[1]
    assert "every assertion passes" not in method
    assert (
        "A sample passes when no assertion fails or errors and at least one actually ran "
        "(skipped checks neither pass nor fail)"
    ) in " ".join(method.split())


def test_skill_card_section_and_target(run_folder: Path) -> None:
    record = read_run(run_folder)
    markdown = results_markdown(
        summary_rows(record),
        record.info,
        dataset_repo="ns/results",
        dataset_url="https://hub.example/datasets/ns/results",
        split="run_x",
    )
    assert "[ns/results](https://hub.example/datasets/ns/results)" in markdown
    # lift by case: mean over cases of (with - without) = +67, not 83% - 20% over samples
    assert "| `anthropic:claude-haiku-4-5` | 20% [1, 87] | 83% [15, 99] | +67 pts" in markdown
    assert "## " not in markdown
    assert skill_card_repo(record.info, None) == "local-user/kernel-builder"
    assert skill_card_repo(record.info, "other/skill") == "other/skill"
    with pytest.raises(UsageError, match="skill_repo") as err:
        skill_card_repo(RunInfo.from_dict({"skill": {"name": "x", "repo_id": None}}), None)
    assert err.value.param == "update_skill_card" and "skill_repo" in err.value.params
    with pytest.raises(UsageError):
        skill_card_repo(record.info, "not a repo")


def test_read_samples_agrees_with_rows(run_folder: Path) -> None:
    samples = read_samples(run_folder / "samples.jsonl")
    rows = sample_rows(read_run(run_folder))
    assert [(s.model, s.case_id, s.run, s.arm) for s in samples] == [
        (r["model"], r["case_id"], r["run"], r["arm"]) for r in rows
    ]


def test_bad_sources_and_flags_are_usage_errors(tmp_path: Path, run_folder: Path) -> None:
    for source, split, needle in [
        (str(tmp_path / "nope"), None, "no such run folder"),
        ("justaname", None, "no such run folder"),
        ("ns/results:", None, "empty split"),
        ("ns/results:run_a", "run_b", "give the split once"),
        (str(run_folder), "run_a", "split applies to a Hub dataset"),
        ("bad id!/x", None, "not a Hub repo id"),
    ]:
        with pytest.raises(UsageError, match=re.escape(needle)):
            load_results(source, split)
    with pytest.raises(UsageError, match="update_skill_card"):
        push_results(run_folder, "ns/results", create_pr=True)
    with pytest.raises(UsageError, match="without '@revision'"):
        push_results(run_folder, "ns/results@main")
    local = load_results(run_folder)
    assert local.split == split_name(run_folder.name)
    assert [m.model for m in local.models] == ["openai:gpt-4.1-mini", "anthropic:claude-haiku-4-5"]


def test_card_method_line_says_how_the_run_computed_lift(tmp_path: Path) -> None:
    folder = make_run_folder(tmp_path, "20261122-013045-kb-cccccc")
    record = read_run(folder)
    section = run_section(record, split="run_c", rows=summary_rows(record), chart_path=None)
    assert "paired t interval over cases" in section and "Newcombe" not in section
    # a stats_version 1 run (no stats_version in summary.json) is described as what it is
    summary = json.loads((folder / "summary.json").read_text())
    del summary["stats_version"]
    (folder / "summary.json").write_text(json.dumps(summary))
    old = read_run(folder)
    section = run_section(old, split="run_c", rows=summary_rows(old), chart_path=None)
    assert "Newcombe" in section and "stats_version 1" in section
