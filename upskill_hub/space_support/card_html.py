"""A skill card's Markdown, rendered for the Browse tab with an allowlist.

The card is written by whoever published the skill and shown to every visitor of the Space, so
it is rendered here, not by the page: CommonMark plus tables and strikethrough, with

- no raw HTML (``<form>``, ``<iframe>``, ``<img onerror>``, ``<style>``, ``<script>``: shown as
  text, never as elements);
- links only to ``https:``, ``http:`` and ``mailto:`` (others stay literal text), opened in a new
  tab without a referrer;
- no image loaded by the page: an image becomes a link to it (the visitor's browser asks a
  remote host only when the visitor clicks);
- headings moved below the page's own.

The result is one HTML block without blank lines, so the page's Markdown renderer passes it
through as is rather than reading parts of it as Markdown again.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it.token import Token

_SAFE_URL = re.compile(r"(?:https?://|mailto:)[^\s]*", re.IGNORECASE)
#: Attributes a rendered token may keep; everything else is dropped.
_KEEP_ATTRS = {"a": {"href", "title"}, "th": {"style"}, "td": {"style"}, "ol": {"start"}}
_ALIGN = re.compile(r"text-align:(left|right|center)")
_REL = "nofollow noopener noreferrer"


def safe_url(url: str) -> bool:
    """Whether a card may link to ``url`` (absolute http(s) or mailto, nothing else)."""
    return bool(_SAFE_URL.fullmatch(url.strip()))


def card_html(markdown: str, *, heading_shift: int = 3) -> str:
    """``markdown`` (a card, or part of one) as allowlisted HTML in one ``<div>``."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.validateLink = safe_url  # type: ignore[method-assign]
    tokens = md.parse(markdown)
    for token in tokens:
        _tidy(token, heading_shift)
        if token.children:
            token.children = _inline(token.children)
    html = md.renderer.render(tokens, md.options, {}).strip()
    # A blank line would end the HTML block in the page's Markdown and let what follows (the
    # inside of a code block, say) be read as Markdown: no raw newline survives.
    html = html.replace("\r", "").replace("\n", "&#10;")
    return f'<div class="upskill-card">{html}</div>'


def _tidy(token: Token, heading_shift: int) -> None:
    if token.type in ("heading_open", "heading_close"):
        level = min(6, int(token.tag[1:]) + heading_shift)
        token.tag = f"h{level}"
    keep = _KEEP_ATTRS.get(token.tag, set())
    attrs = {k: v for k, v in token.attrs.items() if k in keep}
    if "style" in attrs and not _ALIGN.fullmatch(str(attrs["style"])):
        del attrs["style"]
    token.attrs = attrs


def _inline(children: list[Token]) -> list[Token]:
    from markdown_it.token import Token

    out: list[Token] = []
    for child in children:
        if child.type == "image":
            # never an <img>: a link the visitor may click
            src = str(child.attrs.get("src", ""))
            alt = child.content or src
            out += [
                Token("link_open", "a", 1, attrs={"href": src}),
                Token("text", "", 0, content=f"image: {alt}"),
                Token("link_close", "a", -1),
            ]
            continue
        if child.children:
            child.children = _inline(child.children)
        out.append(child)
    for token in out:
        if token.type == "link_open":
            href = str(token.attrs.get("href", ""))
            title = token.attrs.get("title")
            token.attrs = {"href": href, "target": "_blank", "rel": _REL}
            if title is not None:
                token.attrs["title"] = title
        elif token.type not in ("link_close",):
            token.attrs = {}
    return out
