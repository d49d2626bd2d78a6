"""``upskill-hub init``: a new, valid skill folder with a starter test suite."""

from __future__ import annotations

import re
from pathlib import Path

from upskill_hub.errors import Param, UsageError
from upskill_hub.skill.model import write_skill
from upskill_hub.skill.testcases import TestCase, TestSuite

_BODY = """
# {title}

## When to use this skill

Describe the situations where an agent should load this skill.

## Instructions

1. Step one.
2. Step two.

## Example

Show a short, complete example of the expected output.
"""


def normalize_name(text: str) -> str:
    """Turn free text into a spec-valid skill name (lowercase a-z0-9, single hyphens, <= 64)."""
    name = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    name = re.sub(r"-{2,}", "-", name)[:64].strip("-")
    return name


def scaffold_skill(name: str, parent: Path, *, description: str | None = None) -> Path:
    """Create ``parent/<name>`` with SKILL.md and skill_meta.json. Refuses to overwrite."""
    clean = normalize_name(name)
    if not clean or clean != name:
        hint = f" (try '{clean}')" if clean else ""
        raise UsageError(
            f"NAME '{name}' is not a valid skill name: use lowercase a-z, 0-9 and single "
            f"hyphens, at most 64 characters{hint}"
        )
    target = Path(parent) / name
    if target.exists():
        raise UsageError(f"{target}: already exists; choose another NAME or ", Param("parent"))
    frontmatter = {
        "name": name,
        "description": description
        or f"TODO: say what {name} does and when an agent should use it.",
        "license": "Apache-2.0",
    }
    title = name.replace("-", " ").capitalize()
    suite = TestSuite(
        cases=[
            TestCase(
                id="example",
                input=f"Replace this with a task that needs the {name} skill.",
                assertions=({"type": "contains", "values": ["replace with an expected phrase"]},),
            )
        ],
        metadata={"version": "0.1.0", "license": "Apache-2.0"},
    )
    return write_skill(target, frontmatter, _BODY.format(title=title), suite)
