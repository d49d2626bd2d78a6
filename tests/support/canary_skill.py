"""The canary skill of the agent-mode tests: its answer lives in a reference file, so a model
answers right only when it reads that file (``AGENT``, a scripted agent, does just that)."""

from __future__ import annotations

from pathlib import Path

from tests.support.responders import skill_agent

FACT = "ZORBLAX-4417"
SKILL_MD = """---
name: canary-refs
description: Knows the Zorblax code. Use when asked about the Zorblax code.
---

# Canary

The code is written in references/answer.md; read it before answering.
"""


def answer_from(texts: list[str]) -> str:
    return f"The code is {FACT}." if any(FACT in t for t in texts) else "No idea."


AGENT = skill_agent("canary-refs", reads=("references/answer.md",), answer=answer_from)


def write_canary_skill(parent: Path) -> Path:
    """The canary skill's folder under ``parent``: SKILL.md and references/answer.md."""
    folder = parent / "canary-refs"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    (folder / "references" / "answer.md").write_text(f"The Zorblax code is {FACT}.\n")
    return folder
