"""Every spec rule has a case that passes it and a case that breaks it."""

from __future__ import annotations

from pathlib import Path

import pytest

from upskill_hub.skill import RULES, validate_skill
from upskill_hub.skill.spec import EXTENSION_FIELDS, SPEC_FIELDS

from .helpers_skill import make_skill


def rules_of(report) -> set[str]:
    return {f.rule for f in report.errors}


def warnings_of(report) -> set[str]:
    return {f.rule for f in report.warnings}


# (rule, frontmatter that breaks it, dirname) -- the directory defaults to "demo-skill"
BREAKING = [
    ("name.missing", "description: x\n", None),
    ("name.type", "name: 12\ndescription: x\n", None),
    ("name.type", "name: ''\ndescription: x\n", None),
    ("name.length", f"name: {'a' * 65}\ndescription: x\n", "a" * 65),
    ("name.lowercase", "name: Demo-Skill\ndescription: x\n", "Demo-Skill"),
    ("name.charset", "name: démo\ndescription: x\n", "démo"),
    ("name.charset", "name: demo_skill\ndescription: x\n", "demo_skill"),
    ("name.hyphen-edge", "name: -demo\ndescription: x\n", "-demo"),
    ("name.hyphen-edge", "name: demo-\ndescription: x\n", "demo-"),
    ("name.double-hyphen", "name: demo--skill\ndescription: x\n", "demo--skill"),
    ("name.directory", "name: other-name\ndescription: x\n", None),
    ("description.missing", "name: demo-skill\n", None),
    ("description.type", "name: demo-skill\ndescription: ''\n", None),
    ("description.type", "name: demo-skill\ndescription: [a, b]\n", None),
    ("description.length", f"name: demo-skill\ndescription: {'d' * 1025}\n", None),
    ("license.type", "name: demo-skill\ndescription: x\nlicense: 3\n", None),
    ("frontmatter.control-chars", 'name: demo-skill\ndescription: "x\\e[0m"\n', None),
    ("compatibility.type", "name: demo-skill\ndescription: x\ncompatibility: 3\n", None),
    ("compatibility.length", "name: demo-skill\ndescription: x\ncompatibility: ''\n", None),
    (
        "compatibility.length",
        f"name: demo-skill\ndescription: x\ncompatibility: {'c' * 501}\n",
        None,
    ),
    ("metadata.type", "name: demo-skill\ndescription: x\nmetadata: [a]\n", None),
    ("metadata.type", "name: demo-skill\ndescription: x\nmetadata:\n  version: 1\n", None),
    ("allowed-tools.type", "name: demo-skill\ndescription: x\nallowed-tools: [Read, Bash]\n", None),
    ("frontmatter.unknown-field", "name: demo-skill\ndescription: x\nauthor: me\n", None),
    ("frontmatter.duplicate-key", "name: demo-skill\ndescription: x\ndescription: y\n", None),
    ("frontmatter.not-mapping", "- a\n- b\n", None),
    ("frontmatter.yaml", "name: [unclosed\ndescription: x\n", None),
]

PASSING = {
    "name.length": f"name: {'a' * 64}\ndescription: x\n",
    "name.charset": "name: demo-skill-2\ndescription: x\n",
    "description.length": f"name: demo-skill\ndescription: {'d' * 1024}\n",
    "compatibility.length": f"name: demo-skill\ndescription: x\ncompatibility: {'c' * 500}\n",
    "metadata.type": "name: demo-skill\ndescription: x\nmetadata:\n  version: '1'\n",
    "allowed-tools.type": "name: demo-skill\ndescription: x\nallowed-tools: Read Bash\n",
    "license.type": "name: demo-skill\ndescription: x\nlicense: MIT\n",
}


@pytest.mark.parametrize(("rule", "frontmatter", "dirname"), BREAKING)
def test_rule_breaks(tmp_path: Path, rule: str, frontmatter: str, dirname: str | None) -> None:
    folder = make_skill(tmp_path, "demo-skill", frontmatter, dirname=dirname)
    report = validate_skill(folder)
    assert rule in rules_of(report), report.findings
    assert not report.valid
    for finding in report.errors:
        assert finding.rule in RULES
        assert finding.message


@pytest.mark.parametrize("rule", sorted(PASSING))
def test_rule_passes(tmp_path: Path, rule: str) -> None:
    name = PASSING[rule].split("\n", 1)[0].removeprefix("name: ")
    folder = make_skill(tmp_path, name, PASSING[rule])
    report = validate_skill(folder)
    assert report.valid, report.findings


