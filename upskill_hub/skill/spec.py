"""The agentskills.io rules, each with a stable id, checked against a skill folder.

Spec rules are errors; spec guidance (body size, reference depth, missing referenced files) and
documented agent extension fields are warnings. See ``RULES`` for every id.
"""

from __future__ import annotations

import datetime
import math
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from upskill_hub.errors import InvalidSkillError, InvalidTestFileError
from upskill_hub.json_input import JsonInputError, parse_json
from upskill_hub.skill.findings import Finding, Severity
from upskill_hub.skill.frontmatter import parse_skill_md
from upskill_hub.skill.model import SKILL_FILENAME, read_skill_md_text, skill_dir_of
from upskill_hub.skill.testcases import (
    HUB_KEY,
    META_FILENAME,
    is_upskill_shape,
    suite_from_obj,
    upskill_load_problems,
)

SPEC_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")

#: Fields agents document beyond the spec: a warning naming the agent, not an error.
#: Claude Code's list is that of its skills documentation (README, "Check: validate").
EXTENSION_FIELDS: dict[str, str] = {
    key: "Claude Code"
    for key in (
        "when_to_use",
        "argument-hint",
        "disable-model-invocation",
        "user-invocable",
        "model",
        "effort",
        "context",
        "agent",
        "hooks",
        "paths",
        "shell",
    )
}

NAME_MAX = 64
DESCRIPTION_MAX = 1024
COMPATIBILITY_MAX = 500
BODY_MAX_LINES = 500
BODY_MAX_TOKENS = 5000

#: rule id -> what it checks (documentation and tests iterate over this).
RULES: dict[str, str] = {
    "file.missing": "the folder holds a SKILL.md",
    "file.name-case": "the file is named SKILL.md exactly (not skill.md)",
    "file.not-regular": "SKILL.md is a regular file (not a directory, pipe or device)",
    "file.unreadable": "SKILL.md can be read (no symlink loop, permissions, size limit)",
    "file.encoding": "SKILL.md is UTF-8",
    "file.bom": "(warning) SKILL.md does not start with a UTF-8 byte order mark",
    "frontmatter.missing": "SKILL.md starts with --- frontmatter",
    "frontmatter.unclosed": "the frontmatter is closed by a --- line",
    "frontmatter.yaml": "the frontmatter is valid YAML, not nested too deep nor an alias bomb",
    "frontmatter.too-large": "the frontmatter is at most 64 KiB",
    "frontmatter.not-mapping": "the frontmatter is a YAML mapping",
    "frontmatter.duplicate-key": "no key appears twice",
    "frontmatter.unknown-field": "only spec fields (and documented agent extensions) appear",
    "frontmatter.extension-field": "(warning) an agent-specific field other agents ignore",
    "frontmatter.control-chars": "no control characters or ANSI escapes in frontmatter values",
    "name.missing": "name is present",
    "name.type": "name is a non-empty string",
    "name.length": "name is at most 64 characters",
    "name.lowercase": "name is lowercase",
    "name.charset": "name holds only a-z, 0-9 and -",
    "name.hyphen-edge": "name neither starts nor ends with -",
    "name.double-hyphen": "name holds no --",
    "name.directory": "name equals the folder name",
    "description.missing": "description is present",
    "description.type": "description is a non-empty string",
    "description.length": "description is at most 1024 characters",
    "description.angle-brackets": "(warning) description holds no < or > (agents get it in XML)",
    "license.type": "license is a string",
    "compatibility.type": "compatibility is a string",
    "compatibility.length": "compatibility is 1-500 characters",
    "metadata.type": "metadata maps strings to strings",
    "allowed-tools.type": "allowed-tools is a space-separated string",
    "body.lines": "(warning) the body is under 500 lines",
    "body.tokens": "(warning) the body is under about 5000 tokens",
    "body.empty": "(warning) the body has instructions",
    "refs.depth": "(warning) file references are relative and one level deep",
    "refs.missing": "(warning) referenced files exist",
    "meta.json": "skill_meta.json is valid JSON",
    "meta.schema": "skill_meta.json matches schemas/skill_meta.schema.json",
    "meta.unknown-shape": "(warning) skill_meta.json in another tool's format is ignored",
    "meta.upskill-compat": "(warning) upskill 0.2 can load skill_meta.json",
}


