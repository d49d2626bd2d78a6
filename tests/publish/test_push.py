"""push_results against the local Hub server: datasets round trip, card, second run, skill card."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from datasets import load_dataset
from huggingface_hub import DatasetCard, HfApi, hf_hub_download

from tests.publish.run_folders import MODELS, make_run_folder
from upskill_hub.errors import UsageError
from upskill_hub.publish.results_dataset import push_results
from upskill_hub.publish.results_view import compare_results, load_results
from upskill_hub.registry.card import NO_RESULTS, results_metadata

FIRST = "20261122-013045-kernel-builder-ab12cd"
SECOND = "20261123-090000-kernel-builder-cd34ef"
SKILL_CARD = f"""---
license: apache-2.0
tags:
- agent-skills
---

# kernel-builder

Builds Hugging Face kernels.

## Install

```bash
upskill-hub pull local-user/kernel-builder
```

## Results

{NO_RESULTS}

## Files

```text
kernel-builder/
└── SKILL.md
```
"""


def _card_text(repo_id: str) -> str:
    path = hf_hub_download(repo_id, "README.md", repo_type="dataset")
    return Path(path).read_text(encoding="utf-8")


def _make_skill_repo(repo_id: str) -> None:
    api = HfApi()
    api.create_repo(repo_id)
    api.upload_file(path_or_fileobj=SKILL_CARD.encode(), path_in_repo="README.md", repo_id=repo_id)


def test_push_then_load_back(tmp_path: Path, unique_repo_id: str) -> None:
    folder = make_run_folder(tmp_path, FIRST)
    pushed = push_results(folder, unique_repo_id, private=True)
    assert pushed.split == "run_20261122_013045_kernel_builder_ab12cd"
    assert pushed.url.endswith(f"/datasets/{unique_repo_id}")
    info = HfApi().dataset_info(unique_repo_id)
    assert info.sha == pushed.commit and info.private

    samples = load_dataset(unique_repo_id, "samples", split=pushed.split)
    lines = [json.loads(x) for x in (folder / "samples.jsonl").read_text().splitlines()]
    assert samples.num_rows == len(lines) == 24
    for row, line in zip(samples.to_list(), lines, strict=True):
        for key in ("model", "case_id", "run", "arm", "output", "outcome", "error", "assertions"):
            assert row[key] == line[key], key
        assert row["input_tokens"] == line["input_tokens"]
        assert row["latency_s"] == pytest.approx(line["latency_s"])
        assert row["skill_commit"] == "0123456789abcdef0123456789abcdef01234567"
    summary = load_dataset(unique_repo_id, "summary", split=pushed.split)
    assert summary.num_rows == 4
    assert set(summary["arm"]) == {"baseline", "with_skill"}

    files = HfApi().list_repo_files(unique_repo_id, repo_type="dataset")
    assert f"charts/{pushed.split}.png" in files
    card = DatasetCard(_card_text(unique_repo_id))
    card.validate(repo_type="dataset")
    meta = yaml.safe_load(str(card).split("---\n")[1])
    assert {"agent-skills", "skill-evaluation"} <= set(meta["tags"])
    assert meta["license"] and meta["pretty_name"]
    assert {c["config_name"] for c in meta["configs"]} == {"samples", "summary"}
    assert f"![Pass rate per model with and without the skill](charts/{pushed.split}.png)" in (
        card.text
    )
    assert "### Reproduce" in card.text and "--seed 7" in card.text
    # the run's cases are in the dataset, and the card's reproduce step downloads them
    tests_file = f"tests/{pushed.split}.json"
    assert tests_file in files
    uploaded = hf_hub_download(unique_repo_id, tests_file, repo_type="dataset")
    assert json.loads(Path(uploaded).read_text()) == json.loads((folder / "tests.json").read_text())
    assert f"hf download {unique_repo_id} {tests_file} --repo-type dataset" in card.text
    assert f"--tests {tests_file}" in card.text and str(tmp_path) not in card.text


@pytest.mark.slow
def test_second_run_is_added_and_compared(tmp_path: Path, unique_repo_id: str) -> None:
    first = push_results(make_run_folder(tmp_path, FIRST), unique_repo_id)
    second_dir = make_run_folder(tmp_path, SECOND, started_at="2026-11-23T09:00:00Z", chart=False)
    second = push_results(second_dir, unique_repo_id)
    assert second.split != first.split

    for config, rows in (("samples", 24), ("summary", 4)):
        loaded = load_dataset(unique_repo_id, config)
        assert sorted(loaded) == sorted([first.split, second.split])
        assert all(loaded[s].num_rows == rows for s in loaded)
    text = _card_text(unique_repo_id)
    assert text.index(f"## Run `{second.split}`") < text.index(f"## Run `{first.split}`")
    assert f"charts/{first.split}.png" in text  # the first run's section is kept
    assert text.count("## Run `") == 2

    latest = load_results(unique_repo_id)
    assert latest.split == second.split and len(latest.models) == 2
    older = load_results(f"{unique_repo_id}:{first.split}")
    assert older.split == first.split
    local = load_results(second_dir)
    assert local.rows == latest.rows
    comparison = compare_results(older, latest)
    assert [c.model for c in comparison] == ["openai:gpt-4.1-mini", "anthropic:claude-haiku-4-5"]
    assert comparison[0].lift_delta == pytest.approx(0.0)
    with pytest.raises(UsageError, match="no split 'run_nope'"):
        load_results(unique_repo_id, "run_nope")


@pytest.mark.slow
def test_skill_card_update_keeps_the_rest(tmp_path: Path, unique_repo_id: str) -> None:
    skill_repo = unique_repo_id + "-skill"
    _make_skill_repo(skill_repo)
    folder = make_run_folder(tmp_path, FIRST, repo_id=skill_repo)
    pushed = push_results(folder, unique_repo_id, update_skill_card=True)
    assert pushed.skill_card_commit and pushed.skill_card_pr_url is None
    card = Path(hf_hub_download(skill_repo, "README.md")).read_text()
    before, _, after = SKILL_CARD.partition("## Results")
    header, body = before.split("---\n\n", 1)  # metadata gains upskill_hub.results only
    assert card.startswith(header) and "---\n\n" + body in card
    assert card.endswith("## Files" + after.split("## Files", 1)[1])
    [entry] = results_metadata(card)
    assert entry["dataset"] == unique_repo_id and entry["split"] == pushed.split
    assert entry["skill_commit"] == "0123456789abcdef0123456789abcdef01234567"
    assert entry["skill"] == "kernel-builder" and entry["mode"] == "inline"
    assert [m["model"] for m in entry["models"]] == list(MODELS)
    assert entry["models"][0]["lift"] == pytest.approx(2 / 3, abs=1e-6)
    assert entry["models"][0]["cases"] == 3 and entry["models"][0]["runs"] == 2
    section = card.split("## Results", 1)[1].split("## Files", 1)[0]
    assert NO_RESULTS not in section
    assert f"[{unique_repo_id}]({pushed.url})" in section
    assert "| `openai:gpt-4.1-mini` | 33% [2, 94] | 100% [14, 100] | +67 pts" in section

    # as a pull request: main keeps the direct update, the PR carries the new one
    again = push_results(
        make_run_folder(tmp_path / "b", SECOND, started_at="2026-11-23T09:00:00Z"),
        unique_repo_id,
        update_skill_card=True,
        skill_repo=skill_repo,
        create_pr=True,
    )
    assert again.skill_card_pr_url and "/discussions/" in again.skill_card_pr_url
    main = Path(hf_hub_download(skill_repo, "README.md", revision="main")).read_text()
    assert main == card
    pr_card = HfApi().hf_hub_download(skill_repo, "README.md", revision="refs/pr/1")
    assert again.split in Path(pr_card).read_text()


def test_local_skill_without_repo_is_refused_before_uploading(
    tmp_path: Path, unique_repo_id: str
) -> None:
    folder = make_run_folder(tmp_path, FIRST, repo_id=None, revision=None)
    with pytest.raises(UsageError, match="skill_repo"):
        push_results(folder, unique_repo_id, update_skill_card=True)
    assert not HfApi().repo_exists(unique_repo_id, repo_type="dataset")


def test_a_symlink_in_the_run_folder_is_never_followed(
    tmp_path: Path, unique_repo_id: str, hub_server: object
) -> None:
    from tests.cli_runner import run_cli

    secret = tmp_path / "home" / ".aws" / "credentials"
    secret.parent.mkdir(parents=True)
    secret.write_text("aws_secret_access_key = LINKED-SECRET-0xdeadbeef\n", encoding="utf-8")
    run_dir = make_run_folder(tmp_path / "runs")
    chart = run_dir / "lift.png"
    chart.unlink(missing_ok=True)
    chart.symlink_to(secret)
    done = run_cli("results", "push", str(run_dir), "--repo", unique_repo_id)
    assert done.returncode != 0
    assert "lift.png: a symbolic link in a run folder" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    data_dir = Path(os.environ["HF_HOME"]).parent / "hub-data"
    stored = b"".join(p.read_bytes() for p in data_dir.rglob("*") if p.is_file())
    assert b"LINKED-SECRET" not in stored


def test_a_summary_edited_by_hand_is_refused_before_anything_is_uploaded(
    tmp_path: Path, unique_repo_id: str, hub_server: object
) -> None:
    """The skill owner edits summary.json to +90 pts over 200 cases x 10 runs and pushes it."""
    from tests.cli_runner import run_cli
    from upskill_hub.publish.run_consistency import check_run_consistency

    skill_repo = unique_repo_id + "-skill"
    _make_skill_repo(skill_repo)
    run_dir = make_run_folder(tmp_path / "runs", FIRST, repo_id=skill_repo)
    assert check_run_consistency(run_dir) == []
    summary_file = run_dir / "summary.json"
    summary = json.loads(summary_file.read_text())
    model = summary["models"][0]
    model.update(lift=0.9, lift_ci95=[0.85, 0.95], cases=200, runs=10, verdict="helps")
    model["with_skill"]["passed"] = model["with_skill"]["total"]
    summary_file.write_text(json.dumps(summary, indent=2))
    problems = check_run_consistency(run_dir)
    assert any(f"{MODELS[0]}: lift says 0.9" in p for p in problems), problems
    assert any(f"{MODELS[0]}: runs says 10, the samples give 2" in p for p in problems)
    card_before = HfApi().hf_hub_download(skill_repo, "README.md")
    card_text = Path(card_before).read_text()

    done = run_cli("results", "push", str(run_dir), "--repo", unique_repo_id, "--update-skill-card")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "summary.json does not follow from samples.jsonl" in lines[0]
    assert "lift says 0.9" in lines[0] and "Traceback" not in done.stderr
    assert not HfApi().repo_exists(unique_repo_id, repo_type="dataset")
    fresh = HfApi().hf_hub_download(skill_repo, "README.md", force_download=True)
    assert Path(fresh).read_text() == card_text
    # a sample edited to match the forged summary does not pass either (counts and lift differ)
    samples = run_dir / "samples.jsonl"
    samples.write_text(samples.read_text().replace('"outcome": "fail"', '"outcome": "pass"', 3))
    assert check_run_consistency(run_dir) != []
