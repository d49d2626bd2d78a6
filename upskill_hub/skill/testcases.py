"""Test cases for a skill: read every format upskill uses, write one canonical form.

Accepted on read (upskill 0.1/0.2 shapes):

* ``skill_meta.json`` as ``{"metadata": {...}, "tests": [...]}``,
* ``{"cases": [...]}``,
* a bare list of cases.

A case is ``{"input": str, "context": {"files": {name: content}}, "expected": {"contains": str |
[str]}}`` (upskill) and may carry an ``id`` and an ``assertions`` list (ours). The canonical form
written back is::

    {"metadata": {...}, "tests": [{"id": ..., "input": ..., "context": {"files": {...}},
                                   "assertions": [{"type": "regex", "pattern": ...}, ...]}]}

except that a case checked by exactly one plain ``contains`` keeps upskill's own shape,
``"expected": {"contains": [...]}``, so upskill 0.2.1 can run those cases too.

Assertion specs stay plain JSON objects here (``{"type": ..., ...}``): this package knows nothing
of how they are graded (that is ``upskill_hub.evaluation.assertions``), only their shape, which
``schemas/skill_meta.schema.json`` describes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from upskill_hub.errors import InvalidTestFile
from upskill_hub.json_input import JsonInputError, parse_json

META_FILENAME = "skill_meta.json"

AssertionSpec = dict[str, Any]

ASSERTION_TYPES = (
    "contains",
    "contains_any",
    "not_contains",
    "regex",
    "json",
    "yaml",
    "toml",
    "compiles",
    "max_tokens",
    "judge",
)


@dataclass(frozen=True)
class TestCase:
    """One task for the model plus the assertions its answer must satisfy."""

    __test__ = False  # not a pytest class

    id: str
    input: str
    files: dict[str, str] = field(default_factory=dict)
    assertions: tuple[AssertionSpec, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The canonical form. A case checked by one plain ``contains`` of one string is written
        in upskill's own shape, ``"expected": {"contains": "text"}`` (a string: upskill 0.1/0.2
        grade with ``contains.lower()``, so a list would error there), so upskill runs it too;
        every other case uses ``assertions``."""
        data: dict[str, Any] = {"id": self.id, "input": self.input}
        if self.files:
            data["context"] = {"files": dict(self.files)}
        if len(self.assertions) == 1 and set(self.assertions[0]) == {"type", "values"}:
            (only,) = self.assertions
            values = only["values"]
            value = values if isinstance(values, str) else values[0] if len(values) == 1 else None
            if only["type"] == "contains" and isinstance(value, str):
                data["expected"] = {"contains": value}
                return data
        data["assertions"] = [dict(a) for a in self.assertions]
        return data


@dataclass
class TestSuite:
    """The cases of a skill and the free-form metadata stored beside them."""

    __test__ = False

    cases: list[TestCase] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"metadata": dict(self.metadata), "tests": [c.to_dict() for c in self.cases]}


def _slug(text: str, limit: int = 40) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit].strip("-") or "case"