@dataclass
class SkillReport:
    """Validation result for one skill folder."""

    path: Path
    name: str | None
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    @property
    def valid(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "name": self.name,
            "valid": self.valid,
            "errors": [f.to_dict() for f in self.errors],
            "warnings": [f.to_dict() for f in self.warnings],
        }


def _yaml_hint(value: Any) -> str:
    """Why a scalar is not a string: YAML typed it (``1.0``, ``yes``, ``2024-01-01``)."""
    if isinstance(value, bool | int | float | datetime.date) or value is None:
        shown = (
            "null" if value is None else str(value).lower() if isinstance(value, bool) else value
        )
        return f" (YAML reads {shown} as {type(value).__name__}; quote it)"
    return ""


def estimate_tokens(text: str) -> int:
    """A network-free token estimate: about four characters per token."""
    return math.ceil(len(text) / 4)


class _Collector:
    def __init__(self, key_lines: dict[str, int]) -> None:
        self.findings: list[Finding] = []
        self.key_lines = key_lines

    def add(
        self,
        rule: str,
        message: str,
        *,
        key: str | None = None,
        severity: Severity = "error",
        line: int | None = None,
        file: str = SKILL_FILENAME,
    ) -> None:
        if line is None and key is not None:
            line = self.key_lines.get(key)
        self.findings.append(Finding(rule, severity, message, file, line))


def _check_fields(fm: dict[str, Any], out: _Collector) -> None:
    unknown = [k for k in fm if k not in SPEC_FIELDS and k not in EXTENSION_FIELDS]
    if unknown:
        out.add(
            "frontmatter.unknown-field",
            f"Unexpected fields in frontmatter: {', '.join(sorted(unknown))}. "
            f"Only {list(SPEC_FIELDS)} are allowed.",
            key=unknown[0],
        )
    for key in fm:
        if key in EXTENSION_FIELDS:
            out.add(
                "frontmatter.extension-field",
                f"Field '{key}' is a {EXTENSION_FIELDS[key]} extension; other agents ignore it",
                key=key,
                severity="warning",
            )


def _check_name(fm: dict[str, Any], dir_name: str, out: _Collector) -> None:
    if "name" not in fm:
        out.add("name.missing", "Missing required field in frontmatter: name", line=1)
        return
    name = fm["name"]
    if not isinstance(name, str) or not name.strip():
        out.add(
            "name.type", f"Field 'name' must be a non-empty string{_yaml_hint(name)}", key="name"
        )
        return
    if len(name) > NAME_MAX:
        out.add(
            "name.length",
            f"Skill name '{name}' exceeds {NAME_MAX} character limit ({len(name)} chars)",
            key="name",
        )
    if name != name.lower():
        out.add("name.lowercase", f"Skill name '{name}' must be lowercase", key="name")
    elif not re.fullmatch(r"[a-z0-9-]+", name):
        out.add(
            "name.charset",
            f"Skill name '{name}' may only contain a-z, 0-9 and hyphens",
            key="name",
        )
    if name.startswith("-") or name.endswith("-"):
        out.add("name.hyphen-edge", "Skill name cannot start or end with a hyphen", key="name")
    if "--" in name:
        out.add("name.double-hyphen", "Skill name cannot contain consecutive hyphens", key="name")
    if dir_name != name:
        out.add(
            "name.directory",
            f"Directory name '{dir_name}' must match skill name '{name}'",
            key="name",
        )


_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _check_control_chars(fm: dict[str, Any], out: _Collector) -> None:
    """Agents paste names and descriptions into prompts and terminals: an ESC there is an ANSI
    escape that can rewrite what a user sees, other control characters hide text."""

    def strings(value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for k, v in value.items() for s in strings(k) + strings(v)]
        if isinstance(value, list):
            return [s for v in value for s in strings(v)]
        return []

    for key, value in fm.items():
        found = sorted({m.group() for s in strings(value) for m in _CONTROL_CHARS.finditer(s)})
        if found:
            shown = ", ".join(f"U+{ord(c):04X}" for c in found[:5])
            out.add(
                "frontmatter.control-chars",
                f"Field '{key}' holds control characters ({shown}); remove them",
                key=str(key),
            )


