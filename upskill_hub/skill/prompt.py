"""The ``<available_skills>`` block agents put in their system prompt."""

from __future__ import annotations

from html import escape
from pathlib import Path

from upskill_hub.skill.model import SKILL_FILENAME, Skill


def skill_entries(skills: list[Skill]) -> list[dict[str, str]]:
    """Name, description and SKILL.md location of each skill (what agents load at start-up)."""
    return [
        {
            "name": skill.name,
            "description": skill.description,
            "location": (Path(skill.path).resolve() / SKILL_FILENAME).as_posix(),
        }
        for skill in skills
    ]


def to_prompt(skills: list[Skill]) -> str:
    """Same shape as the reference validator's ``to-prompt``: name, description, location."""
    lines = ["<available_skills>"]
    for entry in skill_entries(skills):
        lines += [
            "<skill>",
            "<name>",
            escape(entry["name"]),
            "</name>",
            "<description>",
            escape(entry["description"]),
            "</description>",
            "<location>",
            entry["location"],
            "</location>",
            "</skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)
