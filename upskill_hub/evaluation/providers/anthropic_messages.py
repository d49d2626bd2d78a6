"""Anthropic's Messages API, through ``anthropic.AsyncAnthropic``.

Prompt caching: with :attr:`~upskill_hub.evaluation.providers.base.Provider.prompt_cache` on
(the default), a request marks ``cache_control: {"type": "ephemeral"}`` on the last tool
definition, on the system block (which holds SKILL.md in the with-skill arm of inline mode) and,
from the second turn of an agent exchange, on the last block of the conversation so far: at
most three of the API's four breakpoints. The API caches the prefix up to each mark (tools, then
system, then messages) when it is long enough (about 1024 tokens on most models). Usage is read
whatever the setting: ``input_tokens`` of :class:`~upskill_hub.evaluation.types.Usage` is the
API's uncached ``input_tokens`` plus ``cache_read_input_tokens`` plus
``cache_creation_input_tokens``, the last two also kept apart as ``cached_input_tokens`` and
``cache_write_tokens``.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from upskill_hub.evaluation.providers import http_errors
from upskill_hub.evaluation.providers.sdk_provider import SdkProvider
from upskill_hub.evaluation.types import (
    Completion,
    GenerationParams,
    Message,
    ToolCall,
    ToolExchange,
    ToolSpec,
    Usage,
)

#: The mark that makes the API cache the prompt up to the block carrying it.
CACHE_CONTROL: dict[str, str] = {"type": "ephemeral"}


def _mark_last(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``blocks`` with a copy of the last one carrying :data:`CACHE_CONTROL`."""
    if not blocks:
        return blocks
    return [*blocks[:-1], {**blocks[-1], "cache_control": dict(CACHE_CONTROL)}]