def test_every_error_rule_is_exercised() -> None:
    covered = {rule for rule, _, _ in BREAKING} | {
        "file.missing",
        "file.name-case",
        "file.not-regular",
        "file.unreadable",
        "file.encoding",
        "frontmatter.missing",
        "frontmatter.unclosed",
        "frontmatter.too-large",
        "meta.json",
        "meta.schema",
    }
    error_rules = {r for r, text in RULES.items() if not text.startswith("(warning)")}
    assert error_rules <= covered


def test_valid_minimal_skill(tmp_path: Path) -> None:
    report = validate_skill(make_skill(tmp_path))
    assert report.valid and not report.warnings
    assert report.name == "demo-skill"


def test_line_numbers_point_at_the_field(tmp_path: Path) -> None:
    fm = "name: demo-skill\nlicense: MIT\ndescription: ''\n"
    report = validate_skill(make_skill(tmp_path, frontmatter=fm))
    (finding,) = report.errors
    assert finding.rule == "description.type"
    assert finding.line == 4  # line 1 is ---
    assert finding.file == "SKILL.md"


def test_skills_ref_defect_triple_dash_in_value(tmp_path: Path) -> None:
    """The reference validator reads `description: a---b` as `a`; we keep it whole."""
    from upskill_hub.skill import load_skill

    folder = make_skill(tmp_path, frontmatter="name: demo-skill\ndescription: a---b\n")
    assert load_skill(folder).description == "a---b"
    assert validate_skill(folder).valid


def test_extension_fields_warn_naming_the_agent(tmp_path: Path) -> None:
    fm = "name: demo-skill\ndescription: x\nargument-hint: '[file]'\nuser-invocable: true\n"
    report = validate_skill(make_skill(tmp_path, frontmatter=fm))
    assert report.valid
    messages = [w.message for w in report.warnings if w.rule == "frontmatter.extension-field"]
    assert len(messages) == 2 and all("Claude Code" in m for m in messages)
    assert set(EXTENSION_FIELDS).isdisjoint(SPEC_FIELDS)


