"""The runner at scale, against the real local fake-model servers: each model has its own
workers, so a rate-limited provider does not stall the others; a request waiting for its retry
frees its worker; a resume streams samples.jsonl and leaves it alone unless a line must go; the
run keeps compact records in memory and the summary computed from them is the one the full
samples give."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.evaluation.test_runner import RESPONDER, SKILL_MD, cases, fast
from tests.support.llm_servers import last_user_message, openai_server, skill_aware
from upskill_hub.evaluation.agent.usage import agent_usage
from upskill_hub.evaluation.eval_result import EvalResult, Progress
from upskill_hub.evaluation.providers.resolve import resolve_model
from upskill_hub.evaluation.run.benchmark_json import benchmark
from upskill_hub.evaluation.run.folder import RunFolder, read_samples
from upskill_hub.evaluation.run.resume import config_from_run
from upskill_hub.evaluation.run.samples import resume_records
from upskill_hub.evaluation.runner import evaluate
from upskill_hub.evaluation.stats.summarize import summarize
from upskill_hub.evaluation.types import Sample
from upskill_hub.skill import Skill, load_skill

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "run_folder_0_1"


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    folder = tmp_path / "canary-facts"
    folder.mkdir()
    (folder / "SKILL.md").write_text(SKILL_MD)
    return load_skill(folder)


def _stamp(path: Path) -> tuple[int, int, bytes]:
    st = os.stat(path)
    return st.st_ino, st.st_mtime_ns, path.read_bytes()


@pytest.mark.slow
def test_a_rate_limited_model_does_not_stall_the_others(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER) as a, openai_server(RESPONDER) as b:
        a.inject("429", retry_after=2)
        providers = {
            "fake-model": resolve_model("fake-model", base_url=a.base_url, api_key="x"),
            "other-model": resolve_model("other-model", base_url=b.base_url, api_key="x"),
        }
        config = fast(models=list(providers), concurrency=1, no_baseline=True)
        result = evaluate(
            skill, cases(4), config, output_root=tmp_path, providers=providers, write_chart=False
        )
        a_requests, b_requests = a.requests, b.requests
    assert [r.fault for r in a_requests] == ["429", None, None, None, None]
    assert len(b_requests) == 4 and all(r.fault is None for r in b_requests)
    # B sent all four of its requests while A waited out its Retry-After (one worker each)
    retry_at = a_requests[1].received_at
    assert max(r.received_at for r in b_requests) < retry_at
    assert retry_at - a_requests[0].received_at >= 2.0
    assert result.errors == 0 and result.missing == 0
    first = next(s for s in result.samples if s.model == "fake-model" and s.case_id == "case-0")
    assert first.attempts == 2 and first.outcome == "pass"


@pytest.mark.slow
def test_a_request_waiting_for_its_retry_frees_its_worker(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER) as srv:
        srv.inject("500")
        config = fast(
            base_url=srv.base_url,
            concurrency=1,
            no_baseline=True,
            base_s=2.0,
            max_s=2.0,
        )
        result = evaluate(skill, cases(3), config, output_root=tmp_path, write_chart=False)
        asked = [(r.fault, last_user_message(r.json or {})) for r in srv.requests]
    # case-0 failed, waited for its retry in the queue; the one worker sent the other cases first
    assert [fault for fault, _ in asked] == ["500", None, None, None]
    assert [text.split(":")[0] for _, text in asked] == [
        "Question 0",
        "Question 1",
        "Question 2",
        "Question 0",
    ]
    assert [(s.case_id, s.attempts) for s in result.samples] == [
        ("case-0", 2),
        ("case-1", 1),
        ("case-2", 1),
    ]


def test_resume_with_nothing_to_drop_leaves_samples_jsonl_untouched(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(FIXTURE / "run", run)
    before = _stamp(run / "samples.jsonl")
    fixture_summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    quux = load_skill(FIXTURE / "skill" / "quux-facts")
    config, tests = config_from_run(run)
    responder = skill_aware('<skill name="quux-facts">', with_skill="QX-41, hi.", without="no")
    with openai_server(responder) as srv:
        config.base_url, config.api_key = srv.base_url, "x"
        result = evaluate(quux, tests, config, resume_from=run, write_chart=False)
        assert srv.requests == []
    assert _stamp(run / "samples.jsonl") == before  # same inode, mtime and bytes
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    # the summary computed from the compact records is the one the fixture's run wrote (its
    # every figure: later stats versions add fields)

    def written(new: Any, old: Any) -> Any:
        if isinstance(old, dict) and isinstance(new, dict):
            return {k: written(new.get(k), v) for k, v in old.items()}
        if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
            return [written(n, o) for n, o in zip(new, old, strict=True)]
        return new

    assert written(summary["models"], fixture_summary["models"]) == fixture_summary["models"]
    for name in ("samples", "expected_samples", "errors", "skipped_assertions", "complete"):
        assert summary[name] == fixture_summary[name], name
    assert all(r.output == "" for r in result.records)
    assert [s.output for s in result.samples] != ["" for _ in result.samples]


def test_resume_drops_only_a_torn_last_line(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER) as srv:
        config = fast(base_url=srv.base_url, concurrency=1)
        first = evaluate(skill, cases(3), config, output_root=tmp_path, write_chart=False)
        path = first.run_dir / "samples.jsonl"
        data = path.read_bytes()
        lines = data.splitlines(keepends=True)
        torn_key = json.loads(lines[-1])
        path.write_bytes(data[: len(data) - len(lines[-1]) // 2])  # a kill mid-write
        srv.clear()
        second = evaluate(skill, cases(3), config, resume_from=first.run_dir, write_chart=False)
        asked = [last_user_message(r.json or {}) for r in srv.requests]
    # the torn sample runs again with its other arm (both arms of a case and run together)
    assert len(asked) == 2
    assert all(a.startswith(f"Question {torn_key['case_id'][-1]}") for a in asked)
    partner = [
        line
        for line in lines[:-1]
        if all(json.loads(line)[k] == torn_key[k] for k in ("model", "case_id", "run"))
    ]
    after = path.read_bytes()
    # every other whole line kept, byte for byte
    assert after.startswith(b"".join(x for x in lines[:-1] if x not in partner))
    on_disk = read_samples(path)
    assert len(on_disk) == 6 and len({s.key for s in on_disk}) == 6
    assert second.missing == 0 and second.stats[0].lift == first.stats[0].lift == 1.0


def test_resume_scan_rewrites_only_when_a_line_must_go(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(FIXTURE / "run", run)
    path = run / "samples.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    keys = {
        tuple(json.loads(line)[k] for k in ("model", "case_id", "run", "arm")) for line in lines
    }
    wanted: set[tuple[str, str, int, str]] = {
        (str(a), str(b), int(c), str(d)) for a, b, c, d in keys
    }
    scan = resume_records(path, wanted)
    assert not scan.rewritten and len(scan.done) == 12
    # an errored sample written again for a key, and a blank line: both go, the rest stays
    errored = json.loads(lines[0])
    errored.update(outcome="error", error="server error (500)", output="")
    path.write_bytes(b"".join(lines) + b"\n" + json.dumps(errored).encode() + b"\n")
    scan = resume_records(path, wanted)
    assert scan.rewritten and scan.dropped == 3 and len(scan.done) == 11
    assert path.read_bytes() == b"".join(lines[1:])
    again = _stamp(path)
    assert not resume_records(path, wanted).rewritten and _stamp(path) == again


def test_compact_records_give_the_same_statistics(skill: Skill, tmp_path: Path) -> None:
    with openai_server(RESPONDER) as srv:
        srv.inject("500")
        config = fast(base_url=srv.base_url, runs=2, retries=0)
        result = evaluate(skill, cases(3), config, output_root=tmp_path, write_chart=False)
    full = read_samples(result.run_dir / "samples.jsonl")
    order = {r.key: i for i, r in enumerate(result.records)}
    full.sort(key=lambda s: order[s.key])
    assert result.errors == 1 and len(full) == len(result.records) == 12
    assert [s.to_dict() for s in summarize(full)] == [
        s.to_dict() for s in summarize(result.records)
    ]
    info = RunFolder(result.run_dir).read_info()
    ours, theirs = benchmark(info, result.records), benchmark(info, full)
    # benchmark.json is written run by run; its text is that of the whole document at once
    written = (result.run_dir / "benchmark.json").read_text(encoding="utf-8")
    ours["metadata"]["timestamp"] = json.loads(written)["metadata"]["timestamp"]
    assert written == json.dumps(ours, indent=2, ensure_ascii=False) + "\n"
    ours["metadata"].pop("timestamp"), theirs["metadata"].pop("timestamp")
    assert ours == theirs
    assert agent_usage(result.records) == agent_usage(full)
    assert all(r.output == "" and all(a.reason == "" for a in r.assertions) for r in result.records)
    # the full samples come back from the run folder, streamed or as a list
    assert [s.to_dict() for s in result.samples] == [s.to_dict() for s in full]
    assert sorted(s.key for s in result.iter_samples()) == sorted(order)
    assert any(s.output for s in result.samples)


def test_a_sample_is_on_disk_before_it_is_reported(skill: Skill, tmp_path: Path) -> None:
    seen: list[bool] = []
    run_dir = tmp_path / "run"

    def on_sample(sample: Sample, progress: Progress) -> None:
        on_disk = {s.key for s in read_samples(run_dir / "samples.jsonl")}
        seen.append(sample.key in on_disk and len(on_disk) >= progress.done)

    with openai_server(RESPONDER) as srv:
        config = fast(base_url=srv.base_url, runs=3, concurrency=4)
        evaluate(skill, cases(4), config, run_dir=run_dir, on_sample=on_sample, write_chart=False)
    assert len(seen) == 24 and all(seen)


def _same_as_full_samples(result: EvalResult, models: list[str]) -> None:
    """summary.json, benchmark.json and the result's counts and records are those computed
    from the run's full samples in key order (model, case, run, arm)."""
    arm = {"baseline": 0, "with_skill": 1}
    full = read_samples(result.run_dir / "samples.jsonl")
    full.sort(key=lambda s: (models.index(s.model), s.case_id, s.run, arm[s.arm]))
    summary = json.loads((result.run_dir / "summary.json").read_text(encoding="utf-8"))
    expected = [m.to_dict(extended=True) for m in summarize(full)]
    assert summary["models"] == expected
    assert [m.to_dict(extended=True) for m in result.stats] == expected
    errors = sum(1 for s in full if s.outcome == "error")
    assert summary["errors"] == result.errors == errors
    assert summary["samples"] == len(full) == len(result.records)
    assert [r.key for r in result.records] == [s.key for s in full]
    assert [s.to_dict() for s in result.samples] == [s.to_dict() for s in full]
    info = RunFolder(result.run_dir).read_info()
    written = json.loads((result.run_dir / "benchmark.json").read_text(encoding="utf-8"))
    theirs = benchmark(info, full)
    written["metadata"].pop("timestamp"), theirs["metadata"].pop("timestamp")
    assert written == theirs
    # one file per model, never two models under one configuration (skill-creator's viewer)
    files = written["metadata"]["benchmark_files"]
    assert list(files) == models and files[models[0]] == "benchmark.json"
    for model, name in files.items():
        one = json.loads((result.run_dir / name).read_text(encoding="utf-8"))
        theirs = benchmark(info, full, model)
        one["metadata"].pop("timestamp"), theirs["metadata"].pop("timestamp")
        assert one == theirs and one["metadata"]["executor_model"] == model
        assert {r["model"] for r in one["runs"]} == {model}
        assert one["run_summary"] == one["models"][model]
        # with_skill first in each (case, run); eval_id numeric
        pairs = [(r["eval_id"], r["run_number"], r["configuration"]) for r in one["runs"]]
        assert pairs == sorted(pairs, key=lambda p: (p[0], p[1], p[2] != "with_skill"))
        assert all(isinstance(r["eval_id"], int) for r in one["runs"])


