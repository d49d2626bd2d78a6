"""Run folders built by hand, in the layout ``upskill_hub.evaluation.run.folder`` documents.

The content is realistic (two models, three cases, two runs, both arms, contains/regex
assertions, one errored request) but needs no live model: the answers are scripted (one that
meets every check, or one that meets none), graded by the evaluation's own assertions, and
summary.json and lift.png come from its own statistics and chart code, so every run folder
made here verifies (``results verify``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shlex
from pathlib import Path

from upskill_hub.atomic_io import atomic_write_bytes
from upskill_hub.evaluation.assertions import CheckContext, check_all, outcome_of
from upskill_hub.evaluation.report.chart import render_lift_chart
from upskill_hub.evaluation.run.folder import FORMAT_VERSION, RunFolder
from upskill_hub.evaluation.stats.summarize import STATS_VERSION, summarize
from upskill_hub.evaluation.types import Sample
from upskill_hub.skill.testcases import TestCase


def _write_json(path: Path, data: dict[str, object]) -> None:
    """A run folder file as eval writes it (the bytes on disk, not through the records)."""
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


MODELS = ("openai:gpt-4.1-mini", "anthropic:claude-haiku-4-5")
CASES = (
    TestCase(
        id="build-toml",
        input="Write the build.toml for a CUDA kernel named relu targeting H100.",
        assertions=(
            {"type": "contains", "values": ["[general]", "edition = 5"]},
            {"type": "regex", "pattern": 'cuda-capabilities\\s*=\\s*\\["9.0"\\]'},
        ),
    ),
    TestCase(
        id="arch-guard",
        input="How do I guard Hopper-only code in a .cu file?",
        assertions=({"type": "contains", "values": ["__CUDA_ARCH__ >= 900"]},),
    ),
    TestCase(
        id="smem",
        input="How much shared memory per block can an H100 kernel use?",
        files={"notes.md": "We launch 256 threads per block."},
        assertions=({"type": "contains", "values": ["227"]},),
    ),
)
SKILL_ANSWER = (
    '```toml\n[general]\nname = "relu"\nversion = 1\nedition = 5\nbackends = ["cuda"]\n\n'
    '[kernel.relu]\nbackend = "cuda"\ndepends = ["torch"]\nsrc = ["relu_cuda/relu.cu"]\n'
    'cuda-capabilities = ["9.0"]\n```\nGuard with `#if defined(__CUDA_ARCH__) && '
    "__CUDA_ARCH__ >= 900`; up to 227 KB of shared memory per block."
)
BASELINE_ANSWER = "Use a setup.py with CUDAExtension and compile with -arch=sm_80."


def _passes(model: str, case: TestCase, run: int, arm: str, skill_fails: tuple[str, ...]) -> bool:
    if arm == "with_skill" and case.id in skill_fails:
        return False
    if arm == "with_skill":
        return not (model == MODELS[1] and case.id == "smem" and run == 2)
    return case.id == "arch-guard" and (model == MODELS[0] or run == 1)


def _sample(
    model: str, case: TestCase, run: int, arm: str, output: str | None, skill_fails: tuple[str, ...]
) -> Sample:
    if model == MODELS[1] and case.id == "build-toml" and run == 2 and arm == "baseline":
        return Sample(
            model,
            case.id,
            run,
            "baseline",
            f"ph-{case.id}-{arm}",
            "error",
            error="anthropic:claude-haiku-4-5: the API answered 529 (overloaded) after 4 attempts",
            attempts=4,
            finished_at="2026-11-22T01:31:40Z",
        )
    passed = _passes(model, case, run, arm, skill_fails)
    # the answer given, else one that meets every check of the case, or one that meets none
    text = output if output is not None else SKILL_ANSWER if passed else BASELINE_ANSWER
    tokens = 188 if arm == "baseline" else 141
    results = asyncio.run(check_all(case.assertions, text, CheckContext(case, tokens)))
    return Sample(
        model=model,
        case_id=case.id,
        run=run,
        arm=arm,  # type: ignore[arg-type]
        prompt_hash=hashlib.sha256(f"{case.id}/{arm}".encode()).hexdigest(),
        outcome=outcome_of(results),
        output=text,
        assertions=results,
        input_tokens=412 if arm == "baseline" else 1630,
        output_tokens=tokens,
        latency_s=1.25 if arm == "baseline" else 1.6,
        finished_at=f"2026-11-22T01:31:0{run}Z",
    )


def make_run_folder(
    root: Path,
    run_id: str = "20261122-013045-kernel-builder-ab12cd",
    *,
    repo_id: str | None = "local-user/kernel-builder",
    revision: str | None = "0123456789abcdef0123456789abcdef01234567",
    started_at: str = "2026-11-22T01:30:45Z",
    output: str | None = None,
    chart: bool = True,
    skill_fails: tuple[str, ...] = (),
    custom_tests: bool | None = True,
    license: str | None = None,
    models: tuple[str, ...] = MODELS,
    cases: tuple[TestCase, ...] = CASES,
) -> Path:
    """Write a complete run folder ``root/run_id`` and return its path.

    ``output`` replaces every answer; ``skill_fails`` names cases the with-skill arm fails;
    ``models`` and ``cases`` default to all of them; ``custom_tests`` says whether the run used
    its own cases (``--tests``; None: a run.json from before the ``custom_tests`` field, with
    ``--tests``); ``license`` is the skill's.
    """
    folder = RunFolder(root / run_id)
    folder.path.mkdir(parents=True)
    ref = f"{repo_id}@{revision}" if repo_id else str(root / "kernel-builder")
    argv = ["upskill-hub", "eval", ref]
    for model in models:
        argv += ["--model", model]
    argv += ["--runs", "2"]
    if custom_tests is not False:
        argv += ["--tests", str(folder.tests_file)]
    argv += ["--temperature", "0"]
    argv += ["--max-tokens", "1024", "--seed", "7"]
    _write_json(
        folder.run_file,
        {
            "format": FORMAT_VERSION,
            "stats_version": STATS_VERSION,
            "run_id": run_id,
            "tool": {"name": "upskill-hub", "version": "0.1.0"},
            "skill": {
                "name": "kernel-builder",
                "path": str(root / "kernel-builder"),
                "repo_id": repo_id,
                "revision": revision,
                "skill_md_sha256": "9" * 64,
                "ref": ref,
                "source": "hub" if repo_id else "local",
                "license": license,
            },
            **({} if custom_tests is None else {"custom_tests": custom_tests}),
            "models": list(models),
            "model_specs": list(models),
            "runs": 2,
            "arms": ["baseline", "with_skill"],
            "case_ids": [c.id for c in cases],
            "params": {"temperature": 0.0, "max_tokens": 1024, "seed": 7, "timeout": 120.0},
            "retries": 3,
            "concurrency": 4,
            "base_url": None,
            "judge_model": None,
            "started_at": started_at,
            "finished_at": started_at[:-3] + "59Z",
            "status": "complete",
            "sessions": [{"started_at": started_at, "finished_at": started_at, "samples": 24}],
            "reproduce": shlex.join(argv),
            "resume": shlex.join(["upskill-hub", "eval", ref, "--resume", str(folder.path)]),
        },
    )
    folder.write_tests(list(cases), {"generated_by": "hand"})
    samples = [
        _sample(m, c, r, arm, output, skill_fails)
        for m in models
        for c in cases
        for r in (1, 2)
        for arm in ("baseline", "with_skill")
    ]
    folder.samples_file.write_text(
        "".join(json.dumps(s.to_dict()) + "\n" for s in samples), encoding="utf-8"
    )
    stats = [m.to_dict(extended=True) for m in summarize(samples)]
    _write_json(
        folder.summary_file,
        {
            "format": FORMAT_VERSION,
            "stats_version": STATS_VERSION,
            "run_id": run_id,
            "skill": "kernel-builder",
            "revision": revision,
            "run_dir": str(folder.path),
            "complete": False,
            "cancelled": False,
            "samples": len(samples),
            "expected_samples": len(samples),
            "errors": sum(s.outcome == "error" for s in samples),
            "skipped_assertions": 0,
            "generated_at": started_at,
            "models": stats,
        },
    )
    if chart:
        atomic_write_bytes(folder.chart_file, render_lift_chart(stats))
    return folder.path
