"""run.json and summary.json as records: a run folder written before the records existed
(``tests/fixtures/run_folder_0_1``, made by upskill-hub 0.1.0's eval against the fake OpenAI
server) loads, round-trips byte for byte, and resumes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.support.llm_servers import openai_server, skill_aware
from upskill_hub import evaluate, load_skill
from upskill_hub.evaluation.run.folder import RunFolder, load_run
from upskill_hub.evaluation.run.records import RunInfo, RunSummary
from upskill_hub.evaluation.run.resume import config_from_run
from upskill_hub.evaluation.types import GenerationParams

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "run_folder_0_1"


def _text(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def test_files_written_before_the_records_round_trip_byte_for_byte() -> None:
    folder = RunFolder(FIXTURE / "run")
    run_text = folder.run_file.read_text(encoding="utf-8")
    summary_text = folder.summary_file.read_text(encoding="utf-8")
    info = RunInfo.from_dict(json.loads(run_text))
    summary = RunSummary.from_dict(json.loads(summary_text))
    assert _text(info.to_dict()) == run_text
    assert _text(summary.to_dict()) == summary_text
    assert info.extra == {} and summary.extra == {}


def test_old_run_folder_loads_as_records() -> None:
    record = load_run(FIXTURE / "run")
    info, summary = record.info, record.summary
    assert info.skill.name == "quux-facts" and info.skill.source == "local"
    assert info.custom_tests is False and info.models == ["fake-model"] and info.runs == 2
    assert info.params == GenerationParams(seed=7) and info.status == "complete"
    assert len(info.sessions) == 1 and info.sessions[0].samples == 12
    assert summary is not None and summary.stats_version == 2 and summary.complete
    assert [m["model"] for m in summary.models] == ["fake-model"]
    config, cases = config_from_run(FIXTURE / "run")
    assert config.models == ["fake-model"] and config.runs == 2 and config.params.seed == 7
    assert [c.id for c in cases] == info.case_ids


def test_old_run_folder_resumes_and_keeps_its_shape(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(FIXTURE / "run", run)
    before = json.loads((run / "run.json").read_text(encoding="utf-8"))
    skill = load_skill(FIXTURE / "skill" / "quux-facts")
    config, cases = config_from_run(run)
    responder = skill_aware('<skill name="quux-facts">', with_skill="QX-41, hi.", without="no")
    with openai_server(responder) as srv:
        config.base_url, config.api_key = srv.base_url, "x"
        result = evaluate(skill, cases, config, resume_from=run, write_chart=False)
        assert srv.requests == []  # every sample was already there
    assert result.missing == 0 and len(result.samples) == 12
    after = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert list(after) == list(before)  # same keys, same order
    assert after["sessions"][0] == before["sessions"][0] and len(after["sessions"]) == 2
    assert after["sessions"][1]["samples"] == 0 and after["status"] == "complete"
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert summary["models"][0]["lift"] == 1.0


def test_keys_of_older_and_newer_files_are_kept() -> None:
    """A run.json without ``custom_tests`` (before it existed) stays without it; keys the
    records do not know survive a rewrite; a stats_version 1 summary stays version 1."""
    old = {"format": 1, "run_id": "r", "models": ["m"], "stats_version": 2, "future": {"a": 1}}
    info = RunInfo.from_dict(old)
    assert info.custom_tests is None and info.extra == {"stats_version": 2, "future": {"a": 1}}
    written = info.to_dict()
    assert "custom_tests" not in written and written["future"] == {"a": 1}
    v1 = {"format": 1, "run_id": "r", "skill": "s", "complete": False, "models": []}
    summary = RunSummary.from_dict(v1)
    assert summary.stats_version is None and summary.rejected is None
    data = summary.to_dict()
    assert "stats_version" not in data and "rejected" not in data and "lift_method" not in data
    assert data["complete"] is False
