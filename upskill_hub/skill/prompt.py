"""The ``<available_skills>`` block agents put in their system prompt."""

from __future__ import annotations

from html import escape
from pathlib import Path

from upskill_hub.skill.model import SKILL_FILENAME, Skill


def to_prompt(skills: list[Skill]) -> str:
    """Same shape as the reference validator's ``to-prompt``: name, description, location."""
    lines = ["<available_skills>"]
    for skill in skills:
        location = (Path(skill.path).resolve() / SKILL_FILENAME).as_posix()
        lines += [
            "<skill>",
            "<name>",
            escape(skill.name),
            "</name>",
            "<description>",
            escape(skill.description),
            "</description>",
            "<location>",
            location,
            "</location>",
            "</skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)
