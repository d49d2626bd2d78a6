"""``eval SKILL --triggers FILE``: placeholder until trigger evals land."""

from __future__ import annotations

from typing import Any

from upskill_hub.errors import UsageError


def run_triggers(*_args: Any, **_kwargs: Any) -> None:
    raise UsageError("--triggers: trigger evals are not available in this build")