def _check_description(fm: dict[str, Any], out: _Collector) -> None:
    if "description" not in fm:
        out.add("description.missing", "Missing required field in frontmatter: description", line=1)
        return
    desc = fm["description"]
    if not isinstance(desc, str) or not desc.strip():
        out.add(
            "description.type",
            f"Field 'description' must be a non-empty string{_yaml_hint(desc)}",
            key="description",
        )
    elif len(desc) > DESCRIPTION_MAX:
        out.add(
            "description.length",
            f"Description exceeds {DESCRIPTION_MAX} character limit ({len(desc)} chars)",
            key="description",
        )
    if isinstance(desc, str) and ("<" in desc or ">" in desc):
        out.add(
            "description.angle-brackets",
            "Description contains < or >: agents receive it inside <available_skills> XML and "
            "Anthropic's skill packager refuses it; reword it",
            key="description",
            severity="warning",
        )


def _check_optional(fm: dict[str, Any], out: _Collector) -> None:
    if "license" in fm and not isinstance(fm["license"], str):
        out.add(
            "license.type",
            f"Field 'license' must be a string{_yaml_hint(fm['license'])}",
            key="license",
        )
    if "compatibility" in fm:
        compat = fm["compatibility"]
        if not isinstance(compat, str):
            out.add(
                "compatibility.type",
                f"Field 'compatibility' must be a string{_yaml_hint(compat)}",
                key="compatibility",
            )
        elif not compat.strip():
            out.add(
                "compatibility.length",
                "Field 'compatibility' must not be empty",
                key="compatibility",
            )
        elif len(compat) > COMPATIBILITY_MAX:
            out.add(
                "compatibility.length",
                f"Compatibility exceeds {COMPATIBILITY_MAX} character limit ({len(compat)} chars)",
                key="compatibility",
            )
    if "metadata" in fm:
        meta = fm["metadata"]
        if not isinstance(meta, dict):
            out.add(
                "metadata.type",
                "Field 'metadata' must be a mapping of strings to strings",
                key="metadata",
            )
        else:
            for k, v in meta.items():
                if isinstance(k, str) and isinstance(v, str):
                    continue
                what = f"key {k!r}" if not isinstance(k, str) else f"'{k}'"
                out.add(
                    "metadata.type",
                    f"metadata {what}: {v!r} is a {type(v).__name__}, not a string"
                    f"{_yaml_hint(v) if isinstance(k, str) else ''}",
                    key=f"metadata.{k}" if f"metadata.{k}" in out.key_lines else "metadata",
                )
    if "allowed-tools" in fm and not isinstance(fm["allowed-tools"], str):
        out.add(
            "allowed-tools.type",
            "Field 'allowed-tools' must be a space-separated string, not a "
            f"{type(fm['allowed-tools']).__name__}",
            key="allowed-tools",
        )


_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_CODE_PATH = re.compile(r"`((?:scripts|references|assets)/[^`\s]+)`")


def _referenced_paths(body: str) -> list[tuple[str, int]]:
    refs: list[tuple[str, int]] = []
    in_fence = False
    for offset, line in enumerate(body.split("\n")):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for match in _LINK.finditer(line):
            refs.append((match.group(1), offset))
        for match in _CODE_PATH.finditer(line):
            refs.append((match.group(1), offset))
    return refs


def _check_body(skill_dir: Path, body: str, start_line: int, out: _Collector) -> None:
    if not body.strip():
        out.add(
            "body.empty",
            "SKILL.md has no instructions after the frontmatter",
            severity="warning",
            line=start_line,
        )
        return
    n_lines = body.count("\n") + 1
    if n_lines > BODY_MAX_LINES:
        out.add(
            "body.lines",
            f"Body has {n_lines} lines (guidance: under {BODY_MAX_LINES})",
            severity="warning",
            line=start_line,
        )
    tokens = estimate_tokens(body)
    if tokens > BODY_MAX_TOKENS:
        out.add(
            "body.tokens",
            f"Body is about {tokens} tokens (guidance: under {BODY_MAX_TOKENS}); "
            "move detail into references/",
            severity="warning",
            line=start_line,
        )
    seen: set[str] = set()
    for target, offset in _referenced_paths(body):
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
            continue  # URLs, mailto:, anchors
        ref = target.split("#", 1)[0].split("?", 1)[0]
        if not ref or ref in seen:
            continue
        seen.add(ref)
        line = start_line + offset
        parts = [p for p in ref.split("/") if p not in ("", ".")]
        if ref.startswith("/") or ".." in parts:
            out.add(
                "refs.depth",
                f"Reference '{ref}' must be a relative path inside the skill",
                severity="warning",
                line=line,
            )
            continue
        if len(parts) > 2:
            out.add(
                "refs.depth",
                f"Reference '{ref}' is {len(parts) - 1} levels deep (guidance: one level)",
                severity="warning",
                line=line,
            )
        if not (skill_dir / "/".join(parts)).exists():
            out.add(
                "refs.missing",
                f"Referenced file '{ref}' does not exist",
                severity="warning",
                line=line,
            )


