"""The teacher: prompts that ask for a skill and its tests, and the checked structured answer.

The teacher answers with one JSON object in a fenced ```json block, shaped by
``schemas/generated_skill.schema.json``. :func:`check_answer` validates it in layers, each
giving messages the teacher can act on:

1. it is one JSON object (a fenced ``json`` block, else an untagged block, else the bare text);
2. ``schema_errors("generated_skill", ...)``: fields, types and every assertion's own fields;
3. rules the schema cannot state: the name normalises to a spec name, test ids are unique and
   do not collide with kept regression tests, the eval engine accepts every assertion
   (``validate_spec``: regexes compile...), ``judge`` needs a judge model,
   dropped tests exist and the suite is not empty;
4. the skill written to a scratch folder passes :func:`upskill_hub.skill.validate_skill`.

:func:`ask_teacher` sends an invalid answer back with these errors, at most ``repairs`` times
(default 3), and then raises :class:`TeacherError` quoting the last errors.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from upskill_hub.backoff import RetryPolicy
from upskill_hub.errors import InvalidTestFileError, UpskillHubError
from upskill_hub.evaluation.retry import RetriesExhausted, complete_with_retries
from upskill_hub.evaluation.types import GenerationParams, Message
from upskill_hub.skill.scaffold import normalize_name
from upskill_hub.skill.testcases import TestCase, suite_from_obj

Phase = Literal["create", "improve", "refine"]

DEFAULT_REPAIRS = 3
DEFAULT_TEACHER_PARAMS = GenerationParams(temperature=0.0, max_tokens=8192, timeout=300.0)

SYSTEM_PROMPT = """\
You write Agent Skills (agentskills.io): a SKILL.md that an AI agent loads into its prompt to do \
a kind of task better, plus test cases that measure whether it helps.

A skill has:
- name: lowercase a-z, 0-9 and single hyphens, at most 64 characters (e.g. "csv-date-parsing").
- description: one or two sentences (at most 1024 characters) saying what the skill does and \
WHEN an agent should use it; agents pick skills by this text.
- body: Markdown instructions: when to use it, a short step-by-step procedure, the exact facts, \
formats and commands that matter, pitfalls, and one complete worked example. Keep it under 500 \
lines. Teach the general method; never hard-code the answers to the test inputs.

The skill will be measured on small and large "student" models: each test case is sent to each \
student with and without the skill in its system prompt, and the answer is graded by the \
assertions. A good test fails without the skill and passes with it. Write 3 to 8 tests; each \
input is a self-contained user request (put any files it needs in context.files); assertions \
check what a correct answer must contain, robustly (case-insensitive substrings, alternatives, \
parsed structure), not exact wording.

Assertion kinds (JSON objects; use only these fields):
- {"type": "contains", "values": ["a", "b"]}: every value appears (case-insensitive; \
"case_sensitive": true to change).
- {"type": "contains_any", "values": ["a", "b"]}: at least one value appears.
- {"type": "not_contains", "values": ["x"]}: no value appears.
- {"type": "regex", "pattern": "sm_90a?", "flags": "i", "count": 1}: Python re.search matches \
(flags from "imsx", count optional).
- {"type": "toml", "paths": ["general.name"], "require": {"general.edition": 5}} (also "json", \
"yaml"): a fenced code block in that language parses, every dotted key path exists, every \
required value matches ("*" matches any key or index).
- {"type": "compiles", "language": "cuda" | "cpp", "arch": "sm_90"}: the first CUDA/C++ block \
compiles with nvcc (skipped where nvcc is missing).
- {"type": "max_tokens", "value": 400}: the answer used at most that many output tokens.
- {"type": "judge", "rubric": "..."}: a judge model grades the answer PASS/FAIL by the rubric \
(only when a judge model is available: see the request).

