"""Split SKILL.md into YAML frontmatter and body, parse the YAML safely, and write it back.

Unlike the reference validator, the closing delimiter is a line holding only ``---`` (so
``description: a---b`` stays whole), keys keep their line numbers, duplicate keys are reported,
and hostile YAML (alias bombs, deep nesting, huge blocks) ends in a finding instead of a hang.
Anchors and aliases are valid YAML and accepted; a document whose aliases would expand past
:data:`MAX_EXPANDED_NODES` nodes (or :data:`MAX_DEPTH` levels, or into a cycle) is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from upskill_hub.skill.findings import Finding

MAX_FRONTMATTER_BYTES = 64 * 1024
MAX_DEPTH = 32
#: Nodes the frontmatter may hold once every alias is expanded (a real one has a few dozen).
MAX_EXPANDED_NODES = 10_000

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@dataclass
class ParsedSkillMd:
    """The pieces of a SKILL.md. ``frontmatter`` is None when it could not be parsed."""

    frontmatter: dict[str, Any] | None
    body: str
    key_lines: dict[str, int] = field(default_factory=dict)
    body_start_line: int = 1
    findings: list[Finding] = field(default_factory=list)


def _error(rule: str, message: str, line: int | None = None) -> Finding:
    return Finding(rule=rule, severity="error", message=message, line=line)


def normalize_text(text: str) -> str:
    """Drop a leading BOM and turn CRLF / CR line ends into LF."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _check_events(source: str) -> Finding | None:
    """Reject excessive nesting before anything is composed."""
    depth = 0
    for event in yaml.parse(source, Loader=_Loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                line = event.start_mark.line + 2 if event.start_mark else None
                return _error(
                    "frontmatter.yaml", f"frontmatter nests deeper than {MAX_DEPTH} levels", line
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return None


def _expansion_problem(root: yaml.Node) -> Finding | None:
    """Size and depth of the document with every alias expanded, without expanding it.

    Composing keeps an alias as a second reference to its anchored node, so the graph is as
    small as the text; sizes are summed bottom-up, once per node (milliseconds for a "billion
    laughs" document that would expand to 10^9 nodes).
    """
    sizes: dict[int, tuple[int, int]] = {}
    in_progress: set[int] = set()

    def measure(node: yaml.Node) -> tuple[int, int]:  # (expanded nodes, expanded depth)
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in in_progress:
            raise _Cycle
        in_progress.add(key)
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        total, depth = 1, 0
        for child in children:
            size, child_depth = measure(child)
            total, depth = min(total + size, MAX_EXPANDED_NODES + 1), max(depth, child_depth)
        in_progress.discard(key)
        sizes[key] = (total, depth + (1 if children else 0))
        return sizes[key]

    try:
        total, depth = measure(root)
    except _Cycle:
        return _error("frontmatter.yaml", "YAML aliases in frontmatter refer to themselves", 2)
    except RecursionError:
        return _error("frontmatter.yaml", "frontmatter nests too deeply", 2)
    if total > MAX_EXPANDED_NODES:
        return _error(
            "frontmatter.yaml",
            f"YAML aliases in frontmatter expand to more than {MAX_EXPANDED_NODES} nodes",
            2,
        )
    if depth > MAX_DEPTH:
        return _error(
            "frontmatter.yaml", f"frontmatter nests deeper than {MAX_DEPTH} levels (aliases)", 2
        )
    return None


class _Cycle(Exception):
    pass


def _duplicate_keys(node: yaml.Node, findings: list[Finding]) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in seen:
                findings.append(
                    _error(
                        "frontmatter.duplicate-key",
                        f"Duplicate key in frontmatter: {key}",
                        key_node.start_mark.line + 2,
                    )
                )
            seen.add(key)
            _duplicate_keys(value_node, findings)
    elif isinstance(node, yaml.SequenceNode):
        for child in node.value:
            _duplicate_keys(child, findings)


def parse_skill_md(text: str) -> ParsedSkillMd:
    """Parse normalised SKILL.md text. Never raises on bad input: problems become findings."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return ParsedSkillMd(
            None, text, findings=[_error("frontmatter.missing", _MSG_NO_FRONTMATTER, 1)]
        )
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if close is None:
        return ParsedSkillMd(
            None, text, findings=[_error("frontmatter.unclosed", _MSG_UNCLOSED, 1)]
        )
    source = "\n".join(lines[1:close])
    body = "\n".join(lines[close + 1 :])
    parsed = ParsedSkillMd(None, body, body_start_line=close + 2)
    if len(source.encode("utf-8", "surrogatepass")) > MAX_FRONTMATTER_BYTES:
        parsed.findings.append(
            _error("frontmatter.too-large", f"frontmatter exceeds {MAX_FRONTMATTER_BYTES} bytes", 2)
        )
        return parsed
    try:
        problem = _check_events(source)
        if problem:
            parsed.findings.append(problem)
            return parsed
        node = yaml.compose(source, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else None
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        parsed.findings.append(
            _error("frontmatter.yaml", f"Invalid YAML in frontmatter: {reason}", line)
        )
        return parsed
    except RecursionError:
        parsed.findings.append(_error("frontmatter.yaml", "frontmatter nests too deeply", 2))
        return parsed
    if not isinstance(node, yaml.MappingNode):
        parsed.findings.append(
            _error("frontmatter.not-mapping", "SKILL.md frontmatter must be a YAML mapping", 2)
        )
        return parsed
    problem = _expansion_problem(node)
    if problem:
        parsed.findings.append(problem)
        return parsed
    _duplicate_keys(node, parsed.findings)
    try:
        data = yaml.constructor.SafeConstructor().construct_document(node)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        parsed.findings.append(
            _error("frontmatter.yaml", f"Invalid YAML in frontmatter: {exc.__class__.__name__}", 2)
        )
        return parsed
    if not isinstance(data, dict):
        parsed.findings.append(
            _error("frontmatter.not-mapping", "SKILL.md frontmatter must be a YAML mapping", 2)
        )
        return parsed
    parsed.frontmatter = {str(k): v for k, v in data.items()}
    for key_node, value_node in node.value:
        key = str(key_node.value)
        parsed.key_lines.setdefault(key, key_node.start_mark.line + 2)
        if isinstance(value_node, yaml.MappingNode):  # e.g. metadata.version
            for sub_key, _ in value_node.value:
                dotted = f"{key}.{sub_key.value}"
                parsed.key_lines.setdefault(dotted, sub_key.start_mark.line + 2)
    return parsed


def dump_skill_md(frontmatter: dict[str, Any], body: str) -> str:
    """The SKILL.md text for ``frontmatter`` and ``body``: valid YAML whatever the values hold."""
    block = yaml.dump(
        frontmatter,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=10_000,
    )
    return f"---\n{block}---\n{body}"


_MSG_NO_FRONTMATTER = "SKILL.md must start with YAML frontmatter (---)"
_MSG_UNCLOSED = "SKILL.md frontmatter not properly closed with ---"
