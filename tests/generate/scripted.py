"""Scripted teacher and students for the generate tests (real local HTTP servers).

The teacher is an Anthropic-compatible server answering from a queue of replies; students are an
OpenAI-compatible server whose answer depends on which skill version (a marker word in the
skill body) is in the system prompt and which item the case asks about.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from tests.support.llm_servers import FakeLLMServer, last_user_message, system_prompt

NOT_SURE = "I am not sure."


def fenced(data: Any) -> str:
    return "Here is the skill.\n\n```json\n" + json.dumps(data, indent=2) + "\n```\n"


def item_case(n: int) -> dict[str, Any]:
    return {
        "id": f"item-{n}",
        "input": f"What is the code of item {n}?",
        "assertions": [{"type": "contains", "values": [f"CODE-{n}"]}],
    }


def skill_answer(
    marker: str,
    *,
    name: str = "Item Codes",
    items: Iterable[int] = (),
    description: str = "Looks up item codes: use when asked for the code of an item.",
    **extra: Any,
) -> str:
    """A valid teacher answer whose body carries ``marker`` and whose tests ask for ``items``."""
    data: dict[str, Any] = {
        "name": name,
        "description": description,
        "body": f"# Item codes\n\nVersion {marker}.\n\nAnswer with the code of the item.\n",
        "tests": [item_case(n) for n in items],
        "notes": f"version {marker}",
    }
    data.update(extra)
    return fenced(data)


class ScriptedTeacher:
    """Anthropic responder replying with ``replies`` in order (the last one repeats)."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> str:
        with self._lock:
            reply = self.replies[min(self.calls, len(self.replies) - 1)]
            self.calls += 1
        return reply


class Students:
    """OpenAI responder: knows the items listed for the skill version found in the prompt."""

    def __init__(self, knowledge: dict[str, set[int]], *, filler: str = "") -> None:
        self.knowledge = knowledge
        self.filler = filler

    def __call__(self, request: dict[str, Any]) -> str:
        system = system_prompt(request)
        match = re.search(r"item (\d+)", last_user_message(request))
        n = int(match.group(1)) if match else -1
        for marker, known in self.knowledge.items():
            if f"Version {marker}." in system:
                if n in known:
                    return f"The code is CODE-{n}."
                break
        return f"{NOT_SURE}{self.filler} (about item {n})"


CONTEXT_OVERFLOW = (
    "This model's maximum context length is 64 tokens. However, your messages resulted in "
    "812 tokens. Please reduce the length of the messages."
)


class _OverflowServer(FakeLLMServer):
    """OpenAI server refusing (400, context length) every request whose system prompt holds a
    skill (the ``Version X.`` marker of :func:`skill_answer`): a student whose context is too
    small for any skill. Baseline requests are answered by ``responder``."""

    refused: list[str]  # system prompts of the refused requests

    async def _complete(self, request: Request) -> Response:
        body = json.loads(await request.body() or b"null")
        if isinstance(body, dict) and re.search(r"Version \w+\.", system_prompt(body)):
            with self._lock:
                self.refused.append(system_prompt(body))
            return self._error(400, CONTEXT_OVERFLOW)
        return await super()._complete(request)


@contextlib.contextmanager
def overflowing_students(responder: Any = None) -> Iterator[_OverflowServer]:
    """Students that fail every with-skill request (see :class:`_OverflowServer`)."""
    server = _OverflowServer("openai", responder or Students({}))
    server.refused = []
    with server:
        yield server
