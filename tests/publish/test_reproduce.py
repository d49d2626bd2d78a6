"""Reproduce commands someone else can run: run.json's command, and the dataset card's step."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml

from tests.publish.run_folders import CASES, make_run_folder
from upskill_hub.evaluation.config import EvalConfig
from upskill_hub.evaluation.run.folder import RunFolder, load_run
from upskill_hub.evaluation.run.info import new_run_info
from upskill_hub.evaluation.run.records import RunInfo
from upskill_hub.publish.dataset_card import build_dataset_card, portable_command
from upskill_hub.publish.results_dataset import summary_rows
from upskill_hub.skill import TestSuite, load_skill, write_skill
from upskill_hub.skill.testcases import TestCase

COMMIT = "0123456789abcdef0123456789abcdef01234567"
SPLIT = "run_x"


def _skill(tmp: Path, license: str | None = "Apache-2.0") -> Path:
    fm = {"name": "kernel-builder", "description": "Builds kernels. Use for kernel builds."}
    if license:
        fm["license"] = license
    return write_skill(tmp / "kernel-builder", fm, "\n# Kernels\n", TestSuite(list(CASES)))


def _info(tmp: Path, cases: list[TestCase], **hub: str | None) -> RunInfo:
    skill = load_skill(_skill(tmp))
    folder = RunFolder(tmp / "run")
    config = EvalConfig(models=["fake-model"], runs=2)
    return new_run_info(
        folder,
        skill,
        ["fake-model"],
        cases,
        config,
        "sha256:x",
        repo_id=hub.get("repo_id"),
        revision=hub.get("revision"),
        skill_ref=hub.get("skill_ref"),
    )


# ---- run.json


def test_skill_own_cases_give_no_tests_flag(tmp_path: Path) -> None:
    info = _info(tmp_path, list(CASES))
    argv = shlex.split(str(info.reproduce))
    assert "--tests" not in argv
    assert info.custom_tests is False
    assert info.skill.source == "local" and info.skill.license == "Apache-2.0"
    data = info.to_dict()
    assert data["custom_tests"] is False and data["skill"]["source"] == "local"


def test_other_cases_keep_the_tests_flag(tmp_path: Path) -> None:
    info = _info(tmp_path, list(CASES[:2]))
    argv = shlex.split(str(info.reproduce))
    assert argv[argv.index("--tests") + 1] == str(tmp_path / "run" / "tests.json")
    assert info.custom_tests is True


def test_hub_skill_is_pinned_to_its_commit(tmp_path: Path) -> None:
    # the caller's ref (what the visitor typed, unpinned) gives way to the commit evaluated
    info = _info(tmp_path, list(CASES), repo_id="ns/kb", revision=COMMIT, skill_ref="ns/kb")
    argv = shlex.split(str(info.reproduce))
    assert argv[2] == f"ns/kb@{COMMIT}"
    assert info.skill.source == "hub" and info.skill.repo_id == "ns/kb"


# ---- the dataset card


def _card(folder: Path, existing: str | None = None) -> tuple[dict[str, object], str]:
    record = load_run(folder)
    card = build_dataset_card(
        existing,
        record,
        repo_id="me/kb-results",
        split=SPLIT,
        rows=summary_rows(record),
        chart_path=None,
    )
    _, front, body = card.split("---\n", 2)
    return yaml.safe_load(front), body


def _bash_block(body: str) -> list[str]:
    section = body.split("### Reproduce", 1)[1]
    return section.split("```bash\n", 1)[1].split("```", 1)[0].strip().splitlines()


def test_card_downloads_custom_tests_and_names_the_hub_skill(tmp_path: Path) -> None:
    folder = make_run_folder(tmp_path, "r1", license="apache-2.0")
    meta, body = _card(folder)
    download, command = _bash_block(body)
    assert shlex.split(download) == [
        "hf",
        "download",
        "me/kb-results",
        f"tests/{SPLIT}.json",
        "--repo-type",
        "dataset",
        "--local-dir",
        ".",
    ]
    argv = shlex.split(command)
    assert argv[:3] == ["upskill-hub", "eval", f"local-user/kernel-builder@{COMMIT}"]
    assert argv[argv.index("--tests") + 1] == f"tests/{SPLIT}.json"
    assert str(tmp_path) not in body  # no path of this machine
    assert "pinned to the commit evaluated" in body
    assert meta["license"] == "apache-2.0" and "license_name" not in meta


def test_card_with_skill_own_tests_has_no_download(tmp_path: Path) -> None:
    folder = make_run_folder(tmp_path, "r1", custom_tests=False)
    _, body = _card(folder)
    (command,) = _bash_block(body)
    assert "--tests" not in shlex.split(command)
    assert "skill's own test cases" in body


def test_card_says_plainly_when_the_skill_was_a_local_folder(tmp_path: Path) -> None:
    folder = make_run_folder(tmp_path, "r1", repo_id=None, license="Company terms v2")
    meta, body = _card(folder)
    assert "evaluated from a local folder" in body and "not from a Hub repo" in body
    assert meta["license"] == "other" and meta["license_name"] == "company-terms-v2"


def test_card_of_an_older_run_json_still_downloads_its_tests(tmp_path: Path) -> None:
    folder = make_run_folder(tmp_path, "r1", custom_tests=None)
    _, body = _card(folder)
    assert len(_bash_block(body)) == 2
    meta, _ = _card(folder, existing="---\nlicense: mit\n---\n")
    assert meta["license"] == "mit"  # a license already on the card is kept


def test_portable_command_swaps_or_drops_the_tests_value() -> None:
    cmd = "upskill-hub eval sk --tests '/home/me/run 1/tests.json' --runs 2"
    assert portable_command(cmd, "tests/a.json") == (
        "upskill-hub eval sk --runs 2 --tests tests/a.json"
    )
    assert portable_command(cmd, None) == "upskill-hub eval sk --runs 2"
