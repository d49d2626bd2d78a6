"""A finding: one rule's verdict on one place in a skill."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Finding:
    """``rule`` is a stable id (``name.length``), ``line`` is 1-based in ``file`` when known."""

    rule: str
    severity: Severity
    message: str
    file: str = "SKILL.md"
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "message": self.message, "file": self.file, "line": self.line}

    def location(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file
