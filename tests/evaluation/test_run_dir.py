"""The run folder: unique names, tolerant sample log, atomic files, reading a run back."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from upskill_hub.errors import UsageError
from upskill_hub.evaluation.run.folder import (
    RunFolder,
    SampleLog,
    create_run_dir,
    latest_by_key,
    load_run,
    read_samples,
)
from upskill_hub.evaluation.run.records import RunInfo, RunSummary
from upskill_hub.evaluation.types import AssertionResult, Sample
from upskill_hub.skill.testcases import TestCase

NOW = datetime(2026, 11, 22, 1, 30, 45, tzinfo=UTC)


def sample(case: str = "c1", run: int = 1, arm: str = "baseline", outcome: str = "pass") -> Sample:
    return Sample(
        model="m",
        case_id=case,
        run=run,
        arm=arm,  # type: ignore[arg-type]
        prompt_hash="sha256:x",
        outcome=outcome,  # type: ignore[arg-type]
        output="ok",
        assertions=[AssertionResult("contains", "pass", "found")],
        input_tokens=3,
        output_tokens=1,
    )


def test_run_dirs_are_unique_and_named_by_time_and_skill(tmp_path: Path) -> None:
    dirs = [create_run_dir(tmp_path, "My Skill!", now=NOW) for _ in range(20)]
    assert len(set(dirs)) == 20
    assert all(d.is_dir() and not any(d.iterdir()) for d in dirs)
    assert re.fullmatch(r"20261122-013045-my-skill-[0-9a-f]{6}", dirs[0].name)


def test_sample_log_appends_in_order_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    log = SampleLog(path)
    written = [sample(case=f"c{i}") for i in range(50)]
    for s in written:
        log.append(s)
    log.close()
    assert [s.to_dict() for s in read_samples(path)] == [s.to_dict() for s in written]
    assert len(path.read_text().splitlines()) == 50
    with pytest.raises(RuntimeError):
        log.append(sample())


def test_truncated_last_line_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    good = json.dumps(sample().to_dict())
    path.write_text(good + "\n" + good[: len(good) // 2])
    assert [s.case_id for s in read_samples(path)] == ["c1"]
    assert read_samples(tmp_path / "missing.jsonl") == []


def test_latest_by_key_keeps_the_last_sample(tmp_path: Path) -> None:
    first, second = sample(outcome="error"), sample(outcome="pass")
    other = sample(arm="with_skill")
    latest = latest_by_key([first, other, second])
    assert list(latest) == [first.key, other.key]
    assert latest[first.key].outcome == "pass"


def test_folder_files_are_written_atomically_and_load_back(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    folder.path.mkdir()
    case = TestCase(
        id="c1",
        input="q?",
        files={"a.txt": "x"},
        assertions=({"type": "contains", "values": ["y"]},),
    )
    folder.write_info(RunInfo(format=1, run_id="run"))
    folder.write_tests([case])
    folder.rewrite_samples([sample(outcome="error"), sample()])
    folder.write_summary(RunSummary(models=[]))
    assert sorted(p.name for p in folder.path.iterdir()) == [
        "run.json",
        "samples.jsonl",
        "summary.json",
        "tests.json",
    ]
    record = load_run(folder.path)
    assert record.info.run_id == "run"
    assert record.cases == [case]
    assert [s.outcome for s in record.samples] == ["pass"]
    assert record.summary == RunSummary(models=[])


def test_missing_run_json_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"run\.json"):
        RunFolder(tmp_path).read_info()
