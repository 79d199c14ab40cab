"""Markdown → HTML for a web page, without Qt: the exported page's one markdown renderer.

The chat parses prose with Qt (``ui.markdown``); an export runs without a window, so prose is parsed
here by markdown-it (CommonMark, with GitHub's tables and strikethrough). The rest is the chat's own
path: :func:`~desktop_app.present.markdown_html.markdown_pieces` cuts out fenced code blocks (drawn
by :func:`~desktop_app.present.markdown_html.code_block_html`, highlighted as in the chat) and caps
nesting. Session text is untrusted, so as in the chat: raw HTML in a message is shown as text, never
interpreted, and an image becomes the words ``[image: alt]``, never an ``<img>``: the page loads
nothing (its Content-Security-Policy refuses it besides, :mod:`.page`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from desktop_app.present.markdown_html import code_block_html, escape, markdown_pieces

__all__ = ["web_markdown", "web_markdown_parts"]


def _image(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    """An image is written as its alt text, never loaded."""
    token = tokens[idx]
    alt = "".join(child.content for child in token.children or ()) or "image"
    return f"<em>[image: {escape(alt)}]</em>"


def _link_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    """A link stays a link (a reader may follow it), but tells the site nothing of the page."""
    tokens[idx].attrSet("rel", "noreferrer noopener")
    rendered: str = self.renderToken(tokens, idx, options, env)
    return rendered


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.add_render_rule("image", _image)
    md.add_render_rule("link_open", _link_open)
    return md


def web_markdown_parts(text: str, *, dark: bool = False) -> Iterator[str]:
    """The HTML of ``text`` one part at a time (a code block, a piece of prose): the
    :class:`~desktop_app.present.chat_render.MarkdownParts` the exported chat renders with."""
    for kind, language, piece in markdown_pieces(text):
        if kind == "code":
            yield code_block_html(piece, language, dark=dark)
        elif piece.strip():
            yield _parser().render(piece)


def web_markdown(text: str, *, dark: bool = False) -> str:
    """:func:`web_markdown_parts` joined."""
    return "\n".join(web_markdown_parts(text, dark=dark))
