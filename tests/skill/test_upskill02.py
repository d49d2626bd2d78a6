"""upskill 0.2 both ways: files in its exact shape are read here, and what we write loads there.

upskill 0.2.1 is not on the package index reachable here, so :mod:`tests.support.upskill02`
mirrors its reader's pydantic models (extra keys forbidden, ``expected`` required) and its
writer (every metadata key and case field, nulls included).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import REPO, run_cli
from tests.support import upskill02
from tests.support.eval_runs import FACT, canary_skill, marker, run_eval
from tests.support.llm_servers import openai_server, skill_aware
from upskill_hub.errors import InvalidTestFileError
from upskill_hub.skill import load_skill, validate_skill
from upskill_hub.skill.testcases import (
    TestCase,
    TestSuite,
    dump_suite,
    read_suite,
    suite_from_obj,
    write_suite,
)

BUNDLED = REPO / "skills" / "kernel-builder-cuda-kernels"
ANSWERS = REPO / "tests" / "fixtures" / "kernel_builder_answers"

#: skill_meta.json exactly as upskill 0.2.1's ``Skill.save`` writes it (``model_dump``: every
#: key, unset ones null; ``generated_at`` a naive ISO datetime).
UPSKILL02_META: dict[str, Any] = {
    "metadata": {
        "version": "1.0",
        "generated_by": "claude-opus-4-5-20251101",
        "generated_at": "2026-01-12T10:31:07.123456",
        "source_task": "Answer questions about the Quuxium code",
        "test_pass_rate": None,
        "license": None,
        "compatibility": None,
    },
    "tests": [
        {
            "input": "What is the Quuxium code?",
            "context": None,
            "expected": {"contains": [FACT]},
            "output_file": None,
            "validator": None,
            "validator_config": None,
        },
        {
            "input": "Read notes.txt and give the Quuxium code with its prefix.",
            "context": {"files": {"notes.txt": "The prefix is QUUXIUM."}},
            "expected": {"contains": ["quuxium", FACT]},
            "output_file": None,
            "validator": None,
            "validator_config": None,
        },
        {
            "input": "Say the Quuxium code once more.",
            "context": {"files": None},
            "expected": {"contains": [FACT]},
            "output_file": None,
            "validator": None,
            "validator_config": None,
        },
    ],
}


def upskill02_skill(parent: Path, name: str = "quuxium-02") -> Path:
    folder = canary_skill(parent, [], name=name)
    (folder / "skill_meta.json").write_text(json.dumps(UPSKILL02_META, indent=2))
    return folder


def assert_loads_in_upskill02(path: Path) -> list[upskill02.TestCase]:
    _, tests = upskill02.load_skill_meta(path)  # raises pydantic's ValidationError otherwise
    return tests


# --- the fixture is in upskill 0.2's exact shape ----------------------------------------------


def test_fixture_is_what_upskill02_writes(tmp_path: Path) -> None:
    metadata, tests = upskill02.load_skill_meta(upskill02_skill(tmp_path) / "skill_meta.json")
    again = tmp_path / "saved.json"
    upskill02.save_skill_meta(again, metadata, tests)
    saved = json.loads(again.read_text())
    # Skill.save writes {"files": null} for a context without files, as the third case has
    saved["tests"][0]["context"] = None
    assert saved == UPSKILL02_META


# --- upskill 0.2 -> upskill-hub -----------------------------------------------------------------


def test_upskill02_file_with_nulls_validates(tmp_path: Path) -> None:
    folder = upskill02_skill(tmp_path)
    done = run_cli("validate", str(folder), "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    (report,) = json.loads(done.stdout)["skills"]
    assert report["errors"] == [] and report["warnings"] == []
    suite = load_skill(folder).suite
    assert suite is not None
    # null metadata means absent
    assert suite.metadata == {
        "version": "1.0",
        "generated_by": "claude-opus-4-5-20251101",
        "generated_at": "2026-01-12T10:31:07.123456",
        "source_task": "Answer questions about the Quuxium code",
    }
    assert [c.assertions for c in suite.cases] == [
        ({"type": "contains", "values": [FACT]},),
        ({"type": "contains", "values": ["quuxium", FACT]},),
        ({"type": "contains", "values": [FACT]},),
    ]
    assert suite.cases[1].files == {"notes.txt": "The prefix is QUUXIUM."}
    assert suite.cases[2].files == {}


def test_upskill02_validator_fields_are_kept_and_reported(tmp_path: Path) -> None:
    data = json.loads(json.dumps(UPSKILL02_META))
    data["tests"][0].update(
        output_file="eval.yaml", validator="hf_eval_yaml", validator_config={"min_metrics": 2}
    )
    suite = suite_from_obj(data)
    assert suite.cases[0].upskill_fields == {
        "output_file": "eval.yaml",
        "validator": "hf_eval_yaml",
        "validator_config": {"min_metrics": 2},
    }
    out = tmp_path / "skill_meta.json"
    write_suite(out, suite)
    (written,) = [t for t in assert_loads_in_upskill02(out) if t.validator]
    assert written.validator_config == {"min_metrics": 2} and written.output_file == "eval.yaml"


def test_upskill02_file_pushes_and_pulls_back_unchanged(
    hub_server: object, tmp_path: Path, unique_repo_id: str
) -> None:
    name = unique_repo_id.split("/")[1]
    folder = upskill02_skill(tmp_path / "src", name)
    pushed = run_cli("push", str(folder), "--repo", unique_repo_id, "--format", "json")
    assert pushed.returncode == 0, pushed.stderr
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    pulled = run_cli("pull", unique_repo_id, cwd=project)
    assert pulled.returncode == 0, pulled.stderr
    meta = project / ".claude" / "skills" / name / "skill_meta.json"
    assert json.loads(meta.read_text()) == UPSKILL02_META
    assert_loads_in_upskill02(meta)


@pytest.fixture
def llm() -> Iterator[Any]:
    with openai_server(
        skill_aware(marker("quuxium-02"), with_skill=f"Quuxium: {FACT}.", without="No idea.")
    ) as server:
        yield server


def test_upskill02_file_evaluates(tmp_path: Path, llm: Any) -> None:
    folder = upskill02_skill(tmp_path)
    done = run_eval(
        folder, llm.base_url, "--model", "m", "--output", str(tmp_path / "runs"), "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    (model,) = json.loads(done.stdout)["models"]
    assert model["with_skill"]["passed"] == 3 and model["baseline"]["passed"] == 0
    # the run folder's copy of the cases is in the same layout
    (tests_json,) = (tmp_path / "runs").glob("*/tests.json")
    assert len(assert_loads_in_upskill02(tests_json)) == 3


# --- upskill-hub -> upskill 0.2 -----------------------------------------------------------------

EVERY_KIND = TestSuite(
    cases=[
        TestCase("plain", "a?", assertions=({"type": "contains", "values": ["x"]},)),
        TestCase("several", "b?", assertions=({"type": "contains", "values": ["x", "y"]},)),
        TestCase("typed-only", "c?", assertions=({"type": "regex", "pattern": "^z+$"},)),
        TestCase(
            "mixed",
            "d?",
            files={"a.cu": "int x;"},
            assertions=(
                {"type": "contains", "values": ["x"], "case_sensitive": True},
                {"type": "not_contains", "values": ["w"]},
                {"type": "judge", "rubric": "Is it right?"},
            ),
        ),
        TestCase(
            "two-contains",
            "e?",
            assertions=(
                {"type": "contains", "values": ["x"]},
                {"type": "contains", "values": ["y"]},
            ),
        ),
    ],
    metadata={"version": "1.0", "license": None, "teacher": "t", "lift_history": [{"lift": 0.5}]},
)


def test_what_we_write_loads_in_upskill02_with_no_loss(tmp_path: Path) -> None:
    out = tmp_path / "skill_meta.json"
    write_suite(out, EVERY_KIND)
    tests = assert_loads_in_upskill02(out)
    # upskill checks the contains strings it can express; none is "[]" (always passes there)
    assert [t.expected.contains for t in tests] == [["x"], ["x", "y"], [], ["x"], ["x", "y"]]
    assert tests[3].context is not None and tests[3].context.files == {"a.cu": "int x;"}
    back = read_suite(out)
    assert [c.to_dict() for c in back.cases] == [c.to_dict() for c in EVERY_KIND.cases]
    assert back.metadata == {"version": "1.0", "teacher": "t", "lift_history": [{"lift": 0.5}]}
    assert dump_suite(back) == out.read_text()


def test_init_writes_a_file_upskill02_loads(tmp_path: Path) -> None:
    assert run_cli("init", "fresh-skill", "--dir", str(tmp_path)).returncode == 0
    (case,) = assert_loads_in_upskill02(tmp_path / "fresh-skill" / "skill_meta.json")
    assert case.expected.contains == ["replace with an expected phrase"]
    assert load_skill(tmp_path / "fresh-skill").tests[0].id == "example"


def test_bundled_skill_loads_in_upskill02_and_its_answers_pass_there() -> None:
    tests = assert_loads_in_upskill02(BUNDLED / "skill_meta.json")
    cases = load_skill(BUNDLED).tests
    assert len(tests) == len(cases)
    for ours, theirs in zip(cases, tests, strict=True):
        assert ours.input == theirs.input
        answer = (ANSWERS / f"{ours.id}.md").read_text(encoding="utf-8")
        # upskill's check is a part of ours: a right answer passes it too
        assert upskill02.check_expected(answer, theirs.expected), ours.id
    assert sum(bool(t.expected.contains) for t in tests) == 11  # README, "The bundled skill"


def test_pull_of_a_pushed_skill_loads_in_upskill02(
    hub_server: object, tmp_path: Path, unique_repo_id: str
) -> None:
    name = unique_repo_id.split("/")[1]
    src = tmp_path / "src"
    src.mkdir()
    shutil.copytree(BUNDLED, src / name)
    skill_md = src / name / "SKILL.md"
    text = skill_md.read_text().replace("name: kernel-builder-cuda-kernels", f"name: {name}")
    skill_md.write_text(text)
    assert run_cli("push", str(src / name), "--repo", unique_repo_id).returncode == 0
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    assert run_cli("pull", unique_repo_id, cwd=project).returncode == 0
    pulled = project / ".claude" / "skills" / name
    loaded = assert_loads_in_upskill02(pulled / "skill_meta.json")
    assert len(loaded) == len(load_skill(BUNDLED).tests)
    assert [c.to_dict() for c in load_skill(pulled).tests] == [
        c.to_dict() for c in load_skill(BUNDLED).tests
    ]


# --- our earlier layout and mistakes ----------------------------------------------------------

EARLIER = {
    "metadata": {"version": "1.0.0"},
    "tests": [
        {"id": "a", "input": "x?", "assertions": [{"type": "regex", "pattern": "y"}]},
        {"id": "b", "input": "z?", "expected": {"contains": "w"}},
    ],
}


def test_files_in_our_earlier_layout_still_read_and_say_upskill_cannot(tmp_path: Path) -> None:
    folder = canary_skill(tmp_path, [], name="earlier")
    (folder / "skill_meta.json").write_text(json.dumps(EARLIER))
    suite = load_skill(folder).suite
    assert suite is not None
    assert [(c.id, c.assertions) for c in suite.cases] == [
        ("a", ({"type": "regex", "pattern": "y"},)),
        ("b", ({"type": "contains", "values": ["w"]},)),
    ]
    report = validate_skill(folder)
    assert report.valid
    warned = [f.message for f in report.warnings if f.rule == "meta.upskill-compat"]
    assert any("tests[0] has keys it refuses (assertions, id)" in m for m in warned), warned
    assert any("tests[0] has no expected.contains" in m for m in warned), warned
    # rewritten by our writer, it loads in upskill 0.2 and reads back the same
    write_suite(folder / "skill_meta.json", suite)
    assert_loads_in_upskill02(folder / "skill_meta.json")
    assert load_skill(folder).suite == suite
    assert not validate_skill(folder).warnings


@pytest.mark.parametrize(
    ("extra", "shown", "raised"),
    [
        (
            {"tests": [{"id": "a"}]},
            "upskill_hub.tests has 1 entries but tests has 3",
            "upskill_hub.tests has 1 entries but tests has 3",
        ),
        ([], r"\$.upskill_hub: \[\] is not of type 'object'", "'upskill_hub' must be an object"),
        ({}, r"\$.upskill_hub: 'tests' is a required property", "with a 'tests' list"),
        (
            {"tests": [{"id": "a"}, {"id": "a"}, {}]},
            r"upskill_hub.tests\[1\].id: duplicate test id 'a'",
            r"upskill_hub.tests\[1\].id: duplicate test id 'a'",
        ),
        (
            {"tests": [{}, {"assertions": [{"type": "telepathy"}]}, {}]},
            r"upskill_hub.tests\[1\].assertions\[0\].type: 'telepathy' is not one of",
            r"upskill_hub.tests\[1\].assertions\[0\].type: unknown assertion type",
        ),
    ],
)
def test_a_bad_upskill_hub_section_is_one_clear_line(
    tmp_path: Path, extra: object, shown: str, raised: str
) -> None:
    folder = upskill02_skill(tmp_path)
    data = {**UPSKILL02_META, "upskill_hub": extra}
    (folder / "skill_meta.json").write_text(json.dumps(data))
    done = run_cli("validate", str(folder))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert re.search(shown, done.stdout), done.stdout
    with pytest.raises(InvalidTestFileError, match=raised):  # eval's reader, without the schema
        load_skill(folder)


def _variant(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(UPSKILL02_META))
    for path, value in changes.items():
        *parents, last = path.split("__")
        node: Any = data
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[last] = value
    return data


@pytest.mark.parametrize(
    "data",
    [
        UPSKILL02_META,
        _variant(metadata__version=1),
        _variant(metadata__version=None),
        _variant(metadata__generated_at="yesterday"),
        _variant(metadata__generated_at="2026-01-12T10:31:07Z"),
        _variant(tests__0__id="a"),
        _variant(tests__0__expected={"contains": None}),
        _variant(tests__0__expected={"contains": "x", "regex": "y"}),
        _variant(tests__1__context={"files": {}, "env": {}}),
        EARLIER,
    ],
)
def test_the_compat_warning_agrees_with_upskill02s_reader(tmp_path: Path, data: Any) -> None:
    from pydantic import ValidationError

    from upskill_hub.skill.testcases import upskill_load_problems

    path = tmp_path / "skill_meta.json"
    path.write_text(json.dumps(data))
    try:
        upskill02.load_skill_meta(path)
        refused = False
    except ValidationError:
        refused = True
    assert bool(upskill_load_problems(data)) == refused
