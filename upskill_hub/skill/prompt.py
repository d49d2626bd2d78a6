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


def render_entries(entries: list[dict[str, str]]) -> str:
    """The block for entries of ``name``, ``description`` and ``location`` (name and
    description HTML-escaped, as the reference validator does)."""
    lines = ["<available_skills>"]
    for entry in entries:
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


def to_prompt(skills: list[Skill]) -> str:
    """Same shape as the reference validator's ``to-prompt``: name, description, location."""
    return render_entries(skill_entries(skills))
