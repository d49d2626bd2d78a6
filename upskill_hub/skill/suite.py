"""A skill's test cases in memory (:class:`TestCase`, :class:`TestSuite`) and the reading of a
JSON test file.

The file formats built on these, upskill's ``skill_meta.json`` and the spec's ``evals.json``, are
:mod:`upskill_hub.skill.testcases` and :mod:`upskill_hub.skill.evals_json`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from upskill_hub.errors import InvalidTestFileError
from upskill_hub.json_input import JsonInputError, parse_json

#: The top-level key of skill_meta.json holding what upskill cannot express (upskill ignores it).
HUB_KEY = "upskill_hub"

AssertionSpec = dict[str, Any]


def _is_contains(spec: AssertionSpec) -> bool:
    """A ``contains`` assertion: every value appears (upskill's own check when case-insensitive;
    a case-sensitive one implies it)."""
    return spec.get("type") == "contains" and set(spec) <= {"type", "values", "case_sensitive"}


@dataclass(frozen=True)
class TestCase:
    """One task for the model plus the assertions its answer must satisfy."""

    __test__ = False  # not a pytest class

    id: str
    input: str
    files: dict[str, str] = field(default_factory=dict)
    assertions: tuple[AssertionSpec, ...] = ()
    #: upskill 0.2's ``output_file`` / ``validator`` / ``validator_config`` when set: written
    #: back unchanged (upskill-hub does not run upskill's validators).
    upskill_fields: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The case as one self-contained object (ids and typed assertions inline, as run
        comparisons and the generate prompt use it). Files use :meth:`TestSuite.to_dict`."""
        data: dict[str, Any] = {"id": self.id, "input": self.input}
        if self.files:
            data["context"] = {"files": dict(self.files)}
        data["assertions"] = [dict(a) for a in self.assertions]
        data.update(self.upskill_fields)
        return data

    def expected_contains(self) -> list[str]:
        """The strings upskill checks for this case: those of its ``contains`` assertions."""
        out: list[str] = []
        for spec in self.assertions:
            if _is_contains(spec):
                values = spec["values"]
                out.extend([values] if isinstance(values, str) else values)
        return out

    def said_by_expected(self) -> bool:
        """Whether upskill's ``expected.contains`` holds every check of this case."""
        if len(self.assertions) != 1:
            return False
        (only,) = self.assertions
        return (
            set(only) == {"type", "values"}
            and only["type"] == "contains"
            and bool(self.expected_contains())
        )

    def upskill_dict(self) -> dict[str, Any]:
        """The case as upskill 0.2's ``TestCase`` reads it (no other keys: it forbids them)."""
        data: dict[str, Any] = {"input": self.input}
        if self.files:
            data["context"] = {"files": dict(self.files)}
        contains = self.expected_contains()
        # one string stays a string: upskill 0.1 grades ``contains.lower()``, 0.2 takes both
        data["expected"] = {"contains": contains[0] if len(contains) == 1 else contains}
        data.update(self.upskill_fields)
        return data

    def hub_dict(self) -> dict[str, Any]:
        """This case's entry of ``upskill_hub.tests``: its id, and its assertions unless
        ``expected.contains`` already says all of them."""
        data: dict[str, Any] = {"id": self.id}
        if not self.said_by_expected():
            data["assertions"] = [dict(a) for a in self.assertions]
        return data


@dataclass
class TestSuite:
    """The cases of a skill and the free-form metadata stored beside them."""

    __test__ = False

    cases: list[TestCase] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The file form: upskill 0.2 loads ``metadata`` and ``tests``; ids and typed assertions
        go under :data:`HUB_KEY`, paired with ``tests`` by position."""
        return {
            "metadata": {k: v for k, v in self.metadata.items() if v is not None},
            "tests": [c.upskill_dict() for c in self.cases],
            HUB_KEY: {"tests": [c.hub_dict() for c in self.cases]},
        }


def read_test_json(path: Path) -> Any:
    """The JSON of a test file; an unreadable or malformed one is an :class:`InvalidTestFileError`
    naming the file (and the line)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InvalidTestFileError(f"{path}: test file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidTestFileError(
            f"{path}: cannot read test file ({exc.__class__.__name__})"
        ) from None
    try:
        return parse_json(text)
    except JsonInputError as exc:
        where = f"{path}:{exc.line}" if exc.line else str(path)
        raise InvalidTestFileError(f"{where}: {exc}") from None
