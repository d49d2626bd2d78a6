"""Run the real ``upskill-hub`` command in a subprocess (as users do) and capture its result."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    input: str | None = None,
    unset: Iterable[str] = (),
) -> subprocess.CompletedProcess[str]:
    """``upskill-hub ARGS`` from this checkout; ``env`` adds to the environment, ``unset`` names
    variables taken out of it."""
    full_env = {k: v for k, v in os.environ.items() if k not in set(unset)}
    full_env["PYTHONPATH"] = str(REPO) + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.setdefault("NO_COLOR", "1")
    full_env["COLUMNS"] = "200"
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "upskill_hub", *args],
        cwd=cwd or REPO,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        input=input,
    )
