"""The skill: load a folder, check it against the agentskills.io spec, write it back.

Knows nothing of the Hub, models or the terminal.
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
