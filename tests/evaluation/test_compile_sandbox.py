"""Hostile replies and hostile skills against ``compiles`` and ``regex``, through ``upskill-hub
eval`` against a local model server, in every sandbox mode this machine offers.

A planted secret file and a planted secret environment variable must never reach the run
folder, whatever the reply asks the compiler or the assembler to read; a regex that would take
gigabytes to compile is an ``error`` at once; a cancelled run leaves no compiler running.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import stat
import threading
import time
from pathlib import Path

import pytest

from tests.support.eval_runs import canary_skill, run_eval, start_eval
from tests.support.llm_servers import constant, last_user_message, openai_server
from upskill_hub.evaluation.assertions import CheckContext, build_assertion, check_all, sandbox
from upskill_hub.evaluation.assertions.tool_slots import Cancelled, FairSlots, compile_policy
from upskill_hub.evaluation.run.folder import read_samples
from upskill_hub.skill.testcases import TestCase

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")

FILE_SECRET = "PLANTED-FILE-SECRET-7d1c9e"
ENV_SECRET = "PLANTED-ENV-SECRET-4b2f81"


def _cuda(body: str) -> str:
    return f"Here:\n\n```cuda\n{body}\n__global__ void k(float* x) {{ x[0] = 1.0f; }}\n```\n"


def _everything_written(run_dir: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in run_dir.rglob("*") if p.is_file())


@pytest.mark.slow
@needs_nvcc
@pytest.mark.parametrize("mode", ["bwrap", "unshare", "strict"])
def test_hostile_replies_never_bring_a_local_file_or_variable_into_the_run(
    tmp_path: Path, mode: str
) -> None:
    if not sandbox.available(mode):  # type: ignore[arg-type]
        pytest.skip(f"{mode} does not work on this machine")
    secret = tmp_path / "home" / ".config" / "secret.env"
    secret.parent.mkdir(parents=True)
    # lines the C++ front end and the assembler both reject, quoting them
    secret.write_text(f"line1 DB_PASSWORD {FILE_SECRET}\nline2 {FILE_SECRET} end\n")
    payloads = {
        # host pass only: `nvcc -E` (device pass) never sees it
        "host_include": f'#ifndef __CUDA_ARCH__\n#include "{secret}"\n#endif',
        "asm_include": f'void h() {{ asm(".include \\"{secret}\\""); }}',
        "asm_split": f'void h() {{ asm(".inc" "lude \\"{secret}\\""); }}',
        "asm_environ": 'void h() { asm(".include \\"/proc/self/environ\\""); }',
        "include_environ": '#ifndef __CUDA_ARCH__\n#include "/proc/self/environ"\n#endif',
        "incbin": f'asm(".incbin \\"{secret}\\"");',
        "has_include": f'#if __has_include("{secret}")\n#error FILE-IS-THERE\n#endif',
        "ok": "#include <cstdio>",
    }

    def responder(request: dict) -> str:
        asked = last_user_message(request)
        return _cuda(payloads[next(k for k in payloads if f"[{k}]" in asked)])

    check = {"type": "compiles", "arch": "sm_90"}
    tests = [{"id": k, "input": f"Write a kernel [{k}].", "assertions": [check]} for k in payloads]
    skill = canary_skill(tmp_path, tests, name="hostile-skill")
    env = {"UPSKILL_HUB_SANDBOX": mode, "UPSKILL_PLANTED_TOKEN": ENV_SECRET}
    with openai_server(responder) as srv:
        args = ("--model", "m", "--runs", "1", "--no-baseline", "--format", "json")
        done = run_eval(skill, srv.base_url, *args, "--output", str(tmp_path / "runs"), env=env)
    assert done.stdout.strip(), done.stderr
    run_dir = Path(json.loads(done.stdout)["run_dir"])
    written = _everything_written(run_dir) + done.stdout + done.stderr
    assert FILE_SECRET not in written
    assert ENV_SECRET not in written
    results = {s.case_id: s.assertions[0] for s in read_samples(run_dir / "samples.jsonl")}
    assert set(results) == set(payloads)
    for case, result in results.items():
        assert result.reason.endswith(f"[sandbox: {mode}]"), (case, result.reason)
        assert "FILE-IS-THERE" not in result.reason  # whether the file exists is not told either
        # in a sandbox the file does not exist at all, so __has_include finds nothing
        passes = case == "ok" or (case == "has_include" and mode != "strict")
        assert result.status == ("pass" if passes else "fail"), (case, result.reason)
    if mode == "strict":
        assert "refused: host `asm`" in results["asm_split"].reason
        assert "refused: the code includes a file" in results["host_include"].reason
        assert "refused: `__has_include`" in results["has_include"].reason


def _regex_case(pattern: str) -> dict:
    return {
        "id": "bomb",
        "input": "Say hello.",
        "assertions": [{"type": "regex", "pattern": pattern}, {"type": "contains", "values": "h"}],
    }


def test_a_regex_that_would_take_gigabytes_to_compile_is_an_error_at_once(
    tmp_path: Path,
) -> None:
    bomb = "(?:(?:a{1000}){1000}){10}"  # 16 s and 3 GB to compile, holding the GIL
    tests = [_regex_case(bomb), {"id": "plain", "input": "Say h.", "expected": {"contains": "h"}}]
    skill = canary_skill(tmp_path, tests, name="regex-bomb")
    with openai_server(constant("hello")) as srv:
        started = time.monotonic()
        args = ("--model", "m", "--runs", "1", "--format", "json")
        done = run_eval(skill, srv.base_url, *args, "--output", str(tmp_path / "runs"))
        elapsed = time.monotonic() - started
    assert done.stdout.strip(), done.stderr
    assert elapsed < 30, f"eval took {elapsed:.0f} s"
    samples = read_samples(Path(json.loads(done.stdout)["run_dir"]) / "samples.jsonl")
    for sample in samples:
        if sample.case_id == "bomb":
            regex, contains = sample.assertions
            assert regex.status == "error"
            assert "over the 100000 that compile in bounded time" in regex.reason
            assert contains.status == "pass"
        else:
            assert sample.outcome == "pass"


def test_regex_limits_in_the_check_and_in_validation() -> None:
    ctx = CheckContext(case=TestCase(id="r", input="x"), output_tokens=1)
    specs = [
        {"type": "regex", "pattern": "a{20000}"},
        {"type": "regex", "pattern": "x" * 2001},
        {"type": "regex", "pattern": "(?:(?:(?:b{100}){100}){100}){100}"},
        {"type": "regex", "pattern": r"\d{3}-\d{4}"},
        {"type": "contains", "values": "555"},
    ]
    started = time.monotonic()
    results = asyncio.run(check_all(specs, "call 555-1234", ctx))
    assert time.monotonic() - started < 10
    assert [r.status for r in results] == ["error", "error", "error", "pass", "pass"]
    assert "repeat count 20000 is over the limit of 10000" in results[0].reason
    assert "2001 characters, over the 2000 limit" in results[1].reason
    assert "unroll" in results[2].reason


# --- compile slots, timeouts and cancellation -------------------------------------------------


def _sleeping_nvcc(tmp_path: Path, seconds: str) -> Path:
    """A fake ``nvcc`` that only sleeps ``seconds`` (a value unique to the test)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "nvcc"
    fake.write_text(f"#!/bin/sh\nexec sleep {seconds}\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return bin_dir


#: a compile check that would wait up to 600 s, and one test case with it
SLOW_CHECK = {"type": "compiles", "timeout": 600}
SLOW_TESTS = [{"id": "slow", "input": "Write a kernel.", "assertions": [SLOW_CHECK]}]


def _sleeping_nvcc_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: str) -> None:
    """:func:`_sleeping_nvcc` first on this process's PATH."""
    bin_dir = _sleeping_nvcc(tmp_path, seconds)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def _sleepers(seconds: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if cmdline.split(b"\0")[:2] == [b"sleep", seconds.encode()]:
                found.append(int(entry.name))
    return found


def _no_sleepers_left(seconds: str) -> None:
    """Every sleeping nvcc is gone within 5 s: a process sent SIGKILL (in the sandbox's pid
    namespace, not the one we wait for) can show in /proc for a moment before it exits; the
    500 s it would otherwise sleep is what the tests rule out."""
    _wait_for(lambda: _sleepers(seconds) == [], 5)


def _wait_for(predicate, timeout: float = 60) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.1)


