"""How long to wait before retrying a transient failure: one rule for providers and the Hub."""

from __future__ import annotations

import random


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