Answer with ONE JSON object in a single fenced ```json block and nothing else after it:
```json
{
  "name": "skill-name",
  "description": "What it does. Use when ...",
  "body": "# Title\\n\\n## When to use\\n...",
  "license": "Apache-2.0",
  "tests": [
    {"id": "short-id", "input": "the user's request",
     "context": {"files": {"build.toml": "file content"}},
     "assertions": [{"type": "contains", "values": ["..."]}]}
  ],
  "dropped_tests": [{"id": "old-test-id", "reason": "why it is wrong"}],
  "notes": "what you changed and why (optional)"
}
```
"context", "license", "dropped_tests" and "notes" are optional. Test ids use letters, digits, \
".", "_" and "-". The JSON must be valid: escape newlines in strings as \\n.
"""


class TeacherError(UpskillHubError):
    """The teacher could not produce a valid skill (invalid answers, or its API failed)."""


@dataclass
class TeacherAnswer:
    """A checked answer: the skill's fields, its new tests and the tests it drops."""

    name: str
    description: str
    body: str
    tests: list[TestCase]
    dropped: dict[str, str] = field(default_factory=dict)
    license: str | None = None
    compatibility: str | None = None
    notes: str = ""
    ignored: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)

    def frontmatter(self, base: dict[str, Any] | None = None) -> dict[str, Any]:
        """Frontmatter for SKILL.md: ``base`` (an improved skill's own) updated by the answer."""
        fm: dict[str, Any] = dict(base or {})
        fm["name"] = self.name
        fm["description"] = self.description
        if self.license:
            fm["license"] = self.license
        if self.compatibility:
            fm["compatibility"] = self.compatibility
        return fm


@dataclass
class AnswerRules:
    """What :func:`check_answer` expects beyond the schema, by phase.

    ``create``: new tests required (at least ``min_tests``). ``improve``: the skill keeps
    ``fixed_name``; ``existing_ids`` are regression tests that stay unless dropped with a reason;
    new tests may be added. ``refine``: the suite is frozen, so tests and drops are ignored
    (and reported in ``TeacherAnswer.ignored``).
    """

    phase: Phase = "create"
    min_tests: int = 1
    existing_ids: tuple[str, ...] = ()
    fixed_name: str | None = None
    judge_available: bool = False
    base_frontmatter: dict[str, Any] = field(default_factory=dict)
    extra_files: Path | None = None  # a source skill folder whose other files the skill keeps


@dataclass
class Exchange:
    """One request to the teacher and its answer, kept for the work folder's transcript."""

    messages: list[Message]
    answer: str
    errors: list[str]


# --------------------------------------------------------------------------- parsing


def extract_json_object(text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The JSON object of an answer and the errors found looking for it."""
    from upskill_hub.evaluation.fenced import extract_blocks

    blocks = extract_blocks(text, nested=False)
    tagged = [b for b in blocks if b.lang == "json"]
    candidates = tagged or [b for b in blocks if not b.lang]
    sources = [b.code for b in candidates]
    if not sources:
        stripped = text.strip()
        start, end = stripped.find("{"), stripped.rfind("}")
        if start != -1 and end > start:
            sources = [stripped[start : end + 1]]
    if not sources:
        return None, ["no JSON object found: answer with one object in a ```json fenced block"]
    errors: list[str] = []
    for i, source in enumerate(sources):
        where = f"json block {i + 1}" if len(sources) > 1 else "the JSON"
        try:
            data = json.loads(source)
        except json.JSONDecodeError as exc:
            errors.append(
                f"{where} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
            )
            continue
        if not isinstance(data, dict):
            errors.append(f"{where} is a {type(data).__name__}, not an object")
            continue
        if len(tagged) > 1:
            errors.append(f"{len(tagged)} ```json blocks found: send exactly one")
            return None, errors
        return data, []
    return None, errors


def _case_errors(tests: list[Any], rules: AnswerRules) -> list[str]:
    from upskill_hub.evaluation.assertions import validate_spec

    errors: list[str] = []
    seen: set[str] = set()
    existing = set(rules.existing_ids)
    for i, case in enumerate(tests):
        cid = case.get("id", "")
        if cid in seen:
            errors.append(f"$.tests[{i}].id: duplicate test id {cid!r}")
        seen.add(cid)
        if cid in existing:
            errors.append(
                f"$.tests[{i}].id: {cid!r} is an existing regression test: keep it (it is kept "
                "automatically) and give new tests new ids, or drop it in dropped_tests"
            )
        for j, spec in enumerate(case.get("assertions", [])):
            where = f"$.tests[{i}].assertions[{j}]"
            # the eval engine's own check (regex compiles, key paths parse...)
            errors += [f"{where}: {problem}" for problem in validate_spec(spec)]
            if spec.get("type") == "judge" and not spec.get("model") and not rules.judge_available:
                errors.append(
                    f"{where}: 'judge' needs a judge model and none is configured: use "
                    "contains/contains_any/regex/json/yaml/toml instead"
                )
    return errors


