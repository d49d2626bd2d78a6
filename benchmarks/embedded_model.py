"""Tokens/s of the embedded model: through our ``local`` provider vs raw llama-cpp-python.

Both paths use the same ``llama_cpp.Llama`` instance (same file, n_ctx, n_threads) and the same
greedy request, interleaved run by run; the figure is output tokens / wall time per call, median
over ``--runs``. Overhead is shown two ways: from the two medians, and as the median of each
adjacent (raw, provider) pair's difference, which cancels drifting machine load. Goal: <= 5%.

    python benchmarks/embedded_model.py [--runs 5] [--max-tokens 128]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from upskill_hub.evaluation.providers import embedded
from upskill_hub.evaluation.providers.resolve import resolve_model
from upskill_hub.evaluation.types import GenerationParams, Message

SYSTEM = "You are a helpful assistant who writes long, detailed answers."
PROMPT = "Write a long story about a robot who learns to paint. Use many paragraphs."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=128)
    args = parser.parse_args()

    provider = resolve_model("local")
    messages = [Message("system", SYSTEM), Message("user", PROMPT)]
    params = GenerationParams(temperature=0.0, max_tokens=args.max_tokens, seed=0)
    chat = [{"role": m.role, "content": m.content} for m in messages]
    with embedded._lock:
        llama = embedded.load_model()  # the very instance the provider uses

    def raw_once() -> float:
        start = time.perf_counter()
        out = llama.create_chat_completion(
            messages=chat, temperature=0.0, max_tokens=args.max_tokens, seed=0
        )
        return out["usage"]["completion_tokens"] / (time.perf_counter() - start)

    async def provider_once() -> float:
        start = time.perf_counter()
        done = await provider.complete(messages, params)
        return done.usage.output_tokens / (time.perf_counter() - start)

    async def bench() -> tuple[list[float], list[float]]:
        raw_once()  # warm up both paths (page in the weights, fill the prompt cache)
        await provider_once()
        raw, ours = [], []
        for _ in range(args.runs):
            raw.append(raw_once())
            ours.append(await provider_once())
        return raw, ours

    raw, ours = asyncio.run(bench())
    raw_tps, our_tps = statistics.median(raw), statistics.median(ours)
    overhead = (raw_tps - our_tps) / raw_tps * 100
    # Adjacent runs share the machine's load at that moment: their ratio is steadier.
    paired = statistics.median((r - o) / r * 100 for r, o in zip(raw, ours, strict=True))
    print(f"model: {embedded.MODEL_FILE}, n_threads={embedded.n_threads()}, n_ctx={embedded.N_CTX}")
    print(f"runs: {args.runs} each, max_tokens={args.max_tokens}, temperature 0")
    print(f"raw llama-cpp-python : {raw_tps:7.1f} tokens/s (median)")
    print(f"upskill-hub provider : {our_tps:7.1f} tokens/s (median)")
    print(f"overhead             : {overhead:+6.2f}% of medians, {paired:+6.2f}% median of pairs")
    print("goal                 : <= 5%")
    load = os.getloadavg()[0]
    if load > embedded.n_threads():
        print(f"note: load average {load:.1f} > {embedded.n_threads()} cores; figures are noisy")


if __name__ == "__main__":
    main()
