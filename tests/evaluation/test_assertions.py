import asyncio
import json
import os
import shutil
import stat
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from upskill_hub.errors import InvalidTestFileError
from upskill_hub.evaluation.assertions import (
    KINDS,
    CheckContext,
    build_assertion,
    check_all,
    outcome_of,
    sandbox,
    validate_spec,
)
from upskill_hub.evaluation.types import AssertionResult, Message
from upskill_hub.skill.testcases import ASSERTION_TYPES, TestCase

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schemas" / "assertion.schema.json"
CASE = TestCase(id="c1", input="Write a build.toml for an H100 kernel.", files={"a.cu": "// a"})
NVCC = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not installed")


def check(spec: Mapping[str, Any], output: str, **ctx: Any) -> AssertionResult:
    context = CheckContext(case=ctx.pop("case", CASE), output_tokens=ctx.pop("tokens", 100), **ctx)
    return asyncio.run(build_assertion(spec).check(output, context))


# --- contains family ------------------------------------------------------------------------


def test_contains_is_case_insensitive_and_names_what_is_missing() -> None:
    spec = {"type": "contains", "values": ["CUDA-Capabilities", "sm_90", "edition"]}
    assert check(spec, "set cuda-capabilities for SM_90 and edition").status == "pass"
    result = check(spec, "set cuda-capabilities only")
    assert result.status == "fail"
    assert result.reason == "missing: 'sm_90', 'edition'"
    assert result.type == "contains"


def test_contains_accepts_a_single_string_and_case_sensitive_mode() -> None:
    assert check({"type": "contains", "values": "H100"}, "an h100").status == "pass"
    strict = {"type": "contains", "values": ["H100"], "case_sensitive": True}
    assert check(strict, "an h100").status == "fail"


def test_contains_any() -> None:
    spec = {"type": "contains_any", "values": ["sm_90", "9.0"]}
    assert check(spec, "capability 9.0").reason == "found: '9.0'"
    result = check(spec, "capability 8.0")
    assert result.status == "fail"
    assert result.reason == "none found of: 'sm_90', '9.0'"


def test_not_contains() -> None:
    spec = {"type": "not_contains", "values": ["[general.cuda]"]}
    assert check(spec, "[kernel.x]").status == "pass"
    result = check(spec, "[GENERAL.CUDA]\ncapabilities = ['9.0']")
    assert result.status == "fail"
    assert result.reason == "forbidden text present: '[general.cuda]'"


# --- regex ----------------------------------------------------------------------------------


def test_regex_found_and_not_found() -> None:
    spec = {"type": "regex", "pattern": "sm_90a?"}
    assert check(spec, "nvcc -arch=sm_90a").status == "pass"
    result = check(spec, "nvcc -arch=sm_80")
    assert (result.status, result.reason) == ("fail", "regex /sm_90a?/ not found")


def test_regex_flags_and_count() -> None:
    assert check({"type": "regex", "pattern": "^cuda", "flags": "im"}, "x\nCUDA").status == "pass"
    assert check({"type": "regex", "pattern": "^cuda"}, "x\nCUDA").status == "fail"
    spec = {"type": "regex", "pattern": r"__global__", "count": 2}
    result = check(spec, "__global__ void a(); __device__ b();")
    assert result.status == "fail"
    assert result.reason == "regex /__global__/ found 1 times, expected at least 2"


def test_bad_regex_is_reported_up_front_and_as_error_at_check_time() -> None:
    spec = {"type": "regex", "pattern": "sm_(90"}
    problems = validate_spec(spec)
    assert len(problems) == 1
    assert problems[0].startswith("regex: invalid regex /sm_(90/: missing )")
    with pytest.raises(InvalidTestFileError, match="invalid regex"):
        build_assertion(spec)
    ctx = CheckContext(case=CASE, output_tokens=1)
    (result,) = asyncio.run(check_all([spec], "sm_90", ctx))
    assert result.status == "error"
    assert "invalid regex" in result.reason


# --- max_tokens -----------------------------------------------------------------------------


def test_max_tokens() -> None:
    spec = {"type": "max_tokens", "value": 1500}
    assert check(spec, "short", tokens=1250).status == "pass"
    result = check(spec, "long", tokens=1890)
    assert (result.status, result.reason) == ("fail", "1890 output tokens, limit 1500")