def check_answer(
    data: dict[str, Any], rules: AnswerRules
) -> tuple[TeacherAnswer | None, list[str]]:
    """Validate a parsed answer (see the module docstring); the answer or the errors."""
    from upskill_hub.skill.schemas import schema_errors

    errors = [f"{where}: {message}" for where, message in schema_errors("generated_skill", data)]
    if errors:
        return None, errors
    ignored: list[str] = []
    tests = list(data["tests"])
    dropped = {d["id"]: d["reason"].strip() for d in data.get("dropped_tests", [])}
    if rules.phase == "refine":
        if tests:
            ignored.append(
                f"{len(tests)} new test(s) ignored: the suite is fixed after iteration 1"
            )
        if dropped:
            ignored.append(f"dropped_tests ignored ({', '.join(sorted(dropped))}): suite is fixed")
        tests, dropped = [], {}
    name = normalize_name(data["name"])
    if rules.fixed_name:
        if name != rules.fixed_name:
            ignored.append(f"name {data['name']!r} ignored: an improved skill keeps its name")
        name = rules.fixed_name
    if not name:
        errors.append(f"$.name: {data['name']!r} has no letters or digits usable in a skill name")
    if rules.phase == "create" and dropped:
        errors.append("$.dropped_tests: there are no existing tests to drop; remove it")
    unknown = sorted(set(dropped) - set(rules.existing_ids))
    if rules.phase == "improve" and unknown:
        errors.append(
            f"$.dropped_tests: unknown test id(s) {', '.join(unknown)} "
            f"(existing: {', '.join(rules.existing_ids) or 'none'})"
        )
    errors += _case_errors(tests, rules)
    kept = [i for i in rules.existing_ids if i not in dropped]
    if rules.phase != "refine" and len(kept) + len(tests) < rules.min_tests:
        errors.append(
            f"$.tests: at least {rules.min_tests} test case(s) needed, got {len(kept) + len(tests)}"
        )
    cases: list[TestCase] = []
    if not errors and tests:
        try:
            cases = suite_from_obj({"tests": tests}, "$").cases
        except InvalidTestFileError as exc:
            errors.append(str(exc))
    if errors:
        return None, errors
    answer = TeacherAnswer(
        name=name,
        description=" ".join(data["description"].split()),
        body=data["body"].strip("\n") + "\n",
        tests=cases,
        dropped=dropped,
        license=data.get("license"),
        compatibility=data.get("compatibility"),
        notes=data.get("notes", ""),
        ignored=ignored,
        raw=data,
    )
    spec_errors = skill_spec_errors(answer, rules)
    if spec_errors:
        return None, spec_errors
    return answer, []


def skill_spec_errors(answer: TeacherAnswer, rules: AnswerRules) -> list[str]:
    """Errors of ``upskill-hub validate`` on the answer written to a scratch folder."""
    from upskill_hub.skill import validate_skill, write_skill

    with tempfile.TemporaryDirectory(prefix="upskill-generate-check-") as tmp:
        folder = Path(tmp) / answer.name
        write_skill(folder, answer.frontmatter(rules.base_frontmatter), "\n" + answer.body)
        report = validate_skill(folder)
        return [
            f"SKILL.md ({f.rule}): {f.message}"
            for f in report.errors
            if not f.rule.startswith("refs.")  # files of a source skill are copied later
        ]


# --------------------------------------------------------------------------- prompts


def case_json(case: TestCase) -> str:
    return json.dumps(case.to_dict(), ensure_ascii=False)


def _students_line(students: Sequence[str], judge: str | None) -> str:
    small = " (a 135M-parameter model: it follows short, explicit steps and copies examples)"
    names = ", ".join(s + (small if s == "local" else "") for s in students)
    judge_text = (
        f"A judge model ({judge}) grades 'judge' assertions."
        if judge
        else "No judge model is available: do not use 'judge' assertions."
    )
    return f"Students that will be measured with the skill: {names}.\n{judge_text}"


