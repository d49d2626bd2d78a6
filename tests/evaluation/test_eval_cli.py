"""``upskill-hub eval`` in a subprocess, against real local LLM servers."""

from __future__ import annotations

import inspect
import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.eval_runs import (
    FACT,
    canary_skill,
    marker,
    quuxium_cases,
    run_eval,
    start_eval,
)
from tests.support.llm_servers import anthropic_server, openai_server, skill_aware
from upskill_hub.evaluation.run.folder import read_samples

MARKER = marker("canary-cli")
RESPONDER = skill_aware(MARKER, with_skill=f"It is {FACT}.", without="No idea.")
SENTINEL = "sk-sentinel-cli-9f8e7d6c5b4a"


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    return canary_skill(tmp_path, quuxium_cases(3), name="canary-cli")


def wait_for_samples(root: Path, count: int, proc: subprocess.Popen[str]) -> Path:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = list(root.glob("*/samples.jsonl"))
        if found and len(read_samples(found[0])) >= count:
            return found[0].parent
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError("no samples appeared")


@pytest.fixture
def server() -> Iterator[Any]:
    with openai_server(RESPONDER) as srv:
        yield srv


def test_json_and_text_output(skill_dir: Path, tmp_path: Path, server: Any) -> None:
    out = tmp_path / "runs"
    common = ["--model", "fake-model", "--runs", "2"]
    done = run_eval(
        skill_dir, server.base_url, *common, "--output", str(out), "--format", "json", "--seed", "3"
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert set(data) == {"skill", "revision", "run_dir", "models"}
    assert data["skill"] == "canary-cli" and data["revision"] is None
    (model,) = data["models"]
    assert model["model"] == "fake-model" and model["lift"] == 1.0
    assert model["baseline"]["total"] == model["with_skill"]["total"] == 6
    # three cases that all flip: too few to call it (by case, not by the 6 samples)
    assert model["verdict"].startswith("too few cases: 3 cases cannot detect any lift at this n")
    assert (model["lift_cases"], model["runs"]) == (3, 2)
    run_dir = Path(data["run_dir"])
    assert run_dir.parent == out
    assert (run_dir / "lift.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((run_dir / "summary.json").read_text())["models"][0]["lift"] == 1.0
    assert sorted({r.json["seed"] for r in server.requests if r.json}) == [3, 4]  # seed + run - 1

    text = run_eval(skill_dir, server.base_url, *common, "--output", str(out))
    assert text.returncode == 0, text.stderr
    assert "with skill" in text.stdout and "+100 pts" in text.stdout
    assert "3×2" in text.stdout and "too few cases" in text.stdout
    assert "[14, 100]" in text.stdout  # with-skill 6/6 over 3 cases: Wilson, n_eff 3, t(2)
    assert "run folder:" in text.stdout
    assert len(list(out.iterdir())) == 2


def test_bad_flags_are_one_line_errors(skill_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    for args, needle in [
        (["--runs", "0", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"], "--runs"),
        (["--model", "no-such-model"], "unknown model 'no-such-model'"),
        (["--tests", str(tmp_path / "missing.json")], "--tests"),
        (["--resume", str(tmp_path)], "not a run folder"),
        (["--model", "m", "--base-url", "127.0.0.1:8000/v1"], "--base-url '127.0.0.1:8000/v1'"),
        (["--model", "m", "--base-url", "file:///etc/passwd"], "http:// or https://"),
    ]:
        done = run_eval(skill_dir, None, *args, "--output", str(out))
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], lines
    missing = run_eval(tmp_path / "nope", None)
    assert missing.returncode == 2 and "no such skill folder" in missing.stderr
    assert not out.exists()


def test_multi_model_routes_by_env_and_writes_no_secret(skill_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    with (
        openai_server(RESPONDER, api_key=SENTINEL) as oai,
        anthropic_server(RESPONDER, api_key=SENTINEL + "-ant") as ant,
    ):
        done = run_eval(
            skill_dir,
            None,
            *("--model", "openai:gpt-test", "--model", "anthropic:claude-test"),
            *("--output", str(out), "--format", "json"),
            env={
                "OPENAI_BASE_URL": oai.base_url,
                "OPENAI_API_KEY": SENTINEL,
                "ANTHROPIC_BASE_URL": ant.base_url,
                "ANTHROPIC_API_KEY": SENTINEL + "-ant",
            },
        )
        assert done.returncode == 0, done.stderr
        assert {r.json["model"] for r in oai.requests if r.json} == {"gpt-test"}
        assert {r.json["model"] for r in ant.requests if r.json} == {"claude-test"}
        assert len(oai.requests) == len(ant.requests) == 6
    data = json.loads(done.stdout)
    assert [m["model"] for m in data["models"]] == ["openai:gpt-test", "anthropic:claude-test"]
    assert all(m["lift"] == 1.0 for m in data["models"])
    assert SENTINEL not in done.stdout + done.stderr
    for path in Path(data["run_dir"]).iterdir():
        assert SENTINEL.encode() not in path.read_bytes(), path.name


def test_resume_after_kill_has_no_duplicates(skill_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    with openai_server(RESPONDER, latency=0.2) as srv:
        args = ["--model", "fake-model", "--runs", "2", "--concurrency", "1"]
        proc = start_eval(skill_dir, srv.base_url, *args, "--output", str(out))
        try:
            run_dir = wait_for_samples(out, 3, proc)
        finally:
            proc.kill()  # SIGKILL: no cleanup at all
            proc.communicate()
        saved = read_samples(run_dir / "samples.jsonl")
        assert 3 <= len(saved) < 12
        assert json.loads((run_dir / "run.json").read_text())["status"] == "running"
        before = len(srv.requests)
        done = run_eval(skill_dir, None, "--resume", str(run_dir), "--format", "json")
        assert done.returncode == 0, done.stderr
        # a sample whose other arm was not saved runs again with it (both arms together)
        arms: dict[tuple[str, int], int] = {}
        for s in saved:
            arms[(s.case_id, s.run)] = arms.get((s.case_id, s.run), 0) + 1
        kept = [s for s in saved if arms[(s.case_id, s.run)] == 2]
        assert len(srv.requests) - before == 12 - len(kept)
    final = read_samples(run_dir / "samples.jsonl")
    assert len(final) == 12 and len({s.key for s in final}) == 12
    assert [s.to_dict() for s in final[: len(kept)]] == [s.to_dict() for s in kept]
    assert json.loads(done.stdout)["models"][0]["lift"] == 1.0
    assert json.loads((run_dir / "run.json").read_text())["status"] == "complete"


def test_ctrl_c_keeps_samples_and_prints_resume(skill_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    with openai_server(RESPONDER, latency=0.2) as srv:
        args = ["--model", "fake-model", "--runs", "3", "--concurrency", "2"]
        proc = start_eval(skill_dir, srv.base_url, *args, "--output", str(out))
        run_dir = wait_for_samples(out, 2, proc)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    saved = read_samples(run_dir / "samples.jsonl")
    assert f"{len(saved)} of 18 samples saved in {run_dir}" in stderr
    assert f"--resume {run_dir}" in stderr
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["cancelled"] is True and summary["samples"] == len(saved)


@pytest.mark.slow
def test_push_results_after_the_run(
    skill_dir: Path, tmp_path: Path, server: Any, unique_repo_id: str
) -> None:
    from datasets import load_dataset
    from huggingface_hub import HfApi

    out = tmp_path / "runs"
    common = ["--model", "fake-model", "--output", str(out)]
    done = run_eval(
        skill_dir,
        server.base_url,
        *common,
        *("--format", "json", "--push-results", unique_repo_id, "--private"),
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    pushed = data["results"]
    run_dir = Path(data["run_dir"])
    assert pushed["repo_id"] == unique_repo_id
    assert pushed["url"].endswith(f"/datasets/{unique_repo_id}")
    assert pushed["split"] == "run_" + run_dir.name.replace("-", "_")
    info = HfApi().dataset_info(unique_repo_id)
    assert info.sha == pushed["commit"] and info.private
    rows = load_dataset(unique_repo_id, "samples", split=pushed["split"]).to_list()
    on_disk = read_samples(run_dir / "samples.jsonl")
    assert len(rows) == len(on_disk) == 6
    assert sorted((r["case_id"], r["arm"], r["output"]) for r in rows) == sorted(
        (s.case_id, s.arm, s.output) for s in on_disk
    )

    text = run_eval(skill_dir, server.base_url, *common, "--push-results", unique_repo_id)
    assert text.returncode == 0, text.stderr
    assert f"results: {pushed['url']}" in text.stdout
    assert len(HfApi().list_repo_refs(unique_repo_id, repo_type="dataset").branches) == 1
    summary = load_dataset(unique_repo_id, "summary")
    assert len(summary) == 2  # one split per run


def test_push_flags_are_checked_before_the_run(skill_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    base = ["--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--output", str(out)]
    for args, needle in [
        (["--private"], "--private apply only with --push-results"),
        (["--push-results", "not a repo"], "not a Hub repo id"),
        (["--push-results", "ns/name@main"], "without '@revision'"),
        (["--push-results", "ns/name", "--create-pr"], "only with --update-skill-card"),
    ]:
        done = run_eval(skill_dir, None, *base, *args)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0], lines
    assert not out.exists()


def test_a_run_where_every_request_failed_is_an_error(skill_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    args = ["--model", "fake-model", "--retries", "0", "--output", str(out), "--format", "json"]
    done = run_eval(skill_dir, "http://127.0.0.1:1/v1", *args, timeout=60)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: fake-model: every request of the baseline arm failed")
    assert "first error: fake-model: connection failed" in lines[0]
    data = json.loads(done.stdout)  # the results are still printed and written
    run_dir = Path(data["run_dir"])
    assert f"run folder: {run_dir}" in lines[0]
    assert data["models"][0]["verdict"] == "no data (every request failed)"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["models"][0]["verdict"] == "no data (every request failed)"
    assert len(read_samples(run_dir / "samples.jsonl")) == 6


def test_one_failing_model_fails_the_run_and_warnings_print_once(
    skill_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "runs"
    with anthropic_server(RESPONDER) as ant:
        done = run_eval(
            skill_dir,
            None,
            *("--model", "anthropic:claude-test", "--retries", "0"),
            *("--model", "openai:gpt-test", "--output", str(out)),
            env={
                "ANTHROPIC_BASE_URL": ant.base_url,
                "ANTHROPIC_API_KEY": SENTINEL,
                "OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
                "OPENAI_API_KEY": SENTINEL,
            },
            timeout=60,
        )
    assert done.returncode == 1, done.stderr
    assert "no data (every request failed)" in done.stdout
    assert "too few cases" in done.stdout  # the working model: 3 cases, too few
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: openai:gpt-test: every request")
    assert SENTINEL not in done.stdout + done.stderr
    from anthropic.resources.messages import AsyncMessages  # what the installed SDK takes

    if "temperature" not in inspect.signature(AsyncMessages.create).parameters:
        assert done.stderr.count("temperature not sent") == 1
        assert "warning: anthropic:claude-test: temperature not sent" in done.stderr


class _OverflowServer:
    """An OpenAI-style server whose model has a small context: a "LONG" question with the
    skill in the system prompt is refused with 400 context_length_exceeded."""

    def __init__(self) -> None:
        from tests.support.llm_servers import FakeLLMServer

        class Server(FakeLLMServer):
            async def _complete(self, request: Any) -> Any:
                body = json.loads(await request.body())
                system = " ".join(
                    str(m.get("content", ""))
                    for m in body.get("messages", [])
                    if m.get("role") in ("system", "developer")
                )
                user = str(body.get("messages", [{}])[-1].get("content", ""))
                if MARKER in system and "LONG" in user:
                    error = self._error(
                        400,
                        "This model's maximum context length is 64 tokens. However, your "
                        "messages resulted in 180 tokens. (context_length_exceeded)",
                    )
                    data = json.loads(bytes(error.body))
                    data["error"]["code"] = "context_length_exceeded"  # what OpenAI sends
                    return type(error)(data, status_code=400)
                return await super()._complete(request)

        def reply(request: dict[str, Any]) -> str:
            user = str(request.get("messages", [{}])[-1].get("content", ""))
            return f"It is {FACT}." if "EASY" in user else "No idea."

        self.server = Server("openai", reply)


def test_prompt_overflow_in_one_arm_does_not_manufacture_lift(tmp_path: Path) -> None:
    # 5 cases every arm answers; 5 "LONG" cases the model cannot answer without the skill,
    # and with the skill the prompt overflows the context: the skill changes nothing.
    folder = canary_skill(
        tmp_path,
        quuxium_cases(5, "EASY ", "e") + quuxium_cases(5, "LONG ", "l"),
        name="canary-cli",
    )
    with _OverflowServer().server as srv:
        args = ["--model", "fake-model", "--runs", "2"]
        done = run_eval(
            folder, srv.base_url, *args, "--output", str(tmp_path / "runs"), "--format", "json"
        )
        text = run_eval(folder, srv.base_url, *args, "--output", str(tmp_path / "runs2"))
    assert done.returncode == 0, done.stderr
    (model,) = json.loads(done.stdout)["models"]
    # before: baseline 10/20, with skill 10/10 + 10 errors -> "+50 pts, helps". The rejections
    # are missing samples: not in the lift, in its worst-case bounds
    assert model["baseline"]["passed"] == 10 and model["baseline"]["total"] == 20
    assert model["with_skill"]["rejected"] == 10 and model["with_skill"]["errors"] == 0
    assert model["with_skill"]["total"] == 10 and model["with_skill"]["passed"] == 10
    assert model["lift"] == 0.0 and model["lift_cases"] == 5 and model["excluded_cases"] == 5
    assert model["verdict"] == "no measurable effect at this n"
    assert model["missing"] == {"baseline": 0, "with_skill": 10}
    assert model["lift_bounds"] == [0.0, 0.5]
    lo, hi = model["lift_ci95"]
    assert lo < 0 < hi
    assert text.returncode == 0, text.stderr
    assert "helps" not in text.stdout
    out = " ".join(text.stdout.split())
    assert "refused for their prompt" in out and "with skill 10" in out
    assert "5×2" in text.stdout