def test_max_tokens_without_a_token_count_is_skipped_not_passed() -> None:
    result = check({"type": "max_tokens", "value": 10}, "some answer", tokens=0)
    assert result.status == "skipped"


# --- structured: toml / json / yaml ---------------------------------------------------------

BUILD_TOML = """\
[general]
name = "mykernel"
version = 1
edition = 5
backends = ["cuda"]

[general.hub]
repo-id = "myorg/mykernel"

[torch]
src = ["torch-ext/torch_binding.cpp", "torch-ext/torch_binding.h"]

[kernel.mykernel]
backend = "cuda"
depends = ["torch"]
src = ["mykernel_cuda/mykernel.cu"]
cuda-capabilities = ["9.0"]   # H100 only
"""

OUTDATED_TOML = """\
[general]
name = "mykernel"

[general.cuda]
capabilities = ["9.0"]

[kernel.mykernel]
src = ["mykernel_cuda/mykernel.cu"]
"""

KERNEL_SPEC = {
    "type": "toml",
    "paths": ["general.name", "kernel.*.src", "kernel.*.backend"],
    "require": {
        "kernel.*.cuda-capabilities": "9.0",
        "general.edition": 5,
        "general.backends": ["cuda"],
        "kernel.*.depends": "torch",
    },
}


def answer(*blocks: tuple[str, str]) -> str:
    parts = ["Here is the configuration you asked for."]
    for info, code in blocks:
        parts.append(f"```{info}\n{code.rstrip()}\n```")
        parts.append("Some explanation follows.")
    return "\n\n".join(parts)


def test_toml_wildcards_on_a_current_kernel_builder_build_toml() -> None:
    result = check(KERNEL_SPEC, answer(('toml title="build.toml"', BUILD_TOML)))
    assert result.status == "pass", result.reason
    assert result.reason.startswith("toml block 1 (line 3) parses")


def test_outdated_general_cuda_capabilities_form_fails_with_what_is_missing() -> None:
    result = check(KERNEL_SPEC, answer(("toml", OUTDATED_TOML)))
    assert result.status == "fail"
    assert "missing kernel.*.backend" in result.reason
    assert "missing kernel.*.cuda-capabilities" in result.reason
    assert "missing general.edition" in result.reason


def test_a_path_in_both_paths_and_require_is_reported_once() -> None:
    spec = {
        "type": "toml",
        "paths": ["general.name", "kernel.*.src", "general.name"],
        "require": {"general.name": "mykernel", "general.edition": 5},
    }
    result = check(spec, answer(("toml", "[other]\nx = 1\n")))
    assert result.status == "fail"
    assert result.reason == (
        "toml block 1 (line 3): missing general.name; missing kernel.*.src; missing general.edition"
    )
    for kind, code in (("json", '{"other": 1}'), ("yaml", "other: 1\n")):
        reason = check({**spec, "type": kind}, answer((kind, code))).reason
        assert reason.count("missing general.name") == 1, reason


def test_toml_wrong_value_names_found_and_expected() -> None:
    spec = {"type": "toml", "require": {"kernel.*.cuda-capabilities": "9.0"}}
    code = BUILD_TOML.replace('["9.0"]', '["8.0"]')
    result = check(spec, answer(("toml", BUILD_TOML.replace("9.0", "7.5")), ("toml", code)))
    assert result.status == "fail"
    assert result.reason.startswith("toml block 1 (line 3): kernel.*.cuda-capabilities = ['7.5']")
    assert result.reason.endswith("expected '9.0' (best of 2 candidates)")


def test_any_block_may_satisfy_and_values_are_type_strict() -> None:
    first = 'edition = "5"\n'
    second = "edition = 5\n"
    spec = {"type": "toml", "require": {"edition": 5}}
    assert check(spec, answer(("toml", first))).status == "fail"
    assert check(spec, answer(("toml", first), ("toml", second))).status == "pass"
    assert (
        check({"type": "toml", "require": {"flag": 1}}, answer(("toml", "flag = true\n"))).status
        == "fail"
    )