def test_the_running_tallies_give_what_the_samples_give(skill: Skill, tmp_path: Path) -> None:
    """Samples finish out of key order, on two models, some errored, then a resume adds the
    missing ones to the tallies of the samples it kept: every figure is the one the full
    samples give."""
    with openai_server(RESPONDER) as a, openai_server(RESPONDER) as b:
        for _ in range(3):
            a.inject("500")
        b.inject("hang", seconds=0.3)  # one slow request: the others overtake it
        providers = {
            "fake-model": resolve_model("fake-model", base_url=a.base_url, api_key="x"),
            "other-model": resolve_model("other-model", base_url=b.base_url, api_key="x"),
        }
        models = list(providers)
        config = fast(models=models, runs=3, retries=0, concurrency=3)
        first = evaluate(
            skill, cases(5), config, output_root=tmp_path, providers=providers, write_chart=False
        )
        assert first.errors == 3 and first.missing == 3 and len(first.records) == 60
        _same_as_full_samples(first, models)
        resumed = evaluate(
            skill,
            cases(5),
            config,
            resume_from=first.run_dir,
            providers=providers,
            write_chart=False,
        )
    _same_as_full_samples(resumed, models)
    assert resumed.errors == 0 and resumed.missing == 0
    assert resumed.stats[0].with_skill.total == 15


def test_a_model_queue_draws_its_keys_only_as_they_are_taken() -> None:
    """The runner hands each model its keys as a generator: none is made before its turn."""
    import asyncio

    from upskill_hub.evaluation.model_queue import ModelQueue

    drawn: list[int] = []

    def keys() -> Iterator[tuple[str, str, int, str]]:
        for run in (1, 2, 3):
            drawn.append(run)
            yield ("m", "case-0", run, "baseline")

    queue = ModelQueue(keys(), count=3)
    assert len(queue) == 3 and drawn == []
    queue.retry_later(("m", "case-9", 1, "baseline"), 0.0, attempts=1, pause=False)
    assert asyncio.run(queue.next()) == ("m", "case-9", 1, "baseline")  # a due retry first
    assert asyncio.run(queue.next()) == ("m", "case-0", 1, "baseline") and drawn == [1]
    assert len(queue) == 2
    assert [asyncio.run(queue.next()) for _ in range(3)][-1] is None and drawn == [1, 2, 3]
