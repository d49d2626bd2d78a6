"""A canary skill and ``upskill-hub eval`` in a subprocess, as the eval tests run them.

The canary knows one made-up fact (:data:`FACT`); a responder that sees its system-prompt
marker (:func:`marker`) can answer with it. :func:`run_eval` / :func:`start_eval` run the real
command from the repository with no ambient ``*_API_KEY`` / ``*_BASE_URL`` variables (a test
adds what it needs through ``env``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
FACT = "QUUXIUM-88-ZETA"


def marker(name: str) -> str:
    """What the with-skill arm's system prompt holds for the skill ``name``."""
    return f'<skill name="{name}">'


def quuxium_cases(count: int, label: str = "Q", ids: str = "q") -> list[dict[str, Any]]:
    """``count`` test cases asking for the fact: ids ``q0``.., inputs ``Q0: the Quuxium code?``."""
    return [
        {
            "id": f"{ids}{i}",
            "input": f"{label}{i}: the Quuxium code?",
            "expected": {"contains": FACT},
        }
        for i in range(count)
    ]


def canary_skill(parent: Path, tests: list[dict[str, Any]], *, name: str = "canary") -> Path:
    """The skill folder ``parent/name`` (SKILL.md stating :data:`FACT`) with ``tests`` in its
    skill_meta.json."""
    folder = parent / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\n"
        "description: Knows the Quuxium code. Use when asked about Quuxium.\n---\n\n"
        f"# Canary\n\nThe Quuxium code is {FACT}.\n",
        encoding="utf-8",
    )
    meta = {"metadata": {}, "tests": tests}
    (folder / "skill_meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder


def eval_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment without model keys and base URLs, the repository first on the path,
    plain wide output; then ``env``."""
    base = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    base["PYTHONPATH"] = str(REPO) + os.pathsep + base.get("PYTHONPATH", "")
    base.setdefault("NO_COLOR", "1")
    base["COLUMNS"] = "200"
    return {**base, **(env or {})}


def _command(skill: Path | str, base_url: str | None, args: tuple[str, ...]) -> list[str]:
    where = ("--base-url", base_url) if base_url else ()
    return [sys.executable, "-m", "upskill_hub", "eval", str(skill), *where, *args]


def run_eval(
    skill: Path | str,
    base_url: str | None,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``upskill-hub eval SKILL [--base-url URL] ARGS...`` run to the end."""
    return subprocess.run(
        _command(skill, base_url, args),
        cwd=REPO,
        env=eval_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start_eval(
    skill: Path | str, base_url: str | None, *args: str, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """The same command started, for tests that interrupt or kill it."""
    return subprocess.Popen(
        _command(skill, base_url, args),
        cwd=REPO,
        env=eval_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
