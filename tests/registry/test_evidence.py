"""Is this skill worth installing? Published lift found for a commit, shown by info / pull /
search / outdated, remembered by the lock, and gating ``update --require-lift``.

Everything goes through the local Hub (``hub serve``): skills pushed with ``push_skills``,
runs (hand-built run folders, real summary statistics) published with ``results push
--update-skill-card``, then the CLI in a subprocess.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from huggingface_hub import HfApi

from tests.registry.conftest import CliResult
from tests.registry.published_skill import (
    CLAUDE,
    EIGHT_FAIL,
    GPT,
    THREE_FAIL,
    SkillRepo,
)
from upskill_hub.publish.results_dataset import push_results

RunCli = Callable[..., CliResult]


@pytest.fixture
def skill_repo(tmp_path: Path, unique_repo_id: str) -> SkillRepo:
    return SkillRepo(tmp_path, unique_repo_id)


def _evidence(result: CliResult) -> dict[str, Any]:
    assert result.code == 0, result.stderr
    [skill] = result.json()["skills"]
    return dict(skill["evidence"])


def _by_model(evidence: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["model"]: m for m in evidence["models"]}


# -- info ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_info_shows_lift_at_this_commit_and_behind(skill_repo: SkillRepo, run_cli: RunCli) -> None:
    v1 = skill_repo.push()
    run = skill_repo.run_folder(v1, THREE_FAIL)
    published = run_cli(
        "results", "push", str(run), "--repo", skill_repo.dataset, "--update-skill-card"
    )
    assert published.code == 0, published.stderr

    exact = _evidence(run_cli("info", f"{skill_repo.repo_id}@{v1}", "--format", "json"))
    assert exact["found"] and exact["commit"] == v1 and exact["notes"] == []
    gpt = _by_model(exact)[GPT]
    assert gpt["relation"] == "exact" and gpt["at_this_commit"] and gpt["commit"] == v1
    assert gpt["lift"] == pytest.approx(0.7) and gpt["lift_ci95"][1] == pytest.approx(1.0)
    assert gpt["lift_ci95"][0] == pytest.approx(0.267672, abs=1e-4)
    assert (gpt["cases"], gpt["runs"], gpt["mode"]) == (10, 2, "inline")
    assert gpt["dataset"] == skill_repo.dataset and gpt["source"] == "dataset"
    assert set(_by_model(exact)) == {GPT, CLAUDE}
    from upskill_hub import skill_evidence  # the library call behind it

    assert skill_evidence(skill_repo.repo_id, v1, skill=skill_repo.name).to_dict() == exact

    # the card update is a commit of its own: the head has the measured skill files
    head = _evidence(run_cli("info", skill_repo.repo_id, "--format", "json"))
    assert head["commit"] == skill_repo.head() != v1
    gpt = _by_model(head)[GPT]
    assert (gpt["relation"], gpt["behind"], gpt["at_this_commit"]) == ("same_files", 1, True)

    v2 = skill_repo.push("print('version 2')\n")
    text = run_cli("info", skill_repo.repo_id)
    assert text.code == 0, text.stderr
    assert f"@ {v2}" in text.stdout and "published lift (verified: recomputed" in text.stdout
    # nobody re-measured it: the publisher reported it, and the output says so
    assert "measured at" not in text.stdout and "measured lift" not in text.stdout
    assert f"{GPT}  +70 pts [+27, +100] · verified · 10 cases × 2 runs · inline · " in text.stdout
    owner = skill_repo.dataset.split("/")[0]
    assert (
        f"reported by {owner} for {v1[:7]}, 2 commits behind · {skill_repo.dataset}:" in text.stdout
    )
    behind = _by_model(_evidence(run_cli("info", skill_repo.repo_id, "--format", "json")))
    assert (behind[GPT]["relation"], behind[GPT]["behind"]) == ("behind", 2)
    assert behind[GPT]["at_this_commit"] is False


def test_info_without_published_results_says_so(pushed: tuple[str, str], run_cli: RunCli) -> None:
    repo_id, commit = pushed
    text = run_cli("info", repo_id)
    assert text.code == 0, text.stderr
    assert "neither re-measured):\n    no published results for this skill" in text.stdout
    data = _evidence(run_cli("info", repo_id, "--format", "json"))
    assert data == {
        "repo_id": repo_id,
        "skill": repo_id.split("/")[1],
        "commit": commit,
        "found": False,
        "models": [],
        "notes": [],
    }


@pytest.mark.slow
def test_a_card_from_before_the_metadata_is_still_read(
    skill_repo: SkillRepo, run_cli: RunCli
) -> None:
    """Cards written by older versions name the run only in Markdown: still found."""
    from upskill_hub.evaluation.run.folder import load_run
    from upskill_hub.publish.skill_card import results_markdown
    from upskill_hub.registry.card import replace_results_section

    v1 = skill_repo.push()
    folder = skill_repo.run_folder(v1, THREE_FAIL)
    pushed = push_results(folder, skill_repo.dataset)  # dataset only, card untouched
    info = load_run(folder).info
    summary = load_rows(skill_repo.dataset, pushed.split)
    markdown = results_markdown(
        summary, info, dataset_repo=skill_repo.dataset, dataset_url=pushed.url, split=pushed.split
    )
    api = HfApi()
    card = Path(api.hf_hub_download(skill_repo.repo_id, "README.md")).read_text()
    old_card = replace_results_section(card, markdown)
    assert "upskill_hub:\n  results" not in old_card
    api.upload_file(
        path_or_fileobj=old_card.encode(), path_in_repo="README.md", repo_id=skill_repo.repo_id
    )
    gpt = _by_model(_evidence(run_cli("info", f"{skill_repo.repo_id}@{v1}", "--format", "json")))
    assert gpt[GPT]["relation"] == "exact" and gpt[GPT]["lift"] == pytest.approx(0.7)
    assert gpt[GPT]["split"] == pushed.split and gpt[GPT]["mode"] == "inline"


def load_rows(dataset: str, split: str) -> list[dict[str, Any]]:
    from datasets import load_dataset

    return [dict(r) for r in load_dataset(dataset, "summary", split=split).to_list()]


@pytest.mark.slow
def test_figures_come_from_the_dataset_not_the_card_digest(
    skill_repo: SkillRepo, run_cli: RunCli
) -> None:
    """A card's digest is a cache for listings; info reads the dataset, and says when it
    cannot (the digest then stands in, marked as such)."""
    from upskill_hub.registry.card import results_metadata, with_results_metadata

    v1 = skill_repo.push()
    skill_repo.publish(v1, THREE_FAIL)
    api = HfApi()
    card = Path(api.hf_hub_download(skill_repo.repo_id, "README.md")).read_text()
    [entry] = results_metadata(card)
    entry["models"][0]["lift"] = 0.99  # an edited digest (the dataset says 0.7)
    gone = dict(entry, dataset=skill_repo.dataset + "-gone", split="run_other")
    api.upload_file(
        path_or_fileobj=with_results_metadata(card, [gone, entry]).encode(),
        path_in_repo="README.md",
        repo_id=skill_repo.repo_id,
    )
    data = _evidence(run_cli("info", f"{skill_repo.repo_id}@{v1}", "--format", "json"))
    gpt = _by_model(data)[GPT]
    assert gpt["lift"] == pytest.approx(0.7) and gpt["source"] == "dataset"
    assert gpt["dataset"] == skill_repo.dataset  # the newest run at this commit wins

    api.upload_file(
        path_or_fileobj=with_results_metadata(card, [gone]).encode(),
        path_in_repo="README.md",
        repo_id=skill_repo.repo_id,
    )
    data = _evidence(run_cli("info", f"{skill_repo.repo_id}@{v1}", "--format", "json"))
    gpt = _by_model(data)[GPT]
    assert gpt["source"] == "card" and gpt["lift"] == pytest.approx(0.99)  # the digest, marked
    [note] = data["notes"]
    assert f"results dataset {skill_repo.dataset}-gone (split run_other)" in note
    assert "figures from the skill card's digest instead" in note


# -- search --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_search_ranks_by_measured_lift_on_a_model(
    tmp_path: Path, unique_repo_id: str, run_cli: RunCli
) -> None:
    word = unique_repo_id.split("-")[-1]
    strong = SkillRepo(tmp_path / "a", f"local-user/strong-{word}")
    weak = SkillRepo(tmp_path / "b", f"local-user/weak-{word}")
    unmeasured = SkillRepo(tmp_path / "c", f"local-user/plain-{word}")
    weak.publish(weak.push(), EIGHT_FAIL)
    strong.publish(strong.push(), (), models=(GPT,))
    unmeasured.push()
    found = run_cli("search", word, "--model", CLAUDE, "--format", "json")
    assert found.code == 0, found.stderr
    ranked = found.json()["results"]
    assert ranked[0]["repo_id"] == weak.repo_id  # the only one measured on Claude
    assert ranked[0]["ranked_by"]["lift"] == pytest.approx(0.2)
    rest = {r["repo_id"]: r for r in ranked[1:]}  # unranked, in the Hub's order
    assert set(rest) == {strong.repo_id, unmeasured.repo_id}
    assert all(r["ranked_by"] is None for r in rest.values())
    assert rest[unmeasured.repo_id]["evidence"] == []
    assert [e["model"] for e in rest[strong.repo_id]["evidence"]] == [GPT]
    by_gpt = run_cli("search", word, "--model", GPT, "--format", "json").json()["results"]
    assert [r["repo_id"] for r in by_gpt][:2] == [strong.repo_id, weak.repo_id]
    top = by_gpt[0]["ranked_by"]
    assert top["lift"] == pytest.approx(1.0) and top["source"] == "card"
    assert top["lift_ci95"][0] == pytest.approx(0.880774, abs=1e-4)
    assert top["cases"] == 10 and top["relation"] is None

    text = run_cli("search", word, "--model", GPT)
    assert text.code == 0, text.stderr
    assert text.stdout.index(strong.repo_id) < text.stdout.index(weak.repo_id)
    assert "+100 pts [+88, +100]" in text.stdout and "not measured" in text.stdout


# -- pull, the lock, outdated and update --require-lift ------------------------------------------


def _lock(project: Path) -> dict[str, Any]:
    return dict(json.loads((project / "upskill-hub.lock").read_text())["skills"])


@pytest.mark.slow
def test_pull_records_the_evidence_and_install_frozen_is_unchanged(
    skill_repo: SkillRepo, project: Path, run_cli: RunCli
) -> None:
    v1 = skill_repo.push()
    split = skill_repo.publish(v1, THREE_FAIL)
    pulled = run_cli("pull", f"{skill_repo.repo_id}@{v1}", "--format", "json", cwd=project)
    assert pulled.code == 0, pulled.stderr
    [skill] = pulled.json()["skills"]
    assert skill["evidence"]["found"] and _by_model(skill["evidence"])[GPT]["relation"] == "exact"
    [entry] = _lock(project).values()
    recorded = {e["model"]: e for e in entry["evidence"]}
    assert recorded[GPT] == {
        "model": GPT,
        "dataset": skill_repo.dataset,
        "split": split,
        "commit": v1,
        "lift": pytest.approx(0.7),
        "lift_ci95": [pytest.approx(0.267672, abs=1e-4), pytest.approx(1.0)],
        "cases": 10,
        "runs": 2,
        "mode": "inline",
    }
    text = run_cli("pull", f"{skill_repo.repo_id}@{v1}", cwd=project)
    assert f"{GPT}  +70 pts [+27, +100]" in text.stdout and "for this commit" in text.stdout

    offline = {"HF_HUB_OFFLINE": "1"}  # the evidence cannot be looked up: the lock keeps it
    again = run_cli(
        "pull", f"{skill_repo.repo_id}@{v1}", "--format", "json", cwd=project, env=offline
    )
    assert again.code == 0, again.stderr
    [skill] = again.json()["skills"]
    assert (
        not skill["evidence"]["found"]
        and "could not read the card" in skill["evidence"]["notes"][0]
    )
    assert {e["model"]: e for e in _lock(project)[skill_repo.name]["evidence"]} == recorded
    lock_bytes = (project / "upskill-hub.lock").read_bytes()
    for target in entry["targets"]:
        shutil.rmtree(project / target)  # a fresh clone: the lock, no installed copies
    frozen = run_cli("install", "--frozen", cwd=project)
    assert frozen.code == 0, frozen.stderr
    assert all((project / t / "SKILL.md").is_file() for t in entry["targets"])
    assert (project / "upskill-hub.lock").read_bytes() == lock_bytes


def _project_at_v1(skill_repo: SkillRepo, project: Path, run_cli: RunCli) -> str:
    """The skill measured at v1 (+70 pts), pulled by its branch so update can move it."""
    v1 = skill_repo.push()
    skill_repo.publish(v1, THREE_FAIL)
    pulled = run_cli("pull", skill_repo.repo_id, cwd=project)
    assert pulled.code == 0, pulled.stderr
    return v1


@pytest.mark.slow
def test_update_require_lift_refuses_a_lower_lift_and_says_why(
    skill_repo: SkillRepo, project: Path, run_cli: RunCli
) -> None:
    _project_at_v1(skill_repo, project, run_cli)
    locked = _lock(project)[skill_repo.name]["commit"]
    v2 = skill_repo.push("print('worse')\n")

    unmeasured = run_cli("update", "--require-lift", cwd=project)
    assert unmeasured.code == 1
    assert f"skipped {skill_repo.name}" in unmeasured.stdout
    assert f"--require-lift: not moved to {v2[:12]}" in unmeasured.stdout
    assert f"{GPT}: commit {v2[:7]} has no published lift" in unmeasured.stdout
    outdated = run_cli("outdated", "--format", "json", cwd=project)
    assert outdated.code == 1
    [row] = outdated.json()["skills"]
    assert row["measured"] is False and {c["change"] for c in row["lift"]} == {"not measured"}

    skill_repo.publish(v2, EIGHT_FAIL)  # +20 pts [-18, +58]: below +70 beyond its interval
    refused = run_cli("update", "--require-lift", "--format", "json", cwd=project)
    assert refused.code == 1
    [skill] = refused.json()["skills"]
    assert skill["status"] == "skipped" and skill["commit"] == locked
    head = skill_repo.head()  # the card commit after v2: the same skill files as v2
    assert skill["detail"] == (
        f"--require-lift: not moved to {head[:12]}: {GPT}: lift at {head[:7]} is +20 pts "
        "[-18, +58], below the locked +70 pts beyond its interval; "
        f"{CLAUDE}: lift at {head[:7]} is +20 pts [-18, +58], below the locked +70 pts "
        "beyond its interval"
    )
    assert _lock(project)[skill_repo.name]["commit"] == locked
    text = run_cli("outdated", cwd=project)
    assert text.code == 1 and "+70 pts → +20 pts [-18, +58] · verified (lower)" in text.stdout
    [row] = run_cli("outdated", "--format", "json", cwd=project).json()["skills"]
    assert row["measured"] is True and row["lift"][0]["change"] == "lower"
    assert row["lift"][0]["locked_lift"] == pytest.approx(0.7)
    assert row["lift"][0]["new"]["at_this_commit"] is True

    plain = run_cli("update", cwd=project)  # without --require-lift the lift does not matter
    assert plain.code == 0, plain.stderr
    assert _lock(project)[skill_repo.name]["commit"] == skill_repo.head()
    recorded = {e["model"]: e for e in _lock(project)[skill_repo.name]["evidence"]}
    assert recorded[GPT]["lift"] == pytest.approx(0.2) and recorded[GPT]["commit"] == v2


@pytest.mark.slow
def test_update_require_lift_moves_when_the_lift_holds(
    skill_repo: SkillRepo, project: Path, run_cli: RunCli
) -> None:
    _project_at_v1(skill_repo, project, run_cli)
    v2 = skill_repo.push("print('better')\n")
    skill_repo.publish(v2, ())  # +100 pts [+88, +100]
    [row] = run_cli("outdated", "--format", "json", cwd=project).json()["skills"]
    assert [c["change"] for c in row["lift"]] == ["higher", "higher"]

    moved = run_cli("update", "--require-lift", "--model", GPT, "--format", "json", cwd=project)
    assert moved.code == 0, moved.stderr
    [skill] = moved.json()["skills"]
    assert skill["status"] == "installed" and skill["commit"] == skill_repo.head()
    assert _by_model(skill["evidence"])[GPT]["relation"] == "same_files"
    entry = _lock(project)[skill_repo.name]
    assert entry["commit"] == skill_repo.head()
    assert {e["commit"] for e in entry["evidence"]} == {v2}


@pytest.mark.slow
def test_update_require_lift_on_a_model_the_new_commit_lacks(
    skill_repo: SkillRepo, project: Path, run_cli: RunCli
) -> None:
    _project_at_v1(skill_repo, project, run_cli)
    locked = _lock(project)[skill_repo.name]["commit"]
    v2 = skill_repo.push("print('gpt only')\n")
    skill_repo.publish(v2, THREE_FAIL, models=(GPT,))  # same lift as locked, GPT only
    refused = run_cli("update", "--require-lift", "--model", CLAUDE, cwd=project)
    assert refused.code == 1
    head = skill_repo.head()
    assert f"{CLAUDE}: commit {head[:7]} has no published lift" in refused.stdout
    moved = run_cli("update", "--require-lift", "--model", GPT, cwd=project)
    assert moved.code == 0, moved.stderr
    assert f"installed {skill_repo.name}" in moved.stdout and f"(was {locked[:12]})" in moved.stdout


def test_model_without_require_lift_is_a_usage_error(project: Path, run_cli: RunCli) -> None:
    done = run_cli("update", "--model", GPT, cwd=project)
    assert done.code != 0
    assert done.stderr.strip() == "error: --model applies only with --require-lift"


@pytest.mark.slow
def test_a_card_claiming_another_commit_than_its_dataset_is_ignored(
    skill_repo: SkillRepo, run_cli: RunCli
) -> None:
    """The card points at the run; the dataset's rows say which commit it measured."""
    from upskill_hub.registry.card import results_metadata, with_results_metadata

    v1 = skill_repo.push()
    skill_repo.publish(v1, THREE_FAIL)
    v2 = skill_repo.push("print('never measured')\n")
    api = HfApi()
    card = Path(api.hf_hub_download(skill_repo.repo_id, "README.md")).read_text()
    [entry] = results_metadata(card)
    api.upload_file(
        path_or_fileobj=with_results_metadata(card, [dict(entry, skill_commit=v2)]).encode(),
        path_in_repo="README.md",
        repo_id=skill_repo.repo_id,
    )
    data = _evidence(run_cli("info", f"{skill_repo.repo_id}@{v2}", "--format", "json"))
    assert data["found"] is False
    [note] = data["notes"]
    assert f"measured commit {v1[:7]}, not {v2[:7]} as the skill card says; ignored" in note