@pytest.mark.slow
def test_ctrl_c_during_a_compile_leaves_no_compiler_running(tmp_path: Path) -> None:
    seconds = f"{400 + os.getpid() % 97}.25"
    bin_dir = _sleeping_nvcc(tmp_path, seconds)
    skill = canary_skill(tmp_path, SLOW_TESTS, name="slow-compile")
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    with openai_server(constant(_cuda("// slow"))) as srv:
        args = ("--model", "m", "--runs", "1", "--output", str(tmp_path / "runs"))
        proc = start_eval(skill, srv.base_url, *args, env=env)
        try:
            _wait_for(lambda: bool(_sleepers(seconds)) or proc.poll() is not None)
            assert proc.poll() is None, proc.communicate()
            proc.send_signal(signal.SIGINT)
            _, stderr = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 130, stderr
    _no_sleepers_left(seconds)


@pytest.mark.slow
def test_a_cancelled_space_style_run_kills_its_compile_and_hosted_caps_the_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from upskill_hub import EvalConfig, evaluate, load_skill

    seconds = f"{500 + os.getpid() % 89}.5"
    _sleeping_nvcc_on_path(tmp_path, monkeypatch, seconds)
    skill = load_skill(canary_skill(tmp_path, SLOW_TESTS, name="slow-compile"))
    cancel = threading.Event()
    outcome: dict = {}
    with openai_server(constant(_cuda("// slow, cancelled"))) as srv:
        config = EvalConfig(models=["m"], base_url=srv.base_url, api_key="k", runs=1)

        def run() -> None:
            with compile_policy("visitor-1"):
                assert skill.suite is not None
                outcome["result"] = evaluate(
                    skill, skill.suite.cases, config, output_root=tmp_path / "runs", cancel=cancel
                )

        worker = threading.Thread(target=run)
        worker.start()
        _wait_for(lambda: bool(_sleepers(seconds)))
        cancel.set()
        worker.join(timeout=30)
        assert not worker.is_alive()
    assert outcome["result"].cancelled
    _no_sleepers_left(seconds)

    # hosted: a skill's 600 s becomes the cap
    ctx = CheckContext(case=TestCase(id="c", input="x"), output_tokens=1)
    started = time.monotonic()
    with compile_policy("visitor-2", max_timeout_s=1):
        result = asyncio.run(build_assertion(SLOW_CHECK).check(_cuda("// capped"), ctx))
    assert time.monotonic() - started < 15
    assert result.status == "error" and "nvcc timed out after 1 s" in result.reason
    _no_sleepers_left(seconds)


