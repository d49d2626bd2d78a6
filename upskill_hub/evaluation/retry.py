"""Model calls with retries, written once: the eval runner, the judge and ``generate``'s
teacher all call :func:`complete_with_retries` (as inspect_ai keeps retries in its model layer).

A retryable :class:`~upskill_hub.errors.ProviderError` (429, 5xx, timeouts, dropped
connections) waits as the :class:`~upskill_hub.backoff.RetryPolicy` says (a server's
Retry-After wins) and tries again; a final error, or a provider bug, ends in
:class:`RetriesExhausted` carrying the error and the number of attempts. A provider that
never answers is cut off at 1.25x its timeout plus 2 s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from upskill_hub.backoff import RetryPolicy
from upskill_hub.errors import ProviderError

if TYPE_CHECKING:
    from upskill_hub.evaluation.providers.base import Provider
    from upskill_hub.evaluation.types import Completion, GenerationParams, Message

__all__ = [
    "RetriesExhausted",
    "call_once",
    "call_with_retries",
    "complete_with_retries",
]


class RetriesExhausted(Exception):
    """The call failed for good: ``error`` is the last failure, after ``attempts`` tries."""

    def __init__(self, error: BaseException, attempts: int) -> None:
        super().__init__(str(error))
        self.error = error
        self.attempts = attempts


async def complete_with_retries(
    provider: Provider,
    messages: list[Message],
    params: GenerationParams,
    policy: RetryPolicy = RetryPolicy(),
) -> tuple[Completion, int]:
    """``provider.complete`` with retries: (the completion, attempts it took)."""
    return await call_with_retries(
        provider.model_id, lambda: provider.complete(messages, params), params.timeout, policy
    )


async def call_with_retries(
    model_id: str,
    call: Callable[[], Awaitable[Completion]],
    timeout: float,
    policy: RetryPolicy = RetryPolicy(),
) -> tuple[Completion, int]:
    """Any model call (``call`` makes a fresh request each time) with retries: (the completion,
    attempts it took). Agent mode's tool calls use this too."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return await call_once(model_id, call, timeout), attempt
        except ProviderError as exc:
            delay = policy.next_delay(attempt, exc.retryable, exc.retry_after)
            if delay is None:
                raise RetriesExhausted(exc, attempt) from None
            await asyncio.sleep(delay)
        except Exception as exc:  # a provider bug: final, reported on the sample
            raise RetriesExhausted(exc, attempt) from None


async def call_once(
    model_id: str, call: Callable[[], Awaitable[Completion]], timeout: float
) -> Completion:
    """One try of a model call, cut off at 1.25x ``timeout`` plus 2 s (a retryable
    :class:`ProviderError`)."""
    backstop = timeout * 1.25 + 2.0
    try:
        return await asyncio.wait_for(call(), backstop)
    except TimeoutError:
        raise ProviderError(
            f"{model_id}: no response within {backstop:g}s (timeout)", retryable=True
        ) from None
