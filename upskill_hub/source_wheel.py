"""A wheel of the upskill-hub source checkout this package runs from.

Code that must run this exact upskill-hub elsewhere ships it as a wheel: ``space deploy``
(:mod:`upskill_hub.space_support.deploy`) uploads it into the Space repo, and a run on Jobs with
``--install wheel`` (:mod:`upskill_hub.jobs.submit`) into the artifact repo. Built with
``python -m pip wheel ROOT --no-deps``; a checkout is a folder holding ``pyproject.toml``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from upskill_hub.errors import UsageError

__all__ = ["WHEEL_BUILD_TIMEOUT_S", "build_wheel", "source_root"]

WHEEL_BUILD_TIMEOUT_S = 600


def source_root() -> Path:
    """The source checkout this package runs from (holds ``pyproject.toml`` when it is one)."""
    return Path(__file__).resolve().parents[1]


def build_wheel(root: Path, out_dir: Path) -> Path:
    """Build the upskill-hub wheel of the checkout ``root`` into ``out_dir`` with pip."""
    if not (root / "pyproject.toml").is_file():
        raise UsageError(f"{root}: no pyproject.toml; not an upskill-hub source checkout")
    command = [sys.executable, "-m", "pip", "wheel", str(root), "--no-deps", "-q"]
    command += ["--disable-pip-version-check", "-w", str(out_dir)]
    try:
        proc = subprocess.run(
            command, capture_output=True, text=True, timeout=WHEEL_BUILD_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UsageError(f"{root}: cannot build the upskill-hub wheel ({exc})") from exc
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        last = lines[-1].strip() if lines else f"pip exited with {proc.returncode}"
        raise UsageError(f"{root}: cannot build the upskill-hub wheel ({last})")
    wheels = sorted(out_dir.glob("upskill_hub-*.whl"))
    if len(wheels) != 1:
        raise UsageError(f"{root}: pip wheel made {len(wheels)} upskill-hub wheels, not one")
    return wheels[0]
