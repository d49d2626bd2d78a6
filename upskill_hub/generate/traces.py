"""Agent session traces as a teacher can read them: parse, then condense to a character budget.

Three formats, one small parser each, all producing :class:`TraceEvent` lists:

* **Claude Code** session JSONL (``~/.claude/projects/<dir>/<session>.jsonl``): lines with
  ``type`` ``user`` / ``assistant`` carry ``message.content``, a string or a list of parts
  (``text``, ``thinking``, ``tool_use`` with ``name``/``input``, ``tool_result`` with
  ``content`` and ``is_error``). Other line types (``summary``, ``file-history-snapshot``,
  ``queue-operation``, ``system``) are skipped, as are ``isMeta`` lines.
* **Codex** session JSONL (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): lines
  ``{"timestamp", "type", "payload"}``; ``response_item`` payloads are ``message`` (role +
  ``input_text``/``output_text`` parts), ``function_call`` (``name``, ``arguments`` as a JSON
  string, ``call_id``), ``function_call_output`` (``output``: a string, often JSON with
  ``output`` and ``metadata.exit_code``), ``custom_tool_call`` / ``custom_tool_call_output``
  and ``reasoning``. ``event_msg`` lines duplicate response items and are skipped, as are the
  ``<environment_context>`` / ``<user_instructions>`` preambles Codex injects.
* **Markdown** transcripts: role headings (``## User``, ``### Assistant``, ``**Tool result:**``,
  ``Human:``...) split the text into events; without any heading the whole text is one event.

:func:`condense` keeps user messages, tool calls and errors first and shortens or drops
assistant prose, reasoning and successful tool output before them. Every cut is marked in the
text (``[... 1234 chars omitted ...]``) and summarised in :attr:`CondensedTrace.notes`, which the
teacher prompt states explicitly.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from upskill_hub.errors import Param, UsageError

TraceFormat = Literal["claude-code", "codex", "markdown"]
EventKind = Literal["user", "assistant", "thinking", "tool_call", "tool_result", "error"]

MAX_TRACE_BYTES = 50 * 1024 * 1024
DEFAULT_TRACE_BUDGET = 40_000

#: Drop order when a trace is over budget: first kinds go first; errors and user messages last.
_DROP_ORDER: tuple[EventKind, ...] = (
    "thinking",
    "assistant",
    "tool_result",
    "tool_call",
    "error",
    "user",
)
#: Per-event caps (head, tail) in characters, first pass and tight pass.
_CAPS: dict[EventKind, tuple[tuple[int, int], tuple[int, int]]] = {
    "user": ((3000, 1000), (1500, 500)),
    "assistant": ((1500, 500), (300, 100)),
    "thinking": ((300, 0), (0, 0)),
    "tool_call": ((1500, 300), (600, 100)),
    "tool_result": ((700, 500), (150, 150)),
    "error": ((1000, 2000), (500, 1000)),
}
_CODEX_PREAMBLES = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions")


@dataclass(frozen=True)
class TraceEvent:
    """One step of a session: who, what kind, the text, and the tool's name for calls."""

    kind: EventKind
    text: str
    name: str = ""


@dataclass
class Trace:
    """A parsed trace file: its format, events and the sha256 of its bytes."""

    path: Path
    format: TraceFormat
    events: list[TraceEvent]
    sha256: str
    size: int

    @property
    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for event in self.events:
            out[event.kind] = out.get(event.kind, 0) + 1
        return out


@dataclass
class CondensedTrace:
    """The text shown to the teacher and what condensing did to get it there."""

    text: str
    original_chars: int
    notes: list[str] = field(default_factory=list)

    @property
    def shortened(self) -> bool:
        return bool(self.notes)


# --------------------------------------------------------------------------- reading


