"""How often and how long to retry a transient failure: one policy for providers and the Hub.

:class:`RetryPolicy` is the policy (the Hub client, the eval runner, the judge and
``generate``'s teacher each hold one; :class:`~upskill_hub.evaluation.config.EvalConfig`
carries the eval's); :func:`backoff_delay` is its wait rule.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["RetryPolicy", "backoff_delay"]


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently transient failures (429, 5xx, timeouts, dropped links) are
    retried: ``retries`` tries after the first, waiting by :func:`backoff_delay` with
    ``base_s`` and ``max_s``; a server's Retry-After is honoured up to ``retry_after_max_s``."""

    retries: int = 3
    base_s: float = 0.5
    max_s: float = 30.0
    retry_after_max_s: float = 120.0

    @property
    def attempts(self) -> int:
        """Tries at most, the first included."""
        return self.retries + 1

    def delay(
        self, attempt: int, retry_after: float | None, rng: random.Random | None = None
    ) -> float:
        """Seconds to wait before retry number ``attempt`` (1 = first retry)."""
        return backoff_delay(
            attempt,
            retry_after,
            base=self.base_s,
            cap=self.max_s,
            retry_after_max=self.retry_after_max_s,
            rng=rng,
        )

    def next_delay(self, attempt: int, retryable: bool, retry_after: float | None) -> float | None:
        """Seconds to wait after try number ``attempt`` failed; None when that failure is final
        (not ``retryable``, or the retries are used up)."""
        if not retryable or attempt > self.retries:
            return None
        return self.delay(attempt, retry_after)


def backoff_delay(
    attempt: int,
    retry_after: float | None,
    *,
    base: float = 0.5,
    cap: float = 30.0,
    retry_after_max: float = 120.0,
    rng: random.Random | None = None,
) -> float:
    """Seconds to wait before retry number ``attempt`` (1 = first retry).

    Exponential with equal jitter (``d/2 + U(0, d/2)``, ``d = min(cap, base * 2**(attempt-1))``);
    a server's ``Retry-After`` wins when given (capped at ``retry_after_max``), plus up to 10%
    jitter so that parallel workers do not return all at once.
    """
    rnd = (rng or random).random()
    if retry_after is not None:
        wait = min(max(retry_after, 0.0), retry_after_max)
        return wait + 0.1 * wait * rnd
    delay = min(cap, base * 2 ** (attempt - 1))
    return delay / 2 + delay / 2 * rnd
