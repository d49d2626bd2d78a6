"""The assertion interface, the context a check gets, and spec-checking helpers."""

from __future__ import annotations

import reprlib
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from upskill_hub.evaluation.types import AssertionResult, AssertionStatus, Message
from upskill_hub.skill.testcases import TestCase

JudgeFn = Callable[[str | None, list[Message]], Awaitable[str]]
"""``judge(model_or_None, messages) -> reply text``; None means the run's default judge model.
It raises :class:`JudgeSkipped` when that model may not be called in this run."""


class JudgeSkipped(Exception):
    """The judge model may not be called here (the message says why); the check is skipped."""


@dataclass(frozen=True)
class CheckContext:
    """What an assertion may know besides the output: the case, the token count, a judge.

    ``default_judge`` says whether ``judge(None, ...)`` has a model to call (a run with only
    per-spec judge models has a ``judge`` but no default).
    """

    case: TestCase
    output_tokens: int
    judge: JudgeFn | None = None
    default_judge: bool = True


class Assertion(ABC):
    """One kind of check. Built from a spec dict already free of :meth:`problems`."""

    kind: ClassVar[str]
    allowed: ClassVar[frozenset[str]] = frozenset({"type"})

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.spec = dict(spec)

    @classmethod
    def problems(cls, spec: Mapping[str, Any]) -> list[str]:
        """What is wrong with ``spec`` for this kind (empty when it is fine)."""
        extra = sorted(set(spec) - cls.allowed)
        if extra:
            return [f"unknown field(s) {', '.join(map(repr, extra))}"]
        return []

    @abstractmethod
    async def check(self, output: str, ctx: CheckContext) -> AssertionResult:
        """Grade ``output``; never raises for a bad output, only reports."""

    def result(self, status: AssertionStatus, reason: str) -> AssertionResult:
        return AssertionResult(type=self.kind, status=status, reason=reason)


_repr = reprlib.Repr()
_repr.maxstring = 60
_repr.maxother = 60
_repr.maxlist = _repr.maxtuple = _repr.maxdict = 6
_repr.maxlevel = 3


def short(value: Any) -> str:
    """A bounded repr for reasons: safe on huge or self-referencing values."""
    return _repr.repr(value)


def str_list_problems(spec: Mapping[str, Any], key: str, *, required: bool) -> list[str]:
    """``spec[key]`` must be a non-empty string or a non-empty list of non-empty strings."""
    if key not in spec:
        return [f"'{key}' is required"] if required else []
    value = spec[key]
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return [f"'{key}' must be a string or a list of strings"]
    if not value or not all(value):
        return [f"'{key}' must hold at least one non-empty string"]
    return []


def str_list(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def int_problems(
    spec: Mapping[str, Any], key: str, *, required: bool, minimum: int, maximum: int | None = None
) -> list[str]:
    if key not in spec:
        return [f"'{key}' is required"] if required else []
    value = spec[key]
    if isinstance(value, bool) or not isinstance(value, int):
        return [f"'{key}' must be an integer"]
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"between {minimum} and {maximum}" if maximum is not None else f">= {minimum}"
        return [f"'{key}' must be {bound} (got {value})"]
    return []


def optional_str_problems(spec: Mapping[str, Any], key: str) -> list[str]:
    if key in spec and (not isinstance(spec[key], str) or not spec[key]):
        return [f"'{key}' must be a non-empty string"]
    return []
