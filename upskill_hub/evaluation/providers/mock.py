"""``mock:NAME``: scripted, in-process models for fast tests (no server, no key, no SDK).

A mock model answers from a script: a fixed reply, a list of replies given in turn (the last
one repeats), or a function of the request's messages. Built in:

- ``mock:echo``: the last user message back;
- ``mock:prompt``: every message back, system prompt first, so a with-skill arm's reply holds
  the skill's text and assertions quoting the skill pass only there;
- ``mock:reply=TEXT``: ``TEXT``, whatever the request.

:func:`register_mock` adds a named script (``register_mock("yes", "yes")`` then
``--model mock:yes`` or ``EvalConfig(models=["mock:yes"])``). Token counts are words; the
latency is the time the script took.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence

from upskill_hub.evaluation.providers.base import Provider
from upskill_hub.evaluation.types import Completion, GenerationParams, Message, Usage

__all__ = ["MockProvider", "MockScript", "mock_names", "register_mock"]

#: A script: one reply, replies in turn (the last repeats), or a function of the messages.
MockScript = str | Sequence[str] | Callable[[Sequence[Message]], str]
#: ``mock:reply=TEXT`` answers TEXT.
REPLY_PREFIX = "reply="
_NAME = re.compile(r"[\w.\-]+")


def _echo(messages: Sequence[Message]) -> str:
    users = [m.content for m in messages if m.role == "user"]
    return users[-1] if users else ""


def _prompt(messages: Sequence[Message]) -> str:
    return "\n\n".join(m.content for m in messages)


_SCRIPTS: dict[str, MockScript] = {"echo": _echo, "prompt": _prompt}


def register_mock(name: str, script: MockScript) -> None:
    """Make ``mock:NAME`` answer with ``script`` (a name given again replaces its script)."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"mock model name {name!r}: use letters, digits, '.', '-' or '_'")
    if not isinstance(script, str) and isinstance(script, Sequence) and not script:
        raise ValueError(f"mock model {name!r}: the script has no reply")
    _SCRIPTS[name] = script


def mock_names() -> list[str]:
    """The registered script names, sorted."""
    return sorted(_SCRIPTS)


def known(name: str) -> bool:
    """Whether ``mock:NAME`` names a script (registered, or ``reply=TEXT``)."""
    return name in _SCRIPTS or name.startswith(REPLY_PREFIX)


class MockProvider(Provider):
    """The provider of ``mock:NAME``: its script answers each request in this process."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.model_id = f"mock:{name}"
        self._script: MockScript = (
            name[len(REPLY_PREFIX) :] if name.startswith(REPLY_PREFIX) else _SCRIPTS[name]
        )
        self._turn = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_id={self.model_id!r})"

    def _reply(self, messages: Sequence[Message]) -> str:
        script = self._script
        if isinstance(script, str):
            return script
        if callable(script):
            return script(messages)
        with self._lock:
            turn, self._turn = self._turn, self._turn + 1
        return script[min(turn, len(script) - 1)]

    async def complete(self, messages: Sequence[Message], params: GenerationParams) -> Completion:
        start = time.perf_counter()
        text = self._reply(messages)
        return Completion(
            text=text,
            usage=Usage(
                input_tokens=sum(len(m.content.split()) for m in messages),
                output_tokens=len(text.split()),
            ),
            latency_s=time.perf_counter() - start,
            model=self.model_id,
            finish_reason="stop",
        )
