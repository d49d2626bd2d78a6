"""Builders for skill folders used by the skill tests."""

from __future__ import annotations

from pathlib import Path


def make_skill(
    parent: Path,
    name: str = "demo-skill",
    frontmatter: str | None = None,
    body: str = "# Demo\n\nDo the thing.\n",
    dirname: str | None = None,
) -> Path:
    folder = parent / (dirname or name)
    folder.mkdir(parents=True, exist_ok=True)
    if frontmatter is None:
        frontmatter = f"name: {name}\ndescription: Does the demo thing when asked.\n"
    (folder / "SKILL.md").write_text(f"---\n{frontmatter}---\n{body}", encoding="utf-8")
    return folder