def test_expected_list_must_be_a_subset_of_the_found_list() -> None:
    code = 'caps = ["8.0", "9.0"]\n'
    ok = {"type": "toml", "require": {"caps": ["9.0", "8.0"]}}
    bad = {"type": "toml", "require": {"caps": ["9.0", "10.0"]}}
    assert check(ok, answer(("toml", code))).status == "pass"
    assert check(bad, answer(("toml", code))).status == "fail"


def test_untagged_toml_counts_only_when_no_tagged_block_exists() -> None:
    spec = {"type": "toml", "paths": ["kernel.*.src"]}
    assert check(spec, answer(("", BUILD_TOML))).status == "pass"
    tagged_bad = answer(("toml", "x = 1\n"), ("", BUILD_TOML))
    result = check(spec, tagged_bad)
    assert result.status == "fail"
    assert result.reason == "toml block 1 (line 3): missing kernel.*.src"


def test_toml_that_does_not_parse_and_no_block() -> None:
    result = check({"type": "toml"}, answer(("toml", "[general\nname = 1\n")))
    assert result.status == "fail"
    assert result.reason.startswith("toml block 1 (line 3) does not parse as toml:")
    assert check({"type": "toml"}, "no code at all").reason == "no ```toml block found"


def test_json_block_and_whole_reply_fallback() -> None:
    spec = {"type": "json", "paths": ["items.*.name"], "require": {"items.1.size": 2}}
    data = {"items": [{"name": "a", "size": 1}, {"name": "b", "size": 2}]}
    assert check(spec, answer(("json", json.dumps(data)))).status == "pass"
    assert check(spec, json.dumps(data)).status == "pass"
    data["items"][1]["size"] = 3
    result = check(spec, json.dumps(data))
    assert result.reason == "the whole reply: items.1.size = 3, expected 2"


def test_yaml_yml_tag_multiple_documents_and_scalars() -> None:
    spec = {"type": "yaml", "require": {"jobs.*.runs-on": "ubuntu-latest"}}
    docs = "kind: x\n---\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
    assert check(spec, answer(("yml", docs))).status == "pass"
    result = check({"type": "yaml"}, answer(("yaml", "just a sentence\n")))
    assert result.status == "fail"
    assert "is a str, not a mapping or list" in result.reason


def alias_bomb(levels: int) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels + 1):
        refs = ",".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


def test_yaml_alias_bomb_is_refused_quickly() -> None:
    start = time.monotonic()
    result = check({"type": "yaml", "paths": ["a12.0"]}, answer(("yaml", alias_bomb(12))))
    assert result.status == "fail"
    assert "more than 100 aliases" in result.reason
    wide = "a11" + ".*" * 11
    result = check({"type": "yaml", "paths": [wide]}, answer(("yaml", alias_bomb(11))))
    assert result.status == "fail"
    assert f"{wide} reaches more than 100000 values" in result.reason
    assert time.monotonic() - start < 5


def test_key_path_escaped_dot() -> None:
    spec = {"type": "json", "require": {"tool\\.ruff.line-length": 100}}
    assert check(spec, '{"tool.ruff": {"line-length": 100}}').status == "pass"


# --- compiles (nvcc) ------------------------------------------------------------------------

VALID_KERNEL = """\
#include <cuda_runtime.h>

__global__ void scale(float* out, const float* in, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * in[i];
}
"""

BROKEN_KERNEL = """\
__global__ void scale(float* out, const float* in, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x
    if (i < n) out[i] = a * in[i];
}
"""

HOPPER_KERNEL = """\
// Thread-block cluster registers and barriers exist from sm_90 (H100) on.
__global__ void cluster_rank(unsigned int* out) {
    unsigned int rank = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("barrier.cluster.arrive;\\n\\tbarrier.cluster.wait;" ::: "memory");
#endif
    out[blockIdx.x] = rank;
}
"""


@pytest.mark.slow
@needs_nvcc
def test_valid_kernel_compiles_for_sm_90() -> None:
    result = check({"type": "compiles", "arch": "sm_90"}, answer(("cuda", VALID_KERNEL)))
    assert result.status == "pass", result.reason
    assert "nvcc -arch=sm_90" in result.reason


@pytest.mark.slow
@needs_nvcc
def test_syntax_error_fails_with_the_compiler_error() -> None:
    result = check({"type": "compiles", "arch": "sm_90"}, answer(("cu", BROKEN_KERNEL)))
    assert result.status == "fail"
    assert "k.cu(3): error" in result.reason
    assert 'expected a ";"' in result.reason
    assert "/tmp/" not in result.reason