def _mark_conversation(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``turns`` with the last block of the last message marked (its text as a block if it is
    a plain string)."""
    if not turns:
        return turns
    last = turns[-1]
    content = last["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    return [*turns[:-1], {**last, "content": _mark_last(blocks)}]


@functools.cache
def _sdk_takes_temperature() -> bool:
    from anthropic.resources.messages import AsyncMessages

    return "temperature" in inspect.signature(AsyncMessages.create).parameters


def _count(usage: Any, name: str) -> int:
    value = getattr(usage, name, None)
    return value if isinstance(value, int) and value > 0 else 0


def anthropic_usage(usage: Any) -> Usage:
    """:class:`Usage` of a Messages response's ``usage``: input is every input token (uncached,
    read from the cache, written to it); missing or non-integer counts are 0."""
    read = _count(usage, "cache_read_input_tokens")
    written = _count(usage, "cache_creation_input_tokens")
    return Usage(
        input_tokens=_count(usage, "input_tokens") + read + written,
        output_tokens=_count(usage, "output_tokens"),
        cached_input_tokens=read,
        cache_write_tokens=written,
    )


class AnthropicProvider(SdkProvider):
    """A Claude model. System messages go to ``system``; ``seed`` is never sent (no such option)
    and ``temperature`` only if the installed SDK still has it (anthropic 2.x dropped it): then
    :attr:`unsupported_params` names it and the runner warns that it was not sent.

    ``base_url=None`` lets the SDK read ``ANTHROPIC_BASE_URL``. The SDK never retries
    (``max_retries=0``) and never follows redirects. One SDK client per event loop, created on
    first use.
    """

    key_hint = "set ANTHROPIC_API_KEY to a valid key"
    id_prefix = "anthropic"
    base_url_env = "ANTHROPIC_BASE_URL"
    ambient_headers_env = "ANTHROPIC_CUSTOM_HEADERS"

    def _sdk(self) -> ModuleType:
        import anthropic

        return anthropic

    def _client_class(self) -> Any:
        return self._sdk().AsyncAnthropic

    @property
    def unsupported_params(self) -> frozenset[str]:
        """Generation parameters this provider cannot send: ``temperature`` when the installed
        SDK's ``messages.create`` has no such parameter (imports the SDK)."""
        return frozenset() if _sdk_takes_temperature() else frozenset({"temperature"})

    async def complete(self, messages: Sequence[Message], params: GenerationParams) -> Completion:
        response, content, latency = await self._create(messages, [], params)
        return self._completion(response, content, latency)

    async def _create(
        self,
        messages: Sequence[Message],
        turns: list[dict[str, Any]],
        params: GenerationParams,
        **extra: Any,
    ) -> tuple[Any, list[Any], float]:
        """One Messages call: the system messages joined as ``system``, the others then
        ``turns`` as ``messages``, ``extra`` more request fields. Returns the response, its
        content blocks and the latency; failures and replies without content are
        ProviderErrors."""
        client = self._client_for_loop()
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        chat = [{"role": m.role, "content": m.content} for m in messages if m.role != "system"]
        if self.prompt_cache:
            if "tools" in extra:
                extra = {**extra, "tools": _mark_last(list(extra["tools"]))}
            if turns:  # later agent turns: the exchange so far is read back from the cache
                turns = _mark_conversation(turns)
        request: dict[str, Any] = {
            "model": self.model,
            "messages": chat + turns,
            **extra,
            "max_tokens": params.max_tokens,
            "timeout": params.timeout,
        }
        if "temperature" not in self.unsupported_params:
            request["temperature"] = params.temperature
        if system:
            request["system"] = (
                _mark_last([{"type": "text", "text": system}]) if self.prompt_cache else system
            )
        start = time.perf_counter()
        try:
            response = await client.messages.create(**request)
        except Exception as exc:
            raise self._map_error(exc, params.timeout) from None
        latency = time.perf_counter() - start
        content = getattr(response, "content", None)
        if not isinstance(content, list):
            raise http_errors.malformed_error(self.model_id, "no content")
        withheld = http_errors.reply_rejection(
            self.model_id, getattr(response, "stop_reason", None)
        )
        if withheld is not None:  # stop_reason refusal: the model declined for safety reasons
            raise withheld
        return response, content, latency

    def _completion(
        self, response: Any, content: list[Any], latency: float, calls: Sequence[ToolCall] = ()
    ) -> Completion:
        text = "".join(
            getattr(b, "text", "") or "" for b in content if getattr(b, "type", "") == "text"
        )
        return Completion(
            text=text,
            usage=anthropic_usage(getattr(response, "usage", None)),
            latency_s=latency,
            model=str(getattr(response, "model", "") or self.model),
            finish_reason=getattr(response, "stop_reason", None),
            tool_calls=tuple(calls),
        )

    supports_tools = True

    async def complete_with_tools(
        self,
        messages: Sequence[Message],
        exchanges: Sequence[ToolExchange],
        tools: Sequence[ToolSpec],
        params: GenerationParams,
    ) -> Completion:
        """Messages with ``tools``; earlier turns go back as assistant ``tool_use`` blocks and
        one user message of ``tool_result`` blocks."""
        turns: list[dict[str, Any]] = []
        for turn in exchanges:
            blocks: list[dict[str, Any]] = []
            if turn.text:
                blocks.append({"type": "text", "text": turn.text})
            blocks += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments or {}}
                for c in turn.calls
            ]
            turns.append({"role": "assistant", "content": blocks})
            turns.append(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": r.call_id,
                            "content": r.content,
                            "is_error": r.is_error,
                        }
                        for r in turn.results
                    ],
                }
            )
        offered = [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in tools
        ]
        response, content, latency = await self._create(messages, turns, params, tools=offered)
        calls = []
        for i, block in enumerate(content):
            if getattr(block, "type", "") != "tool_use":
                continue
            arguments = getattr(block, "input", None)
            calls.append(
                ToolCall(
                    id=str(getattr(block, "id", "") or f"toolu_{i}"),
                    name=str(getattr(block, "name", "") or ""),
                    arguments=dict(arguments) if isinstance(arguments, dict) else None,
                )
            )
        return self._completion(response, content, latency, calls)
