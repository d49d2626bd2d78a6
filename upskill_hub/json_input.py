"""Parse JSON that users or other people's repositories hand us (locks, test files, metadata).

``json.loads`` raises three different things on hostile input: ``JSONDecodeError`` (bad syntax),
``RecursionError`` (100,000 nested ``[``) and a plain ``ValueError`` (an integer past Python's
4,300-digit conversion limit). :func:`parse_json` turns all of them into one
:class:`JsonInputError` whose message fits on one line, so callers report a finding or an error
line instead of a traceback.
"""

from __future__ import annotations

import json
from typing import Any

#: Nesting deeper than this is refused before ``json`` recurses (no real file comes close).
MAX_DEPTH = 200


class JsonInputError(ValueError):
    """Unparseable JSON; ``line`` is set when the parser knew where."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def parse_json(text: str) -> Any:
    """``json.loads`` that raises only :class:`JsonInputError`, with a one-line message."""
    depth = _max_depth(text)
    if depth > MAX_DEPTH:
        raise JsonInputError(f"JSON nested {depth} levels deep (the limit is {MAX_DEPTH})")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonInputError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", exc.lineno
        ) from None
    except RecursionError:
        raise JsonInputError("JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer over the 4,300-digit limit
        raise JsonInputError(f"invalid JSON: {str(exc).splitlines()[0]}") from None


def _max_depth(text: str) -> int:
    """Deepest ``[``/``{`` nesting outside strings (a linear scan, cheaper than parsing)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif char in "]}":
            depth -= 1
    return deepest
