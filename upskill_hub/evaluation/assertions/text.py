"""Plain-text kinds: contains, contains_any, not_contains, regex, max_tokens."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
import subprocess
import sys
import threading
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

#: Patterns come from someone else's skill, and compiling one can cost far more than matching:
#: ``(?:(?:a{1000}){1000}){10}`` (25 characters) took 16 s and 3 GB holding the GIL. So a pattern
#: is refused past these sizes (counted statically), and the rest are compiled first in a
#: worker process under :data:`REGEX_COMPILE_TIMEOUT_S` and :data:`REGEX_COMPILE_MEMORY`.
REGEX_MAX_PATTERN = 2000
REGEX_MAX_REPEAT = 10_000
#: Items a pattern may expand to when its counted repeats are unrolled (``(?:a{100}){1000}``
#: is 100,000 and compiles in about 0.1 s; the issue's pattern is 10,000,000).
REGEX_MAX_EXPANDED = 100_000
REGEX_COMPILE_TIMEOUT_S = 2.0
REGEX_COMPILE_MEMORY = 1 << 30
_COUNTED = re.compile(r"\{\s*(\d*)\s*(?:,\s*(\d*)\s*)?\}")
_BOUNDED_COMPILE = (
    "import json, resource, sys\n"
    "mem, cpu = (int(v) for v in sys.argv[1:3])\n"
    "resource.setrlimit(resource.RLIMIT_AS, (mem, mem))\n"
    "resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))\n"
    "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
    "import regex\n"
    "pattern, flags = json.load(sys.stdin)\n"
    "try:\n"
    "    regex.compile(pattern, flags)\n"
    "except regex.error as exc:\n"
    "    print(json.dumps(str(exc)))\n"
    "except MemoryError:\n"
    "    print(json.dumps(None)); sys.exit(3)\n"
    "else:\n"
    "    print(json.dumps(''))\n"
)
_verdicts: dict[tuple[str, int], str] = {}
_verdicts_lock = threading.Lock()


def _expanded_size(pattern: str) -> int:
    """How many items ``pattern`` unrolls to, counting each counted repeat ``{n,m}`` as
    ``max(n, m)`` copies of what it repeats (a character, class or group); an over-estimate."""
    stack: list[list[int]] = [[]]  # per open group: sizes of its items so far
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            stack[-1].append(1)
            i += 2
        elif ch == "[":  # a class is one item; skip to its end
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            stack[-1].append(1)
            i = j + 1
        elif ch == "(":
            stack.append([])
            i += 3 if pattern.startswith("(?:", i) else 1
        elif ch == ")":
            inner = sum(stack.pop()) if len(stack) > 1 else 0
            stack[-1].append(max(1, inner))
            i += 1
        elif (
            ch == "{"
            and (m := _COUNTED.match(pattern, i))
            and stack[-1]
            and (m.group(1) or m.group(2))
        ):
            times = max(int(m.group(1) or 0), int(m.group(2) or 0))
            stack[-1][-1] *= max(1, times)
            i = m.end()
        else:
            stack[-1].append(1)
            i += 1
    while len(stack) > 1:  # unbalanced: regex itself will say so
        inner = sum(stack.pop())
        stack[-1].append(inner)
    return sum(stack[0])


def _static_problem(pattern: str) -> str | None:
    if len(pattern) > REGEX_MAX_PATTERN:
        return f"the pattern has {len(pattern)} characters, over the {REGEX_MAX_PATTERN} limit"
    for m in _COUNTED.finditer(pattern):
        for count in m.groups():
            if count and int(count) > REGEX_MAX_REPEAT:
                return f"repeat count {count} is over the limit of {REGEX_MAX_REPEAT}"
    size = _expanded_size(pattern)
    if size > REGEX_MAX_EXPANDED:
        return (
            f"its repeats unroll to about {size} items, over the {REGEX_MAX_EXPANDED} "
            "that compile in bounded time"
        )
    return None


def _flag_bits(flags: str) -> int:
    import regex

    bits = 0
    for letter in flags:
        bits |= getattr(regex, _FLAG_NAMES[letter])
    return bits


def _bounded_compile(pattern: str, bits: int) -> str:
    """Compile in a worker process under time and memory limits: '' if it compiles, else why."""
    cmd = [
        sys.executable,
        "-I",
        "-c",
        _BOUNDED_COMPILE,
        str(REGEX_COMPILE_MEMORY),
        str(int(REGEX_COMPILE_TIMEOUT_S) + 1),
    ]
    limit = f"cannot be compiled within {REGEX_COMPILE_TIMEOUT_S:g} s and "
    limit += f"{REGEX_COMPILE_MEMORY >> 20} MiB"
    try:
        done = subprocess.run(
            cmd,
            input=json.dumps([pattern, bits]),
            capture_output=True,
            text=True,
            timeout=REGEX_COMPILE_TIMEOUT_S + 5,  # the worker's own start-up on a busy machine
            env={"PATH": os.defpath},
            check=False,
        )
    except subprocess.TimeoutExpired:
        return limit
    try:
        verdict = json.loads(done.stdout)
    except ValueError:
        verdict = None
    return limit if verdict is None else str(verdict)


def regex_problem(pattern: str, flags: str = "") -> str:
    """Why ``pattern`` cannot be used ('' when it compiles within the limits). Cached."""
    key = (pattern, _flag_bits(flags))
    with _verdicts_lock:
        if key in _verdicts:
            return _verdicts[key]
    verdict = _static_problem(pattern)
    if verdict is None:
        if "{" in pattern or len(pattern) > 100:  # anything that could be costly: a worker
            verdict = _bounded_compile(*key)
        else:
            try:
                _compiled(*key)
                verdict = ""
            except _regex_error() as exc:
                verdict = str(exc)
    with _verdicts_lock:
        if len(_verdicts) > 4096:
            _verdicts.clear()
        _verdicts[key] = verdict
    return verdict


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str, bits: int) -> Any:
    import regex

    return regex.compile(pattern, bits)


def _compile_regex(spec: Mapping[str, Any]) -> Any:
    """Compile with the ``regex`` package (``re``-compatible syntax, but with time limits).

    A pattern comes from someone else's skill: ``^(a|a)+$`` against 34 a's and a b runs for
    hours under ``re``, holding the GIL. ``regex`` takes a ``timeout`` and, with
    ``concurrent=True``, releases the GIL, so a check runs in a worker thread with a deadline.
    Raises ``regex.error`` for a pattern :func:`regex_problem` refuses (compiling it here would
    hold the GIL for as long as it takes).
    """
    import regex

    flags = spec.get("flags", "")
    problem = regex_problem(spec["pattern"], flags)
    if problem:
        raise regex.error(problem)
    return _compiled(spec["pattern"], _flag_bits(flags))


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