def sha256_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _json_lines(text: str, path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    bad = 0
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            bad += 1  # a session killed mid-write leaves a half line: skip it
            continue
        if isinstance(row, dict):
            rows.append(row)
    if not rows:
        raise UsageError(
            Param("source"), f" {path}: no JSON lines could be read ({bad} unreadable)"
        )
    return rows


def detect_format(path: Path, text: str) -> TraceFormat:
    """Which reader fits ``path``: by extension for Markdown, by line shapes for JSONL."""
    suffix = path.suffix.lower()
    if suffix in (".md", ".markdown", ".txt"):
        return "markdown"
    first = text.lstrip()[:1]
    if first != "{":
        return "markdown"
    rows = _json_lines(text, path)
    types = {str(r.get("type")) for r in rows}
    if types & {"session_meta", "response_item", "turn_context", "event_msg"}:
        return "codex"
    if any(r.get("type") in ("user", "assistant") and "message" in r for r in rows):
        return "claude-code"
    raise UsageError(
        Param("source"),
        f" {path}: unrecognised trace (expected a Claude Code or Codex session JSONL, "
        "or a Markdown transcript)",
    )


def read_trace(path: Path) -> Trace:
    """Read and parse a trace file; :class:`UsageError` if it is missing or unreadable."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_TRACE_BYTES:
            raise UsageError(
                Param("source"), f" {path}: {size / 1e6:.0f} MB is over the 50 MB trace limit"
            )
        data = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(Param("source"), f" {path}: no such file") from None
    except OSError as exc:
        raise UsageError(Param("source"), f" {path}: cannot read ({exc.strerror or exc})") from None
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    fmt = detect_format(path, text)
    if fmt == "claude-code":
        events = parse_claude_code(_json_lines(text, path))
    elif fmt == "codex":
        events = parse_codex(_json_lines(text, path))
    else:
        events = parse_markdown(text)
    if not events:
        raise UsageError(Param("source"), f" {path}: the {fmt} trace holds no messages")
    return Trace(path=path, format=fmt, events=events, sha256=sha256_bytes(data), size=len(data))


def _compact_json(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def _parts_text(content: Any) -> str:
    """Text of a tool_result ``content``: a string or a list of ``{"type": "text"}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, dict):
                if part.get("type") == "text":
                    texts.append(str(part.get("text", "")))
                elif part.get("type") == "image":
                    texts.append("[image]")
            elif isinstance(part, str):
                texts.append(part)
        return "\n".join(texts)
    return "" if content is None else _compact_json(content)


def parse_claude_code(rows: Iterable[dict[str, Any]]) -> list[TraceEvent]:
    """Events of a Claude Code session (see the module docstring)."""
    events: list[TraceEvent] = []
    tool_names: dict[str, str] = {}
    for row in rows:
        kind = row.get("type")
        if kind not in ("user", "assistant") or row.get("isMeta"):
            continue
        message = row.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            if content.strip():
                events.append(TraceEvent("user" if kind == "user" else "assistant", content))
            continue
        if not isinstance(content, list):
            continue
        for part in content:
            if not isinstance(part, dict):
                continue
            ptype = part.get("type")
            if ptype == "text" and str(part.get("text", "")).strip():
                events.append(
                    TraceEvent("user" if kind == "user" else "assistant", str(part["text"]))
                )
            elif ptype == "thinking" and str(part.get("thinking", "")).strip():
                events.append(TraceEvent("thinking", str(part["thinking"])))
            elif ptype == "tool_use":
                name = str(part.get("name", "tool"))
                tool_names[str(part.get("id", ""))] = name
                events.append(TraceEvent("tool_call", _compact_json(part.get("input", {})), name))
            elif ptype == "tool_result":
                name = tool_names.get(str(part.get("tool_use_id", "")), "")
                text = _parts_text(part.get("content"))
                events.append(
                    TraceEvent("error" if part.get("is_error") else "tool_result", text, name)
                )
    return events


def _codex_output(raw: Any) -> tuple[str, bool]:
    """The text of a Codex tool output and whether it failed (non-zero exit code)."""
    text = raw if isinstance(raw, str) else _compact_json(raw)
    failed = False
    data: Any = raw
    if isinstance(raw, str):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            data = None
    if isinstance(data, dict):
        meta = data.get("metadata")
        code = meta.get("exit_code") if isinstance(meta, dict) else data.get("exit_code")
        failed = isinstance(code, int) and code != 0
        if isinstance(data.get("output"), str):
            text = data["output"]
            if isinstance(code, int):
                text = f"{text.rstrip()}\n(exit code {code})"
    if not failed:
        failed = bool(re.search(r"(?im)^\s*(exit code|process exited with code):?\s*[1-9]", text))
    return text, failed


