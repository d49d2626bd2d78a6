"""The bundled kernel-builder skill: spec-valid, and every test case is fair.

Each case in ``skills/kernel-builder-cuda-kernels/skill_meta.json`` has a reference answer in
``tests/fixtures/kernel_builder_answers/<case-id>.md`` that must pass all its assertions, and some
have a plausible-but-wrong answer in ``.../wrong/<case-id>.md`` that must fail. ``compiles``
assertions need nvcc (they are ``skipped`` without it, which the fixtures tolerate only where a
pass is expected and other checks still ran); ``judge`` assertions are skipped without a judge.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from upskill_hub.evaluation.assertions import CheckContext, check_all, outcome_of, validate_spec
from upskill_hub.evaluation.fenced import extract_blocks
from upskill_hub.skill import load_skill, validate_skill
from upskill_hub.skill.testcases import TestCase

ROOT = Path(__file__).resolve().parent.parent
SKILL_DIR = ROOT / "skills" / "kernel-builder-cuda-kernels"
ANSWERS = ROOT / "tests" / "fixtures" / "kernel_builder_answers"
WRONG = ANSWERS / "wrong"
HAS_NVCC = shutil.which("nvcc") is not None

SKILL = load_skill(SKILL_DIR)
CASES: dict[str, TestCase] = {case.id: case for case in SKILL.tests}
WRONG_IDS = sorted(p.stem for p in WRONG.glob("*.md"))


def grade(case: TestCase, answer: str) -> tuple[str, list]:
    ctx = CheckContext(case=case, output_tokens=len(answer.split()))
    results = asyncio.run(check_all(case.assertions, answer, ctx))
    return outcome_of(results), results


def describe(results: list) -> str:
    return "\n".join(f"  {r.type}: {r.status} - {r.reason}" for r in results)


# --- the skill folder ---------------------------------------------------------------------


def test_frontmatter_follows_the_spec() -> None:
    fm = SKILL.frontmatter
    assert set(fm) <= {"name", "description", "license", "compatibility", "metadata"}
    assert SKILL.name == "kernel-builder-cuda-kernels" == SKILL_DIR.name
    assert 1 <= len(fm["description"]) <= 1024
    assert "use when" in fm["description"].lower()
    assert fm["license"] == "Apache-2.0"
    assert 1 <= len(fm["compatibility"]) <= 500
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in fm["metadata"].items())


def test_skill_validates_without_errors() -> None:
    report = validate_skill(SKILL_DIR)
    assert not report.errors, [f"{f.rule}: {f.message}" for f in report.errors]


def test_body_is_concise() -> None:
    assert len(SKILL.body.splitlines()) < 500
    assert len(SKILL.body) / 4 < 5000 * 0.8  # well under 5000 tokens at ~4 chars per token


def test_every_referenced_file_exists_one_level_deep() -> None:
    links = re.findall(r"\]\(([^)#\s]+)\)", SKILL.body)
    local = [link for link in links if "://" not in link]
    assert local, "SKILL.md should link its references"
    for link in local:
        assert not link.startswith(("/", "..")), link
        assert link.count("/") <= 1, f"{link}: references must be one level deep"
        assert (SKILL_DIR / link).is_file(), f"{link} does not exist"
    for rel in SKILL.files:
        assert not rel.startswith("scripts/") or not (SKILL_DIR / rel).stat().st_mode & 0o111


def test_build_toml_examples_use_the_current_format() -> None:
    texts = {
        "SKILL.md": SKILL.body,
        "assets/build.toml": "```toml\n"
        + (SKILL_DIR / "assets" / "build.toml").read_text(encoding="utf-8")
        + "```\n",
    }
    texts.update(
        {
            f"references/{p.name}": p.read_text(encoding="utf-8")
            for p in (SKILL_DIR / "references").glob("*.md")
        }
    )
    checked = 0
    for where, text in texts.items():
        for block in extract_blocks(text):
            if block.lang != "toml":
                continue
            data = tomllib.loads(block.code)
            assert data["general"]["edition"] == 5, where
            assert "capabilities" not in data["general"].get("cuda", {}), where
            for name, kernel in data.get("kernel", {}).items():
                assert {"backend", "depends", "src"} <= set(kernel), f"{where}: kernel.{name}"
            checked += 1
    assert checked >= 3


@pytest.mark.slow
@pytest.mark.skipif(not HAS_NVCC, reason="nvcc not installed")
def test_standalone_cuda_snippets_in_references_compile() -> None:
    """The torch-free ```cuda blocks of h100-optimization.md compile for sm_90."""
    from upskill_hub.evaluation.assertions.compiles import Compiles

    text = (SKILL_DIR / "references" / "h100-optimization.md").read_text(encoding="utf-8")
    blocks = [b for b in extract_blocks(text) if b.lang == "cuda"]
    assert blocks
    dummy = TestCase(id="snippet", input="x", assertions=({"type": "contains", "values": ["x"]},))
    for block in blocks:
        code = "#include <cuda_runtime.h>\n#include <cstdint>\n" + block.code
        if "my_kernel" in code:  # the launch fragment: wrap it in a host function
            code = (
                "#include <cuda_runtime.h>\n__global__ void my_kernel(int args) {}\n"
                "void launch(dim3 grid, dim3 block, cudaStream_t stream, int args) {\n"
                + block.code
                + "}\n"
            )
        answer = f"```cuda\n{code}```\n"
        result = asyncio.run(
            Compiles({"type": "compiles", "arch": "sm_90"}).check(
                answer, CheckContext(case=dummy, output_tokens=1)
            )
        )
        assert result.status == "pass", f"line {block.start_line}: {result.reason}"


# --- the test cases -----------------------------------------------------------------------


def test_suite_shape() -> None:
    assert len(CASES) >= 14
    assert SKILL.suite is not None
    assert SKILL.suite.metadata["version"] == "1.0.0"
    assert SKILL.suite.metadata["license"] == "Apache-2.0"
    kinds = {a["type"] for case in CASES.values() for a in case.assertions}
    assert {"toml", "regex", "compiles", "max_tokens", "not_contains", "contains"} <= kinds
    judges = [c for c in CASES.values() if any(a["type"] == "judge" for a in c.assertions)]
    assert len(judges) <= 2
    for case in CASES.values():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", case.id), case.id
        for spec in case.assertions:
            assert validate_spec(spec) == [], (case.id, spec)
        # A judge-only case would be unchecked without a judge model.
        assert any(a["type"] != "judge" for a in case.assertions), case.id


def test_some_cases_are_plain_contains() -> None:
    """Cases whose only checks are `contains` translate to upskill 0.2.1's format."""
    plain = [c for c in CASES.values() if {a["type"] for a in c.assertions} == {"contains"}]
    assert len(plain) >= 3


def test_every_case_has_a_reference_answer() -> None:
    answers = {p.stem for p in ANSWERS.glob("*.md")}
    assert answers == set(CASES), (sorted(set(CASES) - answers), sorted(answers - set(CASES)))
    assert len(WRONG_IDS) >= 5
    assert set(WRONG_IDS) <= set(CASES)


@pytest.mark.slow
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_reference_answer_passes(case_id: str) -> None:
    case = CASES[case_id]
    answer = (ANSWERS / f"{case_id}.md").read_text(encoding="utf-8")
    outcome, results = grade(case, answer)
    assert outcome == "pass", f"{case_id}:\n{describe(results)}"
    for result in results:
        if result.type == "judge":
            assert result.status == "skipped"  # no judge model in tests
        elif result.type == "compiles" and not HAS_NVCC:
            assert result.status == "skipped"
        else:
            assert result.status == "pass", f"{case_id}:\n{describe(results)}"


@pytest.mark.slow
@pytest.mark.parametrize("case_id", WRONG_IDS)
def test_wrong_answer_fails(case_id: str) -> None:
    case = CASES[case_id]
    answer = (WRONG / f"{case_id}.md").read_text(encoding="utf-8")
    outcome, results = grade(case, answer)
    assert outcome == "fail", f"{case_id} wrong answer passed:\n{describe(results)}"
    # It must fail on a check that runs everywhere, not only because nvcc is present.
    portable = [r for r in results if r.type not in ("compiles", "judge")]
    assert any(r.status == "fail" for r in portable), f"{case_id}:\n{describe(results)}"


@pytest.mark.slow
@pytest.mark.skipif(not HAS_NVCC, reason="nvcc not installed")
@pytest.mark.parametrize("case_id", ["hopper-guard-cluster", "dynamic-smem-160kb-launch"])
def test_wrong_cuda_answers_do_not_compile(case_id: str) -> None:
    case = CASES[case_id]
    answer = (WRONG / f"{case_id}.md").read_text(encoding="utf-8")
    _, results = grade(case, answer)
    assert any(r.type == "compiles" and r.status == "fail" for r in results), describe(results)


def test_trigger_queries_are_half_near_misses() -> None:
    from upskill_hub.evaluation.triggers.queries import read_queries

    queries = read_queries(SKILL_DIR / "evals" / "eval_queries.json")
    assert len(queries) >= 16
    negatives = [q for q in queries if not q.should_trigger]
    assert len(negatives) >= len(queries) // 2
    assert any("CUDA" in q.query and "kernel-builder" not in q.query for q in negatives)
    assert any("kernel-builder" in q.query for q in negatives)
    assert len({q.query for q in queries}) == len(queries)
