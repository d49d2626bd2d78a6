"""Scripted replies for the fake LLM servers (:mod:`tests.support.llm_servers`).

A **responder** gets the decoded request JSON and returns the reply text, or a
:class:`ToolCallReply` (tool calls, answered as OpenAI ``tool_calls`` or Anthropic ``tool_use``
blocks), an :class:`ErrorReply` (an HTTP error for this request only: a fault chosen by what
was asked, unlike the queued ``inject`` faults) or a :class:`FinishReply` (a reply with a given
finish reason, e.g. ``content_filter`` / ``refusal``). Helpers read requests of either API
(:func:`system_prompt`, :func:`last_user_message`, :func:`tool_results`) and build common
scripts (:func:`constant`, :func:`echo`, :func:`skill_aware`, :func:`skill_agent`).
``llm_servers`` re-exports every public name.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ErrorReply",
    "FinishReply",
    "Responder",
    "ToolCallReply",
    "constant",
    "echo",
    "last_user_message",
    "skill_agent",
    "skill_aware",
    "system_prompt",
    "tool_call",
    "tool_results",
]


@dataclass(frozen=True)
class ToolCallReply:
    """A reply that calls tools: ``calls`` are ``(tool name, input object)`` pairs, sent as
    OpenAI ``tool_calls`` or Anthropic ``tool_use`` blocks (finish reason ``tool_calls`` /
    ``tool_use``)."""

    calls: tuple[tuple[str, dict[str, Any]], ...]
    text: str = ""


@dataclass(frozen=True)
class ErrorReply:
    """Answer this request with HTTP ``status`` and the API's error JSON carrying ``message``
    and, if given, ``code`` (OpenAI's ``error.code``; Anthropic's ``error.type``)."""

    status: int
    message: str
    code: str | None = None


@dataclass(frozen=True)
class FinishReply:
    """A normal reply whose finish reason is ``finish`` (OpenAI ``finish_reason``, Anthropic
    ``stop_reason``)."""

    text: str
    finish: str


#: A responder gets the decoded request and returns the reply text, tool calls, an error or a
#: reply with a given finish reason.
Responder = Callable[[dict[str, Any]], "str | ToolCallReply | ErrorReply | FinishReply"]


def tool_call(name: str, /, **arguments: Any) -> ToolCallReply:
    """A reply calling one tool, e.g. ``tool_call("Read", file_path="references/a.md")``."""
    return ToolCallReply(((name, arguments),))


def _block_text(block: dict[str, Any]) -> str:
    if block.get("type") == "tool_result":
        return _text_of(block.get("content", ""))
    if block.get("type") == "tool_use":
        return json.dumps(block.get("input", {}))
    text = block.get("text", "")
    return text if isinstance(text, str) else ""


def _text_of(content: Any) -> str:
    """Text of a message ``content``: a string or a list of content blocks (tool results and
    tool inputs included)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [_block_text(b) for b in content if isinstance(b, dict)]
        return "\n".join(p for p in parts if p)
    return ""


def tool_results(request: dict[str, Any]) -> list[str]:
    """The texts of every tool result a request carries, in order (OpenAI ``tool`` messages,
    Anthropic ``tool_result`` blocks)."""
    found: list[str] = []
    for msg in request.get("messages", []):
        if msg.get("role") == "tool":
            found.append(_text_of(msg.get("content", "")))
        content = msg.get("content")
        if msg.get("role") == "user" and isinstance(content, list):
            found += [
                _text_of(b.get("content", ""))
                for b in content
                if isinstance(b, dict) and b.get("type") == "tool_result"
            ]
    return found


def skill_agent(
    skill: str,
    *,
    reads: tuple[str, ...] = (),
    answer: Callable[[list[str]], str],
) -> Responder:
    """A scripted agent: when the system prompt's ``<available_skills>`` lists ``skill``, call
    ``Skill`` for it, then ``Read`` each path of ``reads``, one call per turn; then answer
    ``answer(texts)``, texts being every tool result so far plus the system prompt. A request
    without the skill listed (the baseline, or inline mode) is answered at once."""

    def respond(request: dict[str, Any]) -> str | ToolCallReply:
        listed = f"<name>\n{skill}\n</name>" in system_prompt(request) and bool(
            request.get("tools")
        )
        results = tool_results(request)
        steps: list[tuple[str, dict[str, Any]]] = []
        if listed:
            steps = [("Skill", {"skill": skill})] + [("Read", {"file_path": p}) for p in reads]
        if len(results) < len(steps):
            name, args = steps[len(results)]
            return ToolCallReply(((name, args),))
        return answer([*results, system_prompt(request)])

    return respond


def system_prompt(request: dict[str, Any]) -> str:
    """The system prompt of an OpenAI or Anthropic request ("" when there is none)."""
    parts = [_text_of(request.get("system", ""))]
    for msg in request.get("messages", []):
        if msg.get("role") in ("system", "developer"):
            parts.append(_text_of(msg.get("content", "")))
    return "\n\n".join(p for p in parts if p)


def last_user_message(request: dict[str, Any]) -> str:
    """Text of the last ``user`` message of a request ("" when there is none)."""
    for msg in reversed(request.get("messages", [])):
        if msg.get("role") == "user":
            return _text_of(msg.get("content", ""))
    return ""


def constant(text: str) -> Responder:
    """A responder that always answers ``text``."""
    return lambda _request: text


def echo(request: dict[str, Any]) -> str:
    """A responder that answers with the last user message."""
    return last_user_message(request)


def skill_aware(marker: str, *, with_skill: str, without: str) -> Responder:
    """Answer ``with_skill`` when the system prompt contains ``marker``, else ``without``."""
    return lambda request: with_skill if marker in system_prompt(request) else without


def _count_tokens(text: str) -> int:
    return len(text.split())