def _check_meta(skill_dir: Path, out: _Collector) -> None:
    meta = skill_dir / META_FILENAME
    if not meta.is_file():
        return
    try:
        data = parse_json(meta.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        out.add(
            "meta.json",
            f"cannot read {META_FILENAME} ({exc.__class__.__name__})",
            file=META_FILENAME,
        )
        return
    except JsonInputError as exc:
        out.add("meta.json", str(exc), line=exc.line, file=META_FILENAME)
        return
    if not is_upskill_shape(data):
        out.add(
            "meta.unknown-shape",
            f"{META_FILENAME} is not in upskill's format (no list of tests); ignored",
            severity="warning",
            file=META_FILENAME,
        )
        return
    from upskill_hub.skill.schemas import schema_errors

    problems = schema_errors("skill_meta", data)
    for where, message in problems:
        out.add("meta.schema", f"{where}: {message}", file=META_FILENAME)
    if not problems:
        try:
            suite_from_obj(data, META_FILENAME)
        except InvalidTestFileError as exc:
            out.add("meta.schema", str(exc).removeprefix(f"{META_FILENAME}: "), file=META_FILENAME)
            return
        for reason in upskill_load_problems(data)[:3]:
            out.add(
                "meta.upskill-compat",
                f"upskill 0.2 cannot load this file: {reason} (upskill-hub writes ids and typed "
                f"assertions under '{HUB_KEY}'; see README, Test cases)",
                severity="warning",
                file=META_FILENAME,
            )


def _starts_with_bom(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(3) == b"\xef\xbb\xbf"
    except OSError:
        return False


def _file_finding(rule: str, message: str, line: int | None = None) -> Finding:
    return Finding(rule, "error", message, SKILL_FILENAME, line)


def validate_skill(path: Path) -> SkillReport:
    """Check one skill folder (or its SKILL.md) against every rule. Never raises on bad input."""
    skill_dir = skill_dir_of(Path(path))
    report = SkillReport(path=skill_dir, name=None)
    skill_md = skill_dir / SKILL_FILENAME
    try:
        names = {p.name for p in skill_dir.iterdir()} if skill_dir.is_dir() else set()
    except OSError:
        names = set()
    if SKILL_FILENAME not in names and not skill_md.is_symlink():
        if "skill.md" in {n.lower() for n in names}:
            report.findings.append(
                _file_finding(
                    "file.name-case", "Found a lowercase skill.md; the spec requires SKILL.md"
                )
            )
        else:
            report.findings.append(_file_finding("file.missing", "Missing required file: SKILL.md"))
        return report
    try:
        regular = stat.S_ISREG(skill_md.stat().st_mode)
    except OSError:
        regular = True  # unreadable: read_skill_md_text below names the reason
    if not regular:
        what = "a directory" if skill_md.is_dir() else "not a regular file (a pipe or device)"
        report.findings.append(_file_finding("file.not-regular", f"SKILL.md is {what}"))
        return report
    try:
        text = read_skill_md_text(skill_md)
    except InvalidSkillError as exc:
        message = str(exc).split(": ", 1)[-1]
        rule = "file.encoding" if "UTF-8" in message else "file.unreadable"
        report.findings.append(_file_finding(rule, message))
        return report
    if _starts_with_bom(skill_md):
        report.findings.append(
            Finding(
                "file.bom",
                "warning",
                "SKILL.md starts with a UTF-8 byte order mark: read here, but the reference "
                "validator (skills-ref) finds no frontmatter; save it without the BOM",
                SKILL_FILENAME,
                1,
            )
        )
    parsed = parse_skill_md(text)
    report.findings.extend(parsed.findings)
    fm = parsed.frontmatter
    out = _Collector(parsed.key_lines)
    if fm is not None:
        name = fm.get("name")
        report.name = name if isinstance(name, str) else None
        _check_fields(fm, out)
        _check_name(
            fm, skill_dir.resolve().name if skill_dir.name in ("", ".") else skill_dir.name, out
        )
        _check_description(fm, out)
        _check_optional(fm, out)
        _check_control_chars(fm, out)
        _check_body(skill_dir, parsed.body, parsed.body_start_line, out)
    _check_meta(skill_dir, out)
    report.findings.extend(out.findings)
    return report
