"""Anthropic's Messages API, through ``anthropic.AsyncAnthropic``."""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
from collections.abc import Sequence
from typing import Any

from upskill_hub.evaluation.providers import http_errors
from upskill_hub.evaluation.providers.base import Provider
from upskill_hub.evaluation.providers.http_errors import display_url
from upskill_hub.evaluation.types import Completion, GenerationParams, Message, Usage


@functools.cache
def _sdk_takes_temperature() -> bool:
    from anthropic.resources.messages import AsyncMessages

    return "temperature" in inspect.signature(AsyncMessages.create).parameters


class AnthropicProvider(Provider):
    """A Claude model. System messages go to ``system``; ``seed`` is never sent (no such option)
    and ``temperature`` only if the installed SDK still has it (anthropic 2.x dropped it): then
    :attr:`unsupported_params` names it and the runner warns that it was not sent.

    ``base_url=None`` lets the SDK read ``ANTHROPIC_BASE_URL``. The SDK never retries
    (``max_retries=0``) and never follows redirects. One SDK client per event loop, created on
    first use.
    """

    key_hint = "set ANTHROPIC_API_KEY to a valid key"

    def __init__(
        self,
        model: str,
        *,
        model_id: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
    ) -> None:
        self.model = model
        self.model_id = model_id or f"anthropic:{model}"
        self.base_url = base_url
        self._api_key = api_key
        self._client: Any = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model_id={self.model_id!r}, "
            f"base_url={display_url(self.base_url)!r})"
        )

    def _client_for_loop(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            from anthropic import AsyncAnthropic, DefaultAsyncHttpxClient

            self._client = AsyncAnthropic(
                api_key=self._api_key or "no-key",
                base_url=self.base_url,
                max_retries=0,
                # Never follow a redirect (see OpenAICompatProvider): a 3xx is a final error.
                http_client=DefaultAsyncHttpxClient(follow_redirects=False),
            )
            self._client_loop = loop
        return self._client

    @property
    def unsupported_params(self) -> frozenset[str]:
        """Generation parameters this provider cannot send: ``temperature`` when the installed
        SDK's ``messages.create`` has no such parameter (imports the SDK)."""
        return frozenset() if _sdk_takes_temperature() else frozenset({"temperature"})

    async def complete(self, messages: Sequence[Message], params: GenerationParams) -> Completion:
        client = self._client_for_loop()
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        request: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": m.role, "content": m.content} for m in messages if m.role != "system"
            ],
            "max_tokens": params.max_tokens,
            "timeout": params.timeout,
        }
        if "temperature" not in self.unsupported_params:
            request["temperature"] = params.temperature
        if system:
            request["system"] = system
        start = time.perf_counter()
        try:
            response = await client.messages.create(**request)
        except Exception as exc:
            raise self._map_error(exc, params.timeout) from None
        latency = time.perf_counter() - start
        blocks = getattr(response, "content", None)
        if not isinstance(blocks, list):
            raise http_errors.malformed_error(self.model_id, "no content")
        text = "".join(
            getattr(b, "text", "") or "" for b in blocks if getattr(b, "type", "") == "text"
        )
        usage = getattr(response, "usage", None)
        input_tokens = sum(
            int(getattr(usage, name, 0) or 0)
            for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        return Completion(
            text=text,
            usage=Usage(
                input_tokens=input_tokens,
                output_tokens=int(getattr(usage, "output_tokens", 0) or 0),
            ),
            latency_s=latency,
            model=str(getattr(response, "model", "") or self.model),
            finish_reason=getattr(response, "stop_reason", None),
        )

    def _map_error(self, exc: Exception, timeout: float) -> Exception:
        import anthropic

        return http_errors.from_sdk_error(
            anthropic,
            exc,
            model_id=self.model_id,
            timeout=timeout,
            key_hint=self.key_hint,
            secret=self._api_key,
        )

    async def aclose(self) -> None:
        client, loop = self._client, self._client_loop
        self._client = self._client_loop = None
        if client is not None and loop is asyncio.get_running_loop():
            await client.close()