@pytest.mark.slow
@needs_nvcc
def test_guarded_hopper_code_compiles_for_sm_90_and_the_guard_matters() -> None:
    hopper = check({"type": "compiles", "arch": "sm_90"}, answer(("cuda", HOPPER_KERNEL)))
    assert hopper.status == "pass", hopper.reason
    ampere = check({"type": "compiles", "arch": "sm_80"}, answer(("cuda", HOPPER_KERNEL)))
    assert ampere.status == "pass", ampere.reason
    unguarded = HOPPER_KERNEL.replace("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n", "")
    unguarded = unguarded.replace("#endif\n", "")
    old = check({"type": "compiles", "arch": "sm_80"}, answer(("cuda", unguarded)))
    assert old.status == "fail"
    assert "'%cluster_ctarank' requires .target sm_90 or higher" in old.reason


@pytest.mark.slow
@needs_nvcc
def test_identical_code_compiles_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "calls.log"
    wrapper = tmp_path / "bin" / "nvcc"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{NVCC}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("UPSKILL_HUB_SANDBOX", "strict")  # the wrapper writes its log outside
    code = VALID_KERNEL + "// cache test\n"
    spec = {"type": "compiles", "arch": "sm_90"}

    async def twice() -> list[AssertionResult]:
        ctx = CheckContext(case=CASE, output_tokens=1)
        return await check_all([spec, spec], answer(("cuda", code)), ctx)

    first = asyncio.run(twice())
    again = check(spec, "Same code again:\n```cuda\n" + code + "```\n")
    assert [r.status for r in first] == ["pass", "pass"]
    assert again.status == "pass"
    calls = log.read_text().splitlines()
    assert sum(" -c " in f" {c} " for c in calls) == 1  # one compile, keeping every pass
    assert sum(" --keep " in f" {c} " for c in calls) == 1


def test_a_hanging_compiler_is_killed_at_the_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "nvcc"
    fake.write_text("#!/bin/sh\nsleep 30\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin:/bin")
    start = time.monotonic()
    spec = {"type": "compiles", "arch": "sm_90", "timeout": 1}
    result = check(spec, answer(("cuda", VALID_KERNEL + "// hang\n")))
    assert time.monotonic() - start < 10
    assert result.status == "error"
    assert result.reason.startswith("block at line 3: nvcc timed out after 1 s [sandbox: ")


def test_missing_nvcc_is_skipped_not_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    result = check({"type": "compiles", "arch": "sm_90"}, answer(("cuda", VALID_KERNEL)))
    assert (result.status, result.reason) == ("skipped", "skipped: nvcc not found")
    assert outcome_of([result]) == "fail"


def test_compiles_block_selection_and_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = {"type": "compiles", "arch": "sm_90"}
    no_block = check(spec, answer(("python", "print(1)\n")))
    assert (no_block.status, no_block.reason) == ("fail", "no CUDA code block")
    cpp_only = check(spec, answer(("cpp", "int main() { return 0; }\n")))
    assert cpp_only.reason == "no CUDA code block"
    if NVCC is None:
        return
    sneaky = answer(("cuda", '#include "/etc/passwd"\n__global__ void k() {}\n'))
    refused = check(spec, sneaky)
    assert refused.status == "fail"
    if sandbox.current_mode() != "strict":  # the sandbox has no /etc at all
        assert "k.cu:1:10: fatal error: /etc/passwd: No such file or directory" in refused.reason
    monkeypatch.setenv("UPSKILL_HUB_SANDBOX", "strict")
    strict = check(spec, sneaky.replace("k() {}", "k() { }"))  # not the cached result
    assert strict.status == "fail"
    assert strict.reason.endswith(
        "refused: the code includes a file outside its temp folder, the CUDA toolkit and the "
        "system include folders (or one that is missing) [sandbox: strict]"
    )


