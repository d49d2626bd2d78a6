"""``upskill-hub eval`` as a whole process against a local server with fixed latency.

Each run starts the real CLI (the console script, or ``python -m upskill_hub``) as a subprocess
on a skill with ``--requests / 2`` cases (two arms each), a bare model name and ``--base-url``
pointing at the fake OpenAI-compatible server of ``tests/support/llm_servers.py``, which runs in
its own process and records when each request arrived and when each response was sent. Per
run it measures:

* time to first request: process start (just before ``Popen``) to the first request the
  server received (goal <= 0.4 s);
* exit after last response: the last response sent to the process exiting (goal <= 0.3 s);
  everything the run folder gets after the last answer (samples.jsonl, summary.json, lift.png,
  the table) is in this figure;
* total wall time: process start to exit (goal <= 1.3 x the ideal N / K x latency, plus 1 s);
* CPU time: user + system seconds of the eval process (less sensitive to a busy machine);
* and, for scale, the SDK alone: a process that only imports ``openai`` and creates the client
  the way the provider does, start to client ready (a floor for the time to first request).

and prints the median of each over ``--runs`` runs (after one uncounted run that writes the
bytecode caches, as ``pip install`` would have), with its ratio to the goal (<= 1 meets it)
and the load average beside them: the figures are only as quiet as the machine. ``--against
DIR`` also runs another checkout of the code (e.g. ``git archive HEAD~3 | tar -x -C DIR``),
interleaved run by run with this one so that both see the same load, and prints its medians
beside these.

    python benchmarks/eval_latency.py [--runs 5] [--requests 400] [--concurrency 16]
                                      [--latency 0.1] [--against DIR]
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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SKILL_MD = """---
name: bench-skill
description: A skill for the eval latency benchmark.
---

The benchmark answer is BENCH-42.
"""

# the fake server, in its own process: prints its base URL, then answers "stats" on stdin with
# {"requests": n, "first": t, "last_answer": t} (time.time()) and forgets them; EOF stops it
SERVER = """
import json, sys
sys.path.insert(0, sys.argv[1])
from tests.support.llm_servers import openai_server, skill_aware
responder = skill_aware('<skill name="bench-skill">', with_skill="BENCH-42", without="no")
with openai_server(responder, latency=float(sys.argv[2])) as srv:
    print(srv.base_url, flush=True)
    for line in sys.stdin:
        received = [r.received_at for r in srv.requests]
        answered = srv.answered_at
        srv.clear()
        print(json.dumps({
            "requests": len(received),
            "first": min(received, default=None),
            "last_answer": max(answered, default=None),
        }), flush=True)
