"""OpenAI chat completions, and every server that speaks it (vLLM, llama.cpp, HF router...)."""

from __future__ import annotations

import json
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


def _count(holder: Any, name: str) -> int:
    value = getattr(holder, name, None)
    return value if isinstance(value, int) and value > 0 else 0


def openai_usage(usage: Any) -> Usage:
    """:class:`Usage` of a chat completion's ``usage``: ``prompt_tokens`` is all input, of which
    ``prompt_tokens_details.cached_tokens`` (when reported) came from the prompt cache; OpenAI
    reports no cache writes. Missing or non-integer counts are 0; a cached count above the
    prompt's is capped at it."""
    prompt = _count(usage, "prompt_tokens")
    details = getattr(usage, "prompt_tokens_details", None)
    return Usage(
        input_tokens=prompt,
        output_tokens=_count(usage, "completion_tokens"),
        cached_input_tokens=min(_count(details, "cached_tokens"), prompt),
    )


class OpenAICompatProvider(SdkProvider):
    """A model behind ``POST {base_url}/chat/completions``, called through ``openai.AsyncOpenAI``.

    ``base_url=None`` means OpenAI itself. Prompt caching needs nothing in the request (OpenAI
    caches prompts of 1024+ tokens by itself, vLLM with prefix caching on); the cached part of
    ``prompt_tokens`` is read from ``usage.prompt_tokens_details.cached_tokens`` when the server
    reports it (:func:`openai_usage`). The SDK never retries (``max_retries=0``) and never
    follows redirects (a 3xx is a final error); failures become :class:`ProviderError`. One SDK
    client per event loop, created on first use.
    """

    key_hint = "set OPENAI_API_KEY to a valid key"
    id_prefix = "openai"
    base_url_env = "OPENAI_BASE_URL"
    ambient_settings = ("organization", "project")

    @property
    def _max_tokens_field(self) -> str:
        """OpenAI's newer models only take max_completion_tokens; most other servers only the
        older max_tokens."""
        official = self.base_url is None or "api.openai.com" in self.base_url
        return "max_completion_tokens" if official else "max_tokens"

    def _sdk(self) -> ModuleType:
        import openai

        return openai

    def _client_class(self) -> Any:
        return self._sdk().AsyncOpenAI

    async def complete(self, messages: Sequence[Message], params: GenerationParams) -> Completion:
        chat = [{"role": m.role, "content": m.content} for m in messages]
        response, choice, latency = await self._create(chat, params)
        return self._completion(response, choice, latency)

    async def _create(
        self, chat: list[dict[str, Any]], params: GenerationParams, **extra: Any
    ) -> tuple[Any, Any, float]:
        """One chat completion (``extra``: more request fields): the response, its first
        choice and the latency; failures and replies without a choice are ProviderErrors."""
        client = self._client_for_loop()
        request: dict[str, Any] = {
            "model": self.model,
            "messages": chat,
            **extra,
            "temperature": params.temperature,
            self._max_tokens_field: params.max_tokens,
            "timeout": params.timeout,
        }
        if params.seed is not None:
            request["seed"] = params.seed
        start = time.perf_counter()
        try:
            response = await client.chat.completions.create(**request)
        except Exception as exc:
            raise self._map_error(exc, params.timeout) from None
        latency = time.perf_counter() - start
        choices = getattr(response, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            raise http_errors.malformed_error(self.model_id, "no choices")
        withheld = http_errors.reply_rejection(self.model_id, choices[0].finish_reason)
        if withheld is not None:  # finish_reason content_filter: a refusal, not an answer
            raise withheld
        return response, choices[0], latency

    def _completion(
        self, response: Any, choice: Any, latency: float, calls: Sequence[ToolCall] = ()
    ) -> Completion:
        return Completion(
            text=choice.message.content or "",
            usage=openai_usage(getattr(response, "usage", None)),
            latency_s=latency,
            model=str(getattr(response, "model", "") or self.model),
            finish_reason=choice.finish_reason,
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
        """Chat completions with ``tools`` (function tools); earlier turns go back as assistant
        ``tool_calls`` messages followed by one ``tool`` message per result."""
        chat: list[dict[str, Any]] = [{"role": m.role, "content": m.content} for m in messages]
        for turn in exchanges:
            chat.append(
                {
                    "role": "assistant",
                    "content": turn.text or None,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                        }
                        for c in turn.calls
                    ],
                }
            )
            chat += [
                {"role": "tool", "tool_call_id": r.call_id, "content": r.content}
                for r in turn.results
            ]
        offered = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.input_schema,
                },
            }
            for t in tools
        ]
        response, choice, latency = await self._create(chat, params, tools=offered)
        message = choice.message
        calls = []
        for i, call in enumerate(getattr(message, "tool_calls", None) or []):
            function = getattr(call, "function", None)
            if function is None:
                continue
            try:
                arguments = json.loads(function.arguments or "{}")
            except ValueError:
                arguments = None
            calls.append(
                ToolCall(
                    id=str(getattr(call, "id", "") or f"call_{i}"),
                    name=str(function.name or ""),
                    arguments=arguments if isinstance(arguments, dict) else None,
                )
            )
        return self._completion(response, choice, latency, calls)
