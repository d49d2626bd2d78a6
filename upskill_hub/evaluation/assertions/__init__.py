"""Assertions: one small class per kind, each grading an output with a status and a reason.

Public API::

    validate_spec(spec) -> list[str]          # problems, for `upskill-hub validate`
    build_assertion(spec) -> Assertion        # raises InvalidTestFileError on a bad spec
    await check_all(specs, output, ctx) -> list[AssertionResult]   # in spec order, never raises
    outcome_of(results) -> "pass" | "fail"

Statuses: ``pass``, ``fail``, ``skipped`` (the check could not run here: no nvcc, no judge model,
no token count) and ``error`` (the check itself broke: bad regex, unparseable judge reply).
``outcome_of`` is ``fail`` if any result failed or errored, ``fail`` as well when nothing was
actually checked (no results, or every one skipped: an unchecked answer is not a passing one),
else ``pass``. Skipped checks next to real ones are ignored; statistics count them so a summary
can say so. The ``error`` outcome is the runner's, for failed requests only.

A new kind is a class in one of these modules, listed in :data:`KINDS`:

- :mod:`.base`: :class:`~.base.Assertion`, the context a check gets, spec-checking helpers;
- :mod:`.text`: ``contains``, ``contains_any``, ``not_contains``, ``regex``, ``max_tokens``;
- :mod:`.structured`: ``json``, ``yaml``, ``toml`` (a fenced block parses and holds keys);
- :mod:`.keypath`: dotted key paths into parsed data, and ``require``'s matching rule;
- :mod:`.compiles`: ``compiles`` (the answer's CUDA / C++ compiles with nvcc, never run);
- :mod:`.sandbox`: where nvcc runs (a sandbox seeing only its temp folder and the toolkit);
- :mod:`.tool_slots`: compile slots shared fairly between the runs of one process;
- :mod:`.judge`: ``judge`` (a model grades the answer against a rubric).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from upskill_hub.errors import InvalidTestFileError
from upskill_hub.evaluation.assertions.base import Assertion, CheckContext, JudgeFn
from upskill_hub.evaluation.assertions.compiles import Compiles
from upskill_hub.evaluation.assertions.judge import Judge
from upskill_hub.evaluation.assertions.structured import Json, Toml, Yaml
from upskill_hub.evaluation.assertions.text import (
    Contains,
    ContainsAny,
    MaxTokens,
    NotContains,
    Regex,
)
from upskill_hub.evaluation.types import AssertionResult, Outcome

__all__ = [
    "KINDS",
    "Assertion",
    "CheckContext",
    "JudgeFn",
    "build_assertion",
    "check_all",
    "outcome_of",
    "validate_spec",
]

KINDS: dict[str, type[Assertion]] = {
    cls.kind: cls
    for cls in (
        Contains,
        ContainsAny,
        NotContains,
        Regex,
        Json,
        Yaml,
        Toml,
        Compiles,
        MaxTokens,
        Judge,
    )
}


def validate_spec(spec: Any) -> list[str]:
    """Everything wrong with one assertion spec, as short messages (empty list: it is fine)."""
    if not isinstance(spec, Mapping):
        return ["an assertion must be an object with a 'type'"]
    kind = spec.get("type")
    if not isinstance(kind, str) or kind not in KINDS:
        return [f"unknown assertion type {kind!r} (known: {', '.join(KINDS)})"]
    return [f"{kind}: {problem}" for problem in KINDS[kind].problems(spec)]


def build_assertion(spec: Mapping[str, Any]) -> Assertion:
    """The assertion object for ``spec``; raises :class:`InvalidTestFileError` if the spec is
    bad."""
    problems = validate_spec(spec)
    if problems:
        raise InvalidTestFileError("invalid assertion: " + "; ".join(problems))
    return KINDS[spec["type"]](spec)


async def _check_one(spec: Mapping[str, Any], output: str, ctx: CheckContext) -> AssertionResult:
    kind = str(spec.get("type", "?")) if isinstance(spec, Mapping) else "?"
    problems = validate_spec(spec)
    if problems:
        return AssertionResult(kind, "error", "invalid spec: " + "; ".join(problems))
    try:
        return await KINDS[kind](spec).check(output, ctx)
    except Exception as exc:  # a bug in a check must not sink the whole run
        return AssertionResult(kind, "error", f"internal error: {type(exc).__name__}: {exc}")


async def check_all(
    specs: Iterable[Mapping[str, Any]], output: str, ctx: CheckContext
) -> list[AssertionResult]:
    """Run every assertion concurrently; results come back in spec order. Never raises."""
    return list(await asyncio.gather(*(_check_one(spec, output, ctx) for spec in specs)))


def outcome_of(results: Sequence[AssertionResult]) -> Outcome:
    """``fail`` if any check failed or errored, or if none was actually checked; else ``pass``."""
    if any(r.status in ("fail", "error") for r in results):
        return "fail"
    if not any(r.status == "pass" for r in results):
        return "fail"
    return "pass"
