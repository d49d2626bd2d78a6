"""Hostile skills and hostile model replies, through ``upskill-hub eval`` as a user runs it.

A skill's test cases come from someone else's repository and a model's reply from someone
else's server: neither may hang the run, read local files into results, or blow up the run
folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.eval_runs import canary_skill, run_eval
from tests.support.llm_servers import constant, last_user_message, openai_server
from upskill_hub.evaluation.run.folder import read_samples


def _skill(tmp_path: Path, tests: list[dict]) -> Path:
    return canary_skill(tmp_path, tests, name="hostile-skill")


def _eval(skill: Path, base_url: str, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    args = ("--model", "fake-model", "--output", str(out), "--format", "json", *extra)
    return run_eval(skill, base_url, *args)


def test_catastrophic_regex_is_an_error_within_the_time_limit(tmp_path: Path) -> None:
    tests = [
        {
            "id": "redos",
            "input": "Say something.",
            "assertions": [{"type": "regex", "pattern": "^(a|a)+$"}],
        },
        {"id": "plain", "input": "Say a.", "expected": {"contains": "a"}},
    ]
    skill = _skill(tmp_path, tests)
    with openai_server(constant("a" * 34 + "b")) as srv:
        started = time.monotonic()
        done = _eval(skill, srv.base_url, tmp_path / "runs")
        elapsed = time.monotonic() - started
    assert elapsed < 60, f"eval took {elapsed:.0f} s"
    assert "Traceback" not in done.stderr
    run_dir = Path(json.loads(done.stdout)["run_dir"]) if done.stdout.strip() else None
    assert run_dir is not None, done.stderr
    samples = read_samples(run_dir / "samples.jsonl")
    redos = [s for s in samples if s.case_id == "redos"]
    assert len(redos) == 2
    for sample in redos:
        [check] = sample.assertions
        assert check.status == "error" and "ran out of time" in check.reason
    plain = [s for s in samples if s.case_id == "plain"]
    assert all(s.outcome == "pass" for s in plain)


SECRET = "aws_secret_access_key = SECRETKEY-DO-NOT-LEAK-1234567890"


def _cuda(body: str) -> str:
    return f"Here you go:\n\n```cuda\n{body}\n__global__ void k(float* x) {{ x[0] = 1.0f; }}\n```\n"


@pytest.mark.slow
def test_nvcc_include_bypasses_never_read_local_files(tmp_path: Path) -> None:
    secret = tmp_path / "home" / ".aws" / "credentials"
    secret.parent.mkdir(parents=True)
    secret.write_text(SECRET + "\n", encoding="utf-8")
    rel = os.path.relpath(secret, tempfile_root())
    payloads = {
        "macro": f'#define P "{secret}"\n#include P',
        "comment": f'#/**/include "{secret}"',
        "splice": f'#inc\\\nlude "{secret}"',
        "digraph": f'%:include "{secret}"',
        "relative": f'#include "{rel}"',
        "angle": f"#include <{secret}>",
        "ok": "#include <cstdio>",
    }

    def responder(request: dict) -> str:
        asked = last_user_message(request)
        key = next(k for k in payloads if f"[{k}]" in asked)
        return _cuda(payloads[key])

    check = {"type": "compiles", "arch": "sm_90"}
    tests = [
        {"id": key, "input": f"Write a kernel [{key}].", "assertions": [check]} for key in payloads
    ]
    skill = _skill(tmp_path, tests)
    with openai_server(responder) as srv:
        done = _eval(skill, srv.base_url, tmp_path / "runs", "--runs", "1")
    assert done.stdout.strip(), done.stderr
    run_dir = Path(json.loads(done.stdout)["run_dir"])
    written = "".join(
        p.read_text(errors="replace")
        for p in run_dir.rglob("*")
        if p.is_file() and p.suffix != ".png"
    )
    assert "SECRETKEY" not in written and "SECRETKEY" not in done.stdout + done.stderr
    samples = read_samples(run_dir / "samples.jsonl")
    by_case = {(s.case_id, s.arm): s.assertions[0] for s in samples}
    for (case, _arm), result in by_case.items():
        if case == "ok":
            assert result.status == "pass", result.reason
        else:
            assert result.status == "fail", (case, result.reason)
            assert "refused" in result.reason or "failed" in result.reason, (case, result.reason)


def tempfile_root() -> str:
    import tempfile

    return os.path.realpath(tempfile.gettempdir()) + "/upskill-nvcc-x"


@pytest.mark.slow
def test_nvcc_including_dev_zero_is_bounded() -> None:
    import asyncio

    from upskill_hub.evaluation.assertions import build_assertion
    from upskill_hub.evaluation.assertions.base import CheckContext
    from upskill_hub.skill.testcases import TestCase

    check = build_assertion({"type": "compiles", "timeout": 30})
    ctx = CheckContext(case=TestCase(id="z", input="x"), output_tokens=1)
    started = time.monotonic()
    result = asyncio.run(check.check(_cuda("#include </dev/zero>"), ctx))
    assert time.monotonic() - started < 30
    assert result.status in ("fail", "error") and "zero" not in result.reason.replace("/dev/", "")


def test_a_huge_reply_is_capped_and_says_so(tmp_path: Path) -> None:
    tests = [{"id": "big", "input": "Say a lot.", "expected": {"contains": "needle"}}]
    skill = _skill(tmp_path, tests)
    huge = "needle " + "x" * (20 * 1024 * 1024)
    with openai_server(constant(huge)) as srv:
        done = _eval(skill, srv.base_url, tmp_path / "runs", "--runs", "1")
    assert done.stdout.strip(), done.stderr
    run_dir = Path(json.loads(done.stdout)["run_dir"])
    assert (run_dir / "samples.jsonl").stat().st_size < 3 * 1024 * 1024
    for sample in read_samples(run_dir / "samples.jsonl"):
        assert sample.outcome == "pass"  # graded on the first million characters
        assert sample.output.endswith(
            f"[upskill-hub: reply cut at 1,000,000 of {len(huge):,} characters]"
        )


@pytest.mark.slow
def test_ambient_sdk_settings_never_reach_a_base_url_server(tmp_path: Path) -> None:
    from tests.support.llm_servers import anthropic_server

    tests = [{"id": "q", "input": "Say a.", "expected": {"contains": "a"}}]
    skill = _skill(tmp_path, tests)
    ambient = {
        "OPENAI_ORG_ID": "org-AMBIENT-SENTINEL",
        "OPENAI_PROJECT_ID": "proj-AMBIENT-SENTINEL",
        "ANTHROPIC_CUSTOM_HEADERS": "X-Ambient: AMBIENT-SENTINEL\nX-Other: AMBIENT-SENTINEL",
    }
    with openai_server(constant("a")) as oai, anthropic_server(constant("a")) as ant:
        for model, url in (("openai:fake", oai.base_url), ("anthropic:fake", ant.base_url)):
            args = ("--model", model, "--output", str(tmp_path / "runs"), "--runs", "1")
            done = run_eval(skill, url, *args, env=ambient)
            assert done.returncode == 0, done.stderr
        sent = [r.headers for r in oai.requests + ant.requests]
    assert len(sent) == 4
    for headers in sent:
        assert "AMBIENT-SENTINEL" not in json.dumps(dict(headers))
