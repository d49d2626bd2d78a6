"""Runner throughput: N requests at concurrency K against a server with fixed latency.

Ideal wall time = N / K * latency (400 / 16 * 0.1 s = 2.5 s); the goal is a ratio <= 1.3. The
whole runner path is measured: prompts, provider (openai SDK over real HTTP on 127.0.0.1),
retries wrapper, assertions, samples.jsonl with fsync per sample, summary.json. The fake
OpenAI-compatible server (tests/support/llm_servers.py) runs in a child process, as a real server
would, so its CPU does not count against the runner; a second pass replaces the SDK and HTTP with
an in-process provider that only sleeps, to show the runner's own overhead.

    python benchmarks/runner_concurrency.py [--requests 400] [--concurrency 16] [--latency 0.1]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from upskill_hub.evaluation.config import EvalConfig  # noqa: E402
from upskill_hub.evaluation.eval_result import EvalResult  # noqa: E402
from upskill_hub.evaluation.providers.base import Provider  # noqa: E402
from upskill_hub.evaluation.runner import evaluate  # noqa: E402
from upskill_hub.evaluation.types import (  # noqa: E402
    Completion,
    GenerationParams,
    Message,
    Usage,
)
from upskill_hub.skill import load_skill  # noqa: E402
from upskill_hub.skill.testcases import TestCase  # noqa: E402

SKILL_MD = """---
name: bench-skill
description: A skill for the runner benchmark.
---

The benchmark answer is BENCH-42.
"""


SERVER = """
import sys
sys.path.insert(0, sys.argv[1])
from tests.support.llm_servers import openai_server, skill_aware
responder = skill_aware('<skill name="bench-skill">', with_skill="BENCH-42", without="no")
with openai_server(responder, latency=float(sys.argv[2])) as srv:
    print(srv.base_url, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
"""


@contextmanager
def server_process(latency: float) -> Iterator[str]:
    """The fake OpenAI-compatible server in a child process; yields its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(ROOT), str(latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=15)


class SleepProvider(Provider):
    """No SDK, no HTTP: answers after ``latency`` seconds, as the fake server would."""

    def __init__(self, latency: float) -> None:
        self.model_id = "sleep-model"
        self.latency = latency

    async def complete(self, messages: Sequence[Message], params: GenerationParams) -> Completion:
        await asyncio.sleep(self.latency)
        text = "BENCH-42" if '<skill name="bench-skill">' in messages[0].content else "no"
        return Completion(text=text, usage=Usage(10, 1), latency_s=self.latency)


def report(label: str, result: EvalResult, wall: float, args: argparse.Namespace) -> float:
    total = len(result.samples)
    ideal = total / args.concurrency * args.latency
    ratio = wall / ideal if ideal else float("inf")
    print(f"{label}")
    print(f"  requests:   {total} ({result.errors} errors), lift {result.stats[0].lift}")
    print(f"  wall time:  {wall:.2f} s (ideal {ideal:.2f} s)")
    print(f"  ratio:      {ratio:.2f} (goal <= {args.goal})")
    print(f"  throughput: {total / wall:.1f} requests/s")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--requests", type=int, default=400, help="even: two arms per case")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.1, help="server latency, seconds")
    parser.add_argument("--goal", type=float, default=1.3, help="max wall / ideal ratio")
    args = parser.parse_args()

    import openai  # noqa: F401  - the SDK import (~1 s) is not the runner's throughput

    cases = [
        TestCase(
            id=f"case-{i:04d}",
            input=f"Question {i}: what is the benchmark answer?",
            assertions=({"type": "contains", "values": ["BENCH-42"]},),
        )
        for i in range(args.requests // 2)
    ]
    print(f"{args.requests} requests, concurrency {args.concurrency}, latency {args.latency}s")
    with tempfile.TemporaryDirectory() as tmp, server_process(args.latency) as base_url:
        folder = Path(tmp) / "bench-skill"
        folder.mkdir()
        (folder / "SKILL.md").write_text(SKILL_MD)
        skill = load_skill(folder)
        config = EvalConfig(
            models=["bench-model"],
            concurrency=args.concurrency,
            base_url=base_url,
            params=GenerationParams(max_tokens=32, timeout=30),
        )
        start = time.perf_counter()
        result = evaluate(skill, cases, config, output_root=Path(tmp) / "runs", write_chart=False)
        ratio = report("openai SDK -> local server:", result, time.perf_counter() - start, args)

        sleep_config = EvalConfig(
            models=["sleep-model"], concurrency=args.concurrency, params=config.params
        )
        start = time.perf_counter()
        alone = evaluate(
            skill,
            cases,
            sleep_config,
            output_root=Path(tmp) / "runs",
            providers={"sleep-model": SleepProvider(args.latency)},
            write_chart=False,
        )
        report("runner alone (sleeping provider):", alone, time.perf_counter() - start, args)
    return 0 if ratio <= args.goal and result.errors == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