def create_request(
    task: str,
    *,
    students: Sequence[str],
    judge: str | None,
    trace_text: str | None = None,
    trace_header: str = "",
    skill_name: str | None = None,
    skill_text: str | None = None,
    existing_tests: Sequence[TestCase] = (),
) -> str:
    """The first request: write (or improve) the skill and its tests for ``task``."""
    parts = [f"Task the skill is for:\n<task>\n{task.strip()}\n</task>"]
    if trace_text is not None:
        parts.append(
            "Below is a trace of an agent session doing this kind of task. "
            f"{trace_header}\nLearn from it: the steps that worked, the errors the agent hit "
            "and how it fixed them. The skill should let an agent get it right the first time; "
            "tests should cover the mistakes seen in the trace.\n"
            f"<trace>\n{trace_text}\n</trace>"
        )
    if skill_text is not None:
        tests = "\n".join(case_json(c) for c in existing_tests) or "(none)"
        parts.append(
            f'Improve this existing skill. It keeps its name "{skill_name}". Its existing tests '
            'are a regression suite: they stay as they are (do not repeat them in "tests"); '
            "add new tests for what they miss. Drop an existing test only if it is wrong, by "
            'listing its id and the reason in "dropped_tests".\n'
            f"<skill>\n{skill_text.strip()}\n</skill>\n"
            f"<existing_tests>\n{tests}\n</existing_tests>"
        )
    parts.append(_students_line(students, judge))
    parts.append("Answer with the JSON object described in the instructions.")
    return "\n\n".join(parts)


def refine_request(
    *,
    task: str,
    skill_text: str,
    iteration: int,
    results: str,
    history: str,
    evidence: str,
    students: Sequence[str],
    judge: str | None,
    cases: Sequence[TestCase],
) -> str:
    """A refinement request: the current best skill, its measured results and its failures."""
    suite = "\n".join(case_json(c) for c in cases)
    return "\n\n".join(
        [
            f"Task the skill is for:\n<task>\n{task.strip()}\n</task>",
            f"This is iteration {iteration}. The current best skill is:\n"
            f"<skill>\n{skill_text.strip()}\n</skill>",
            f"Its measured results (lift = with-skill pass rate - baseline pass rate, with a "
            f"95% interval):\n{results}",
            f"History of earlier iterations:\n{history}",
            f"The test suite (fixed from now on: every iteration is measured on these same "
            f"cases):\n<tests>\n{suite}\n</tests>",
            "Failures of the current best skill (with the skill in the prompt):\n"
            f"<failures>\n{evidence}\n</failures>",
            _students_line(students, judge),
            "Rewrite the skill so that the students pass these cases for the right reason: fix "
            "missing or unclear instructions, add the facts, formats and a worked example they "
            "lacked, and remove what misled them. Do not paste the expected answers of the "
            "tests into the skill; teach the method. Keep the same name. Return the complete "
            'skill in the JSON object with "tests": [] (the suite is fixed).',
        ]
    )


def repair_prompt(errors: Sequence[str]) -> str:
    lines = "\n".join(f"- {e}" for e in errors)
    return (
        "Your answer could not be used. These problems were found:\n"
        f"{lines}\n\n"
        "Reply with the complete corrected JSON object (all fields, not only the fixed ones) "
        "in one ```json fenced block."
    )


# --------------------------------------------------------------------------- the conversation


async def ask_teacher(
    provider: Any,
    request: str,
    rules: AnswerRules,
    *,
    params: GenerationParams = DEFAULT_TEACHER_PARAMS,
    repairs: int = DEFAULT_REPAIRS,
    retries: int = 3,
    transcript: list[Exchange] | None = None,
) -> TeacherAnswer:
    """Ask, check, send errors back up to ``repairs`` times; :class:`TeacherError` after that."""
    messages = [Message("system", SYSTEM_PROMPT), Message("user", request)]
    errors: list[str] = []
    for _round in range(repairs + 1):
        try:
            completion, _ = await complete_with_retries(
                provider, messages, params, RetryPolicy(retries=retries)
            )
        except RetriesExhausted as failed:
            raise TeacherError(f"teacher {provider.model_id}: {failed.error}") from None
        text = completion.text
        data, errors = extract_json_object(text)
        answer = None
        if data is not None:
            answer, errors = check_answer(data, rules)
        if transcript is not None:
            transcript.append(Exchange(list(messages), text, list(errors)))
        if answer is not None:
            return answer
        messages += [
            Message("assistant", text or "(empty answer)"),
            Message("user", repair_prompt(errors)),
        ]
    shown = "; ".join(errors[:5]) + (f" (+{len(errors) - 5} more)" if len(errors) > 5 else "")
    raise TeacherError(
        f"teacher {provider.model_id}: no valid skill after {repairs} correction(s): {shown}"
    )
