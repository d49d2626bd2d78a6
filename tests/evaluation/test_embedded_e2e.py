"""End to end on the embedded model: the Quickstart's eval, shrunk to two cases, for real.

SmolLM2-135M wanders, so this asserts structure (every sample graded, token counts from
llama.cpp, a summary with intervals and a verdict), not knowledge.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import REPO, run_cli
from upskill_hub.skill.testcases import TestSuite, read_suite, write_suite

SKILL = REPO / "skills" / "kernel-builder-cuda-kernels"


@pytest.mark.slow
def test_quickstart_eval_on_the_embedded_model(tmp_path: Path) -> None:
    by_id = {case.id: case for case in read_suite(SKILL / "skill_meta.json").cases}
    cases = [by_id["h100-capability-string"], by_id["build-toml-h100-only"]]
    tests = tmp_path / "tests.json"
    write_suite(tests, TestSuite(cases))

    result = run_cli(
        "eval",
        str(SKILL),
        "--model",
        "local",
        "--tests",
        str(tests),
        "--max-tokens",
        "48",
        "--output",
        str(tmp_path / "runs"),
        "--format",
        "json",
        timeout=600,
        env={"HF_HUB_OFFLINE": "1"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    (model,) = report["models"]
    assert model["model"] == "local"
    assert model["cases"] == 2 and model["runs"] == 1
    for arm in ("baseline", "with_skill"):
        stats = model[arm]
        assert stats["total"] + stats["errors"] == 2
        assert stats["errors"] == 0
        lo, hi = stats["ci95"]
        assert 0.0 <= lo <= hi <= 1.0
        assert stats["tokens"]["output"] > 0
    # the skill is in the with-skill prompt only: far more input tokens there
    assert model["with_skill"]["tokens"]["input"] > model["baseline"]["tokens"]["input"] + 1000
    assert model["verdict"].startswith(("helps", "hurts", "no measurable effect", "too few cases"))

    run_dir = Path(report["run_dir"])
    samples = [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == 4
    assert {s["arm"] for s in samples} == {"baseline", "with_skill"}
    assert all(s["outcome"] in ("pass", "fail") and s["assertions"] for s in samples)
    assert all(0 < s["output_tokens"] <= 48 for s in samples)
    assert (run_dir / "summary.json").is_file() and (run_dir / "lift.png").stat().st_size > 1000


def test_embedded_model_alone_gets_a_shorter_default_reply_limit() -> None:
    from upskill_hub.evaluation.config import EMBEDDED_MAX_TOKENS, default_max_tokens

    assert default_max_tokens(["local"]) == EMBEDDED_MAX_TOKENS == 384
    assert default_max_tokens(["local", "openai:gpt-x"]) == 1024
    assert default_max_tokens(["haiku"]) == 1024
