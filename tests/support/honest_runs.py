"""Honest run folders of any size: answers drawn from a seeded random generator, graded by the
real assertion code (judge checks, which need a model, get the verdict the draw chose), and
summary.json from the evaluation's own statistics; so the published samples re-grade to the
published figures. Used by the reader tests and ``benchmarks/info_evidence.py``.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from upskill_hub.evaluation.assertions import check_all, outcome_of
from upskill_hub.evaluation.assertions.base import CheckContext
from upskill_hub.evaluation.run.folder import FORMAT_VERSION, RunFolder
from upskill_hub.evaluation.stats.summarize import STATS_VERSION, summarize
from upskill_hub.evaluation.types import AssertionResult, Sample
from upskill_hub.skill.testcases import TestCase

GOOD = "The answer: {needle}, with threads = 256 over the rows."
BAD = "Pick what fits; start small and measure."


def needle(case: TestCase) -> str:
    """The text a passing answer to ``case`` holds (``contains`` checks ask for it)."""
    return f"token-{case.id}"


def contains_case(case_id: str, text: str) -> TestCase:
    """A case checked by ``contains`` (its needle) and a ``regex``: re-gradable offline."""
    return TestCase(
        id=case_id,
        input=text,
        assertions=(
            {"type": "contains", "values": [f"token-{case_id}"]},
            {"type": "regex", "pattern": r"threads\s*=\s*\d+"},
        ),
    )


def judged_case(case_id: str, text: str) -> TestCase:
    """A case graded by a judge model only: not re-gradable offline."""
    return TestCase(
        id=case_id, input=text, assertions=({"type": "judge", "rubric": "names the block size"},)
    )


def graded(case: TestCase, good: bool) -> tuple[str, list[AssertionResult], str]:
    """An answer to ``case`` that passes (``good``) or fails, and what the checks say of it."""
    text = GOOD.format(needle=needle(case)) if good else BAD
    judged = [s for s in case.assertions if s.get("type") == "judge"]
    results = [
        AssertionResult("judge", "pass" if good else "fail", "judge: " + ("met" if good else "not"))
        for _ in judged
    ]
    others = [s for s in case.assertions if s.get("type") != "judge"]
    if others:
        results += asyncio.run(check_all(others, text, CheckContext(case, 20)))
    return text, results, outcome_of(results)


def write_run_folder(
    root: Path,
    run_id: str,
    *,
    repo_id: str,
    revision: str,
    cases: Sequence[TestCase],
    models: Sequence[str],
    runs: int,
    rates: dict[str, float],
    seed: int = 0,
    started_at: str = "2026-11-26T00:00:00Z",
) -> Path:
    """A complete run folder ``root/run_id``: every (model, case, run, arm) answered, passing
    with probability ``rates[arm]``."""
    folder = RunFolder(root / run_id)
    folder.path.mkdir(parents=True)
    name = repo_id.split("/")[1]
    ref = f"{repo_id}@{revision}"
    info: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "stats_version": STATS_VERSION,
        "run_id": run_id,
        "tool": {"name": "upskill-hub", "version": "0.1.0"},
        "skill": {
            "name": name,
            "path": str(root / name),
            "repo_id": repo_id,
            "revision": revision,
            "skill_md_sha256": "9" * 64,
            "ref": ref,
            "source": "hub",
            "license": None,
        },
        "custom_tests": False,
        "models": list(models),
        "model_specs": list(models),
        "runs": runs,
        "arms": ["baseline", "with_skill"],
        "case_ids": [c.id for c in cases],
        "params": {"temperature": 0.0, "max_tokens": 1024, "seed": 7, "timeout": 120.0},
        "retries": 3,
        "concurrency": 4,
        "base_url": None,
        "judge_model": "openai:gpt-4.1" if _judged(cases) else None,
        "started_at": started_at,
        "finished_at": started_at[:-3] + "59Z",
        "status": "complete",
        "sessions": [{"started_at": started_at, "finished_at": started_at, "samples": 0}],
        "reproduce": f"upskill-hub eval {ref}",
        "resume": f"upskill-hub eval {ref} --resume {folder.path}",
    }
    folder.write_tests(list(cases), {"generated_by": "hand"})
    answers = {(c.id, good): graded(c, good) for c in cases for good in (True, False)}
    draw = random.Random(seed)
    samples = []
    for model in models:
        for case in cases:
            for run in range(1, runs + 1):
                for arm in ("baseline", "with_skill"):
                    text, results, outcome = answers[(case.id, draw.random() < rates[arm])]
                    samples.append(
                        Sample(
                            model=model,
                            case_id=case.id,
                            run=run,
                            arm=arm,  # type: ignore[arg-type]
                            prompt_hash=f"{case.id}/{arm}",
                            outcome=outcome,  # type: ignore[arg-type]
                            output=text,
                            assertions=list(results),
                            input_tokens=400 if arm == "baseline" else 1600,
                            output_tokens=20,
                            latency_s=1.0,
                            finished_at=started_at,
                        )
                    )
    info["sessions"][0]["samples"] = len(samples)
    folder.run_file.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    folder.samples_file.write_text(
        "".join(json.dumps(s.to_dict()) + "\n" for s in samples), encoding="utf-8"
    )
    summary = {
        "format": FORMAT_VERSION,
        "stats_version": STATS_VERSION,
        "run_id": run_id,
        "skill": name,
        "revision": revision,
        "run_dir": str(folder.path),
        "complete": True,
        "cancelled": False,
        "samples": len(samples),
        "expected_samples": len(samples),
        "errors": 0,
        "skipped_assertions": 0,
        "generated_at": started_at,
        "models": [m.to_dict(extended=True) for m in summarize(samples)],
    }
    folder.summary_file.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return folder.path


def _judged(cases: Sequence[TestCase]) -> bool:
    return any(s.get("type") == "judge" for c in cases for s in c.assertions)
