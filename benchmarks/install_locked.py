"""Benchmark: ``install`` of 50 locked skills, cold and then again from the huggingface_hub cache.

Runs the project's local Hub server in-process behind a request-counting ASGI wrapper, pushes
50 skills (3 files each) to 50 repos, writes a lock pinning their commits, then:

1. cold: ``install`` into an empty project with an empty HF cache (parallel downloads);
2. warm: deletes the installed folders (not the cache) and installs again;
3. no-op: installs once more with everything in place.

Prints, per run, the wall time and the requests the server saw (file downloads = GET
``/resolve/``). The warm run must make no file downloads; the script exits 1 if it does.

    python benchmarks/install_locked.py [--skills 50] [--workers 8]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Requests:
    """Counts requests by kind, thread-safely."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def add(self, method: str, path: str) -> None:
        kind = (
            "download"
            if "/resolve/" in path and method == "GET"
            else ("head" if "/resolve/" in path else "api")
        )
        with self._lock:
            self.counts[kind] += 1

    def take(self) -> Counter[str]:
        with self._lock:
            snapshot, self.counts = self.counts, Counter()
        return snapshot


def local_hub_environment(work: Path) -> int:
    """Point huggingface_hub (and ``datasets``) at a local server on a free port, with a cache
    under ``work`` and a local token; returns the port."""
    port = _free_port()
    os.environ.update(
        HF_ENDPOINT=f"http://127.0.0.1:{port}",
        HF_HUB_DISABLE_XET="1",
        HF_HOME=str(work / "hf-home"),
        HF_TOKEN="hf_local_benchmark",
        HF_HUB_DISABLE_PROGRESS_BARS="1",
        HF_HUB_DISABLE_TELEMETRY="1",
    )
    os.environ.pop("HF_HUB_OFFLINE", None)
    return port


@contextmanager
def counting_hub(data_dir: Path, port: int, seen: Requests) -> Iterator[str]:
    """The local Hub app under uvicorn, every request counted before it is served."""
    import uvicorn

    from upskill_hub.hub_server import create_app

    app = create_app(data_dir)

    async def counted(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            seen.add(scope["method"], scope["path"])
        await app(scope, receive, send)

    config = uvicorn.Config(
        counted, host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=50)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="upskill-bench-"))
    port = local_hub_environment(work)
    seen = Requests()
    try:
        with counting_hub(work / "hub-data", port, seen):
            return _run(work, args.skills, args.workers, seen)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run(work: Path, n: int, workers: int, seen: Requests) -> int:
    from huggingface_hub import constants

    from upskill_hub.registry.project.lock import Lock, LockedSkill, hash_tree, write_lock
    from upskill_hub.registry.project.pull import install_locked
    from upskill_hub.registry.push import push_skills

    started = time.perf_counter()
    lock = Lock()
    for i in range(n):
        name = f"bench-skill-{i:03d}"
        folder = work / "src" / name
        (folder / "scripts").mkdir(parents=True)
        (folder / "references").mkdir()
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Benchmark skill number {i}.\n---\n"
            f"# {name}\n\nRun scripts/run.py; details in references/guide.md.\n"
        )
        (folder / "scripts" / "run.py").write_text(f"print({i})\n")
        (folder / "references" / "guide.md").write_text("# Guide\n" + "text\n" * 200)
        pushed = push_skills(folder, repo_id=f"local-user/{name}")
        lock.skills[name] = LockedSkill(
            name=name,
            repo_id=pushed.repo_id,
            ref="main",
            commit=pushed.commit,
            files=hash_tree(folder),
            targets=[f".claude/skills/{name}"],
        )
    project = work / "project"
    (project / ".git").mkdir(parents=True)
    write_lock(project, lock)
    print(f"setup: pushed {n} skills in {time.perf_counter() - started:.1f}s")

    # start cold: drop anything the pushes left in the cache
    shutil.rmtree(constants.HF_HOME, ignore_errors=True)
    seen.take()

    def timed(label: str) -> Counter[str]:
        t0 = time.perf_counter()
        report = install_locked(project_root=project, workers=workers)
        wall = time.perf_counter() - t0
        counts = seen.take()
        statuses = Counter(s.status for s in report.skills)
        print(
            f"{label:<8} wall {wall:6.2f}s  requests {sum(counts.values()):4d} "
            f"(api {counts['api']}, head {counts['head']}, file downloads "
            f"{counts['download']})  skills {dict(statuses)}"
        )
        return counts

    cold = timed("cold")
    shutil.rmtree(project / ".claude")
    warm = timed("cached")
    timed("no-op")
    ok = warm["download"] == 0 and cold["download"] >= 3 * n
    print("OK: the cached install made no file downloads" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