def parse_codex(rows: Iterable[dict[str, Any]]) -> list[TraceEvent]:
    """Events of a Codex session (see the module docstring)."""
    events: list[TraceEvent] = []
    tool_names: dict[str, str] = {}
    for row in rows:
        if row.get("type") != "response_item":
            continue
        payload = row.get("payload")
        if not isinstance(payload, dict):
            continue
        ptype = payload.get("type")
        if ptype == "message":
            role = payload.get("role")
            text = _parts_text(
                [
                    {"type": "text", "text": p.get("text", "")}
                    for p in payload.get("content") or []
                    if isinstance(p, dict) and p.get("type") in ("input_text", "output_text")
                ]
            )
            if not text.strip() or text.lstrip().startswith(_CODEX_PREAMBLES):
                continue
            if role == "user":
                events.append(TraceEvent("user", text))
            elif role == "assistant":
                events.append(TraceEvent("assistant", text))
        elif ptype == "reasoning":
            summary = payload.get("summary") or []
            text = "\n".join(
                str(s.get("text", "")) for s in summary if isinstance(s, dict) and s.get("text")
            )
            if text.strip():
                events.append(TraceEvent("thinking", text))
        elif ptype in ("function_call", "custom_tool_call", "local_shell_call"):
            name = str(payload.get("name", "shell" if ptype == "local_shell_call" else "tool"))
            tool_names[str(payload.get("call_id", ""))] = name
            raw = payload.get("arguments", payload.get("input", payload.get("action", "")))
            args = raw
            if isinstance(raw, str):
                try:
                    args = json.loads(raw)
                except json.JSONDecodeError:
                    args = raw
            events.append(TraceEvent("tool_call", _compact_json(args), name))
        elif ptype in ("function_call_output", "custom_tool_call_output"):
            name = tool_names.get(str(payload.get("call_id", "")), "")
            text, failed = _codex_output(payload.get("output", ""))
            events.append(TraceEvent("error" if failed else "tool_result", text, name))
    return events


_MD_LINE = re.compile(
    r"^\s*(?:#{1,4}\s+(?P<h>[^\n]+?)\s*#*\s*$"  # ## User
    r"|\*\*(?P<b>[^*\n]+?)\*\*\s*(?P<btail>.*)$"  # **User:** text
    r"|(?P<p>user|human|assistant|claude|codex)\s*:\s*(?P<ptail>.*)$)",  # User: text
    re.IGNORECASE,
)
_MD_LABEL = re.compile(
    r"^(?P<role>tool call|tool use|tool result|tool output|tool error|user|human|you|"
    r"assistant|claude|codex|agent|ai|tool|error|thinking|reasoning)\b"
    r"\s*[:(\-–—]?\s*(?P<name>[^):]*?)\)?\s*:?\s*$",
    re.IGNORECASE,
)
_MD_KIND: dict[str, EventKind] = {
    "user": "user",
    "human": "user",
    "you": "user",
    "assistant": "assistant",
    "claude": "assistant",
    "codex": "assistant",
    "agent": "assistant",
    "ai": "assistant",
    "tool call": "tool_call",
    "tool use": "tool_call",
    "tool": "tool_call",
    "tool result": "tool_result",
    "tool output": "tool_result",
    "tool error": "error",
    "error": "error",
    "thinking": "thinking",
    "reasoning": "thinking",
}
_ERROR_HINT = re.compile(
    r"(?m)^(Traceback \(most recent call last\)|\w*Error:|error(\[\w+\])?:|FAILED\b|fatal:)"
)


def _md_heading(line: str) -> tuple[EventKind, str, str] | None:
    """``(kind, tool name, text on the same line)`` when ``line`` starts a role section."""
    match = _MD_LINE.match(line)
    if match is None:
        return None
    label = match.group("h") or match.group("b") or match.group("p") or ""
    tail = match.group("btail") or match.group("ptail") or ""
    found = _MD_LABEL.match(label.strip().strip("_*"))
    if found is None:
        return None
    kind = _MD_KIND[found.group("role").lower()]
    name = found.group("name").strip(" `") if kind == "tool_call" else ""
    return kind, name, tail.strip()


def parse_markdown(text: str) -> list[TraceEvent]:
    """Events of a Markdown transcript (role headings; code fences are never split)."""
    events: list[TraceEvent] = []
    kind: EventKind | None = None
    name = ""
    buf: list[str] = []
    in_fence = False

    def flush() -> None:
        body = "\n".join(buf).strip("\n")
        if not body.strip():
            return
        final: EventKind = kind or "user"
        if final == "tool_result" and _ERROR_HINT.search(body):
            final = "error"
        events.append(TraceEvent(final, body, name))

    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        heading = None if in_fence else _md_heading(line)
        if heading is None:
            buf.append(line)
            continue
        flush()
        kind, name, inline = heading
        buf = [inline] if inline else []
    flush()
    return events


