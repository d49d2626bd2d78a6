"""A prompt cache as the APIs keep one, for the fake LLM servers (:mod:`tests.support.llm_servers`).

A request is a sequence of blocks in the order the API reads them: the tool definitions, then
the system prompt, then each message's content blocks. Tokens are whitespace tokens, as
everywhere in the fake servers; here the tool definitions count too (their JSON).

- Anthropic (:meth:`PromptCache.anthropic`): only marked prefixes are cached. Each block
  carrying ``cache_control`` ends a prefix that is written to the cache; a lookup checks the
  prefixes ending at the marked block and at the :data:`LOOKBACK` blocks before it, as the API
  does. The longest prefix found is read from the cache, the rest of the longest marked prefix
  is written to it, the remainder is uncached input. Prefixes shorter than ``min_tokens`` are
  never cached.
- OpenAI (:meth:`PromptCache.openai`): caching is automatic. Every message boundary ends a
  prefix; the longest one seen before (and at least ``min_tokens`` long) is reported as
  ``cached_tokens``.

Keys are the prefixes' JSON without the ``cache_control`` marks, so the same text marked or not
is the same prefix. Thread-safe.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any

from tests.support.responders import _count_tokens, _text_of

__all__ = ["LOOKBACK", "PromptCache"]

#: Blocks before a marked one whose prefixes a lookup checks too (the API's 20).
LOOKBACK = 20


@dataclass(frozen=True)
class _Block:
    data: Any
    tokens: int
    marked: bool
    boundary: bool = False  # the last block of a message (OpenAI's prefixes end there)


def _unmarked(block: Any) -> Any:
    if isinstance(block, dict):
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


def _marked(block: Any) -> bool:
    return isinstance(block, dict) and isinstance(block.get("cache_control"), dict)


def _tokens(block: Any) -> int:
    if isinstance(block, dict) and block.get("type") in ("text", "tool_result", "tool_use"):
        return _count_tokens(_text_of([block]))
    if isinstance(block, str):
        return _count_tokens(block)
    return _count_tokens(json.dumps(_unmarked(block), sort_keys=True))


def _blocks(request: dict[str, Any]) -> list[_Block]:
    found = [
        _Block(("tool", _unmarked(t)), _tokens(_unmarked(t)), _marked(t))
        for t in request.get("tools") or []
    ]
    system = request.get("system")
    if isinstance(system, str) and system:
        found.append(_Block(("system", system), _count_tokens(system), False))
    elif isinstance(system, list):
        found += [_Block(("system", _unmarked(b)), _tokens(b), _marked(b)) for b in system]
    for message in request.get("messages") or []:
        content = message.get("content")
        blocks = [content] if isinstance(content, str) or content is None else list(content)
        role = message.get("role")
        extra = {k: v for k, v in message.items() if k not in ("role", "content")}
        for i, block in enumerate(blocks):
            data = (role, _unmarked(block), extra if i == 0 else None)
            tokens = _tokens(block) if block is not None else 0
            found.append(_Block(data, tokens, _marked(block), boundary=i == len(blocks) - 1))
    return found


class PromptCache:
    """The prefixes an API has cached (see the module docstring)."""

    def __init__(self, *, min_tokens: int = 0) -> None:
        self.min_tokens = min_tokens
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def _prefixes(self, blocks: list[_Block], ends: list[int]) -> list[tuple[str, int]]:
        """(key, tokens) of the prefixes ending at each index of ``ends``, long enough to cache."""
        digest = hashlib.sha256()
        out: list[tuple[str, int]] = []
        tokens = 0
        wanted = set(ends)
        for i, block in enumerate(blocks):
            digest.update(json.dumps(block.data, sort_keys=True).encode("utf-8") + b"\n")
            tokens += block.tokens
            if i in wanted and tokens >= self.min_tokens and tokens > 0:
                out.append((digest.copy().hexdigest(), tokens))
        return out

    def anthropic(self, request: dict[str, Any]) -> dict[str, int]:
        """The usage counts of ``request``: ``input_tokens`` (uncached),
        ``cache_read_input_tokens``, ``cache_creation_input_tokens``."""
        blocks = _blocks(request)
        total = sum(b.tokens for b in blocks)
        marked = [i for i, b in enumerate(blocks) if b.marked]
        prefixes = self._prefixes(blocks, marked)
        looked = {j for i in marked for j in range(max(i - LOOKBACK, 0), i + 1)}
        candidates = self._prefixes(blocks, sorted(looked))
        with self._lock:
            read = max((t for key, t in candidates if key in self._seen), default=0)
            longest = max((t for _key, t in prefixes), default=0)
            self._seen.update(key for key, _t in prefixes)
        written = max(longest - read, 0)
        return {
            "input_tokens": total - read - written,
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": written,
        }

    def openai(self, request: dict[str, Any]) -> tuple[int, int]:
        """(all prompt tokens, the cached part) of ``request``."""
        blocks = _blocks(request)
        total = sum(b.tokens for b in blocks)
        prefixes = self._prefixes(blocks, [i for i, b in enumerate(blocks) if b.boundary])
        with self._lock:
            cached = max((t for key, t in prefixes if key in self._seen), default=0)
            self._seen.update(key for key, _t in prefixes)
        return total, cached
