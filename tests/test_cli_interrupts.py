"""Ctrl-C's message comes from what a command declares where it is registered
(``cli/interrupts.atomic``), not from the command line; the real Ctrl-C of ``pull`` is in
tests/registry/test_lock_targets.py."""

from __future__ import annotations

import pytest

from upskill_hub.cli.interrupts import CommandInterrupted, atomic, is_atomic
from upskill_hub.cli.main import app

#: The commands that roll back everything on Ctrl-C (README: "nothing changed").
ROLLS_BACK = {"pull", "install", "update", "remove", "verify", "list", "outdated"}


def test_the_commands_that_roll_back_declare_it() -> None:
    declared = {
        info.name or (info.callback.__name__ if info.callback else "")
        for info in app.registered_commands
        if is_atomic(info.callback)
    }
    assert declared == ROLLS_BACK


def test_an_atomic_command_turns_ctrl_c_into_command_interrupted() -> None:
    calls: list[int] = []

    def command(count: int) -> None:
        calls.append(count)
        raise KeyboardInterrupt

    wrapped = atomic(command)
    assert is_atomic(wrapped) and not is_atomic(command)
    assert wrapped.__name__ == "command" and wrapped.__annotations__ == command.__annotations__
    with pytest.raises(CommandInterrupted) as raised:
        wrapped(3)
    assert calls == [3] and isinstance(raised.value.__cause__, KeyboardInterrupt)
