"""What Ctrl-C prints. A command that rolls back everything it did when interrupted (staged
installs, the lock written last) is wrapped with :func:`atomic` where it is registered; its
Ctrl-C leaves it as :class:`CommandInterrupted`, which :func:`upskill_hub.cli.main.main` prints
as "interrupted; nothing changed". Nothing here looks at the command line."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

import click
import typer

F = TypeVar("F", bound=Callable[..., Any])

INTERRUPTED = "interrupted"
NOTHING_CHANGED = "interrupted; nothing changed"


class CommandInterrupted(Exception):
    """Ctrl-C stopped an atomic command after it had put everything back."""


def atomic(command: F) -> F:
    """``command``, declared to leave the project exactly as it was when interrupted."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (KeyboardInterrupt, click.exceptions.Abort, typer.Abort) as exc:
            raise CommandInterrupted() from exc

    run.atomic = True  # type: ignore[attr-defined]
    return cast(F, run)


def is_atomic(command: Callable[..., Any] | None) -> bool:
    """Whether ``command`` (a registered command's callback) was declared with :func:`atomic`."""
    return bool(getattr(command, "atomic", False))
