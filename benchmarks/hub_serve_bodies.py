"""Peak memory of ``upskill-hub hub serve`` when anonymous callers send large request bodies.

Starts ``python -m upskill_hub hub serve`` (no ``--token``) on a temporary data folder, sends
``--clients`` anonymous ``POST .../paths-info/main`` requests at once, each streaming
``--megabytes`` MB (loopback only), and prints each answer and the server's peak RSS (VmHWM)
before and after. A server that reads bodies before checking who is asking holds them all.
Linux only (reads ``/proc``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def peak_mb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM"):
            return int(line.split()[1]) // 1024
    return -1


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--megabytes", type=int, default=200)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    data = tempfile.mkdtemp(prefix="upskill-hub-bodies-")
    argv = [sys.executable, "-m", "upskill_hub", "hub", "serve", "--data", data]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    before = peak_mb(proc.pid)

    def body() -> Iterator[bytes]:
        chunk = b"x" * (1 << 20)
        for _ in range(args.megabytes):
            yield chunk

    def send() -> None:
        headers = {"Content-Length": str(args.megabytes << 20), "Content-Type": "application/json"}
        try:
            sent = httpx.post(
                f"{url}/api/models/local-user/x/paths-info/main",
                content=body(),
                headers=headers,
                timeout=120,
            )
            print(f"answer: {sent.status_code}", flush=True)
        except httpx.HTTPError as exc:
            print(f"connection ended: {type(exc).__name__}", flush=True)

    try:
        threads = [threading.Thread(target=send) for _ in range(args.clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        print(f"server peak RSS: {before} MB at start, {peak_mb(proc.pid)} MB after")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
