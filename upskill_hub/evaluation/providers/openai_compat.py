"""OpenAI chat completions, and every server that speaks it (vLLM, llama.cpp, HF router...)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from upskill_hub.evaluation.providers import http_errors
from upskill_hub.evaluation.providers.base import Provider
from upskill_hub.evaluation.providers.http_errors import display_url
from upskill_hub.evaluation.types import Completion, GenerationParams, Message, Usage

# Sent when a server needs no key (local servers); the SDK insists on some value.
NO_KEY = "no-key"


class OpenAICompatProvider(Provider):
    """A model behind ``POST {base_url}/chat/completions``, called through ``openai.AsyncOpenAI``.

    ``base_url=None`` means OpenAI itself. The SDK never retries (``max_retries=0``) and never
    follows redirects (a 3xx is a final error); failures become :class:`ProviderError`. One SDK
    client per event loop, created on first use.
    """

    key_hint = "set OPENAI_API_KEY to a valid key"

    def __init__(
        self,
        model: str,
        *,
        model_id: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
    ) -> None:
        self.model = model
        self.model_id = model_id or f"openai:{model}"
        self.base_url = base_url
        self._api_key = api_key
        self._client: Any = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        # OpenAI's newer models only take max_completion_tokens; most other servers only the
        # older max_tokens.
        official = base_url is None or "api.openai.com" in base_url
        self._max_tokens_field = "max_completion_tokens" if official else "max_tokens"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model_id={self.model_id!r}, "
            f"base_url={display_url(self.base_url)!r})"
        )

    def _client_for_loop(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            from openai import AsyncOpenAI, DefaultAsyncHttpxClient

            self._client = AsyncOpenAI(
                api_key=self._api_key or NO_KEY,
                base_url=self.base_url,
                max_retries=0,
                # A redirect could lead anywhere, past the checks made on base_url (the Space's
                # SSRF guard): never follow one; from_sdk_error turns it into a final error.
                http_client=DefaultAsyncHttpxClient(follow_redirects=False),
            )
            self._client_loop = loop
        return self._client

    async def complete(self, messages: Sequence[Message], params: GenerationParams) -> Completion:
        client = self._client_for_loop()
        request: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
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
        usage = getattr(response, "usage", None)
        return Completion(
            text=choices[0].message.content or "",
            usage=Usage(
                input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            ),
            latency_s=latency,
            model=str(getattr(response, "model", "") or self.model),
            finish_reason=choices[0].finish_reason,
        )

    def _map_error(self, exc: Exception, timeout: float) -> Exception:
        import openai

        return http_errors.from_sdk_error(
            openai,
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
