"""The limits of agent mode (``eval --mode agent``): turns and tokens per exchange."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from upskill_hub.errors import Param, UsageError

__all__ = ["AgentSettings"]


@dataclass(frozen=True)
class AgentSettings:
    """``max_turns`` model calls at most per sample; the loop also stops once the exchange has
    used ``token_budget`` tokens (input + output, every turn). A sample cut short is graded on
    what the model last said, and records why (``stopped``)."""

    max_turns: int = 8
    token_budget: int = 60_000

    def validate(self) -> None:
        if self.max_turns < 1:
            raise UsageError(Param("max_turns"), f" must be at least 1 (got {self.max_turns})")
        if self.token_budget < 1:
            raise UsageError(
                Param("token_budget"), f" must be at least 1 (got {self.token_budget})"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentSettings:
        defaults = cls()
        return cls(
            max_turns=int(data.get("max_turns", defaults.max_turns)),
            token_budget=int(data.get("token_budget", defaults.token_budget)),
        )
