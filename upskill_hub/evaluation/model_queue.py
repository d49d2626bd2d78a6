"""One model's share of an eval: its keys still to run, and those waiting out a retry delay.

Each model gets its own queue and its own workers (``EvalConfig.concurrency`` of them), so a
rate-limited or failing provider slows only its own model. A request that must wait (backoff
after a 5xx or a timeout) goes back into the queue with the time it may run again instead of
sleeping in its worker, which meanwhile takes the next key; a server's ``Retry-After`` (a 429)
also pauses the whole model until then, since its other requests would be refused too.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections import deque
from collections.abc import Iterable, Iterator

from upskill_hub.evaluation.types import SampleKey

__all__ = ["ModelQueue"]


class ModelQueue:
    """The keys of one model in scheduling order, plus delayed retries and a pause."""

    def __init__(self, keys: Iterable[SampleKey], count: int | None = None) -> None:
        """``count`` given: ``keys`` (that many) are drawn one at a time when their turn comes,
        never held all at once; else they are queued now."""
        self.pending: deque[SampleKey] = deque(() if count is not None else keys)
        self._source: Iterator[SampleKey] = iter(keys if count is not None else ())
        self._left = count or 0
        self.delayed: list[tuple[float, int, SampleKey]] = []  # heap of (due, order, key)
        self.attempts: dict[SampleKey, int] = {}  # tries made so far, for keys being retried
        self.paused_until = 0.0
        self._order = itertools.count()

    def __len__(self) -> int:
        return len(self.pending) + self._left + len(self.delayed)

    async def next(self) -> SampleKey | None:
        """The next key to send: a retry whose delay is over first, then a new key; waits while
        the model is paused or only delayed keys remain; None when nothing is left."""
        while True:
            now = time.monotonic()
            if self.paused_until > now:
                await asyncio.sleep(self.paused_until - now)
                continue
            if self.delayed and self.delayed[0][0] <= now:
                return heapq.heappop(self.delayed)[2]
            if self.pending:
                return self.pending.popleft()
            if self._left > 0:
                self._left -= 1
                return next(self._source)
            if not self.delayed:
                return None
            await asyncio.sleep(self.delayed[0][0] - now)

    def retry_later(self, key: SampleKey, delay: float, *, attempts: int, pause: bool) -> None:
        """Run ``key`` again after ``delay`` seconds (it has had ``attempts`` tries); ``pause``
        (the server said Retry-After) holds every request of the model until then."""
        due = time.monotonic() + delay
        self.attempts[key] = attempts
        heapq.heappush(self.delayed, (due, next(self._order), key))
        if pause:
            self.paused_until = max(self.paused_until, due)

    def tries_so_far(self, key: SampleKey) -> int:
        return self.attempts.get(key, 0)

    def finished(self, key: SampleKey) -> None:
        self.attempts.pop(key, None)
