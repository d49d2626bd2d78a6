"""Fenced code blocks in Markdown: what a model's answer hides between ``` or ~~~ fences.

Rules (CommonMark, made lenient where model output is sloppy):

* A fence is a line of 3+ backticks or 3+ tildes, optionally indented. Any indentation is
  accepted (models put fences inside list items); that indentation is removed from the block's
  lines, as far as each line has it.
* The info string's first word is the language, lower-cased: ```` ```toml title="build.toml" ````
  gives ``toml``, ```` ```{.python} ```` gives ``python``, ```` ```toml:build.toml ```` gives
  ``toml``. A backtick fence whose info string holds a backtick is not a fence (inline code).
* The closing fence uses the same character, is at least as long, and has nothing after it but
  spaces. An unterminated block runs to the end of the text (``closed`` is False).
* Blocks tagged ``markdown``/``md`` are returned, and the blocks inside them too (after them).

``start_line`` is the 1-based line number of the opening fence in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_LANG = re.compile(r"[A-Za-z0-9_+#-]+")
_NESTED_LANGS = frozenset({"markdown", "md"})


@dataclass(frozen=True)
class CodeBlock:
    """One fenced block. Unpacks as ``lang, code, start_line = block``."""

    lang: str
    code: str
    start_line: int
    info: str = ""
    closed: bool = True

    def __iter__(self) -> Iterator[str | int]:
        return iter((self.lang, self.code, self.start_line))


def language_of(info: str) -> str:
    """The language named by an info string: its first word, lower-cased, '' if none."""
    word = info.strip().split(maxsplit=1)[0] if info.strip() else ""
    word = word.lstrip("{.")
    match = _LANG.match(word)
    return match.group(0).lower() if match else ""


def _dedent(line: str, width: int) -> str:
    i = 0
    while i < width and i < len(line) and line[i] in " \t":
        i += 1
    return line[i:]


def extract_blocks(text: str, *, nested: bool = True) -> list[CodeBlock]:
    """Every fenced code block of ``text``, in order of appearance."""
    lines = text.splitlines()
    blocks: list[CodeBlock] = []
    i = 0
    while i < len(lines):
        match = _OPEN.match(lines[i])
        if not match:
            i += 1
            continue
        fence, info = match.group("fence"), match.group("info")
        if fence[0] == "`" and "`" in info:
            i += 1
            continue
        width = len(match.group("indent"))
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not closing.match(lines[j]):
            body.append(_dedent(lines[j], width))
            j += 1
        closed = j < len(lines)
        code = "\n".join(body) + ("\n" if body else "")
        block = CodeBlock(language_of(info), code, i + 1, info.strip(), closed)
        blocks.append(block)
        if nested and block.lang in _NESTED_LANGS:
            for inner in extract_blocks(code, nested=True):
                blocks.append(replace(inner, start_line=inner.start_line + i + 1))
        i = j + 1
    return blocks
