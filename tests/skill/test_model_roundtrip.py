"""Loading, writing and re-loading skills; test-case formats; discovery; to-prompt; init."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from upskill_hub.errors import (
    InvalidSkillError,
    InvalidTestFileError,
    SkillNotFoundError,
    UsageError,
)
from upskill_hub.skill import (
    TestSuite,
    discover_skills,
    load_skill,
    read_suite,
    validate_skill,
    write_skill,
    write_suite,
)
from upskill_hub.skill.frontmatter import dump_skill_md, parse_skill_md
from upskill_hub.skill.prompt import to_prompt
from upskill_hub.skill.scaffold import normalize_name, scaffold_skill
from upskill_hub.skill.testcases import dump_suite, suite_from_obj

from .helpers_skill import make_skill

TRICKY = [
    "Use when: the user asks for kernels",
    "a---b",
    "# not a comment",
    "- looks like a list",
    "key: value: more",
    "'quoted' and \"double\"",
    "yes",
    "null",
    "1.0",
    "line one\nline two",
    "trailing space ",
    "@at start",
    "%percent",
    "tab\tinside",
    "unicode ✓ café 漢字",
    "{not: a map}",
    "*star",
    "&amp",
    "!bang",
    "---",
    "...",
]


@pytest.mark.parametrize("description", TRICKY)
def test_written_yaml_is_valid_and_lossless(tmp_path: Path, description: str) -> None:
    fm = {"name": "demo-skill", "description": description, "metadata": {"k": description}}
    body = "\n# Title\n\n---\n\nbody with --- inside\n"
    folder = write_skill(tmp_path / "demo-skill", fm, body)
    skill = load_skill(folder)
    assert skill.frontmatter == fm
    assert skill.body == body
    assert validate_skill(folder).valid or "\n" in description


@settings(max_examples=200, deadline=None)
@given(
    description=st.text(min_size=1, max_size=300),
    extra=st.dictionaries(st.sampled_from(["a", "b", "c"]), st.text(max_size=40), max_size=3),
    body=st.text(max_size=300),
)
def test_roundtrip_property(description: str, extra: dict[str, str], body: str) -> None:
    body = body.replace("\r", "").replace("\ufeff", "")
    fm = {"name": "demo-skill", "description": description, "metadata": extra}
    text = dump_skill_md(fm, body)
    parsed = parse_skill_md(text.replace("\r", ""))
    # PyYAML folds some line breaks (\x85, \u2028) it cannot keep in plain scalars; it quotes them,
    # so the value must survive exactly.
    assert parsed.findings == []
    assert parsed.frontmatter == fm
    assert parsed.body == body


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(SkillNotFoundError):
        load_skill(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SkillNotFoundError, match="SKILL\\.md"):
        load_skill(tmp_path / "empty")
    bad = make_skill(tmp_path, "bad")
    (bad / "SKILL.md").write_text("no frontmatter")
    with pytest.raises(InvalidSkillError, match=r"SKILL\.md:1: .*frontmatter"):
        load_skill(bad)


def test_load_from_skill_md_path_and_files_list(tmp_path: Path) -> None:
    folder = make_skill(tmp_path)
    (folder / "references").mkdir()
    (folder / "references" / "a.md").write_text("a")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("x")
    (folder / ".DS_Store").write_text("x")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "x.pyc").write_text("x")
    skill = load_skill(folder / "SKILL.md")
    assert skill.path == folder
    assert skill.files == ["SKILL.md", "references/a.md"]


UPSKILL_TESTS = {
    "metadata": {"version": "1.0.0", "generated_by": "upskill"},
    "tests": [
        {"input": "Write a build.toml", "expected": {"contains": ["edition", "9.0"]}},
        {
            "input": "Name the arch",
            "context": {"files": {"a.cu": "int x;"}},
            "expected": {"contains": "sm_90"},
        },
    ],
}


@pytest.mark.parametrize(
    "shape",
    [UPSKILL_TESTS, {"cases": UPSKILL_TESTS["tests"]}, UPSKILL_TESTS["tests"]],
    ids=["skill_meta", "cases", "bare-list"],
)
def test_reads_every_upskill_format(tmp_path: Path, shape: object) -> None:
    path = tmp_path / "tests.json"
    path.write_text(json.dumps(shape))
    suite = read_suite(path)
    assert [c.input for c in suite.cases] == ["Write a build.toml", "Name the arch"]
    assert suite.cases[0].assertions == ({"type": "contains", "values": ["edition", "9.0"]},)
    assert suite.cases[1].assertions == ({"type": "contains", "values": ["sm_90"]},)
    assert suite.cases[1].files == {"a.cu": "int x;"}
    assert len({c.id for c in suite.cases}) == 2
    # canonical form is stable: write, read, write gives identical bytes
    out = tmp_path / "skill_meta.json"
    write_suite(out, suite)
    first = out.read_text()
    write_suite(out, read_suite(out))
    assert out.read_text() == first
    # upskill's shape: one string stays a string (upskill 0.1 grades contains.lower()), several
    # are a list (0.2); a lone plain `contains` needs nothing under upskill_hub but its id
    data = json.loads(first)
    assert data["tests"][1]["expected"] == {"contains": "sm_90"}
    assert data["tests"][0]["expected"] == {"contains": ["edition", "9.0"]}
    assert [set(e) for e in data["upskill_hub"]["tests"]] == [{"id"}, {"id"}]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"tests": [{"expected": {"contains": "x"}}]}, r"tests\[0\].input"),
        ({"tests": [{"input": "x"}]}, "no assertions"),
        ({"tests": [{"input": "x", "expected": {"contains": 3}}]}, "expected.contains"),
        ({"tests": [{"input": "x", "assertions": [{"type": "nope"}]}]}, "unknown assertion"),
        (
            {
                "tests": [
                    {"id": "a", "input": "x", "expected": {"contains": "y"}},
                    {"id": "a", "input": "z", "expected": {"contains": "y"}},
                ]
            },
            "duplicate",
        ),
        ("text", "expected an object"),
    ],
)
def test_bad_test_files_name_the_field(data: object, message: str) -> None:
    with pytest.raises(InvalidTestFileError, match=message):
        suite_from_obj(data, "t.json")


def test_read_suite_reports_json_line(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{\n  "tests": [\n    oops\n')
    with pytest.raises(InvalidTestFileError, match=r"t.json:3: invalid JSON"):
        read_suite(path)
    with pytest.raises(InvalidTestFileError, match="not found"):
        read_suite(tmp_path / "missing.json")


def test_dump_suite_is_canonical() -> None:
    suite = suite_from_obj(UPSKILL_TESTS)
    data = json.loads(dump_suite(suite))
    assert set(data) == {"metadata", "tests", "upskill_hub"}
    assert data["tests"][1]["context"] == {"files": {"a.cu": "int x;"}}
    assert data["tests"][0] == {
        "input": "Write a build.toml",
        "expected": {"contains": ["edition", "9.0"]},
    }
    assert data["upskill_hub"]["tests"][0] == {"id": "write-a-build-toml"}
    assert data["tests"][1]["expected"] == {"contains": "sm_90"}
    richer = suite_from_obj(
        [
            {
                "input": "x",
                "expected": {"contains": "a"},
                "assertions": [{"type": "regex", "pattern": "b"}],
            }
        ]
    )
    written = json.loads(dump_suite(richer))
    # upskill checks what it can (the contains), the whole list is ours
    assert written["tests"] == [{"input": "x", "expected": {"contains": "a"}}]
    assert written["upskill_hub"]["tests"][0]["assertions"] == [
        {"type": "contains", "values": ["a"]},
        {"type": "regex", "pattern": "b"},
    ]


def test_discover(tmp_path: Path) -> None:
    a = make_skill(tmp_path / "pack", "a-skill")
    b = make_skill(tmp_path / "pack" / "nested", "b-skill")
    (a / "references").mkdir()
    assert discover_skills(tmp_path / "pack") == [a, b]
    assert discover_skills(a / "SKILL.md") == [a]
    assert discover_skills(a) == [a]
    (tmp_path / "none").mkdir()
    assert discover_skills(tmp_path / "none") == [tmp_path / "none"]
    with pytest.raises(UsageError, match="no such file"):
        discover_skills(tmp_path / "missing")


def test_to_prompt_escapes(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, frontmatter="name: demo-skill\ndescription: 'Use <b> & co'\n")
    out = to_prompt([load_skill(folder)])
    assert out.startswith("<available_skills>\n<skill>\n<name>\ndemo-skill\n</name>")
    assert "Use &lt;b&gt; &amp; co" in out
    assert f"{folder.resolve()}/SKILL.md" in out
    assert out.endswith("</skill>\n</available_skills>")


def test_scaffold(tmp_path: Path) -> None:
    folder = scaffold_skill("my-skill", tmp_path)
    report = validate_skill(folder)
    assert report.valid, report.findings
    assert load_skill(folder).tests[0].id == "example"
    with pytest.raises(UsageError, match="already exists"):
        scaffold_skill("my-skill", tmp_path)
    with pytest.raises(UsageError, match="try 'my-skill'"):
        scaffold_skill("My Skill", tmp_path)
    assert normalize_name("  Hello__World--2 ") == "hello-world-2"


def test_yaml_dump_quotes_colon_description() -> None:
    text = dump_skill_md({"name": "x", "description": "Use when: asked"}, "")
    fm = yaml.safe_load(text.split("---\n")[1])
    assert fm["description"] == "Use when: asked"


def test_empty_suite_roundtrip(tmp_path: Path) -> None:
    write_suite(tmp_path / "m.json", TestSuite())
    assert read_suite(tmp_path / "m.json").cases == []


def test_written_files_load_and_grade_in_upskill(tmp_path: Path) -> None:
    """What we write, upskill itself reads (its TestCase model) and grades (check_expected)."""
    from upskill.evaluate import check_expected
    from upskill.models import TestCase as UpskillCase

    from upskill_hub.skill.scaffold import scaffold_skill

    bundled = Path(__file__).resolve().parents[2] / "skills" / "kernel-builder-cuda-kernels"
    starter = scaffold_skill("starter-skill", tmp_path)
    for meta in (bundled / "skill_meta.json", starter / "skill_meta.json"):
        raw = json.loads(meta.read_text(encoding="utf-8"))["tests"]
        graded = 0
        for case in raw:
            loaded = UpskillCase(**case)
            if loaded.expected and "contains" in loaded.expected:
                want = loaded.expected["contains"]
                if not isinstance(want, str):
                    # several strings (or none) are a list: upskill 0.2's form, which 0.1 cannot
                    # grade (it calls .lower() on it); 0.2's grading is tested in test_upskill02
                    assert isinstance(want, list), meta
                    continue
                assert check_expected(f"... {want.upper()} ...", loaded.expected)
                assert not check_expected("unrelated", loaded.expected)
                graded += 1
        assert graded >= 1, meta


def test_another_tools_skill_meta_is_ignored_with_a_warning(tmp_path: Path) -> None:
    from upskill_hub.skill import validate_skill

    folder = tmp_path / "other-tool"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: other-tool\ndescription: Uses another tool's meta file.\n---\n# X\n"
    )
    (folder / "skill_meta.json").write_text('{"tests": "see tests/"}')
    report = validate_skill(folder)
    assert not report.errors, report
    assert [f.rule for f in report.findings] == ["meta.unknown-shape"]
    assert load_skill(folder).suite is None


def test_hostile_json_in_test_files_is_one_finding(tmp_path: Path) -> None:
    from upskill_hub.skill import validate_skill

    for text in ("[" * 100_000, '{"tests": [], "n": ' + "9" * 5000 + "}"):
        folder = tmp_path / "deep-meta"
        folder.mkdir(exist_ok=True)
        (folder / "SKILL.md").write_text(
            "---\nname: deep-meta\ndescription: Hostile meta file.\n---\n# X\n"
        )
        (folder / "skill_meta.json").write_text(text)
        report = validate_skill(folder)
        assert [f.rule for f in report.findings] == ["meta.json"]
        with pytest.raises(InvalidTestFileError):
            read_suite(folder / "skill_meta.json")