def test_file_rules(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert rules_of(validate_skill(empty)) == {"file.missing"}

    lower = tmp_path / "lower"
    lower.mkdir()
    (lower / "skill.md").write_text("---\nname: lower\ndescription: x\n---\n")
    assert rules_of(validate_skill(lower)) == {"file.name-case"}

    as_dir = tmp_path / "as-dir"
    (as_dir / "SKILL.md").mkdir(parents=True)
    assert rules_of(validate_skill(as_dir)) == {"file.not-regular"}

    loop = tmp_path / "loop"
    loop.mkdir()
    (loop / "SKILL.md").symlink_to(loop / "SKILL.md")
    assert rules_of(validate_skill(loop)) == {"file.unreadable"}

    latin = tmp_path / "latin"
    latin.mkdir()
    (latin / "SKILL.md").write_bytes(b"---\nname: latin\ndescription: caf\xe9\n---\n")
    assert rules_of(validate_skill(latin)) == {"file.encoding"}

    no_fm = make_skill(tmp_path, "no-fm")
    (no_fm / "SKILL.md").write_text("# just markdown\n")
    assert rules_of(validate_skill(no_fm)) == {"frontmatter.missing"}

    unclosed = make_skill(tmp_path, "unclosed")
    (unclosed / "SKILL.md").write_text("---\nname: unclosed\ndescription: x\n")
    assert rules_of(validate_skill(unclosed)) == {"frontmatter.unclosed"}

    big = make_skill(tmp_path, "big", frontmatter="name: big\ndescription: x\n" + "k: v\n" * 20000)
    assert "frontmatter.too-large" in rules_of(validate_skill(big))


def test_bom_and_crlf_are_accepted(tmp_path: Path) -> None:
    folder = tmp_path / "demo-skill"
    folder.mkdir()
    text = "\ufeff---\r\nname: demo-skill\r\ndescription: x\r\n---\r\n# Body\r\n"
    (folder / "SKILL.md").write_bytes(text.encode("utf-8"))
    assert validate_skill(folder).valid


def test_body_guidance_warnings(tmp_path: Path) -> None:
    long_body = "line\n" * 501
    report = validate_skill(make_skill(tmp_path, "long-one", body=long_body))
    assert report.valid and "body.lines" in warnings_of(report)

    wordy = "word " * 4100  # ~20500 chars, ~5100 tokens
    report = validate_skill(make_skill(tmp_path, "wordy", body=wordy))
    assert "body.tokens" in warnings_of(report)

    ok = validate_skill(make_skill(tmp_path, "short", body="# fine\n" * 10))
    assert not {"body.lines", "body.tokens"} & warnings_of(ok)


def test_reference_warnings(tmp_path: Path) -> None:
    body = (
        "See [the guide](references/guide.md) and [deep](references/a/b/deep.md).\n"
        "Run `scripts/missing.py`. Also [web](https://example.com) and [up](../x.md).\n"
        "```\n[inside a fence](references/ignored.md)\n```\n"
    )
    folder = make_skill(tmp_path, body=body)
    (folder / "references").mkdir()
    (folder / "references" / "guide.md").write_text("guide")
    report = validate_skill(folder)
    assert report.valid
    by_rule: dict[str, list[str]] = {}
    for w in report.warnings:
        by_rule.setdefault(w.rule, []).append(w.message)
    assert any("references/a/b/deep.md" in m for m in by_rule["refs.depth"])
    assert any("../x.md" in m for m in by_rule["refs.depth"])
    missing = " ".join(by_rule["refs.missing"])
    assert "scripts/missing.py" in missing and "deep.md" in missing
    assert (
        "guide.md" not in missing and "ignored.md" not in missing and "example.com" not in missing
    )
    line_of_missing = next(w.line for w in report.warnings if "scripts/missing.py" in w.message)
    assert line_of_missing == 6  # ---, name, description, ---, first body line, second


def test_skill_meta_schema_findings(tmp_path: Path) -> None:
    folder = make_skill(tmp_path)
    (folder / "skill_meta.json").write_text('{"tests": [{"input": "x"}]}')
    report = validate_skill(folder)
    assert "meta.schema" in rules_of(report)
    assert all(f.file == "skill_meta.json" for f in report.errors)

    (folder / "skill_meta.json").write_text('{"tests": [')
    assert rules_of(validate_skill(folder)) == {"meta.json"}

    (folder / "skill_meta.json").write_text(
        '{"tests": [{"input": "x", "assertions": [{"type": "telepathy"}]}]}'
    )
    assert "meta.schema" in rules_of(validate_skill(folder))

    (folder / "skill_meta.json").write_text(
        '{"tests": [{"input": "x", "expected": {"contains": "y"}}]}'
    )
    assert validate_skill(folder).valid


def test_bundled_skill_is_valid() -> None:
    root = Path(__file__).resolve().parents[2] / "skills"
    for folder in root.iterdir():
        report = validate_skill(folder)
        assert report.valid, report.findings
        assert not report.warnings, report.warnings


def test_yaml_typed_values_say_quote_it(tmp_path: Path) -> None:
    fm = "name: demo-skill\ndescription: 2024-01-01\nmetadata:\n  owner: me\n  version: 1.0\n"
    report = validate_skill(make_skill(tmp_path, frontmatter=fm))
    by_rule = {f.rule: f for f in report.errors}
    assert "quote it" in by_rule["description.type"].message
    meta = by_rule["metadata.type"]
    assert "'version'" in meta.message and "float" in meta.message and "quote it" in meta.message
    assert meta.line == 6  # the value's own line, not the `metadata:` line


FRONTMATTER_SCHEMA_SKIPS = {
    "name.directory",  # needs the folder name
    "frontmatter.duplicate-key",  # YAML-level, invisible once parsed
    "frontmatter.not-mapping",
    "frontmatter.yaml",
}


@pytest.mark.parametrize(
    ("rule", "frontmatter", "dirname"),
    [case for case in BREAKING if case[0] not in FRONTMATTER_SCHEMA_SKIPS],
)
def test_frontmatter_schema_agrees_with_the_rules(
    rule: str, frontmatter: str, dirname: str | None
) -> None:
    """schemas/frontmatter.schema.json rejects what validate rejects (it cannot drift)."""
    import yaml

    from upskill_hub.skill.schemas import schema_errors

    data = yaml.safe_load(frontmatter)
    assert schema_errors("frontmatter", data), (rule, data)


@pytest.mark.parametrize("rule", sorted(PASSING))
def test_frontmatter_schema_accepts_valid(rule: str) -> None:
    import yaml

    from upskill_hub.skill.schemas import schema_errors

    assert schema_errors("frontmatter", yaml.safe_load(PASSING[rule])) == []


def test_the_readme_lists_every_schema() -> None:
    from tests.cli_runner import REPO

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("JSON Schemas (draft 2020-12)")
    listed = readme[start : readme.index("\n\n", start)]
    names = [p.name.removesuffix(".schema.json") for p in (REPO / "schemas").glob("*.schema.json")]
    assert names and not [n for n in names if f"`{n}`" not in listed]
