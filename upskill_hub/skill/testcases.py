"""Test cases for a skill: read every format upskill uses, write one that upskill 0.2 loads.

Accepted on read:

* ``skill_meta.json`` as ``{"metadata": {...}, "tests": [...]}`` (upskill 0.2; ``null`` metadata
  values, which upskill's ``Skill.save`` writes for every unset key, mean absent),
* ``{"cases": [...]}`` and a bare list of cases (upskill 0.1's ``--tests`` file),
* our own earlier layout, with ``id`` and ``assertions`` inside each test.

An upskill case is ``{"input": str, "context": {"files": {name: content}}, "expected":
{"contains": str | [str]}, "output_file", "validator", "validator_config"}``. upskill 0.2's
``TestCase`` forbids any other key and requires ``expected``, so what upskill cannot express
(a case's id and its typed assertions) is written beside ``tests``, under a top-level key
upskill ignores, paired with ``tests`` by position::

    {"metadata": {...},
     "tests": [{"input": ..., "context": {"files": {...}}, "expected": {"contains": [...]}}],
     "upskill_hub": {"tests": [{"id": ..., "assertions": [{"type": "regex", ...}, ...]}]}}

``tests[i].expected.contains`` is upskill's view of case *i*: the strings of its plain
``contains`` assertions (one string is written as a string, so upskill 0.1 grades it too; none
is ``[]``, which upskill counts as a pass). ``upskill_hub.tests[i].assertions``, when present, is
the complete list of checks of case *i*, and ``expected`` is then not read; it is left out when
``expected.contains`` says everything (one plain ``contains``).

Assertion specs stay plain JSON objects here (``{"type": ..., ...}``): this package knows nothing
of how they are graded (that is ``upskill_hub.evaluation.assertions``), only their shape, which
``schemas/skill_meta.schema.json`` describes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from upskill_hub.errors import InvalidTestFileError
from upskill_hub.skill.evals_json import evals_root, is_evals_json, suite_from_evals
from upskill_hub.skill.suite import HUB_KEY as HUB_KEY
from upskill_hub.skill.suite import AssertionSpec as AssertionSpec
from upskill_hub.skill.suite import TestCase as TestCase
from upskill_hub.skill.suite import TestSuite as TestSuite
from upskill_hub.skill.suite import read_test_json

META_FILENAME = "skill_meta.json"
#: upskill 0.2's own optional case fields (its custom validators): kept as they are, not run.
UPSKILL_CASE_FIELDS = ("output_file", "validator", "validator_config")


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


def _slug(text: str, limit: int = 40) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit].strip("-") or "case"


def _as_str_list(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise InvalidTestFileError(f"{where}: expected a string or a list of strings")


def _files_of(obj: dict[str, Any], where: str) -> dict[str, str]:
    context = obj.get("context")
    if context is None:
        return {}
    if not isinstance(context, dict):
        raise InvalidTestFileError(f"{where}.context: must be an object")
    raw_files = context.get("files")
    if raw_files is None:
        return {}
    if not isinstance(raw_files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in raw_files.items()
    ):
        raise InvalidTestFileError(f"{where}.context.files: must map file names to strings")
    return dict(raw_files)


def _upskill_fields(obj: dict[str, Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in UPSKILL_CASE_FIELDS:
        value = obj.get(key)
        if value is None:
            continue
        ok = (
            isinstance(value, dict)
            and all(
                isinstance(k, str) and isinstance(v, str | int | float | bool)
                for k, v in value.items()
            )
            if key == "validator_config"
            else isinstance(value, str)
        )
        if not ok:
            what = (
                "an object of strings, numbers and booleans"
                if key == "validator_config"
                else ("a string")
            )
            raise InvalidTestFileError(f"{where}.{key}: must be {what}")
        out[key] = value
    return out


def _assertion_list(raw: Any, where: str) -> list[AssertionSpec]:
    if not isinstance(raw, list):
        raise InvalidTestFileError(f"{where}: must be a list")
    out: list[AssertionSpec] = []
    for j, spec in enumerate(raw):
        if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
            raise InvalidTestFileError(f"{where}[{j}]: must be an object with a 'type'")
        if spec["type"] not in ASSERTION_TYPES:
            raise InvalidTestFileError(
                f"{where}[{j}].type: unknown assertion type {spec['type']!r} "
                f"(known: {', '.join(ASSERTION_TYPES)})"
            )
        spec = dict(spec)
        if spec["type"] in ("contains", "contains_any", "not_contains") and "values" in spec:
            spec["values"] = _as_str_list(spec["values"], f"{where}[{j}].values")
        out.append(spec)
    return out


def _case_from_obj(
    obj: Any, index: int, source: str, used_ids: set[str], extra: Any = None
) -> TestCase:
    """Case ``index`` of ``tests``; ``extra`` is its ``upskill_hub.tests`` entry, if any."""
    where = f"{source}: tests[{index}]"
    hub_where = f"{source}: {HUB_KEY}.tests[{index}]"
    if not isinstance(obj, dict):
        raise InvalidTestFileError(f"{where}: a test case must be an object")
    if extra is None:
        extra = {}
    elif not isinstance(extra, dict):
        raise InvalidTestFileError(f"{hub_where}: must be an object")
    text = obj.get("input")
    if not isinstance(text, str) or not text.strip():
        raise InvalidTestFileError(f"{where}.input: must be a non-empty string")
    files = _files_of(obj, where)
    assertions: list[AssertionSpec]
    if "assertions" in extra:
        # the complete list: tests[i].expected is only upskill's view of it
        assertions = _assertion_list(extra["assertions"], f"{hub_where}.assertions")
    else:
        assertions = []
        expected = obj.get("expected")
        if expected is not None:
            if not isinstance(expected, dict):
                raise InvalidTestFileError(f"{where}.expected: must be an object")
            if expected.get("contains") is not None:
                values = _as_str_list(expected["contains"], f"{where}.expected.contains")
                if values:
                    assertions.append({"type": "contains", "values": values})
        if "assertions" in obj:  # the layout written before upskill_hub existed
            assertions += _assertion_list(obj["assertions"], f"{where}.assertions")
    if not assertions:
        raise InvalidTestFileError(f"{where}: has no assertions (add 'assertions' or 'expected')")
    case_id = extra.get("id", obj.get("id"))
    id_where = f"{hub_where}.id" if "id" in extra else f"{where}.id"
    if case_id is None:
        case_id = _slug(text)
        base, n = case_id, 2
        while case_id in used_ids:
            case_id = f"{base}-{n}"
            n += 1
    elif not isinstance(case_id, str) or not case_id:
        raise InvalidTestFileError(f"{id_where}: must be a non-empty string")
    elif case_id in used_ids:
        raise InvalidTestFileError(f"{id_where}: duplicate test id {case_id!r}")
    used_ids.add(case_id)
    return TestCase(
        id=case_id,
        input=text,
        files=files,
        assertions=tuple(assertions),
        upskill_fields=_upskill_fields(obj, where),
    )


def suite_from_obj(data: Any, source: str = "tests") -> TestSuite:
    """Build a :class:`TestSuite` from any accepted JSON shape. ``source`` names it in errors."""
    metadata: dict[str, Any] = {}
    extras: list[Any] | None = None
    if isinstance(data, list):
        raw_cases = data
    elif isinstance(data, dict):
        if "tests" in data:
            raw_cases = data["tests"]
        elif "cases" in data:
            raw_cases = data["cases"]
        else:
            raw_cases = []
        meta = data.get("metadata")
        if meta is None:
            meta = {}
        if not isinstance(meta, dict):
            raise InvalidTestFileError(f"{source}: 'metadata' must be an object")
        # upskill writes every unset metadata key as null: null means absent
        metadata = {k: v for k, v in meta.items() if v is not None}
        hub = data.get(HUB_KEY)
        if hub is not None:
            extras = hub.get("tests") if isinstance(hub, dict) else None
            if not isinstance(extras, list):  # as the schema requires
                raise InvalidTestFileError(
                    f"{source}: '{HUB_KEY}' must be an object with a 'tests' list"
                )
    else:
        raise InvalidTestFileError(
            f"{source}: expected an object with 'tests' or 'cases', or a list"
        )
    if not isinstance(raw_cases, list):
        raise InvalidTestFileError(f"{source}: 'tests' must be a list")
    if extras is not None and len(extras) != len(raw_cases):
        raise InvalidTestFileError(
            f"{source}: {HUB_KEY}.tests has {len(extras)} entries but tests has "
            f"{len(raw_cases)}: they pair by position, so add or remove the matching entry"
        )
    used: set[str] = set()
    cases = [
        _case_from_obj(obj, i, source, used, None if extras is None else extras[i])
        for i, obj in enumerate(raw_cases)
    ]
    return TestSuite(cases=cases, metadata=metadata)


def _is_iso_datetime(text: str) -> bool:
    from datetime import datetime

    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


_UPSKILL_CASE_KEYS = frozenset({"input", "context", "expected", *UPSKILL_CASE_FIELDS})


def upskill_load_problems(data: Any) -> list[str]:
    """Why upskill 0.2.1's ``Skill.load`` (or its ``--tests`` reader) would refuse ``data``, an
    upskill-shaped object: its ``TestCase`` forbids unknown keys and requires ``expected``
    with ``contains``; ``metadata.version`` must be a string and ``generated_at`` a date and
    time. Empty when it loads. (The checks
    our reader shares, such as a string ``input``, are refused before this runs.)"""
    problems: list[str] = []
    if isinstance(data, dict):
        meta = data.get("metadata")
        if isinstance(meta, dict):
            if "version" in meta and not isinstance(meta["version"], str):
                problems.append("metadata.version is not a string")
            when = meta.get("generated_at")
            if isinstance(when, str) and not _is_iso_datetime(when):
                problems.append("metadata.generated_at is not an ISO 8601 date and time")
        raw = data.get("tests", data.get("cases", []))
        key = "tests" if "tests" in data else "cases"
    else:
        raw, key = data, "tests"
    for i, case in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(case, dict):
            continue
        extra = sorted(set(case) - _UPSKILL_CASE_KEYS)
        if extra:
            problems.append(f"{key}[{i}] has keys it refuses ({', '.join(extra)})")
        expected = case.get("expected")
        if not isinstance(expected, dict) or expected.get("contains") is None:
            problems.append(f"{key}[{i}] has no expected.contains")
        elif set(expected) != {"contains"}:
            problems.append(f"{key}[{i}].expected has keys other than contains")
        context = case.get("context")
        if isinstance(context, dict) and set(context) - {"files"}:
            problems.append(f"{key}[{i}].context has keys other than files")
    return problems


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
    data = read_test_json(path)
    return suite_from_obj(data, str(path)) if is_upskill_shape(data) else None


def read_suite(path: Path) -> TestSuite:
    """Read a test file (``skill_meta.json`` or ``--tests FILE``; the spec's ``evals.json``
    too, see :mod:`upskill_hub.skill.evals_json`)."""
    data = read_test_json(path)
    if is_evals_json(data):
        return suite_from_evals(data, str(path), evals_root(path))
    return suite_from_obj(data, str(path))


def dump_suite(suite: TestSuite) -> str:
    """The canonical JSON text of a suite (2-space indent, trailing newline)."""
    return json.dumps(suite.to_dict(), indent=2, ensure_ascii=False) + "\n"


def write_suite(path: Path, suite: TestSuite) -> None:
    """Write ``suite`` in canonical form, atomically."""
    from upskill_hub.atomic_io import atomic_write_text

    atomic_write_text(path, dump_suite(suite))