def test_compiles_spec_rejects_dangerous_flags_and_bad_arch() -> None:
    problems = validate_spec(
        {"type": "compiles", "arch": "sm90", "flags": ["--run", "-O3", "-Xcompiler", "-o"]}
    )
    assert "compiles: 'arch' must look like sm_90, sm_90a or compute_90 (got 'sm90')" in problems
    assert "compiles: flag '--run' is not allowed" in problems
    assert "compiles: flag '-Xcompiler' is not allowed" in problems
    assert "compiles: flag '-o' is not allowed" in problems
    assert not any("-O3" in p for p in problems)
    assert validate_spec({"type": "compiles", "flags": ["-Wl,-rpath=/x"]}) == [
        "compiles: flag '-Wl,-rpath=/x' is not allowed"
    ]
    ok = ["-std=c++17", "-DTILE=128", "-Werror=all-warnings", "--expt-relaxed-constexpr"]
    assert validate_spec({"type": "compiles", "flags": ok}) == []


@pytest.mark.slow
@needs_nvcc
def test_cpp_language_and_cuda_code_in_a_cpp_block() -> None:
    cpp = check(
        {"type": "compiles", "language": "cpp"}, answer(("c++", "int main() { return 0; }"))
    )
    assert cpp.status == "pass", cpp.reason
    in_cpp_block = answer(("cpp", VALID_KERNEL))
    assert check({"type": "compiles", "arch": "sm_90"}, in_cpp_block).status == "pass"


# --- judge ----------------------------------------------------------------------------------


class FakeJudge:
    def __init__(self, reply: str | Exception) -> None:
        self.reply = reply
        self.calls: list[tuple[str | None, list[Message]]] = []

    async def __call__(self, model: str | None, messages: list[Message]) -> str:
        self.calls.append((model, messages))
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


def test_judge_pass_builds_messages_with_rubric_task_and_output() -> None:
    judge = FakeJudge("PASS\nThe answer targets sm_90 as asked.")
    spec = {"type": "judge", "rubric": "Targets H100 (sm_90).", "model": "openai:gpt-4o-mini"}
    result = check(spec, "use -arch=sm_90", judge=judge)
    assert (result.status, result.reason) == ("pass", "judge: The answer targets sm_90 as asked.")
    ((model, messages),) = judge.calls
    assert model == "openai:gpt-4o-mini"
    assert messages[0].role == "system" and "PASS or FAIL" in messages[0].content
    user = messages[1].content
    assert "Targets H100 (sm_90)." in user and CASE.input in user and "use -arch=sm_90" in user


def test_judge_fail_default_model_and_markdown_decoration() -> None:
    judge = FakeJudge("**FAIL** - it targets sm_80.")
    result = check({"type": "judge", "rubric": "Targets H100."}, "sm_80", judge=judge)
    assert (result.status, result.reason) == ("fail", "judge: it targets sm_80.")
    assert judge.calls[0][0] is None


@pytest.mark.parametrize("reply", ["I think it passes.", "", "PASS or FAIL", "PASSED"])
def test_unparseable_judge_reply_is_an_error(reply: str) -> None:
    result = check({"type": "judge", "rubric": "r"}, "x", judge=FakeJudge(reply))
    assert result.status == "error"
    assert result.reason.startswith("unparseable judge reply")


def test_judge_call_failure_and_missing_judge() -> None:
    failing = check({"type": "judge", "rubric": "r"}, "x", judge=FakeJudge(RuntimeError("429")))
    assert (failing.status, failing.reason) == ("error", "judge call failed: RuntimeError: 429")
    result = check({"type": "judge", "rubric": "r"}, "x")
    assert (result.status, result.reason) == (
        "skipped",
        "skipped: no judge model configured (--judge-model)",
    )


def test_judge_without_model_and_without_a_default_is_skipped_not_called() -> None:
    judge = FakeJudge("PASS\nfine")
    unnamed = check({"type": "judge", "rubric": "r"}, "x", judge=judge, default_judge=False)
    assert (unnamed.status, unnamed.reason) == (
        "skipped",
        "skipped: no judge model configured (--judge-model)",
    )
    assert judge.calls == []
    named = check(
        {"type": "judge", "rubric": "r", "model": "m"}, "x", judge=judge, default_judge=False
    )
    assert named.status == "pass" and [c[0] for c in judge.calls] == ["m"]


# --- check_all, outcome_of, validate_spec, schema -------------------------------------------