"""


@dataclass
class Server:
    proc: subprocess.Popen[str]
    base_url: str

    def stats(self) -> dict[str, float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("stats\n")
        self.proc.stdin.flush()
        return dict(json.loads(self.proc.stdout.readline()))


@contextmanager
def server_process(latency: float) -> Iterator[Server]:
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(ROOT), str(latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        yield Server(proc, proc.stdout.readline().strip())
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=15)


def cli_command() -> list[str]:
    """The console script next to this interpreter, else ``python -m upskill_hub``."""
    script = Path(sys.executable).with_name("upskill-hub")
    if script.is_file():
        return [sys.executable, str(script)]
    return [sys.executable, "-m", "upskill_hub"]


def write_skill(folder: Path, cases: int) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    tests = [
        {
            "id": f"case-{i:04d}",
            "input": f"Question {i}: what is the benchmark answer?",
            "expected": {"contains": ["BENCH-42"]},
        }
        for i in range(cases)
    ]
    (folder / "skill_meta.json").write_text(json.dumps({"metadata": {}, "tests": tests}))


@dataclass
class Run:
    first_request: float
    exit_after_last: float
    wall: float
    cpu: float


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(
    server: Server, skill: Path, out: Path, args: argparse.Namespace, code_root: Path
) -> Run:
    command = [
        *cli_command(),
        "eval",
        str(skill),
        "--model",
        "bench-model",
        "--base-url",
        server.base_url,
        "--concurrency",
        str(args.concurrency),
        "--max-tokens",
        "32",
        "--output",
        str(out),
    ]
    # as installed by pip: bytecode cached (the warm-up run writes it)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(code_root)
    cpu = _children_cpu()
    start = time.time()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    end = time.time()
    cpu = _children_cpu() - cpu
    stats = server.stats()
    if done.returncode != 0 or stats["requests"] != args.requests:
        sys.exit(
            f"eval failed (exit {done.returncode}, {stats['requests']} requests):\n"
            f"{done.stdout}\n{done.stderr}"
        )
    runs = list(out.iterdir())
    files = {p.name for p in runs[0].iterdir()} if len(runs) == 1 else set()
    missing = {"run.json", "tests.json", "samples.jsonl", "summary.json", "lift.png"} - files
    if missing or "lift" not in done.stdout:
        sys.exit(f"the run folder lacks {sorted(missing)} or the table is missing:\n{done.stdout}")
    shutil.rmtree(out)
    return Run(stats["first"] - start, end - stats["last_answer"], end - start, cpu)


SDK_ALONE = """
import time, sys
import openai
client = openai.AsyncOpenAI(
    api_key="no-key", base_url=sys.argv[1], max_retries=0,
    http_client=openai.DefaultAsyncHttpxClient(follow_redirects=False),
)
client.chat.completions  # noqa: B018 - the resource the provider calls, loaded on first use
print(time.time())
"""


def sdk_alone(base_url: str) -> float:
    """Seconds from process start to an openai client ready to send its first request."""
    start = time.time()
    done = subprocess.run(
        [sys.executable, "-c", SDK_ALONE, base_url], capture_output=True, text=True, check=True
    )
    return float(done.stdout) - start


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min), {os.cpu_count()} CPUs"


def _line(run: Run) -> str:
    return (
        f"first request {run.first_request:.3f} s, exit {run.exit_after_last:.3f} s after the "
        f"last response, wall {run.wall:.2f} s, CPU {run.cpu:.2f} s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="eval processes; medians are shown")
    parser.add_argument("--requests", type=int, default=400, help="even: two arms per case")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.1, help="server latency, seconds")
    parser.add_argument("--first-goal", type=float, default=0.4, help="seconds")
    parser.add_argument("--exit-goal", type=float, default=0.3, help="seconds")
    parser.add_argument("--wall-ratio", type=float, default=1.3, help="x (ideal + 1 s)")
    parser.add_argument(
        "--against", type=Path, help="another checkout of the code, run interleaved with this one"
    )
    args = parser.parse_args()

    ideal = args.requests / args.concurrency * args.latency
    wall_goal = args.wall_ratio * (ideal + 1.0)
    print(
        f"upskill-hub eval: {args.requests} requests, concurrency {args.concurrency}, "
        f"server latency {args.latency * 1000:g} ms, {args.runs} runs ({' '.join(cli_command())})"
    )
    print(f"before: {load()}")
    roots = {"this": ROOT}
    if args.against is not None:
        roots["against"] = args.against.resolve()
    runs: dict[str, list[Run]] = {name: [] for name in roots}
    floors: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, server_process(args.latency) as server:
        skill = Path(tmp) / "bench-skill"
        write_skill(skill, args.requests // 2)
        for root in roots.values():  # not counted: writes the bytecode caches, warms the disk
            one_run(server, skill, Path(tmp) / "runs", args, root)
        for i in range(args.runs):
            for name, root in roots.items():
                run = one_run(server, skill, Path(tmp) / "runs", args, root)
                runs[name].append(run)
                print(f"  run {i + 1} ({name}): {_line(run)}")
            floors.append(sdk_alone(server.base_url))
    print(f"after:  {load()}")

    def median(name: str, field: str) -> float:
        return statistics.median(getattr(r, field) for r in runs[name])

    rows = [
        ("time to first request", "first_request", args.first_goal),
        ("exit after last response", "exit_after_last", args.exit_goal),
        ("total wall time", "wall", wall_goal),
        ("CPU time", "cpu", None),
    ]
    header = f"{'median of ' + str(args.runs):<28}{'value':>9}{'goal':>9}{'ratio':>8}"
    if "against" in runs:
        header += f"{'against':>10}{'speed-up':>10}"
    print(header)
    met = True
    for label, field, goal in rows:
        value = median("this", field)
        line = f"{label:<28}{value:>8.3f}s"
        if goal is not None:
            met = met and value <= goal
            line += f"{goal:>8.2f}s{value / goal:>8.2f}"
        else:
            line += " " * 17
        if "against" in runs:
            other = median("against", field)
            line += f"{other:>9.3f}s{other / value:>9.2f}x"
        print(line)
    floor = statistics.median(floors)
    print(f"{'SDK alone (import, client)':<28}{floor:>8.3f}s  a floor for the first request")
    print(
        f"(wall goal: {args.wall_ratio:g} x (ideal {ideal:.2f} s + 1 s); ratio <= 1 meets a goal)"
    )
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
