"""Runner memory: peak RSS of an eval as the number of samples grows, and of a resume.

Each size runs in its own child process (peak RSS is per process) against an in-process
provider that answers at once with a ~4 KB output: 4 models x 50 cases x R runs x 2 arms,
concurrency 16 per model, the whole runner path (prompts, redaction, assertions, samples.jsonl
with group commit, summary.json, benchmark.json). It prints the peak RSS, the growth over the
RSS before the run started, and the wall time. The goal is a peak flat in the number of
samples (the outputs stay on disk; memory holds running tallies, a few bytes per sample).

Then a resume of the largest run folder, twice: with nothing to drop (no request is sent; the
file must not be rewritten: same inode and mtime) and after tearing its last line (one request;
the file is rewritten without the torn line). It prints the peak RSS of each and whether
samples.jsonl was rewritten.

    python benchmarks/runner_memory.py [--sizes 2000,8000,32000] [--output-kb 4]
                                       [--code DIR]   # measure another checkout's runner
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODELS = 4
CASES = 50
ARMS = 2
SKILL_MD = """---
name: bench-skill
description: A skill for the runner memory benchmark.
---

The benchmark answer is BENCH-42.
"""


def _status_mb(field: str) -> float | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _reset_peak() -> float:
    """Reset the peak RSS (Linux: a child inherits its parent's high-water mark); returns the
    RSS now."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")
    return _status_mb("VmRSS") or _peak_mb()


def _peak_mb() -> float:
    peak = _status_mb("VmHWM")
    if peak is not None:
        return peak
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(mode: str, size: int, output_kb: int, folder: Path) -> dict[str, object]:
    """Run (``mode`` "run") or resume (``mode`` "resume") one eval in this process."""
    from upskill_hub.evaluation.config import EvalConfig
    from upskill_hub.evaluation.providers.base import Provider
    from upskill_hub.evaluation.runner import evaluate
    from upskill_hub.evaluation.types import Completion, GenerationParams, Message, Usage
    from upskill_hub.skill import load_skill
    from upskill_hub.skill.testcases import TestCase

    filler = ("lorem ipsum dolor sit amet " * (output_kb * 1024 // 27 + 1))[: output_kb * 1024]
    asked = [0]

    class Instant(Provider):
        def __init__(self, model_id: str) -> None:
            self.model_id = model_id

        async def complete(
            self, messages: Sequence[Message], params: GenerationParams
        ) -> Completion:
            asked[0] += 1
            await asyncio.sleep(0)
            return Completion(
                text=f"BENCH-42 {filler}", usage=Usage(900, output_kb * 256), latency_s=0.0
            )

    skill_dir = folder / "bench-skill"
    skill_dir.mkdir(exist_ok=True)
    (skill_dir / "SKILL.md").write_text(SKILL_MD)
    skill = load_skill(skill_dir)
    cases = [
        TestCase(
            id=f"case-{i}",
            input=f"Question {i}: what is the answer?",
            assertions=({"type": "contains", "values": ["BENCH-42"]},),
        )
        for i in range(CASES)
    ]
    models = [f"instant-{i}" for i in range(MODELS)]
    config = EvalConfig(
        models=models,
        runs=max(1, size // (MODELS * CASES * ARMS)),
        concurrency=16,
        params=GenerationParams(max_tokens=output_kb * 256),
    )
    providers: dict[str, Provider] = {m: Instant(m) for m in models}
    run_dir = folder / "run"
    before = _reset_peak()
    start = time.perf_counter()
    if mode == "run":
        result = evaluate(
            skill, cases, config, run_dir=run_dir, providers=providers, write_chart=False
        )
    else:
        result = evaluate(
            skill, cases, config, resume_from=run_dir, providers=providers, write_chart=False
        )
    wall = time.perf_counter() - start
    return {
        "samples": result.expected,
        "requests": asked[0],
        "missing": result.missing,
        "rss_before_mb": round(before, 1),
        "peak_rss_mb": round(_peak_mb(), 1),
        "wall_s": round(wall, 2),
    }


def _spawn(code: Path, mode: str, size: int, output_kb: int, folder: Path) -> dict[str, object]:
    cmd = [sys.executable, __file__, "--child", mode, "--code", str(code)]
    cmd += ["--size", str(size), "--output-kb", str(output_kb), "--folder", str(folder)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    data: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return data


def _stamp(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_ino, st.st_mtime_ns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,8000,32000")
    parser.add_argument("--output-kb", type=int, default=4)
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout whose runner to measure")
    parser.add_argument("--child", choices=["run", "resume"], help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.path.insert(0, str(args.code.resolve()))
        print(json.dumps(child(args.child, args.size, args.output_kb, args.folder)))
        return

    sizes = [int(s) for s in args.sizes.split(",")]
    print(
        f"runner at {args.code}; {MODELS} models x {CASES} cases x R runs x {ARMS} arms, "
        f"~{args.output_kb} KB outputs, instant in-process provider"
    )
    print(f"{'samples':>8} {'peak RSS':>10} {'growth':>9} {'per 1k samples':>15} {'wall':>8}")
    with tempfile.TemporaryDirectory(prefix="runner-memory-") as tmp:
        largest = None
        for size in sizes:
            folder = Path(tmp) / str(size)
            folder.mkdir()
            r = _spawn(args.code, "run", size, args.output_kb, folder)
            growth = float(str(r["peak_rss_mb"])) - float(str(r["rss_before_mb"]))
            per_k = growth / (int(str(r["samples"])) / 1000)
            print(
                f"{r['samples']:>8} {r['peak_rss_mb']:>7} MB {growth:>6.1f} MB "
                f"{per_k:>12.2f} MB {r['wall_s']:>6} s"
            )
            largest = folder
        assert largest is not None
        samples = largest / "run" / "samples.jsonl"
        size_mb = samples.stat().st_size / 1e6
        print(f"\nresume of the {sizes[-1]}-sample run folder (samples.jsonl {size_mb:.0f} MB):")
        before = _stamp(samples)
        r = _spawn(args.code, "resume", sizes[-1], args.output_kb, largest)
        rewritten = _stamp(samples) != before
        print(
            f"  nothing to drop: peak RSS {r['peak_rss_mb']} MB (growth "
            f"{float(str(r['peak_rss_mb'])) - float(str(r['rss_before_mb'])):.1f} MB), "
            f"{r['requests']} requests, rewritten: {'yes' if rewritten else 'no'}, "
            f"{r['wall_s']} s"
        )
        with open(samples, "rb") as fh:  # tear the last line, as a kill mid-write would
            fh.seek(-64 * 1024, 2)
            tail = fh.read()
        last = tail.rstrip(b"\n").rsplit(b"\n", 1)[-1]
        os.truncate(samples, samples.stat().st_size - len(last) // 2 - 1)
        before = _stamp(samples)
        r = _spawn(args.code, "resume", sizes[-1], args.output_kb, largest)
        rewritten = _stamp(samples) != before
        print(
            f"  torn last line: peak RSS {r['peak_rss_mb']} MB (growth "
            f"{float(str(r['peak_rss_mb'])) - float(str(r['rss_before_mb'])):.1f} MB), "
            f"{r['requests']} requests, rewritten: {'yes' if rewritten else 'no'}, "
            f"{r['wall_s']} s, missing after: {r['missing']}"
        )


if __name__ == "__main__":
    main()
