"""Compile slots shared fairly between the people whose runs share one process (a Space).

A compile takes a slot (one per CPU) for its whole run. Slots are handed out fairly: when one
frees, the waiting owner with the fewest compiles running gets it (oldest request first among
equals), so one visitor with many queued compiles cannot starve another. Who the owner is, and
the longest compile a skill may ask for, come from :func:`compile_policy` (the Space sets both
for each visitor's run; the CLI runs as one owner with the skill's own timeouts).
"""

from __future__ import annotations

import contextvars
import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

#: The longest compile a skill may ask for on a hosted Space (its ``timeout`` is cut to this).
HOSTED_MAX_TIMEOUT_S = 60.0


class Cancelled(Exception):
    """The run this compile belongs to was cancelled while it waited or ran."""


@dataclass(frozen=True)
class CompilePolicy:
    """``owner``: whose compiles these are (fair shares are per owner); ``max_timeout_s``: the
    cap on a skill's ``timeout`` (None: the skill's own, up to 600 s)."""

    owner: str = ""
    max_timeout_s: float | None = None


_policy: contextvars.ContextVar[CompilePolicy | None] = contextvars.ContextVar(
    "upskill_hub_compile_policy", default=None
)


def current_policy() -> CompilePolicy:
    return _policy.get() or CompilePolicy()


@contextmanager
def compile_policy(owner: str = "", max_timeout_s: float | None = None) -> Iterator[None]:
    """Compiles started inside (in this thread, or tasks and threads it starts) belong to
    ``owner`` and run at most ``max_timeout_s`` seconds."""
    token = _policy.set(CompilePolicy(owner, max_timeout_s))
    try:
        yield
    finally:
        _policy.reset(token)


class FairSlots:
    """``size`` slots; :meth:`slot` waits for one, fairly between owners, giving up if
    ``cancel`` is set while it waits (:class:`Cancelled`)."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self.used = 0
        self.running: dict[str, int] = {}
        self.waiting: list[tuple[int, str]] = []
        self.served: dict[str, int] = {}  # owner -> ticket of its latest grant
        self._cond = threading.Condition()
        self._tickets = itertools.count()

    def _next(self) -> tuple[int, str]:
        """Whom the next free slot goes to: the owner with the fewest running, then the one
        served longest ago (round robin), then the oldest request."""
        return min(
            self.waiting,
            key=lambda w: (self.running.get(w[1], 0), self.served.get(w[1], -1), w[0]),
        )

    @contextmanager
    def slot(self, owner: str, cancel: threading.Event | None = None) -> Iterator[None]:
        with self._cond:
            me = (next(self._tickets), owner)
            self.waiting.append(me)
            try:
                while not (self.used < self.size and self._next() == me):
                    if cancel is not None and cancel.is_set():
                        raise Cancelled
                    self._cond.wait(0.05)
            finally:
                self.waiting.remove(me)
                self._cond.notify_all()
            self.used += 1
            self.served[owner] = me[0]
            self.running[owner] = self.running.get(owner, 0) + 1
        try:
            yield
        finally:
            with self._cond:
                self.used -= 1
                self.running[owner] -= 1
                if not self.running[owner]:
                    del self.running[owner]
                self._cond.notify_all()
