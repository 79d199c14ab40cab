"""Markdown → safe HTML for Qt rich text, with highlighted code blocks.

Session files hold text written by a model and by tools: it is untrusted, and a chat must never
phone home because a message contains ``![](https://tracker/pixel.png)``. So this module renders
markdown with **no remote (or local) content ever loaded**, in three layers:

1. Raw HTML inside markdown is not interpreted (``MarkdownNoHTML``): ``<img src=...>`` typed in a
   message stays visible text.
2. Every markdown image is replaced by a text placeholder (``[image: alt]``) *before* the HTML is
   produced, so :func:`markdown_to_html` never emits ``<img>``; any that slip through are stripped.
3. :class:`SafeTextDocument`, the document the chat paints with, overrides
   ``QTextDocument.loadResource`` to refuse every URL (http, https, file, qrc, data ...): it never
   calls the base implementation, it only records what was asked for in ``blocked_urls``.

Parsing is Qt's (md4c through ``QTextDocument.setMarkdown``, GitHub dialect): robust and fast. Fenced
code blocks at the top level are cut out first and rendered by ``present.markdown_html`` (a small
regex highlighter, inside a padded box); other code blocks get the box colours without highlighting.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import (
    QBrush,
    QColor,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)

from desktop_app.present.markdown_html import (
    CodeColors,
    code_block_html,
    code_colors,
    markdown_pieces,
    prose_chunks,
)

__all__ = ["SafeTextDocument", "markdown_parts", "markdown_to_html", "markdown_to_html_streaming"]


# ================================================================================ safety


class SafeTextDocument(QTextDocument):
    """A ``QTextDocument`` that never loads a resource: no network, no disk, no ``data:`` URLs.

    Qt asks ``loadResource`` for every ``<img src>`` (and stylesheet) it lays out. The default
    implementation reads local files and ``qrc:``; views that subclass it may fetch URLs. Refusing
    everything here is what makes "no remote content ever" hold even for HTML that did not come
    from :func:`markdown_to_html`. Resources an app wants to show must be added with
    ``addResource``, which Qt consults before calling this method.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.blocked_urls: list[str] = []

    def loadResource(self, type: int, name: QUrl | str) -> Any:  # noqa: A002, N802 - Qt's signature
        """Refuse: record the URL and return nothing (Qt draws no image). Never calls the base."""
        if len(self.blocked_urls) < 100:
            self.blocked_urls.append(name.toString() if isinstance(name, QUrl) else str(name))
        return None


# ================================================================================ markdown

_FEATURES = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value
    | QTextDocument.MarkdownFeature.MarkdownNoHTML.value
)
_BODY = re.compile(r"<body[^>]*>(.*)</body>", re.DOTALL)
_IMG = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
_LINK_SPAN = re.compile(r'(<a href="[^"]*")><span style=" color:#[0-9a-fA-F]{6};">')
_HEADING_SIZE = re.compile(r"font-size:(xx-large|x-large|large);")
_HEADING_MAP = {"xx-large": "x-large", "x-large": "large", "large": "medium"}
_MAYBE_CODE = re.compile(r"^(?: {4,}|\t)\S|```|~~~", re.MULTILINE)
_INLINE_CODE = "<span style=\" font-family:'monospace';\">"


def _replace_images(doc: QTextDocument) -> None:
    """Swap each image for ``[image: alt]`` text, before anything could lay it out and load it."""
    found: list[tuple[int, str]] = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            if fmt.isImageFormat():
                image = fmt.toImageFormat()
                alt = image.property(QTextFormat.Property.ImageAltText) or ""
                label = str(alt).strip() or QUrl(image.name()).fileName() or "image"
                for offset in range(fragment.length()):
                    found.append((fragment.position() + offset, label))
            it += 1
        block = block.next()
    cursor = QTextCursor(doc)
    plain = QTextCharFormat()
    plain.setFontItalic(True)
    for position, label in reversed(found):
        cursor.setPosition(position)
        cursor.setPosition(position + 1, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(f"[image: {label}]", plain)


def _box_code_blocks(doc: QTextDocument, colors: CodeColors) -> None:
    """Give code blocks Qt parsed itself (indented, or fenced inside lists) the code background."""
    block = doc.begin()
    background = QBrush(QColor(colors.background))
    while block.isValid():
        fmt = block.blockFormat()
        if fmt.hasProperty(QTextFormat.Property.BlockCodeLanguage) or fmt.hasProperty(
            QTextFormat.Property.BlockCodeFence
        ):
            new = QTextBlockFormat(fmt)
            new.setBackground(background)
            cursor = QTextCursor(block)
            cursor.setBlockFormat(new)
        block = block.next()


def _prose_html(markdown: str, colors: CodeColors) -> str:
    doc = SafeTextDocument()
    doc.setMarkdown(markdown, _FEATURES)
    if "![" in markdown:  # no image syntax, no image: skip the slow walk
        _replace_images(doc)
    if _MAYBE_CODE.search(markdown):
        _box_code_blocks(doc, colors)
    match = _BODY.search(doc.toHtml())
    body = match.group(1) if match else ""
    body = _IMG.sub("", body)  # belt and braces: images were replaced above
    body = _LINK_SPAN.sub(lambda m: f'{m.group(1)}><span style=" color:{colors.link};">', body)
    body = _HEADING_SIZE.sub(lambda m: f"font-size:{_HEADING_MAP[m.group(1)]};", body)
    return body.replace(
        _INLINE_CODE,
        f"<span style=\" font-family:'monospace'; background-color:{colors.inline_background};\">",
    )


@lru_cache(maxsize=256)
def _prose_html_cached(markdown: str, dark: bool) -> str:
    return _prose_html(markdown, code_colors(dark))


def markdown_parts(text: str, *, dark: bool = False) -> Iterator[str]:
    """The HTML of ``text`` one part at a time: a code block, or a chunk of prose (lazily).

    Each part costs work in proportion to its size, done only when it is asked for, so a caller
    can spread a long message over several event-loop turns (``ui/chat/sliced.py``). Joined with
    ``"\n"`` the parts are exactly :func:`markdown_to_html`.
    """
    for kind, language, piece in markdown_pieces(text):
        if kind == "code":
            yield code_block_html(piece, language, dark=dark)
            continue
        for chunk in prose_chunks(piece):
            if chunk.strip():
                yield _prose_html_cached(chunk, dark)


@lru_cache(maxsize=512)
def markdown_to_html(text: str, *, dark: bool = False) -> str:
    """Markdown → an HTML fragment for ``QTextDocument.setHtml`` (no ``<html>``/``<body>`` wrapper).

    Safe by construction (see the module docstring): raw HTML is shown as text, images become
    ``[image: alt]`` placeholders and no ``<img>`` is ever emitted. Results are cached (LRU), since
    the chat re-renders the same messages when sections are toggled or the theme changes; long
    prose is parsed in chunks that are cached too (see
    :func:`~desktop_app.present.markdown_html.prose_chunks`).
    """
    return "\n".join(markdown_parts(text, dark=dark))


def markdown_to_html_streaming(text: str, *, dark: bool = False) -> str:
    """:func:`markdown_to_html` for a reply that is still growing (not cached whole: it changes on
    every delta; its finished chunks come from the chunk cache). The same HTML as the finished
    reply gets, so nothing moves when the stream ends."""
    return "\n".join(markdown_parts(text, dark=dark))
