"""Dotted key paths into parsed JSON / YAML / TOML, and the value-matching rule of ``require``.

A path is keys joined by ``.``; ``*`` matches any key of a table or any index of a list; a
number also indexes a list; ``\\.`` is a literal dot inside a key (``tool\\.ruff.line-length``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

MAX_VISITS = 100_000  # bound on nodes a wildcard walk touches (YAML aliases can fan out)


class PathTooWide(ValueError):
    """A wildcard walk touched more than :data:`MAX_VISITS` nodes."""


def split_path(path: str) -> list[str]:
    """``"a.b\\.c.*"`` -> ``["a", "b.c", "*"]``."""
    return [part.replace("\\.", ".") for part in re.split(r"(?<!\\)\.", path)]


def path_problems(path: str) -> list[str]:
    if not isinstance(path, str) or not path:
        return ["key path must be a non-empty string"]
    if any(part == "" for part in split_path(path)):
        return [f"key path {path!r} has an empty segment"]
    return []


def _children(node: Any, part: str) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        if part == "*":
            yield from ((str(k), v) for k, v in node.items())
        elif part in node:
            yield part, node[part]
    elif isinstance(node, list):
        if part == "*":
            yield from ((str(i), v) for i, v in enumerate(node))
        elif part.isdigit() and int(part) < len(node):
            yield part, node[int(part)]


def resolve(data: Any, path: str) -> list[tuple[str, Any]]:
    """Every ``(concrete_path, value)`` the path reaches in ``data`` (empty if none).

    Raises :class:`PathTooWide` past :data:`MAX_VISITS` nodes."""
    frontier: list[tuple[list[str], Any]] = [([], data)]
    visits = 0
    for part in split_path(path):
        following: list[tuple[list[str], Any]] = []
        for trail, node in frontier:
            for key, child in _children(node, part):
                visits += 1
                if visits > MAX_VISITS:
                    raise PathTooWide(f"{path} reaches more than {MAX_VISITS} values")
                following.append(([*trail, key], child))
        frontier = following
    return [(".".join(trail), value) for trail, value in frontier]


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False  # True is not 1 here
    try:
        return bool(a == b)
    except RecursionError:
        return False


def _contains(items: list[Any], wanted: Any) -> bool:
    return any(_equal(item, wanted) for item in items)


def value_matches(found: Any, expected: Any) -> bool:
    """Equal; or ``found`` is a list holding ``expected``; or ``expected`` is a list whose every
    item ``found`` (a list) holds. Strict on types: ``"9.0"`` is not ``9.0``, ``true`` is not 1."""
    if _equal(found, expected):
        return True
    if isinstance(found, list):
        if isinstance(expected, list):
            return all(_contains(found, item) for item in expected)
        return _contains(found, expected)
    return False
