"""Plain-text kinds: contains, contains_any, not_contains, regex, max_tokens."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from upskill_hub.evaluation.assertions.base import (
    Assertion,
    CheckContext,
    int_problems,
    short,
    str_list,
    str_list_problems,
)
from upskill_hub.evaluation.types import AssertionResult

#: A regex check that has not finished after this many seconds is an ``error``.
REGEX_TIMEOUT_S = 2.0
#: Outputs longer than this are not searched at all (an ``error`` says so).
REGEX_MAX_INPUT = 1_000_000


class _Substrings(Assertion):
    """Shared shape: ``{"type", "values": str | [str], "case_sensitive": bool = false}``."""

    allowed = frozenset({"type", "values", "case_sensitive"})

    def __init__(self, spec: Mapping[str, Any]) -> None:
        super().__init__(spec)
        self.values = str_list(spec["values"])
        self.case_sensitive = bool(spec.get("case_sensitive", False))

    @classmethod
    def problems(cls, spec: Mapping[str, Any]) -> list[str]:
        found = super().problems(spec) + str_list_problems(spec, "values", required=True)
        if "case_sensitive" in spec and not isinstance(spec["case_sensitive"], bool):
            found.append("'case_sensitive' must be true or false")
        return found

    def present(self, output: str) -> tuple[list[str], list[str]]:
        """The values found in ``output`` and those missing, in spec order."""
        haystack = output if self.case_sensitive else output.casefold()
        hits: list[str] = []
        misses: list[str] = []
        for value in self.values:
            needle = value if self.case_sensitive else value.casefold()
            (hits if needle in haystack else misses).append(value)
        return hits, misses


def _quoted(values: list[str]) -> str:
    return ", ".join(short(v) for v in values)


class Contains(_Substrings):
    """Every value appears (case-insensitive unless ``case_sensitive``), as upskill grades."""

    kind = "contains"

    async def check(self, output: str, ctx: CheckContext) -> AssertionResult:
        _, misses = self.present(output)
        if misses:
            return self.result("fail", f"missing: {_quoted(misses)}")
        return self.result("pass", f"found all of: {_quoted(self.values)}")


class ContainsAny(_Substrings):
    """At least one value appears."""

    kind = "contains_any"

    async def check(self, output: str, ctx: CheckContext) -> AssertionResult:
        hits, _ = self.present(output)
        if not hits:
            return self.result("fail", f"none found of: {_quoted(self.values)}")
        return self.result("pass", f"found: {_quoted(hits)}")


class NotContains(_Substrings):
    """No value appears."""

    kind = "not_contains"

    async def check(self, output: str, ctx: CheckContext) -> AssertionResult:
        hits, _ = self.present(output)
        if hits:
            return self.result("fail", f"forbidden text present: {_quoted(hits)}")
        return self.result("pass", f"absent: {_quoted(self.values)}")


_FLAG_NAMES = {"i": "IGNORECASE", "m": "MULTILINE", "s": "DOTALL", "x": "VERBOSE"}


def _compile_regex(spec: Mapping[str, Any]) -> Any:
    """Compile with the ``regex`` package (``re``-compatible syntax, but with time limits).

    A pattern comes from someone else's skill: ``^(a|a)+$`` against 34 a's and a b runs for
    hours under ``re``, holding the GIL. ``regex`` takes a ``timeout`` and, with
    ``concurrent=True``, releases the GIL, so a check runs in a worker thread with a deadline.
    """
    import regex

    flags = 0
    for letter in spec.get("flags", ""):
        flags |= getattr(regex, _FLAG_NAMES[letter])
    return regex.compile(spec["pattern"], flags)


def _regex_error() -> type[Exception]:
    import regex

    return regex.error


def _count_matches(pattern: Any, output: str, wanted: int) -> int:
    """Non-overlapping matches, stopping at ``wanted``; TimeoutError past the deadline."""
    found = 0
    for _ in pattern.finditer(output, timeout=REGEX_TIMEOUT_S, concurrent=True):
        found += 1
        if found >= wanted:
            break
    return found


class Regex(Assertion):
    """``{"type": "regex", "pattern": str, "flags": "imsx"?, "count": int = 1}``: the pattern
    is found at least ``count`` times (non-overlapping), within :data:`REGEX_TIMEOUT_S`."""

    kind = "regex"
    allowed = frozenset({"type", "pattern", "flags", "count"})

    def __init__(self, spec: Mapping[str, Any]) -> None:
        super().__init__(spec)
        self.pattern: Any
        self.error = ""
        try:
            self.pattern = _compile_regex(spec)
        except _regex_error() as exc:
            self.pattern, self.error = None, str(exc)
        self.count = int(spec.get("count", 1))

    @classmethod
    def problems(cls, spec: Mapping[str, Any]) -> list[str]:
        found = super().problems(spec)
        pattern = spec.get("pattern")
        if not isinstance(pattern, str) or not pattern:
            return [*found, "'pattern' must be a non-empty string"]
        flags = spec.get("flags", "")
        if not isinstance(flags, str) or set(flags) - set(_FLAG_NAMES):
            found.append(f"'flags' must be a string of letters from {''.join(_FLAG_NAMES)!r}")
        else:
            try:
                _compile_regex(spec)
            except _regex_error() as exc:
                found.append(f"invalid regex /{pattern}/: {exc}")
        return found + int_problems(spec, "count", required=False, minimum=1)

    def _shown(self) -> str:
        return f"/{self.spec['pattern']}/{self.spec.get('flags', '')}"

    async def check(self, output: str, ctx: CheckContext) -> AssertionResult:
        if self.pattern is None:
            return self.result("error", f"invalid regex {self._shown()}: {self.error}")
        if len(output) > REGEX_MAX_INPUT:
            return self.result(
                "error",
                f"regex {self._shown()} not run: the output has {len(output)} characters, "
                f"over the {REGEX_MAX_INPUT}-character limit",
            )
        try:
            n = await asyncio.to_thread(_count_matches, self.pattern, output, self.count)
        except TimeoutError:
            return self.result(
                "error", f"regex {self._shown()} ran out of time ({REGEX_TIMEOUT_S:g} s)"
            )
        if self.count == 1:
            if n:
                return self.result("pass", f"regex {self._shown()} found")
            return self.result("fail", f"regex {self._shown()} not found")
        if n >= self.count:
            return self.result("pass", f"regex {self._shown()} found {n} times")
        return self.result(
            "fail", f"regex {self._shown()} found {n} times, expected at least {self.count}"
        )


class MaxTokens(Assertion):
    """``{"type": "max_tokens", "value": N}``: the completion used at most N output tokens.

    A provider that reported no token count for a non-empty answer gives ``skipped``, not a pass.
    """

    kind = "max_tokens"
    allowed = frozenset({"type", "value"})

    @classmethod
    def problems(cls, spec: Mapping[str, Any]) -> list[str]:
        return super().problems(spec) + int_problems(spec, "value", required=True, minimum=1)

    async def check(self, output: str, ctx: CheckContext) -> AssertionResult:
        limit = int(self.spec["value"])
        used = ctx.output_tokens
        if used <= 0 and output.strip():
            return self.result("skipped", "skipped: the provider reported no output token count")
        if used > limit:
            return self.result("fail", f"{used} output tokens, limit {limit}")
        return self.result("pass", f"{used} output tokens <= {limit}")
