"""The ``eval`` flags of agent mode and trigger evals, checked into library settings (the
command itself stays in :mod:`upskill_hub.cli.eval_commands`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from upskill_hub.errors import UsageError

if TYPE_CHECKING:
    from upskill_hub.evaluation.agent.settings import AgentSettings

MODES = ("inline", "agent")


def agent_settings(
    mode: str | None, max_turns: int | None, token_budget: int | None, *, triggers: bool = False
) -> AgentSettings | None:
    """The agent-mode limits for ``--mode``/``--max-turns``/``--token-budget`` (None: inline).

    Trigger evals (``triggers``) always run the tool loop, so they take the limits without
    ``--mode agent``."""
    from upskill_hub.evaluation.agent.settings import AgentSettings

    if mode is not None and mode not in MODES:
        raise UsageError(f"--mode {mode!r}: use inline or agent")
    agent = mode == "agent" or triggers
    if not agent:
        used = [f for f, v in (("--max-turns", max_turns), ("--token-budget", token_budget)) if v]
        if used:
            raise UsageError(f"{', '.join(used)} apply only with --mode agent")
        return None
    if triggers and mode == "inline":
        raise UsageError("--triggers runs the model with tools; drop --mode inline")
    defaults = AgentSettings()
    settings = AgentSettings(
        max_turns=defaults.max_turns if max_turns is None else max_turns,
        token_budget=defaults.token_budget if token_budget is None else token_budget,
    )
    settings.validate()
    return settings


def refuse_with_triggers(flags: dict[str, bool]) -> None:
    """:class:`UsageError` naming the flags given that a trigger eval has no use for."""
    used = [flag for flag, on in flags.items() if on]
    if used:
        raise UsageError(f"{', '.join(used)} do(es) not apply to --triggers (a trigger eval)")
