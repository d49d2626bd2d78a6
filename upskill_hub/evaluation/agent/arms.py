"""The hook the eval session calls in agent mode: the opening messages of each arm and one
sample's exchange (tool loop with the run's retries).

The with-skill arm lists the skill being evaluated; the baseline lists none. Both get the same
system prompt around that list and the same tools.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from upskill_hub.backoff import RetryPolicy
from upskill_hub.errors import Param, UsageError
from upskill_hub.evaluation.agent.loop import AgentRun, run_agent
from upskill_hub.evaluation.agent.prompts import agent_messages
from upskill_hub.evaluation.agent.settings import AgentSettings
from upskill_hub.evaluation.agent.tools import TOOLS, SkillFolder, Toolbox
from upskill_hub.evaluation.retry import call_with_retries
from upskill_hub.evaluation.types import (
    Arm,
    Completion,
    GenerationParams,
    Message,
    Sample,
    ToolExchange,
    ToolUse,
)
from upskill_hub.skill.testcases import TestCase

if TYPE_CHECKING:
    from upskill_hub.evaluation.config import EvalConfig
    from upskill_hub.evaluation.providers.base import Provider

__all__ = ["AgentArms", "check_tool_support", "record_trace", "retried_turns"]


def check_tool_support(providers: Sequence[Provider], *, triggers: bool = False) -> None:
    """:class:`UsageError` when a model cannot call tools (the embedded one): naming ``--mode``
    for agent mode, ``--triggers`` for a trigger eval (which always runs the tool loop)."""
    for provider in providers:
        if provider.supports_tools:
            continue
        if triggers:
            raise UsageError(
                Param("triggers"),
                f": {provider.model_id} cannot call tools (its chat handler has none), and a "
                "trigger eval needs a model that calls the Skill tool; use an API model",
            )
        raise UsageError(
            Param("mode"),
            f" agent: {provider.model_id} cannot call tools (its chat handler has none); use ",
            Param("mode"),
            " inline for it, or an API model",
        )


def retried_turns(
    provider: Provider, messages: list[Message], params: GenerationParams, policy: RetryPolicy
) -> Callable[[list[ToolExchange]], Awaitable[tuple[Completion, int]]]:
    """The ``send`` of :func:`~upskill_hub.evaluation.agent.loop.run_agent`: one tool-calling
    turn of ``provider`` (the opening ``messages``, the agent's tools), retried as ``policy``
    says."""

    async def send(exchanges: list[ToolExchange]) -> tuple[Completion, int]:
        return await call_with_retries(
            provider.model_id,
            lambda: provider.complete_with_tools(messages, exchanges, TOOLS, params),
            params.timeout,
            policy,
        )

    return send


class AgentArms:
    """Agent mode for one eval: the skill as the model may load it, and per-sample loops."""

    def __init__(
        self, settings: AgentSettings, skill: object, retry: RetryPolicy = RetryPolicy()
    ) -> None:
        self.settings = settings
        self.skill = SkillFolder.of(skill)
        self.retry = retry

    @classmethod
    def for_config(cls, config: EvalConfig, skill: object) -> AgentArms:
        """Agent mode of an eval (``config.agent`` set), with the eval's retry policy."""
        return cls(config.agent or AgentSettings(), skill, config.retry)

    def skills_for(self, arm: Arm) -> list[SkillFolder]:
        return [self.skill] if arm == "with_skill" else []

    def messages(self, case: TestCase, arm: Arm) -> list[Message]:
        return agent_messages(case, self.skills_for(arm))

    async def run(
        self,
        provider: Provider,
        case: TestCase,
        arm: Arm,
        messages: list[Message],
        params: GenerationParams,
    ) -> AgentRun:
        """One sample's exchange; :class:`RetriesExhausted` when a turn fails for good."""
        toolbox = Toolbox(self.skills_for(arm), case.files)
        send = retried_turns(provider, messages, params, self.retry)
        return await run_agent(send, toolbox, self.settings)


def record_trace(sample: Sample, trace: AgentRun, redact: Callable[[str], str]) -> None:
    """Put the exchange's tool calls (inputs and errors redacted), turns and stop on ``sample``."""
    sample.tool_calls = [
        ToolUse(u.tool, redact(u.input), u.ok, None if u.error is None else redact(u.error))
        for u in trace.tool_uses
    ]
    sample.turns = trace.turns
    sample.stopped = trace.stopped