def test_compile_slots_are_shared_fairly_between_visitors() -> None:
    slots = FairSlots(1)
    order: list[str] = []
    release = threading.Event()

    def hold(owner: str) -> None:
        with slots.slot(owner):
            order.append(owner)
            release.wait(5)

    first = threading.Thread(target=hold, args=("a",))
    first.start()
    _wait_for(lambda: order == ["a"], 5)
    queued = [threading.Thread(target=hold, args=("a",)) for _ in range(3)]
    for thread in queued:
        thread.start()
    _wait_for(lambda: len(slots.waiting) == 3, 5)
    late = threading.Thread(target=hold, args=("b",))
    late.start()  # asks last, but visitor b has nothing running: it goes next
    _wait_for(lambda: len(slots.waiting) == 4, 5)
    release.set()
    for thread in [first, *queued, late]:
        thread.join(10)
    assert order == ["a", "b", "a", "a", "a"]

    cancel = threading.Event()
    cancel.set()
    busy = FairSlots(1)
    with busy.slot("x"), pytest.raises(Cancelled), busy.slot("y", cancel):
        pass


def test_a_visitor_who_leaves_the_space_stops_their_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from upskill_hub.space_support import form as forms
    from upskill_hub.space_support.live import VisitorGate, stream_eval
    from upskill_hub.space_support.settings import SpaceSettings
    from upskill_hub.space_support.skills import bundled_skills

    seconds = f"{600 + os.getpid() % 83}.75"
    _sleeping_nvcc_on_path(tmp_path, monkeypatch, seconds)
    canary_skill(tmp_path / "skills", SLOW_TESTS, name="slow-compile")
    settings = SpaceSettings.for_mode(False, output_root=tmp_path / "runs")
    with openai_server(constant(_cuda("// slow, visitor leaves"))) as srv:
        form = forms.EvalForm("slow-compile", forms.OPENAI, "m", srv.base_url, "k-123456", 1, 0)
        views = stream_eval(
            form,
            settings,
            gate=VisitorGate(1),
            visitor="ip:leaver",
            bundled=bundled_skills(tmp_path / "skills"),
            min_interval_s=0,
        )
        for view in views:
            assert view.error is None, view.error
            if view.total:  # the run has started
                break
        _wait_for(lambda: bool(_sleepers(seconds)))
        views.close()  # the page was closed
        _wait_for(lambda: not _sleepers(seconds), 10)