def _as_str_list(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise InvalidTestFile(f"{where}: expected a string or a list of strings")


def _case_from_obj(obj: Any, index: int, source: str, used_ids: set[str]) -> TestCase:
    where = f"{source}: tests[{index}]"
    if not isinstance(obj, dict):
        raise InvalidTestFile(f"{where}: a test case must be an object")
    text = obj.get("input")
    if not isinstance(text, str) or not text.strip():
        raise InvalidTestFile(f"{where}.input: must be a non-empty string")
    files: dict[str, str] = {}
    context = obj.get("context")
    if context is not None:
        if not isinstance(context, dict):
            raise InvalidTestFile(f"{where}.context: must be an object")
        raw_files = context.get("files", {})
        if not isinstance(raw_files, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in raw_files.items()
        ):
            raise InvalidTestFile(f"{where}.context.files: must map file names to strings")
        files = dict(raw_files)
    assertions: list[AssertionSpec] = []
    expected = obj.get("expected")
    if expected is not None:
        if not isinstance(expected, dict):
            raise InvalidTestFile(f"{where}.expected: must be an object")
        if "contains" in expected:
            values = _as_str_list(expected["contains"], f"{where}.expected.contains")
            assertions.append({"type": "contains", "values": values})
    raw_assertions = obj.get("assertions", [])
    if not isinstance(raw_assertions, list):
        raise InvalidTestFile(f"{where}.assertions: must be a list")
    for j, spec in enumerate(raw_assertions):
        if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
            raise InvalidTestFile(f"{where}.assertions[{j}]: must be an object with a 'type'")
        if spec["type"] not in ASSERTION_TYPES:
            raise InvalidTestFile(
                f"{where}.assertions[{j}].type: unknown assertion type {spec['type']!r} "
                f"(known: {', '.join(ASSERTION_TYPES)})"
            )
        spec = dict(spec)
        if spec["type"] in ("contains", "contains_any", "not_contains") and "values" in spec:
            spec["values"] = _as_str_list(spec["values"], f"{where}.assertions[{j}].values")
        assertions.append(spec)
    if not assertions:
        raise InvalidTestFile(f"{where}: has no assertions (add 'assertions' or 'expected')")
    case_id = obj.get("id")
    if case_id is None:
        case_id = _slug(text)
        base, n = case_id, 2
        while case_id in used_ids:
            case_id = f"{base}-{n}"
            n += 1
    elif not isinstance(case_id, str) or not case_id:
        raise InvalidTestFile(f"{where}.id: must be a non-empty string")
    elif case_id in used_ids:
        raise InvalidTestFile(f"{where}.id: duplicate test id {case_id!r}")
    used_ids.add(case_id)
    return TestCase(id=case_id, input=text, files=files, assertions=tuple(assertions))


def suite_from_obj(data: Any, source: str = "tests") -> TestSuite:
    """Build a :class:`TestSuite` from any accepted JSON shape. ``source`` names it in errors."""
    metadata: dict[str, Any] = {}
    if isinstance(data, list):
        raw_cases = data
    elif isinstance(data, dict):
        if "tests" in data:
            raw_cases = data["tests"]
        elif "cases" in data:
            raw_cases = data["cases"]
        else:
            raw_cases = []
        meta = data.get("metadata", {})
        if not isinstance(meta, dict):
            raise InvalidTestFile(f"{source}: 'metadata' must be an object")
        metadata = dict(meta)
    else:
        raise InvalidTestFile(f"{source}: expected an object with 'tests' or 'cases', or a list")
    if not isinstance(raw_cases, list):
        raise InvalidTestFile(f"{source}: 'tests' must be a list")
    used: set[str] = set()
    cases = [_case_from_obj(obj, i, source, used) for i, obj in enumerate(raw_cases)]
    return TestSuite(cases=cases, metadata=metadata)


def is_upskill_shape(data: Any) -> bool:
    """Whether ``data`` is one of upskill's test-file shapes (an object whose ``tests`` or
    ``cases``, when present, is a list; or a bare list). Other tools write files named
    ``skill_meta.json`` too (``{"tests": "see tests/"}``): the spec says nothing of this file,
    so those are ignored with a warning rather than refused."""
    if isinstance(data, list):
        return True
    if not isinstance(data, dict):
        return False
    return all(isinstance(data[k], list) for k in ("tests", "cases") if k in data)


def read_skill_meta(path: Path) -> TestSuite | None:
    """A skill's ``skill_meta.json`` as a suite; None when it is another tool's format."""
    data = _read_json(path)
    return suite_from_obj(data, str(path)) if is_upskill_shape(data) else None


def read_suite(path: Path) -> TestSuite:
    """Read a test file (``skill_meta.json`` or ``--tests FILE``; the spec's ``evals.json``
    too, see :mod:`upskill_hub.skill.evals_json`)."""
    data = _read_json(path)
    from upskill_hub.skill.evals_json import evals_root, is_evals_json, suite_from_evals

    if is_evals_json(data):
        return suite_from_evals(data, str(path), evals_root(path))
    return suite_from_obj(data, str(path))


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InvalidTestFile(f"{path}: test file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidTestFile(f"{path}: cannot read test file ({exc.__class__.__name__})") from None
    try:
        return parse_json(text)
    except JsonInputError as exc:
        where = f"{path}:{exc.line}" if exc.line else str(path)
        raise InvalidTestFile(f"{where}: {exc}") from None


def dump_suite(suite: TestSuite) -> str:
    """The canonical JSON text of a suite (2-space indent, trailing newline)."""
    return json.dumps(suite.to_dict(), indent=2, ensure_ascii=False) + "\n"


def write_suite(path: Path, suite: TestSuite) -> None:
    """Write ``suite`` in canonical form, atomically."""
    from upskill_hub.atomic_io import atomic_write_text

    atomic_write_text(path, dump_suite(suite))
