"""A grid on Jobs, end to end against the offline stand-in: plan, shard, run, merge.

20 models x 200 cases x 10 runs x 2 arms = 80,000 samples by default, against the fake
OpenAI-compatible server with no latency (the "instant" model), through ``hub serve``'s Jobs
API: every shard is a real ``upskill-hub jobs run-shard`` process that runs the ordinary runner
and commits its samples to the artifact dataset; the client (this process) plans, publishes,
submits at most ``--max-parallel`` Jobs at a time, waits, and merges the run folder. Printed:
client wall time, the merge's time, the client's peak RSS, and the peak Python allocation of a
second merge (libraries already imported) next to the size of one shard's samples: the merge
holds one shard's lines at a time, and a small record per sample of one model for its
statistics.

    python benchmarks/jobs_grid.py [--models 20] [--cases 200] [--runs 10]
        [--shard-size 4000] [--max-parallel 2] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SKILL_MD = """---
name: bench-jobs
description: A skill for the Jobs grid benchmark.
---

The benchmark answer is BENCH-42.
"""
SERVER = """
import sys
sys.path.insert(0, sys.argv[1])
from tests.support.llm_servers import openai_server, skill_aware
responder = skill_aware('<skill name="bench-jobs">', with_skill="BENCH-42", without="no")
with openai_server(responder, latency=0.0) as srv:
    print(srv.base_url, flush=True)
    sys.stdin.read()
"""


def start(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--shard-size", type=int, default=4000)
    parser.add_argument("--max-parallel", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="upskill-hub-jobs-bench-"))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_DISABLE_XET": "1"}
    model_proc, base_url = start([sys.executable, "-c", SERVER, str(ROOT)], env)
    hub_argv = [sys.executable, "-m", "upskill_hub", "hub", "serve", "--data", str(tmp / "hub")]
    hub_argv += ["--jobs", "--token", "hf_bench_token"]  # the Jobs API answers only its holder
    hub_proc, hub_url = start(hub_argv, env)
    os.environ.update(
        {
            "HF_ENDPOINT": hub_url,
            "HF_HUB_DISABLE_XET": "1",
            "HF_TOKEN": "hf_bench_token",
            "HF_HOME": str(tmp / "hf-home"),
            "HF_HUB_DISABLE_PROGRESS_BARS": "1",
            "UPSKILL_HUB_JOBS_COMMIT_EVERY": "10",
        }
    )
    try:
        from upskill_hub.evaluation.config import EvalConfig
        from upskill_hub.evaluation.types import GenerationParams
        from upskill_hub.jobs.drive import wait_run
        from upskill_hub.jobs.merge import merge_run
        from upskill_hub.jobs.submit import JobsOptions, plan_run, publish_run
        from upskill_hub.skill import load_skill
        from upskill_hub.skill.testcases import TestCase

        folder = tmp / "bench-jobs"
        folder.mkdir()
        (folder / "SKILL.md").write_text(SKILL_MD)
        skill = load_skill(folder)
        cases = [
            TestCase(
                id=f"case-{i:04d}",
                input=f"Question {i}: what is the benchmark answer?",
                assertions=({"type": "contains", "values": ["BENCH-42"]},),
            )
            for i in range(args.cases)
        ]
        config = EvalConfig(
            models=[f"bench-model-{m:02d}" for m in range(args.models)],
            runs=args.runs,
            concurrency=args.concurrency,
            base_url=base_url,
            params=GenerationParams(max_tokens=32, timeout=30),
            retries=1,
        )
        options = JobsOptions(
            artifact_repo="local-user/bench-runs",
            install="none",
            shard_samples=args.shard_size,
            max_parallel=args.max_parallel,
            timeout="3h",
        )
        start_s = time.perf_counter()
        run_dir, plan = plan_run(skill, cases, config, options, output_root=tmp / "runs")
        publish_run(plan, run_dir, skill)
        planned_s = time.perf_counter() - start_s
        print(
            f"grid: {args.models} models x {args.cases} cases x {args.runs} runs x 2 arms = "
            f"{plan.expected} samples in {len(plan.shards)} shards "
            f"(max {max(s.samples for s in plan.shards)} samples each), "
            f"{args.max_parallel} Jobs at a time, concurrency {args.concurrency} per Job",
            flush=True,
        )
        last = [0.0]

        def on_progress(p: object) -> None:
            if time.perf_counter() - last[0] > 30:
                last[0] = time.perf_counter()
                print(f"  {p.line()}", flush=True)  # type: ignore[attr-defined]

        wait_run(plan, run_dir, {"HF_TOKEN": "hf_bench_token"}, on_progress=on_progress, poll_s=2)
        ran_s = time.perf_counter() - start_s
        merge_start = time.perf_counter()
        result = merge_run(plan, run_dir)
        merge_s = time.perf_counter() - merge_start
        wall_s = time.perf_counter() - start_s
        # the merge again, for its memory alone (the libraries it imports are loaded by now)
        tracemalloc.start()
        merge_run(plan, run_dir)
        _, merge_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        shard_of = {(s.model, c): s.id for s in plan.shards for c in s.case_ids}
        sizes: dict[str, int] = {}
        with (run_dir / "samples.jsonl").open(encoding="utf-8") as handle:
            for line in handle:
                data = json.loads(line)
                shard = shard_of[(data["model"], data["case_id"])]
                sizes[shard] = sizes.get(shard, 0) + len(line.encode("utf-8"))
        shard_bytes = max(sizes.values())
        failed = [s.id for s in plan.shards if s.state != "completed"]
        print(
            f"samples merged: {result.expected - result.missing} of {result.expected}, "
            f"{result.errors} errors, failed shards: {failed or 'none'}"
        )
        print(f"plan + publish:   {planned_s:.1f} s")
        print(
            f"Jobs (run):       {ran_s - planned_s:.1f} s "
            f"({plan.expected / (ran_s - planned_s):.0f} samples/s)"
        )
        print(f"merge:            {merge_s:.1f} s")
        print(f"client wall time: {wall_s:.1f} s")
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"client peak RSS:  {rss_mb:.0f} MB")
        print(
            f"merge peak Python allocation (a second merge): {merge_peak / 1e6:.1f} MB "
            f"(one shard's samples.jsonl: {shard_bytes / 1e6:.1f} MB; "
            f"samples.jsonl: {(run_dir / 'samples.jsonl').stat().st_size / 1e6:.0f} MB)"
        )
        return 0 if not failed and result.missing == 0 else 1
    finally:
        for proc in (hub_proc, model_proc):
            assert proc.stdin is not None
            proc.stdin.close()
        hub_proc.terminate()
        for proc in (hub_proc, model_proc):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    sys.exit(main())