def test_the_regex_compile_worker_is_bounded() -> None:
    from upskill_hub.evaluation.assertions.text import _bounded_compile

    started = time.monotonic()
    verdict = _bounded_compile("(?:(?:a{1000}){1000}){10}", 0)  # past the static limits
    assert time.monotonic() - started < 10
    assert verdict == "cannot be compiled within 2 s and 1024 MiB"
    assert _bounded_compile("(a", 0) == "missing ) at position 2"
    assert _bounded_compile(r"\d{3}", 0) == ""


@pytest.mark.slow
@needs_nvcc
def test_strict_mode_refuses_every_way_to_name_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where no sandbox is possible, the answer may not make the compiler read or test a file."""
    monkeypatch.setenv("UPSKILL_HUB_SANDBOX", "strict")
    secret = tmp_path / "secret.env"
    secret.write_text(f"line1 {FILE_SECRET}\n")
    inc = f'\\"{secret}\\"'
    bodies = {
        # a raw string holding `#if 0` must not hide the asm between from the scan
        "raw_if0": f'const char* s = R"(\n#if 0\n)"; void h() {{ asm(".include {inc}"); }}'
        'const char* t = R"(\n#endif\n)";',
        "line_marker": f'#line 1 "/usr/include/stdio.h"\nvoid h() {{ asm(".include {inc}"); }}',
        "digraph_line": '%:line 1 "/usr/include/stdio.h"\nvoid h() { }',
        "pragma": f'#pragma GCC dependency "{secret}"',
        "pragma_op": f'_Pragma("GCC dependency {inc}")',
        "macro_asm": f'#define A(x) __asm__(x)\nvoid h() {{ A(".incbin {inc}"); }}',
        "pasted": "#define C(a, b) a##b\n#if C(__has_, include)(<x>)\n#endif",
        "missing": '#include "/no/such/folder/x.h"',
        "outside": f'#include "{secret}"',
    }
    ctx = CheckContext(case=TestCase(id="s", input="x"), output_tokens=1)
    for language in ("cuda", "cpp"):
        spec = {"type": "compiles", "language": language, "arch": "sm_90"}
        for name, body in bodies.items():
            answer = _cuda(body) if language == "cuda" else f"```cpp\n{body}\n```\n"
            result = asyncio.run(build_assertion(spec).check(answer, ctx))
            assert result.status == "fail", (language, name, result.reason)
            assert "refused" in result.reason, (language, name, result.reason)
            assert result.reason.endswith("[sandbox: strict]")
            assert FILE_SECRET not in result.reason
    # the same "refused" whether or not an outside include exists
    missing = asyncio.run(build_assertion(spec).check(f"```cpp\n{bodies['missing']}\n```", ctx))
    outside = asyncio.run(build_assertion(spec).check(f"```cpp\n{bodies['outside']}\n```", ctx))
    assert missing.reason == outside.reason
    # device-only PTX asm is fine: the host compiler never sees it
    ptx = '__device__ int lane() { int i; asm("mov.u32 %0, %%laneid;" : "=r"(i)); return i; }'
    cuda = {"type": "compiles", "arch": "sm_90"}
    assert asyncio.run(build_assertion(cuda).check(_cuda(ptx), ctx)).status == "pass"
    # every device pass is checked, not only the first architecture's
    two = ["-gencode=arch=compute_90,code=sm_90", "-gencode=arch=compute_80,code=sm_80"]
    second = f'#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 800\n#include "{secret}"\n#endif'
    result = asyncio.run(
        build_assertion({"type": "compiles", "flags": two}).check(_cuda(second), ctx)
    )
    assert result.status == "fail" and "refused: the code includes a file" in result.reason
