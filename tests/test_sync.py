"""The blocking forms of the library's coroutine functions (``upskill_hub._sync``): the same
parameters as the async form, a clear error inside a running loop, and a ``threading.Event``
that cancels from another thread."""

from __future__ import annotations

import asyncio
import inspect
import threading
import time

import pytest

from upskill_hub._sync import blocking, cancel_event, run_sync


async def _add(a: int, *, b: int = 2) -> int:
    """Add."""
    await asyncio.sleep(0)
    return a + b


def test_a_blocking_form_takes_the_async_parameters_and_returns_the_result() -> None:
    add = blocking(_add, "add", "Blocking add.")
    assert add(1) == 3 and add(1, b=5) == 6 and add(a=2, b=2) == 4
    assert add.__name__ == "add" and add.__doc__ == "Blocking add."
    assert inspect.signature(add) == inspect.signature(_add)


@pytest.mark.parametrize(
    ("forms", "async_name"),
    [
        (("upskill_hub.evaluation.runner", "evaluate"), "run_eval"),
        (("upskill_hub.evaluation.triggers.measure", "evaluate_triggers"), "run_trigger_eval"),
        (("upskill_hub.generate.loop", "generate"), "run_generate"),
    ],
)
def test_the_library_pairs_share_one_signature(forms: tuple[str, str], async_name: str) -> None:
    import importlib

    module = importlib.import_module(forms[0])
    sync_form, async_form = getattr(module, forms[1]), getattr(module, async_name)
    assert inspect.signature(sync_form) == inspect.signature(async_form)
    assert sync_form.__name__ == forms[1] and f":func:`{async_name}`" in sync_form.__doc__


def test_inside_a_running_loop_run_sync_refuses() -> None:
    async def inside() -> None:
        coro = _add(1)
        try:
            with pytest.raises(RuntimeError, match="running event loop"):
                run_sync(coro)
        finally:
            coro.close()

    asyncio.run(inside())


def test_a_threading_event_set_elsewhere_sets_the_loop_event() -> None:
    async def main() -> float:
        flag = threading.Event()
        async with cancel_event(flag) as event:
            assert event is not None and not event.is_set()
            threading.Timer(0.1, flag.set).start()
            start = time.monotonic()
            await asyncio.wait_for(event.wait(), timeout=2)
            return time.monotonic() - start

    assert run_sync(main()) < 1


def test_an_asyncio_event_or_none_passes_through() -> None:
    async def main() -> None:
        given = asyncio.Event()
        async with cancel_event(given) as event:
            assert event is given
        async with cancel_event(None) as nothing:
            assert nothing is None

    run_sync(main())
