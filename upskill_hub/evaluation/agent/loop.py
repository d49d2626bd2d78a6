"""The multi-turn tool loop of agent mode: ask the model, run the tools it calls, send the
results back, until it answers without a tool call or a limit is reached.

The loop knows nothing of providers or retries: ``send`` makes one model call (with its
retries) given the tool exchanges so far. Usage and latency add up over every turn; the
answer graded is the text of the last turn.

One turn runs at most :data:`MAX_CALLS_PER_TURN` tool calls and sends back at most
:data:`MAX_RESULT_BYTES_PER_TURN` bytes of results: the calls past either limit are not run and
get a short error result (every call still gets its result, as the APIs require), so a model
asking for hundreds of reads cannot blow up the next request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from upskill_hub.evaluation.agent.settings import AgentSettings
from upskill_hub.evaluation.agent.tools import Toolbox
from upskill_hub.evaluation.types import Completion, ToolExchange, ToolResult, ToolUse, Usage

__all__ = ["MAX_CALLS_PER_TURN", "MAX_RESULT_BYTES_PER_TURN", "AgentRun", "Send", "run_agent"]

#: Tool calls run in one turn; later ones in the same turn get an error result.
MAX_CALLS_PER_TURN = 16
#: Bytes of tool results (UTF-8) sent back for one turn: four files of the largest size Read
#: returns; a result that would pass it is replaced by an error result.
MAX_RESULT_BYTES_PER_TURN = 1024 * 1024

#: One model call with retries: (the completion, the attempts it took).
Send = Callable[[list[ToolExchange]], Awaitable[tuple[Completion, int]]]


@dataclass
class AgentRun:
    """A finished exchange: the final completion (last text; usage and latency summed over
    turns), attempts over all turns, the tool calls in order, turns, and why it stopped early
    (``max_turns``, ``token_budget``, ``stop_when``'s ``matched``; None when the model
    answered)."""

    completion: Completion
    attempts: int
    tool_uses: list[ToolUse] = field(default_factory=list)
    turns: int = 0
    stopped: str | None = None
    exchanges: list[ToolExchange] = field(default_factory=list)


async def run_agent(
    send: Send,
    toolbox: Toolbox,
    settings: AgentSettings,
    *,
    stop_when: Callable[[ToolUse], bool] | None = None,
) -> AgentRun:
    """Run the loop; ``stop_when`` ends it as soon as a tool call matches (trigger evals)."""
    exchanges: list[ToolExchange] = []
    uses: list[ToolUse] = []
    usage = Usage()
    attempts = turns = 0
    latency = 0.0
    stopped: str | None = None
    while True:
        completion, tries = await send(list(exchanges))
        attempts += tries
        turns += 1
        usage = usage + completion.usage
        latency += completion.latency_s
        if not completion.tool_calls:
            break
        results: list[ToolResult] = []
        sent = 0
        for index, call in enumerate(completion.tool_calls):
            if index >= MAX_CALLS_PER_TURN:
                why = f"not run: at most {MAX_CALLS_PER_TURN} tool calls per turn"
                result, use = toolbox.refuse(call, why)
            else:
                result, use = toolbox.execute(call)
                size = len(result.content.encode("utf-8"))
                if sent + size > MAX_RESULT_BYTES_PER_TURN:
                    why = (
                        f"not returned: this turn's tool results would pass "
                        f"{MAX_RESULT_BYTES_PER_TURN} bytes; read fewer files at once"
                    )
                    result, use = toolbox.refuse(call, why)
                    size = len(result.content.encode("utf-8"))
                sent += size
            results.append(result)
            uses.append(use)
        exchanges.append(ToolExchange(completion.text, completion.tool_calls, tuple(results)))
        if stop_when is not None and any(stop_when(u) for u in uses):
            stopped = "matched"
            break
        if turns >= settings.max_turns:
            stopped = "max_turns"
            break
        if usage.input_tokens + usage.output_tokens >= settings.token_budget:
            stopped = "token_budget"
            break
    final = Completion(
        text=completion.text,
        usage=usage,
        latency_s=latency,
        model=completion.model,
        finish_reason=completion.finish_reason,
    )
    return AgentRun(final, attempts, uses, turns, stopped, exchanges)
