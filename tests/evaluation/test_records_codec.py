"""run.json and summary.json through :mod:`upskill_hub.records_codec`: the bytes written are
those of the hand-written writer the codec replaced.

``tests/fixtures/records_codec`` holds what that writer produced (captured before the codec):
for each ``NAME.input.json``, the record it read (``NAME.repr.txt``) and the file it wrote back
(``NAME.expected.json``); ``run_folder_fresh`` is a run folder it wrote from a fresh eval (of the
``run_folder_0_1`` skill and cases against the fake OpenAI server), and ``fixture_0_1.*`` /
``fresh.*`` the records it read from the two run folders.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.llm_servers import openai_server, skill_aware
from upskill_hub import evaluate, load_skill, records_codec
from upskill_hub.evaluation.run.folder import RunFolder
from upskill_hub.evaluation.run.records import RunInfo, RunSession, RunSummary
from upskill_hub.evaluation.run.resume import config_from_run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GOLDEN = FIXTURES / "records_codec"
FOLDERS = {"fixture_0_1": FIXTURES / "run_folder_0_1" / "run", "fresh": GOLDEN / "run_folder_fresh"}
RECORDS: dict[str, type[RunInfo] | type[RunSummary]] = {
    "run.json": RunInfo,
    "summary.json": RunSummary,
}


def _written(tmp: Path, record: RunInfo | RunSummary) -> str:
    """What the run folder writes for ``record``."""
    folder = RunFolder(tmp)
    if isinstance(record, RunInfo):
        folder.write_info(record)
        return folder.run_file.read_text(encoding="utf-8")
    folder.write_summary(record)
    return folder.summary_file.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "name", sorted(p.name[: -len(".input.json")] for p in GOLDEN.glob("*.input.json"))
)
def test_each_input_reads_and_writes_as_the_old_records_did(name: str, tmp_path: Path) -> None:
    cls = RunInfo if name.startswith("run_") else RunSummary
    record = cls.from_dict(json.loads((GOLDEN / f"{name}.input.json").read_text(encoding="utf-8")))
    assert repr(record) + "\n" == (GOLDEN / f"{name}.repr.txt").read_text(encoding="utf-8")
    assert _written(tmp_path, record) == (GOLDEN / f"{name}.expected.json").read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize("folder", sorted(FOLDERS))
@pytest.mark.parametrize("file", sorted(RECORDS))
def test_run_folders_round_trip_byte_for_byte(folder: str, file: str, tmp_path: Path) -> None:
    text = (FOLDERS[folder] / file).read_text(encoding="utf-8")
    record = RECORDS[file].from_dict(json.loads(text))
    assert repr(record) + "\n" == (GOLDEN / f"{folder}.{file}.repr.txt").read_text(encoding="utf-8")
    assert _written(tmp_path, record) == text


#: Values that differ from one eval to the next (times, ids, ports, paths, latencies).
_VARYING = {"run_id", "started_at", "finished_at", "generated_at", "base_url", "reproduce",
            "resume", "path", "ref", "run_dir", "latency_s"}  # fmt: skip


def _steady(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: "…" if k in _VARYING else _steady(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_steady(v) for v in data]
    return data


#: Keys a fresh run folder's files gained after the old writers were captured, with their value
#: in this eval (a run.json from before them reads back without them: the tests above).
_ADDED: dict[str, dict[str, Any]] = {"run.json": {"cache": False}}


def test_a_freshly_written_run_folder_matches_the_old_writers(tmp_path: Path) -> None:
    """The same eval as ``run_folder_fresh`` writes the same files but for times, ids and
    latencies (same keys, order and numbers), and they round-trip byte for byte."""
    fixture = FIXTURES / "run_folder_0_1"
    config, cases = config_from_run(fixture / "run")
    responder = skill_aware('<skill name="quux-facts">', with_skill="QX-41, hi.", without="no")
    with openai_server(responder) as srv:
        config.base_url, config.api_key = srv.base_url, "x"
        skill = load_skill(fixture / "skill" / "quux-facts")
        result = evaluate(skill, cases, config, output_root=tmp_path / "runs", write_chart=False)
    summary = (result.run_dir / "summary.json").read_text(encoding="utf-8")
    assert isinstance(result.summary, RunSummary)  # the record the run wrote
    assert _written(tmp_path / "result", result.summary) == summary
    for file, cls in RECORDS.items():
        text = (result.run_dir / file).read_text(encoding="utf-8")
        old = json.loads((GOLDEN / "run_folder_fresh" / file).read_text(encoding="utf-8"))
        data = json.loads(text)
        for key, value in _ADDED.get(file, {}).items():
            assert data.pop(key) == value, key
        assert _steady(data) == _steady(old)
        assert list(data) == list(old)
        assert _written(tmp_path / file, cls.from_dict(json.loads(text))) == text


@dataclass
class _Entry:
    name: str
    size: int = 0
    note: str | None = field(default=None, metadata=records_codec.OMIT_NONE)
    kind: str = field(default="file", metadata=records_codec.meta(key="type"))
    parts: list[RunSession] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict, metadata=records_codec.EXTRA)


def test_codec_hooks() -> None:
    """Renamed and omitted fields, nested records, unknown keys kept last, a missing required
    field read as its type's empty value."""
    entry = records_codec.from_dict(_Entry, {"type": "dir", "parts": [{"samples": "3"}], "z": 1})
    assert entry == _Entry("", kind="dir", parts=[RunSession("", samples=3)], extra={"z": 1})
    assert records_codec.to_dict(entry) == {
        "name": "",
        "size": 0,
        "type": "dir",
        "parts": [{"started_at": "", "finished_at": None, "samples": 3}],
        "z": 1,
    }
    assert records_codec.to_dict(_Entry("a", note="n"))["note"] == "n"
    assert records_codec.from_dict(_Entry, ["not", "an", "object"]) == _Entry("")
