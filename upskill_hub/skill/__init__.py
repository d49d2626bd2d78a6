"""The skill: load a folder, check it against the agentskills.io spec, write it back.

Knows nothing of the Hub, models or the terminal.

- :mod:`.model`: :class:`~.model.Skill`, loading a folder and writing one back;
- :mod:`.frontmatter`: SKILL.md split into YAML frontmatter and body, parsed safely;
- :mod:`.spec`: the agentskills.io rules, each with a stable id;
- :mod:`.findings`: one rule's verdict on one place in a skill;
- :mod:`.discover`: the skills under a path;
- :mod:`.testcases`: test cases in every format upskill uses;
- :mod:`.evals_json`: the spec's own test file, ``evals/evals.json``;
- :mod:`.schemas`: the JSON Schemas of ``schemas/`` and validation against them;
- :mod:`.prompt`: the ``<available_skills>`` block agents put in their system prompt;
- :mod:`.scaffold`: ``init``, a new valid skill folder;
- :mod:`.suite`: test cases in memory, and reading a JSON test file.
"""

from upskill_hub.skill.discover import discover_skills
from upskill_hub.skill.findings import Finding
from upskill_hub.skill.model import (
    Skill,
    is_junk,
    is_published,
    is_secret_file,
    list_files,
    load_skill,
    write_skill,
)
from upskill_hub.skill.spec import RULES, SkillReport, validate_skill
from upskill_hub.skill.testcases import TestCase, TestSuite, read_suite, write_suite

__all__ = [
    "RULES",
    "Finding",
    "Skill",
    "SkillReport",
    "TestCase",
    "TestSuite",
    "discover_skills",
    "is_junk",
    "is_published",
    "is_secret_file",
    "list_files",
    "load_skill",
    "read_suite",
    "validate_skill",
    "write_skill",
    "write_suite",
]
