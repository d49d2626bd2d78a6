"""Benchmark: ``info`` on a skill with 10 published runs of 200 cases x 10 runs x 3 models,
before (figures not checked) and after (checked against the published samples, verdicts cached
per dataset commit).

Runs the project's local Hub server in-process (requests counted), pushes one skill whose
``skill_meta.json`` holds 200 cases (``contains`` / ``regex`` checks), writes 10 run folders of
12,000 samples each (answers generated from a seeded random draw, graded by the real assertion
code, so the runs are honest; summary.json from the evaluation's own statistics) and publishes
each with ``results push --update-skill-card`` (the real ``datasets`` writer). Then, per mode,
in a fresh process so its peak RSS is its own:

1. cold: an empty HF cache (no hub files, no datasets cache, no cached verdicts), one ``info``;
2. warm: a new process, ``info`` again with those caches on disk;

repeated ``--repeat`` times, printing medians of the ``info`` call's wall time (inside the
process: imports of ``datasets`` included, interpreter start-up not), the process's peak RSS
(``ru_maxrss``) and the file downloads the server saw. ``info`` checks only the runs it shows
(the closest per model: here the newest, which measured all three models); the other nine are
listed in the card and not read.

    python benchmarks/info_evidence.py [--runs 10] [--cases 200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.install_locked import (  # noqa: E402
    Requests,
    counting_hub,
    local_hub_environment,
)
from tests.support.honest_runs import contains_case, write_run_folder  # noqa: E402

MODELS = ("openai:gpt-4.1-mini", "anthropic:claude-haiku-4-5", "vllm:qwen3-8b")
REPEATS = 10
RATES = {"baseline": 0.35, "with_skill": 0.7}


def _setup(work: Path, runs: int, n_cases: int) -> str:
    from upskill_hub.publish.results_dataset import push_results
    from upskill_hub.registry.push import push_skills
    from upskill_hub.skill.testcases import TestSuite, dump_suite

    name = "bench-evidence"
    folder = work / "src" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Picks CUDA block sizes (benchmark skill).\n---\n"
        f"# {name}\n\nName the block and the thread count.\n",
        encoding="utf-8",
    )
    cases = [contains_case(f"case-{i:03d}", f"Block size for kernel {i}?") for i in range(n_cases)]
    (folder / "skill_meta.json").write_text(dump_suite(TestSuite(cases, {})), encoding="utf-8")
    repo_id = f"local-user/{name}"
    commit = str(push_skills(folder, repo_id=repo_id).commit)
    for i in range(runs):
        started = time.perf_counter()
        run = write_run_folder(
            work / "runs",
            f"20261126-0{i:02d}000-{name}-{i:06x}",
            repo_id=repo_id,
            revision=commit,
            cases=cases,
            models=MODELS,
            runs=REPEATS,
            rates=RATES,
            seed=i,
            started_at=f"2026-11-26T{i:02d}:00:00Z",
        )
        push_results(run, f"{repo_id}-results", update_skill_card=True)
        print(f"setup: published run {i + 1}/{runs} in {time.perf_counter() - started:.1f}s")
    return repo_id


def _measure(spec: str, mode: str) -> None:
    """In a child process: one ``info``, as one JSON line (seconds, levels, peak RSS)."""
    from upskill_hub.publish.readers import info
    from upskill_hub.registry.search import info as unchecked

    started = time.perf_counter()
    result = info(spec) if mode == "after" else unchecked(spec)
    seconds = time.perf_counter() - started
    levels = sorted(
        {m.verification for s in result.skills if s.evidence for m in s.evidence.models}
    )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "levels": levels, "rss_mb": rss}))


def _child(spec: str, mode: str, hf_home: Path, *, cold: bool) -> dict[str, Any]:
    if cold:
        shutil.rmtree(hf_home, ignore_errors=True)  # no hub files, datasets or verdicts
    env = dict(os.environ, HF_HOME=str(hf_home), PYTHONPATH=str(ROOT))
    env.pop("HF_DATASETS_CACHE", None)
    done = subprocess.run(
        [sys.executable, __file__, "--child", spec, mode],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"child failed:\n{done.stderr[-2000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", nargs=2, metavar=("SPEC", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _measure(*args.child)
        return 0

    work = Path(tempfile.mkdtemp(prefix="upskill-bench-"))
    port = local_hub_environment(work)
    seen = Requests()
    try:
        with counting_hub(work / "hub-data", port, seen):
            spec = _setup(work, args.runs, args.cases)
            print(
                f"skill {spec}: {args.runs} published runs of {args.cases} cases x {REPEATS} runs"
                f" x {len(MODELS)} models (x 2 arms: {args.cases * REPEATS * len(MODELS) * 2:,}"
                " samples each)"
            )
            for mode in ("before", "after"):
                rows: dict[str, list[dict[str, Any]]] = {"cold": [], "warm": []}
                for _ in range(args.repeat):
                    for phase in ("cold", "warm"):
                        seen.take()
                        row = _child(spec, mode, work / f"hf-{mode}", cold=phase == "cold")
                        row["downloads"] = seen.take()["download"]
                        rows[phase].append(row)
                parts = []
                for phase, measured in rows.items():
                    seconds = statistics.median(r["seconds"] for r in measured)
                    rss = statistics.median(r["rss_mb"] for r in measured)
                    downloads = statistics.median(r["downloads"] for r in measured)
                    parts.append(
                        f"{phase} {seconds:.2f}s, peak RSS {rss:.0f} MB, "
                        f"{downloads:.0f} file downloads"
                    )
                label = "checked" if mode == "after" else "not checked"
                print(
                    f"{mode:<6} ({label}; medians of {args.repeat}): "
                    + "; ".join(parts)
                    + f"; levels shown {rows['warm'][0]['levels']}"
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
