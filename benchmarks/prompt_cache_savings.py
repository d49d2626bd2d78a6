"""What prompt caching saves on an agent-mode grid: billed input tokens with and without it.

The grid: the bundled skill ``skills/kernel-builder-cuda-kernels``, its first ``--cases`` test
cases x ``--runs`` runs x both arms, in agent mode, run twice through the real runner and the
real ``anthropic`` SDK against the fake Anthropic server of ``tests/support/llm_servers.py``
keeping a prompt cache (``tests/support/prompt_cache.py``): once as ``eval`` does by default
(requests mark the tool definitions, the system prompt and, from the second turn, the exchange
so far with ``cache_control``) and once with ``--no-cache`` (no marks, so nothing is cached).
Each pass starts with an empty cache. The scripted model loads the skill with the ``Skill``
tool in the with-skill arm, reads the first ``--reads`` files of ``references/`` (one per
turn), then answers (``--reads`` + 2 turns); the baseline, with no skill listed, answers at
once. Tool-call ids differ from one reply to the next, as on the API, so an exchange's later
turns read back only its own earlier turns: the opening prefix (tools and system prompt) is the
only part one sample shares with another.

The server caches what a real one would: a marked prefix of at least ``--min-tokens`` tokens
(1024, the API's minimum on most models), looked up at the marked block and the 20 blocks
before it; a prefix seen by an earlier request is a cache read, the rest of the longest marked
prefix a cache write. Tokens are whitespace-separated words (the fake servers' unit), so the
figures are in that unit; the ratio does not depend on it much.

Billed input tokens, in units of the model's input price, use the reference's ratios
(docs: Anthropic bills cache writes at 1.25x the input price and cache reads at 0.1x):

    billed = uncached input + 1.25 x cache write + 0.1 x cache read

Without caching every input token is uncached: billed = input. Output tokens are the same in
both passes and are left out. Prints, per arm and in total, the input tokens (equal in both
passes: the same requests), the cached and written parts, billed input with and without caching,
and the saving (1 - with / without).

    python benchmarks/prompt_cache_savings.py [--cases 4] [--runs 3] [--reads 1]
                                              [--concurrency 4] [--min-tokens 1024]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.llm_servers import PromptCache, anthropic_server, skill_agent  # noqa: E402
from upskill_hub.backoff import RetryPolicy  # noqa: E402
from upskill_hub.evaluation.agent import AgentSettings  # noqa: E402
from upskill_hub.evaluation.config import EvalConfig  # noqa: E402
from upskill_hub.evaluation.runner import evaluate  # noqa: E402
from upskill_hub.evaluation.types import GenerationParams, Sample  # noqa: E402
from upskill_hub.skill import load_skill  # noqa: E402

SKILL = ROOT / "skills" / "kernel-builder-cuda-kernels"
#: Anthropic's prices for cache writes and reads, as multiples of the input price.
WRITE_RATIO = 1.25
READ_RATIO = 0.1


def billed(samples: list[Sample]) -> float:
    """Billed input tokens of ``samples``, in units of the input price."""
    total = 0.0
    for s in samples:
        uncached = s.input_tokens - s.cached_input_tokens - s.cache_write_tokens
        total += uncached + WRITE_RATIO * s.cache_write_tokens + READ_RATIO * s.cached_input_tokens
    return total


def grid(cache: bool, args: argparse.Namespace, out: Path) -> list[Sample]:
    skill = load_skill(SKILL)
    cases = list(skill.tests)[: args.cases]
    references = sorted(f for f in skill.files if f.startswith("references/"))
    agent = skill_agent(
        skill.name, reads=tuple(references[: args.reads]), answer=lambda _texts: "build.toml"
    )
    with anthropic_server(agent, prompt_cache=PromptCache(min_tokens=args.min_tokens)) as srv:
        config = EvalConfig(
            models=["anthropic:claude-bench"],
            base_url=srv.base_url,
            runs=args.runs,
            concurrency=args.concurrency,
            params=GenerationParams(max_tokens=256, timeout=30.0),
            retry=RetryPolicy(retries=0),
            agent=AgentSettings(),
            cache=cache,
        )
        result = evaluate(skill, cases, config, output_root=out, write_chart=False)
    return list(result.samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reads", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--min-tokens", type=int, default=1024)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="upskill-hub-cache-bench-") as tmp:
        cached = grid(True, args, Path(tmp) / "cache")
        plain = grid(False, args, Path(tmp) / "no-cache")
    print(
        f"agent-mode grid: {args.cases} cases x {args.runs} runs x 2 arms, {args.reads} "
        f"file(s) read per with-skill sample, concurrency "
        f"{args.concurrency}, cacheable prefix >= {args.min_tokens} tokens; "
        f"billed = uncached + {WRITE_RATIO} x write + {READ_RATIO} x read"
    )
    header = (
        f"{'arm':<11} {'input':>8} {'cached':>8} {'written':>8} "
        f"{'billed, no cache':>17} {'billed, cache':>14} {'saving':>7}"
    )
    print(header)
    for arm in ("baseline", "with_skill", "total"):
        on = [s for s in cached if arm in ("total", s.arm)]
        off = [s for s in plain if arm in ("total", s.arm)]
        without, with_ = billed(off), billed(on)
        saving = 1 - with_ / without if without else 0.0
        print(
            f"{arm:<11} {sum(s.input_tokens for s in on):>8} "
            f"{sum(s.cached_input_tokens for s in on):>8} "
            f"{sum(s.cache_write_tokens for s in on):>8} {without:>17.0f} {with_:>14.0f} "
            f"{saving:>7.1%}"
        )
    same = sum(s.input_tokens for s in cached) == sum(s.input_tokens for s in plain)
    print(f"same input tokens in both passes: {same}")


if __name__ == "__main__":
    main()
