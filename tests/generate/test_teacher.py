"""The teacher's structured answer: found, schema-checked, rule-checked, spec-valid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from upskill_hub.generate.teacher import AnswerRules, check_answer, extract_json_object
from upskill_hub.skill import load_skill, validate_skill, write_skill


def answer(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Date Parsing!",
        "description": "Parse dates strictly: reject impossible days. Use when: parsing dates.",
        "body": "# Dates\n\nUse datetime.date.\n",
        "tests": [
            {
                "id": "feb-30",
                "input": "Is 2026-02-30 a valid date?",
                "assertions": [{"type": "contains_any", "values": ["invalid", "not valid"]}],
            }
        ],
    }
    data.update(overrides)
    return data


def test_extract_json_object_variants() -> None:
    data, errors = extract_json_object('Sure!\n```json\n{"a": 1}\n```\nDone.')
    assert data == {"a": 1} and errors == []
    data, errors = extract_json_object('```\n{"a": 2}\n```')
    assert data == {"a": 2}
    data, errors = extract_json_object('{"a": 3}')
    assert data == {"a": 3}
    data, errors = extract_json_object('```json\n{"a": 1,}\n```')
    assert data is None and "not valid JSON" in errors[0] and "line 1" in errors[0]
    data, errors = extract_json_object("```json\n[1, 2]\n```")
    assert data is None and "is a list, not an object" in errors[0]
    data, errors = extract_json_object("no json here")
    assert data is None and "no JSON object found" in errors[0]
    data, errors = extract_json_object('```json\n{"a": 1}\n```\n```json\n{"b": 2}\n```')
    assert data is None and "exactly one" in errors[0]


def test_valid_answer_normalises_name_and_quotes_yaml(tmp_path: Path) -> None:
    checked, errors = check_answer(answer(), AnswerRules())
    assert errors == [] and checked is not None
    assert checked.name == "date-parsing"
    folder = tmp_path / checked.name
    write_skill(folder, checked.frontmatter(), "\n" + checked.body)
    assert validate_skill(folder).valid  # the ": " in the description is quoted
    assert load_skill(folder).description == answer()["description"]
    assert [c.id for c in checked.tests] == ["feb-30"]


def test_rule_errors_are_specific() -> None:
    bad_case = {
        "id": "feb-30",
        "input": "x",
        "assertions": [
            {"type": "regex", "pattern": "(unclosed"},
            {"type": "judge", "rubric": "is it right?"},
        ],
    }
    _, errors = check_answer(
        answer(tests=[bad_case, bad_case], dropped_tests=[{"id": "a", "reason": "r"}]),
        AnswerRules(),
    )
    text = "\n".join(errors)
    assert "$.tests[1].id: duplicate test id 'feb-30'" in text
    assert "$.tests[0].assertions[0]: regex:" in text
    assert "$.tests[0].assertions[1]: 'judge' needs a judge model" in text
    assert "$.dropped_tests: there are no existing tests" in text
    checked, errors = check_answer(answer(tests=[]), AnswerRules())
    assert checked is None and "at least 1 test case(s) needed, got 0" in errors[0]


def test_schema_errors_name_the_field() -> None:
    _, errors = check_answer(answer(description="", extra=1), AnswerRules())
    text = "\n".join(errors)
    assert "$.description" in text and "'extra' was unexpected" in text


def test_names_are_normalised_or_refused() -> None:
    _, errors = check_answer(answer(name="!!!"), AnswerRules())
    assert errors == ["$.name: '!!!' does not match '[A-Za-z0-9]'"]
    checked, errors = check_answer(answer(name="--Émile's  Skill--"), AnswerRules())
    assert checked is not None and checked.name == "mile-s-skill"
    long_name = "a" * 70
    checked, errors = check_answer(answer(name=long_name), AnswerRules())
    assert checked is not None and len(checked.name) == 64  # normalised, not refused


def test_improve_rules() -> None:
    rules = AnswerRules(phase="improve", existing_ids=("old-1", "old-2"), fixed_name="dates")
    same_id = {"id": "old-1", "input": "x", "assertions": [{"type": "contains", "values": ["y"]}]}
    _, errors = check_answer(
        answer(tests=[same_id], dropped_tests=[{"id": "nope", "reason": "wrong"}]), rules
    )
    text = "\n".join(errors)
    assert "'old-1' is an existing regression test" in text
    assert "unknown test id(s) nope (existing: old-1, old-2)" in text
    checked, errors = check_answer(
        answer(dropped_tests=[{"id": "old-2", "reason": "asks for a removed flag"}]), rules
    )
    assert errors == [] and checked is not None
    assert checked.name == "dates" and checked.dropped == {"old-2": "asks for a removed flag"}
    assert any("keeps its name" in note for note in checked.ignored)


def test_refine_ignores_tests_but_says_so() -> None:
    checked, errors = check_answer(answer(), AnswerRules(phase="refine", fixed_name="dates"))
    assert errors == [] and checked is not None and checked.tests == []
    assert any("suite is fixed" in note for note in checked.ignored)


def test_schema_file_is_valid_json_schema() -> None:
    from jsonschema import Draft202012Validator

    from upskill_hub.skill.schemas import load_schema

    Draft202012Validator.check_schema(load_schema("generated_skill"))
    assert json.dumps(load_schema("generated_skill"))
