"""What agents and their tools write or expect: Claude Code's frontmatter fields, descriptions
inside ``<available_skills>``, byte order marks, and the symlinked skill folders that
``hf skills add`` makes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from upskill_hub.skill import validate_skill
from upskill_hub.skill.spec import EXTENSION_FIELDS

#: Claude Code's documented SKILL.md fields beyond the spec (its skills documentation).
CLAUDE_CODE_FIELDS = {
    "when_to_use": "Use when a PDF must be filled.",
    "argument-hint": "[file]",
    "disable-model-invocation": "true",
    "user-invocable": "false",
    "model": "claude-sonnet-4-5",
    "effort": "high",
    "context": "fork",
    "agent": "general-purpose",
    "paths": '["src/**/*.py"]',
    "shell": "bash",
    "hooks": "{}",
}


def write(parent: Path, name: str, frontmatter: str, body: str = "# Skill\n\nDo it.\n") -> Path:
    folder = parent / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\n{frontmatter}---\n{body}")
    return folder


def test_every_claude_code_field_is_a_warning(tmp_path: Path) -> None:
    assert set(CLAUDE_CODE_FIELDS) <= set(EXTENSION_FIELDS)
    extra = "".join(f"{k}: {v}\n" for k, v in CLAUDE_CODE_FIELDS.items())
    folder = write(tmp_path, "claude-skill", f"description: Fills PDFs.\n{extra}")
    report = validate_skill(folder)
    assert report.valid, report.errors
    warned = {
        f.message.split("'")[1] for f in report.warnings if f.rule.endswith("extension-field")
    }
    assert warned == set(CLAUDE_CODE_FIELDS)


def test_a_skill_with_claude_code_fields_pushes(
    hub_server: object, tmp_path: Path, unique_repo_id: str
) -> None:
    name = unique_repo_id.split("/")[1]
    fields = "when_to_use: Use for PDFs.\npaths: src/**\neffort: low\nshell: bash\n"
    folder = write(tmp_path, name, f"description: Fills PDFs.\n{fields}")
    done = run_cli("push", str(folder), "--repo", unique_repo_id)
    assert done.returncode == 0, done.stderr


def test_angle_brackets_in_the_description_warn(tmp_path: Path) -> None:
    folder = write(tmp_path, "xml-skill", "description: Edits [kernel.<name>] tables.\n")
    report = validate_skill(folder)
    assert report.valid
    (finding,) = [f for f in report.warnings if f.rule == "description.angle-brackets"]
    assert finding.line == 3 and "available_skills" in finding.message
    clean = write(tmp_path, "plain-skill", "description: Edits [kernel.NAME] tables.\n")
    assert not validate_skill(clean).warnings


def test_a_byte_order_mark_warns(tmp_path: Path) -> None:
    folder = tmp_path / "bom-skill"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(
        b"\xef\xbb\xbf---\nname: bom-skill\ndescription: Saved by Notepad.\n---\n# B\n"
    )
    report = validate_skill(folder)
    assert report.valid
    assert [(f.rule, f.line) for f in report.warnings] == [("file.bom", 1)]
    assert "skills-ref" in report.warnings[0].message


# --- symlinked skill folders ------------------------------------------------------------------


def test_links_inside_the_folder_are_followed_and_links_out_are_named(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    # a store the walk does not enter (hidden), linked from skills/ as `hf skills add` does
    store = root / ".store"
    write(store, "alpha", "description: Alpha.\n")
    write(store, "broken", "description: 3\n")  # an invalid skill: proves it was validated
    write(root / "skills", "gamma", "description: Gamma.\n")
    (root / "skills" / "alpha").symlink_to("../.store/alpha", target_is_directory=True)
    (root / "skills" / "broken").symlink_to("../.store/broken", target_is_directory=True)
    (root / "skills" / "again").symlink_to("gamma", target_is_directory=True)  # a second name
    (root / "skills" / "loop").symlink_to("..", target_is_directory=True)
    outside = write(tmp_path / "elsewhere", "delta", "description: Delta.\n")
    (root / "skills" / "delta").symlink_to(outside, target_is_directory=True)

    done = run_cli("validate", str(root), "--format", "json")
    assert done.returncode == 1  # broken is invalid
    data = json.loads(done.stdout)
    assert [s["name"] for s in data["skills"]] == ["alpha", "broken", "gamma"]
    assert [r["rule"] for r in data["skills"][1]["errors"]] == ["description.type"]
    assert data["links_not_followed"] == [
        {"path": str(root / "skills" / "delta"), "target": str(outside.resolve())}
    ]
    text = run_cli("validate", str(root))
    assert f"skipped {root / 'skills' / 'delta'}: a link to {outside.resolve()}" in text.stdout
    assert "3 skill(s): 2 valid, 1 invalid" in text.stdout
    # from skills/ itself the store is outside: named, not read
    inner = json.loads(run_cli("validate", str(root / "skills"), "--format", "json").stdout)
    assert [s["name"] for s in inner["skills"]] == ["gamma"]
    assert {Path(link["path"]).name for link in inner["links_not_followed"]} == {
        "alpha",
        "broken",
        "delta",
        "loop",
    }


def test_links_out_of_the_folder_are_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "home" / "secret-skill"
    secret.mkdir(parents=True)
    (secret / "SKILL.md").write_text("---\nname: secret-skill\ndescription: x\n---\n")
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "secret-skill").symlink_to(secret, target_is_directory=True)
    os.chmod(secret / "SKILL.md", 0)  # reading it would be a finding
    try:
        done = run_cli("validate", str(skills), "--format", "json")
    finally:
        os.chmod(secret / "SKILL.md", 0o644)
    data = json.loads(done.stdout)
    assert [link["path"] for link in data["links_not_followed"]] == [str(skills / "secret-skill")]
    # nothing else there: the folder itself is reported as holding no SKILL.md
    assert [s["path"] for s in data["skills"]] == [str(skills)]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_no_links_no_new_output(tmp_path: Path, fmt: str) -> None:
    write(tmp_path / "pack", "one-skill", "description: One.\n")
    done = run_cli("validate", str(tmp_path / "pack"), "--format", fmt)
    assert done.returncode == 0
    assert "skipped" not in done.stdout and "links_not_followed" not in done.stdout


def test_the_readme_lists_every_rule_id() -> None:
    from tests.cli_runner import REPO
    from upskill_hub.skill import RULES

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("Rule ids: ")
    listed = readme[start : readme.index("Where it differs from the reference", start)]
    missing = [rule for rule in RULES if f"`{rule}`" not in listed]
    assert not missing


def test_the_frontmatter_schema_lists_every_extension_field() -> None:
    from upskill_hub.skill.schemas import load_schema

    assert set(EXTENSION_FIELDS) <= set(load_schema("frontmatter")["properties"])