def test_check_all_keeps_order_and_never_raises() -> None:
    specs: list[dict[str, Any]] = [
        {"type": "contains", "values": ["a"]},
        {"type": "bogus"},
        {"type": "regex", "pattern": "b"},
    ]
    ctx = CheckContext(case=CASE, output_tokens=1)
    results = asyncio.run(check_all(specs, "a", ctx))
    assert [(r.type, r.status) for r in results] == [
        ("contains", "pass"),
        ("bogus", "error"),
        ("regex", "fail"),
    ]
    assert outcome_of(results) == "fail"


def r(status: str) -> AssertionResult:
    return AssertionResult("x", status)  # type: ignore[arg-type]


def test_outcome_of() -> None:
    assert outcome_of([r("pass"), r("skipped")]) == "pass"
    assert outcome_of([r("pass"), r("fail")]) == "fail"
    assert outcome_of([r("pass"), r("error")]) == "fail"
    assert outcome_of([r("skipped"), r("skipped")]) == "fail"
    assert outcome_of([]) == "fail"


def test_every_declared_type_has_a_class() -> None:
    assert set(KINDS) == set(ASSERTION_TYPES)


def test_validate_spec_messages() -> None:
    assert validate_spec({"type": "contains", "values": ["a"]}) == []
    assert validate_spec({"type": "nope"})[0].startswith("unknown assertion type 'nope'")
    assert validate_spec("contains") == ["an assertion must be an object with a 'type'"]
    assert validate_spec({"type": "contains", "value": "a"}) == [
        "contains: unknown field(s) 'value'",
        "contains: 'values' is required",
    ]
    assert validate_spec({"type": "max_tokens", "value": True}) == [
        "max_tokens: 'value' must be an integer"
    ]
    assert validate_spec({"type": "toml", "paths": ["a..b"]}) == [
        "toml: 'paths': key path 'a..b' has an empty segment"
    ]
    assert validate_spec({"type": "judge", "rubric": " "}) == [
        "judge: 'rubric' must be a non-empty string"
    ]


GOOD_SPECS: list[dict[str, Any]] = [
    {"type": "contains", "values": ["a", "b"]},
    {"type": "contains", "values": "a", "case_sensitive": True},
    {"type": "contains_any", "values": ["a"]},
    {"type": "not_contains", "values": ["a"]},
    {"type": "regex", "pattern": "sm_90a?", "flags": "im", "count": 2},
    KERNEL_SPEC,
    {"type": "json"},
    {"type": "yaml", "paths": ["jobs.*.steps"]},
    {"type": "compiles", "language": "cuda", "arch": "sm_90a", "flags": ["-O3"], "timeout": 30},
    {"type": "compiles", "language": "cpp"},
    {"type": "max_tokens", "value": 1500},
    {"type": "judge", "rubric": "Mentions H100.", "model": "anthropic:claude-haiku"},
]

BAD_SPECS: list[dict[str, Any]] = [
    {"type": "contains"},
    {"type": "contains", "values": []},
    {"type": "contains", "values": ["a"], "extra": 1},
    {"type": "regex", "pattern": "a", "flags": "q"},
    {"type": "regex", "pattern": "a", "count": 0},
    {"type": "toml", "paths": "a.b"},
    {"type": "toml", "require": ["a"]},
    {"type": "compiles", "language": "rust"},
    {"type": "compiles", "arch": "hopper"},
    {"type": "compiles", "timeout": 0},
    {"type": "max_tokens"},
    {"type": "max_tokens", "value": "100"},
    {"type": "judge"},
    {"type": "judge", "rubric": "r", "model": ""},
    {"type": "unknown"},
]


def test_schema_is_valid_draft_2020_12_with_the_agreed_id() -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "https://upskill-hub.dev/schemas/assertion.schema.json"
    assert {
        d["properties"]["type"]["const"] for d in schema["$defs"].values() if "properties" in d
    } == set(ASSERTION_TYPES)


@pytest.mark.parametrize("spec", GOOD_SPECS, ids=lambda s: s["type"])
def test_schema_and_validate_spec_accept_good_specs(spec: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    assert list(validator.iter_errors(spec)) == []
    assert validate_spec(spec) == []


@pytest.mark.parametrize("spec", BAD_SPECS, ids=lambda s: s["type"])
def test_schema_and_validate_spec_reject_bad_specs(spec: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    assert list(validator.iter_errors(spec)) != []
    assert validate_spec(spec) != []