# --------------------------------------------------------------------------- condensing

_LABELS: dict[EventKind, str] = {
    "user": "user",
    "assistant": "assistant",
    "thinking": "assistant reasoning",
    "tool_call": "tool call",
    "tool_result": "tool result",
    "error": "tool ERROR",
}


def _cut(text: str, head: int, tail: int) -> str:
    if len(text) <= head + tail + 40:
        return text
    omitted = len(text) - head - tail
    tail_text = text[-tail:] if tail else ""
    return f"{text[:head]}\n[... {omitted} chars omitted ...]\n{tail_text}"


def _render(event: TraceEvent, text: str) -> str:
    label = _LABELS[event.kind]
    if event.name:
        label = f"{label} {event.name}"
    return f"[{label}]\n{text.strip()}"


def render_events(events: list[TraceEvent]) -> str:
    """Every event, whole."""
    return "\n\n".join(_render(e, e.text) for e in events)


_GAP = 40  # upper bound of "[... N event(s) omitted ...]" plus its separator


class _Blocks:
    """Rendered events, some dropped; the text size (gap markers included) kept up to date."""

    def __init__(self, blocks: list[str | None]) -> None:
        self.blocks = blocks
        self.kept = sum(len(b) + 2 for b in blocks if b is not None)
        self.gaps = 0
        for i, b in enumerate(blocks):
            if b is None and (i == 0 or blocks[i - 1] is not None):
                self.gaps += 1

    @property
    def size(self) -> int:
        return self.kept + self.gaps * _GAP

    def drop(self, i: int) -> None:
        block = self.blocks[i]
        if block is None:
            return
        self.kept -= len(block) + 2
        left = i > 0 and self.blocks[i - 1] is None
        right = i + 1 < len(self.blocks) and self.blocks[i + 1] is None
        self.gaps += {(False, False): 1, (True, True): -1}.get((left, right), 0)
        self.blocks[i] = None

    def text(self) -> str:
        out: list[str] = []
        gap = 0
        for block in self.blocks:
            if block is None:
                gap += 1
                continue
            if gap:
                out.append(f"[... {gap} event(s) omitted ...]")
                gap = 0
            out.append(block)
        if gap:
            out.append(f"[... {gap} event(s) omitted ...]")
        return "\n\n".join(out)


def condense(trace: Trace, budget: int = DEFAULT_TRACE_BUDGET) -> CondensedTrace:
    """The trace as text of at most ``budget`` characters (see the module docstring)."""
    full = render_events(trace.events)
    if len(full) <= budget:
        return CondensedTrace(full, len(full))
    notes: list[str] = []
    blocks = _Blocks([])
    for level, label in (
        (0, "long events cut to head and tail"),
        (1, "events cut harder, assistant reasoning dropped"),
    ):
        blocks = _Blocks(
            [
                _render(e, _cut(e.text, *_CAPS[e.kind][level]))
                if _CAPS[e.kind][level] != (0, 0)
                else None
                for e in trace.events
            ]
        )
        notes.append(label)
        if blocks.size <= budget:
            break
    last = len(trace.events) - 1
    dropped: dict[EventKind, int] = {}
    middle = len(trace.events) // 2
    for kind in _DROP_ORDER:
        if blocks.size <= budget:
            break
        # drop this kind from the middle outwards, keeping the first and last events
        idx = [
            i
            for i, e in enumerate(trace.events)
            if e.kind == kind and blocks.blocks[i] is not None and i not in (0, last)
        ]
        idx.sort(key=lambda i: abs(i - middle))
        for i in idx:
            if blocks.size <= budget:
                break
            blocks.drop(i)
            dropped[kind] = dropped.get(kind, 0) + 1
    if dropped:
        notes.append(
            "events dropped whole: " + ", ".join(f"{n} {_LABELS[k]}" for k, n in dropped.items())
        )
    text = blocks.text()
    if len(text) > budget:  # only the first and last events remain and they are huge
        text = _cut(text, budget * 2 // 3, budget // 3 - 40)
        notes.append("the remaining text cut in the middle")
    return CondensedTrace(text, len(full), notes)
