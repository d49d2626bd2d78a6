"""The one interface every model provider implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from upskill_hub.errors import Param, ProviderError
from upskill_hub.evaluation.types import (
    Completion,
    GenerationParams,
    Message,
    ToolExchange,
    ToolSpec,
)


class Provider(ABC):
    """A model behind some API. Small: one class per API, one method that matters.

    ``model_id`` is the canonical model string (``openai:gpt-4o-mini``, ``local``...), used as the
    ``model`` field of samples. ``complete`` raises :class:`upskill_hub.errors.ProviderError`
    (``retryable`` for 429, 5xx, timeouts and dropped connections) and never retries by itself:
    retries with backoff are the runner's job, so every provider behaves the same.
    """

    model_id: str

    @abstractmethod
    async def complete(self, messages: Sequence[Message], params: GenerationParams) -> Completion:
        """Send ``messages`` and return the reply text, the API's token usage and the latency."""

    #: Whether :meth:`complete_with_tools` works (``eval --mode agent`` needs it).
    supports_tools: bool = False

    #: Whether requests mark their stable prefix (system prompt, tool definitions) for the
    #: API's prompt cache. Only APIs that need marking act on it (Anthropic's
    #: ``cache_control``); OpenAI caches long prompts by itself. ``resolve_model`` sets it
    #: (``EvalConfig.cache``, ``eval --no-cache``).
    prompt_cache: bool = True

    async def complete_with_tools(
        self,
        messages: Sequence[Message],
        exchanges: Sequence[ToolExchange],
        tools: Sequence[ToolSpec],
        params: GenerationParams,
    ) -> Completion:
        """Like :meth:`complete`, offering ``tools``: ``messages`` (system, user) then each
        earlier tool-calling turn and its results; the reply's ``tool_calls`` are the calls the
        model makes now (empty for a final answer)."""
        raise ProviderError(
            f"{self.model_id}: this model cannot call tools; use ", Param("mode"), " inline"
        )

    @property
    def unsupported_params(self) -> frozenset[str]:
        """Fields of :class:`GenerationParams` this provider cannot send and leaves out of its
        requests (the runner warns about each). Default: none."""
        return frozenset()

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release connections or models. Default: nothing to release."""
