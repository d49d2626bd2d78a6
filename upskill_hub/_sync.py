"""Blocking forms of the library's coroutine functions, for callers without an event loop.

Each library entry point is written once, as a coroutine function (``run_eval``,
``run_trigger_eval``, ``run_generate``); its blocking form (``evaluate``, ``evaluate_triggers``,
``generate``) is :func:`blocking` of it: the same parameters, run to the end by :func:`run_sync`
in a new event loop in the calling thread. :func:`cancel_event` lets a coroutine take a
``threading.Event`` set from another thread where it waits on an ``asyncio.Event``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

__all__ = ["CANCEL_POLL_S", "blocking", "cancel_event", "run_sync"]

P = ParamSpec("P")
T = TypeVar("T")

#: Seconds between looks at a ``threading.Event`` given as ``cancel``.
CANCEL_POLL_S = 0.05


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to its end in a new event loop in this thread and return its result.

    Called where an event loop is already running (a notebook cell, an ``async def``), this is
    :func:`asyncio.run`'s :class:`RuntimeError`: await the coroutine function there instead."""
    return asyncio.run(coro)


def blocking(fn: Callable[P, Coroutine[Any, Any, T]], name: str, doc: str) -> Callable[P, T]:
    """The blocking form of the coroutine function ``fn``: the same parameters, its result
    through :func:`run_sync`; ``name`` and ``doc`` are the form's own ``__name__`` and
    docstring (``inspect.signature`` gives ``fn``'s)."""

    @functools.wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_sync(fn(*args, **kwargs))

    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc
    return call


@contextlib.asynccontextmanager
async def cancel_event(
    cancel: asyncio.Event | threading.Event | None,
) -> AsyncIterator[asyncio.Event | None]:
    """``cancel`` as an :class:`asyncio.Event` of the running loop: an ``asyncio.Event`` (or
    None) as it is; for a ``threading.Event``, one set within :data:`CANCEL_POLL_S` seconds of
    it being set from any thread (the watch ends with the block)."""
    if not isinstance(cancel, threading.Event):
        yield cancel
        return
    event = asyncio.Event()

    async def watch() -> None:
        while not cancel.is_set():
            await asyncio.sleep(CANCEL_POLL_S)
        event.set()

    watcher = asyncio.create_task(watch())
    try:
        yield event
    finally:
        watcher.cancel()
