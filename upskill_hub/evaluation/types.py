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
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class Completion:
    """What one provider call returns: the text, the API's own token counts, and wall latency."""

    text: str
    usage: Usage
    latency_s: float
    model: str = ""
    finish_reason: str | None = None


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
    latency_s: float = 0.0
    attempts: int = 1
    finished_at: str = ""

    @property
    def key(self) -> tuple[str, str, int, str]:
        return (self.model, self.case_id, self.run, self.arm)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["assertions"] = [a.to_dict() for a in self.assertions]
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
            latency_s=float(data.get("latency_s", 0.0)),
            attempts=int(data.get("attempts", 1)),
            finished_at=str(data.get("finished_at", "")),
        )
