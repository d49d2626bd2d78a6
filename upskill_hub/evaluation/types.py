"""The nouns that flow through an evaluation, shared by providers, assertions, runner and report.

Everything here is a plain dataclass that round-trips through JSON (``to_dict`` / ``from_dict``):
samples are appended to ``samples.jsonl`` one line each, and the Space, publish and generate read
them back.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant"]
Arm = Literal["baseline", "with_skill"]
Outcome = Literal["pass", "fail", "error"]
AssertionStatus = Literal["pass", "fail", "skipped", "error"]

ARMS: tuple[Arm, Arm] = ("baseline", "with_skill")

#: What names one sample of a run: (model, case_id, run, arm), in the order runs are stored
#: and reported.
SampleKey = tuple[str, str, int, str]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str


@dataclass(frozen=True)
class GenerationParams:
    temperature: float = 0.0
    max_tokens: int = 1024
    seed: int | None = None
    timeout: float = 120.0


@dataclass(frozen=True)
class Usage:
    """An API's token counts for one call (or the sum over an agent exchange's turns).

    ``input_tokens`` is ALL input, cached and cache-written tokens included (OpenAI's
    ``prompt_tokens`` meaning); ``cached_input_tokens`` and ``cache_write_tokens`` are the parts
    of it read from a prompt cache and written to one.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )


@dataclass(frozen=True)
class Completion:
    """What one provider call returns: the text, the API's own token counts, and wall latency."""

    text: str
    usage: Usage
    latency_s: float
    model: str = ""
    finish_reason: str | None = None
    #: Tools the model asked to call (only from :meth:`Provider.complete_with_tools`).
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model: its name, what it does, and its input's JSON schema."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class ToolCall:
    """One tool call the model made: the API's call id, the tool, its decoded input (``None``
    when the model sent input that is not a JSON object)."""

    id: str
    name: str
    arguments: dict[str, Any] | None


@dataclass(frozen=True)
class ToolResult:
    """What a tool returned to the model for one call."""

    call_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True)
class ToolExchange:
    """One assistant turn that called tools (its text and calls) and the results sent back."""

    text: str
    calls: tuple[ToolCall, ...]
    results: tuple[ToolResult, ...]


@dataclass(frozen=True)
class ToolUse:
    """What a sample records of one tool call: the tool, its main input (a skill name or a
    path), and whether it succeeded (``error`` says why not)."""

    tool: str
    input: str
    ok: bool = True
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolUse:
        error = data.get("error")
        return cls(
            tool=str(data.get("tool", "")),
            input=str(data.get("input", "")),
            ok=bool(data.get("ok", True)),
            error=None if error is None else str(error),
        )


@dataclass(frozen=True)
class AssertionResult:
    """One assertion's verdict on one output, with a human-readable reason."""

    type: str
    status: AssertionStatus
    reason: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AssertionResult:
        return cls(
            type=str(data["type"]), status=data["status"], reason=str(data.get("reason", ""))
        )


@dataclass
class Sample:
    """One request and its grading: model x case x run x arm."""

    model: str
    case_id: str
    run: int
    arm: Arm
    prompt_hash: str
    outcome: Outcome
    output: str = ""
    assertions: list[AssertionResult] = field(default_factory=list)
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    #: Parts of ``input_tokens`` read from / written to a prompt cache; left out of ``to_dict``
    #: when 0 (samples written before they existed read as 0).
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    latency_s: float = 0.0
    attempts: int = 1
    finished_at: str = ""
    #: Agent mode only (``turns`` is None for inline samples, and these three are then left out
    #: of ``to_dict``): the tool calls in order, model turns, and why the loop was cut short
    #: (``max_turns`` / ``token_budget``), tokens above being those of the whole exchange.
    tool_calls: list[ToolUse] = field(default_factory=list)
    turns: int | None = None
    stopped: str | None = None
    #: An ``error`` sample the API refused for its prompt, from a structured signal
    #: (:attr:`upskill_hub.errors.ProviderError.rejection`: ``context_length``,
    #: ``content_filter``, ``refusal``); None otherwise, and then left out of ``to_dict``.
    rejected: str | None = None

    @property
    def key(self) -> SampleKey:
        return (self.model, self.case_id, self.run, self.arm)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["assertions"] = [a.to_dict() for a in self.assertions]
        if self.turns is None:
            for name in ("tool_calls", "turns", "stopped"):
                del data[name]
        else:
            data["tool_calls"] = [t.to_dict() for t in self.tool_calls]
        if self.rejected is None:
            del data["rejected"]
        for name in ("cached_input_tokens", "cache_write_tokens"):
            if not data[name]:
                del data[name]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Sample:
        return cls(
            model=str(data["model"]),
            case_id=str(data["case_id"]),
            run=int(data["run"]),
            arm=data["arm"],
            prompt_hash=str(data.get("prompt_hash", "")),
            outcome=data["outcome"],
            output=str(data.get("output", "")),
            assertions=[AssertionResult.from_dict(a) for a in data.get("assertions", [])],
            error=data.get("error"),
            input_tokens=int(data.get("input_tokens", 0)),
            output_tokens=int(data.get("output_tokens", 0)),
            cached_input_tokens=int(data.get("cached_input_tokens") or 0),
            cache_write_tokens=int(data.get("cache_write_tokens") or 0),
            latency_s=float(data.get("latency_s", 0.0)),
            attempts=int(data.get("attempts", 1)),
            finished_at=str(data.get("finished_at", "")),
            tool_calls=[ToolUse.from_dict(t) for t in data.get("tool_calls") or []],
            turns=None if data.get("turns") is None else int(data["turns"]),
            stopped=data.get("stopped"),
            rejected=None if data.get("rejected") is None else str(data["rejected"]),
        )
