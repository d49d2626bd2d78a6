"""A checker of upskill 0.2.1's reader constraints, for tests.

Only upskill 0.1.0 is on the package index reachable here, so this mirrors, field for field,
the pydantic models that upskill 0.2.1's ``Skill.load`` validates ``skill_meta.json`` with
(``src/upskill/models.py`` at the 0.2.1 tag; facts in ``shared/docs/reference.md`` §4):
``SkillMetadata`` (extra keys ignored) and ``TestCase`` / ``TestCaseContext`` / ``ExpectedSpec``
(extra keys forbidden). :func:`load_skill_meta` reads a file the way ``Skill.load`` does (only
``metadata`` and ``tests``; other top-level keys ignored) and :func:`save_skill_meta` writes one
the way ``Skill.save`` does (every key, nulls included).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class SkillMetadata(BaseModel):
    version: str = "1.0"
    generated_by: str | None = None
    generated_at: datetime | None = None
    source_task: str | None = None
    test_pass_rate: float | None = None
    license: str | None = None
    compatibility: str | None = None


class ExpectedSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    contains: list[str]

    @field_validator("contains", mode="before")
    @classmethod
    def coerce_contains(cls, value: str | list[str]) -> list[str]:
        if isinstance(value, str):
            return [value]
        return value


class TestCaseContext(BaseModel):
    model_config = ConfigDict(extra="forbid")

    files: dict[str, str] | None = None


class TestCase(BaseModel):
    __test__ = False
    model_config = ConfigDict(extra="forbid")

    input: str
    context: TestCaseContext | None = None
    expected: ExpectedSpec
    output_file: str | None = None
    validator: str | None = None
    validator_config: dict[str, str | int | float | bool] | None = None


class TestCaseSuite(BaseModel):
    __test__ = False
    model_config = ConfigDict(extra="forbid")

    cases: list[TestCase] = Field(default_factory=list)


def load_skill_meta(path: Path) -> tuple[SkillMetadata, list[TestCase]]:
    """What ``Skill.load`` does with ``skill_meta.json``; raises pydantic's ValidationError."""
    meta_dict: dict[str, Any] = json.loads(path.read_text())
    metadata = SkillMetadata()
    tests: list[TestCase] = []
    if "metadata" in meta_dict:
        metadata = SkillMetadata.model_validate(meta_dict["metadata"])
    if "tests" in meta_dict:
        tests = [TestCase.model_validate(t) for t in meta_dict["tests"]]
    return metadata, tests


def save_skill_meta(path: Path, metadata: SkillMetadata, tests: list[TestCase]) -> None:
    """What ``Skill.save`` writes as ``skill_meta.json`` (every key, nulls included)."""
    meta_dict = {
        "metadata": metadata.model_dump(mode="json"),
        "tests": [t.model_dump(mode="json") for t in tests],
    }
    path.write_text(json.dumps(meta_dict, indent=2, default=str))


def check_expected(output: str, expected: ExpectedSpec) -> bool:
    """upskill 0.2.1's grading of a case without a custom validator."""
    lowered = output.lower()
    return all(item.lower() in lowered for item in expected.contains)
