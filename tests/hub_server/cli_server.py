"""``upskill-hub hub serve`` as a user starts it: a subprocess whose first line is its URL."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class ServedByCli:
    url: str
    #: what the server wrote to stderr (filled in once it has stopped)
    stderr: str = ""


@contextmanager
def served_by_cli(*args: str) -> Iterator[ServedByCli]:
    """Run ``hub serve ARGS`` until the block ends (then terminate it); yields its URL, checked
    to be the loopback address it prints first."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "upskill_hub", "hub", "serve", *args],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    served = ServedByCli(url="")
    try:
        assert proc.stdout is not None
        served.url = proc.stdout.readline().strip()
        assert served.url.startswith("http://127.0.0.1:")
        yield served
    finally:
        proc.terminate()
        _, served.stderr = proc.communicate(timeout=15)
