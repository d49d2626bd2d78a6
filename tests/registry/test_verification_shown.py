"""Every reader says how far a published figure is checked: ``verified``, ``reported`` or
``inconsistent`` (never shown as the lift), and ``update --require-lift`` counts only verified
figures unless ``--accept-reported``.

Through the local Hub (``hub serve``): skills pushed with ``push_skills``, runs published with
the real ``datasets`` writer (``results push``), a summary edited after publication with the
same writer, and the CLI in a subprocess.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.registry.conftest import CliResult
from tests.registry.published_skill import CLAUDE, GPT, SkillRepo
from tests.support.honest_runs import contains_case, judged_case, write_run_folder
from upskill_hub.hub.client import Hub
from upskill_hub.publish.dataset_push import push_config_rows
from upskill_hub.publish.readers import published_verifier
from upskill_hub.publish.results_dataset import config_schema, push_results
from upskill_hub.registry.evidence.read import EvidenceReader, load_summary_split
from upskill_hub.registry.evidence.verification import RunCheck, VerificationCache
from upskill_hub.skill.testcases import TestCase, TestSuite, dump_suite

RunCli = Callable[..., CliResult]
CHECKED = tuple(contains_case(f"case-{i:02d}", f"question {i}") for i in range(10))
#: The same questions graded by a judge: nothing a reader can re-grade offline.
JUDGED = tuple(judged_case(c.id, c.input) for c in CHECKED)
#: Every baseline answer fails, every with-skill one passes: lift +100 pts.
RATES = {"baseline": 0.0, "with_skill": 1.0}

pytestmark = pytest.mark.slow


@pytest.fixture
def skill_repo(tmp_path: Path, unique_repo_id: str) -> SkillRepo:
    return SkillRepo(tmp_path, unique_repo_id)


def _push(repo: SkillRepo, cases: tuple[TestCase, ...], text: str | None = None) -> str:
    """Push the skill with ``cases`` as its own tests (what a run's tests are checked against)."""
    (repo.folder / "skill_meta.json").write_text(
        dump_suite(TestSuite(list(cases), {})), encoding="utf-8"
    )
    return repo.push(text)


def _publish(repo: SkillRepo, commit: str, cases: tuple[TestCase, ...]) -> str:
    """An honest run of ``cases`` at ``commit``, published with ``results push``; its split."""
    repo.runs += 1
    run = write_run_folder(
        repo.tmp / f"runs{repo.runs}",
        f"2026112{repo.runs}-000000-{repo.name}",
        repo_id=repo.repo_id,
        revision=commit,
        cases=cases,
        models=(GPT, CLAUDE),
        runs=2,
        rates=RATES,
        started_at=f"2026-11-2{repo.runs}T00:00:00Z",
    )
    return push_results(run, repo.dataset, update_skill_card=True).split


def _models(result: CliResult) -> dict[str, dict[str, Any]]:
    assert result.code == 0, result.stderr
    [skill] = result.json()["skills"]
    return {m["model"]: m for m in skill["evidence"]["models"]}


def test_an_honest_run_shows_verified(skill_repo: SkillRepo, run_cli: RunCli) -> None:
    v1 = _push(skill_repo, CHECKED)
    _publish(skill_repo, v1, CHECKED)
    models = _models(run_cli("info", skill_repo.repo_id, "--format", "json"))
    gpt = models[GPT]
    assert gpt["verification"] == "verified" and gpt["verification_note"] is None
    assert gpt["lift"] == pytest.approx(1.0)
    owner = skill_repo.repo_id.split("/")[0]
    assert gpt["results_owner"] == owner == gpt["skill_owner"]
    text = run_cli("info", skill_repo.repo_id)
    assert f"{GPT}  +100 pts" in text.stdout and " · verified · " in text.stdout, text.stdout


def test_an_edited_summary_is_inconsistent_and_not_shown(
    skill_repo: SkillRepo, run_cli: RunCli
) -> None:
    v1 = _push(skill_repo, CHECKED)
    split = _publish(skill_repo, v1, CHECKED)
    hub = Hub()
    rows = load_summary_split(hub, skill_repo.dataset, split)
    for row in rows:  # the owner claims more for the baseline arm's pass rate
        if row["model"] == GPT and row["arm"] == "baseline":
            row["pass_rate"] = 0.9
    push_config_rows(
        hub, skill_repo.dataset, "summary", config_schema("summary"), rows, split, None
    )

    models = _models(run_cli("info", skill_repo.repo_id, "--format", "json"))
    gpt = models[GPT]
    assert gpt["verification"] == "inconsistent"
    assert gpt["lift"] is None and gpt["lift_ci95"] is None
    assert gpt["verification_note"]
    assert models[CLAUDE]["verification"] == "verified"
    text = run_cli("info", skill_repo.repo_id)
    assert f"{GPT}  lift not shown · inconsistent" in text.stdout
    assert f"note: {GPT}: does not check out against its published samples" in text.stdout


def test_a_judge_graded_run_is_reported(skill_repo: SkillRepo, run_cli: RunCli) -> None:
    v1 = _push(skill_repo, JUDGED)
    _publish(skill_repo, v1, JUDGED)
    models = _models(run_cli("info", skill_repo.repo_id, "--format", "json"))
    assert models[GPT]["verification"] == "reported"
    assert "judge" in models[GPT]["verification_note"]
    assert models[GPT]["lift"] == pytest.approx(1.0)
    text = run_cli("info", skill_repo.repo_id)
    assert f"{GPT}  +100 pts" in text.stdout and " · reported · " in text.stdout


def test_require_lift_counts_reported_figures_only_when_accepted(
    skill_repo: SkillRepo, run_cli: RunCli, project: Path
) -> None:
    v1 = _push(skill_repo, JUDGED)
    pulled = run_cli("pull", skill_repo.repo_id, "--project", str(project))
    assert pulled.code == 0, pulled.stderr
    _push(skill_repo, JUDGED, "print('version 2')\n")
    _publish(skill_repo, skill_repo.head(), JUDGED)

    refused = run_cli(
        "update", "--require-lift", "--model", GPT, "--project", str(project), "--format", "json"
    )
    assert refused.code == 1, refused.stderr
    [skipped] = refused.json()["skills"]
    assert skipped["status"] == "skipped" and skipped["commit"] == v1
    assert (
        "reported, not verified" in skipped["detail"] and "--accept-reported" in skipped["detail"]
    )

    moved = run_cli(
        "update",
        "--require-lift",
        "--accept-reported",
        "--model",
        GPT,
        "--project",
        str(project),
        "--format",
        "json",
    )
    assert moved.code == 0, moved.stderr
    [done] = moved.json()["skills"]
    # the head: the card update after v2, with v2's skill files
    assert done["status"] == "installed" and done["commit"] == skill_repo.head() != v1


def test_accept_reported_applies_only_with_require_lift(project: Path, run_cli: RunCli) -> None:
    result = run_cli("update", "--accept-reported", "--project", str(project))
    assert result.code == 2
    assert "--accept-reported applies only with --require-lift" in result.stderr


class Counting:
    """The real verifier, counting how often it had to download and check a run."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, hub: Hub, dataset: str, split: str) -> RunCheck:
        self.calls += 1
        return published_verifier(hub, dataset, split)


def test_a_second_reader_uses_the_cache(
    skill_repo: SkillRepo, run_cli: RunCli, tmp_path: Path
) -> None:
    v1 = _push(skill_repo, CHECKED)
    _publish(skill_repo, v1, CHECKED)
    cache = VerificationCache(tmp_path / "verification")
    first, second = Counting(), Counting()
    seen = EvidenceReader(Hub(), verifier=first, cache=cache).evidence(skill_repo.repo_id, v1)
    again = EvidenceReader(Hub(), verifier=second, cache=cache).evidence(skill_repo.repo_id, v1)
    assert (first.calls, second.calls) == (1, 0)  # no samples downloaded the second time
    assert [m.verification for m in again.models] == [m.verification for m in seen.models]
    assert {m.verification for m in again.models} == {"verified"}
    [file] = (tmp_path / "verification").rglob("*.json")
    assert file.parent == tmp_path / "verification" / Path(skill_repo.dataset)
    assert len(file.stem) == 40

    # the CLI writes its cache under HF_HOME, per results-dataset commit
    assert run_cli("info", skill_repo.repo_id).code == 0
    where = Path(os.environ["HF_HOME"]) / "upskill-hub" / "verification" / skill_repo.dataset
    [cached] = where.glob("*.json")
    entry = json.loads(cached.read_text("utf-8"))
    assert {v["verification"] for s in entry["splits"].values() for v in s.values()} == {"verified"}


def test_the_front_door_checks_like_the_cli(skill_repo: SkillRepo) -> None:
    from upskill_hub import info, skill_evidence

    v1 = _push(skill_repo, CHECKED)
    _publish(skill_repo, v1, CHECKED)
    [skill] = info(skill_repo.repo_id).skills
    assert skill.evidence is not None
    assert {m.verification for m in skill.evidence.models} == {"verified"}
    found = skill_evidence(skill_repo.repo_id, v1)
    assert {m.verification for m in found.models} == {"verified"}
    unchecked = skill_evidence(skill_repo.repo_id, v1, verifier=None)
    assert {m.verification for m in unchecked.models} == {"reported"}


def test_a_dataset_rewritten_after_a_cached_verdict_is_checked_again(
    skill_repo: SkillRepo, run_cli: RunCli
) -> None:
    """The cache is per dataset commit: blanking the published answers after a reader cached
    `verified` is a new commit, checked again, and shown as inconsistent."""
    from datasets import load_dataset

    v1 = _push(skill_repo, CHECKED)
    split = _publish(skill_repo, v1, CHECKED)
    assert (
        _models(run_cli("info", skill_repo.repo_id, "--format", "json"))[GPT]["verification"]
        == "verified"
    )
    rows = [dict(r) for r in load_dataset(skill_repo.dataset, "samples", split=split).to_list()]
    for row in rows:
        row["output"] = ""
    push_config_rows(
        Hub(), skill_repo.dataset, "samples", config_schema("samples"), rows, split, None
    )
    after = _models(run_cli("info", skill_repo.repo_id, "--format", "json"))
    assert after[GPT]["verification"] == "inconsistent" and after[GPT]["lift"] is None
