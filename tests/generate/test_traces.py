"""Trace readers (Claude Code JSONL, Codex JSONL, Markdown) and condensing to a budget."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from upskill_hub.errors import UsageError
from upskill_hub.generate.traces import condense, read_trace

FIXTURES = Path(__file__).parent / "fixtures"


def test_claude_code_session() -> None:
    trace = read_trace(FIXTURES / "claude_code_session.jsonl")
    assert trace.format == "claude-code"
    assert trace.counts == {
        "user": 1,
        "thinking": 1,
        "assistant": 3,
        "tool_call": 4,
        "tool_result": 3,
        "error": 1,
    }
    calls = [e for e in trace.events if e.kind == "tool_call"]
    assert [c.name for c in calls] == ["Read", "Bash", "Write", "Bash"]
    assert json.loads(calls[1].text)["command"].startswith("kernel-builder build")
    (error,) = [e for e in trace.events if e.kind == "error"]
    assert error.name == "Bash" and "unknown field `capabilities`" in error.text
    raw = (FIXTURES / "claude_code_session.jsonl").read_bytes()
    assert trace.sha256 == "sha256:" + hashlib.sha256(raw).hexdigest()


def test_codex_session() -> None:
    trace = read_trace(FIXTURES / "codex_session.jsonl")
    assert trace.format == "codex"
    users = [e.text for e in trace.events if e.kind == "user"]
    assert len(users) == 1 and users[0].startswith("tests/test_parse.py fails")  # no preamble
    calls = [e for e in trace.events if e.kind == "tool_call"]
    assert [c.name for c in calls] == ["shell", "shell", "apply_patch", "shell"]
    assert "*** Begin Patch" in calls[2].text
    (error,) = [e for e in trace.events if e.kind == "error"]
    assert "DID NOT RAISE" in error.text and "(exit code 1)" in error.text
    assert sum(1 for e in trace.events if e.kind == "assistant") == 2  # event_msg not doubled


def test_markdown_transcript() -> None:
    trace = read_trace(FIXTURES / "transcript.md")
    assert trace.format == "markdown"
    kinds = [e.kind for e in trace.events]
    assert kinds.count("tool_call") == 2 and kinds.count("error") == 1
    names = [e.name for e in trace.events if e.kind == "tool_call"]
    assert names == ["Bash", "Edit"]
    (error,) = [e for e in trace.events if e.kind == "error"]
    assert "task_categories: must be a list" in error.text
    # a YAML block with --- lines inside a fence is not split
    assert any("size_categories: 10K<n<100K" in e.text for e in trace.events if e.kind == "user")


def test_markdown_inline_roles(tmp_path: Path) -> None:
    path = tmp_path / "chat.md"
    path.write_text("**User:** fix the date parser\n\n**Assistant:** done, see below\nok\n")
    trace = read_trace(path)
    assert [(e.kind, e.text) for e in trace.events] == [
        ("user", "fix the date parser"),
        ("assistant", "done, see below\nok"),
    ]


def test_condense_keeps_errors_and_tool_calls_and_marks_cuts(tmp_path: Path) -> None:
    rows = [{"type": "user", "message": {"role": "user", "content": "start the job"}}]
    for i in range(40):
        rows.append(
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": f"thinking aloud {i} " + "blah " * 300},
                        {
                            "type": "tool_use",
                            "id": f"t{i}",
                            "name": "Bash",
                            "input": {"command": f"step-{i}"},
                        },
                    ],
                },
            }
        )
        result = {"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok " * 500}
        if i == 20:
            result = {
                "type": "tool_result",
                "tool_use_id": f"t{i}",
                "is_error": True,
                "content": "FATAL-ERROR-20: disk full",
            }
        rows.append({"type": "user", "message": {"role": "user", "content": [result]}})
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    trace = read_trace(path)
    out = condense(trace, budget=8000)
    assert len(out.text) <= 8000 and out.shortened and out.original_chars > 60000
    assert "FATAL-ERROR-20: disk full" in out.text
    assert "start the job" in out.text
    assert sum(f'"step-{i}"' in out.text for i in range(40)) == 40  # every tool call kept
    assert "omitted" in out.text
    assert any("dropped whole" in n for n in out.notes)
    small = condense(trace, budget=10**7)
    assert not small.shortened and "blah blah" in small.text


def test_unreadable_sources(tmp_path: Path) -> None:
    odd = tmp_path / "x.jsonl"
    odd.write_text('{"hello": 1}\n')
    with pytest.raises(UsageError, match="unrecognised trace"):
        read_trace(odd)
    with pytest.raises(UsageError, match="no such file"):
        read_trace(tmp_path / "missing.jsonl")
    half = tmp_path / "half.jsonl"
    half.write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}})
        + '\n{"type": "ass'
    )
    assert [e.text for e in read_trace(half).events] == ["hi"]  # a torn last line is skipped
