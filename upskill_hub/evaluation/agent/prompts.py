"""What both arms of agent mode send: one system prompt (the base prompt, how skills work, and
the ``<available_skills>`` block: the skill for the with-skill arm, none for the baseline) and
the case's input, its attached files named for ``Read`` rather than pasted.

A skill's location is given relative to the skills' root (``NAME/SKILL.md``): the model reads
files by path relative to the skill's folder, and no path of this machine reaches the model or
the published prompt hash.
"""

from __future__ import annotations

from collections.abc import Sequence

from upskill_hub.evaluation.agent.tools import SkillFolder
from upskill_hub.evaluation.prompts import BASE_SYSTEM_PROMPT
from upskill_hub.evaluation.types import Message
from upskill_hub.skill.prompt import render_entries
from upskill_hub.skill.testcases import TestCase

__all__ = ["AGENT_GUIDE", "agent_messages", "agent_system_prompt", "available_skills"]

AGENT_GUIDE = (
    "You can call tools. Skills are folders of instructions, scripts and reference files for "
    "particular tasks; the skills you have are listed in <available_skills> by name and "
    "description only. When the task matches a skill's description, load the skill with the "
    "Skill tool before answering, then Read the files its instructions point to (paths "
    "relative to the skill's folder) when you need them. Files attached to the task are read "
    "with Read by their name. When you have what you need, give your final answer."
)


def available_skills(skills: Sequence[SkillFolder]) -> str:
    """The ``<available_skills>`` block (same shape as ``to-prompt``) for ``skills``."""
    return render_entries(
        [
            {"name": s.name, "description": s.description, "location": f"{s.name}/SKILL.md"}
            for s in skills
        ]
    )


def agent_system_prompt(skills: Sequence[SkillFolder]) -> str:
    return f"{BASE_SYSTEM_PROMPT}\n\n{AGENT_GUIDE}\n\n{available_skills(skills)}"


def agent_user_message(case: TestCase) -> str:
    text = case.input.strip("\n")
    if case.files:
        names = ", ".join(case.files)
        text += f"\n\nAttached files (read them with the Read tool): {names}"
    return text


def agent_messages(case: TestCase, skills: Sequence[SkillFolder]) -> list[Message]:
    """The opening messages of one agent-mode sample."""
    return [
        Message(role="system", content=agent_system_prompt(skills)),
        Message(role="user", content=agent_user_message(case)),
    ]
