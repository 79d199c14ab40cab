"""A node's text on two lines: word-wrapped, the second line elided with "…" (issue 22 item 10).

A node used to show one line cut at ~25 characters. :func:`two_lines` breaks the text where Qt's
own line breaking would (at a word boundary, anywhere inside a word longer than the line) and
elides whatever does not fit on the second line. The node's whole text stays one hover (the
preview) or one click (the reader) away.

Wrapping lays text out (``QTextLayout``), far dearer than drawing two short strings, and a node is
painted again on every zoom step. So the result is cached by text, font and width: a node is laid
out once, not once a frame, and nothing is kept per node item (a 100,000-entry graph has ~10,000
of them). The cache is bounded; what falls out is laid out again when it is painted next.
"""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter, QStaticText, QTextLayout, QTextOption, QTransform

__all__ = ["CACHED_LAYOUTS", "paint_lines", "two_lines"]

#: Wrapped texts kept: far more than the nodes one screen shows at a zoom that draws their text.
CACHED_LAYOUTS = 4096

#: Characters laid out: far more than two lines of a node hold.
_HEAD_CHARS = 400

_cache: OrderedDict[tuple[str, str, float], tuple[tuple[str, ...], tuple[QStaticText, ...], float]] = OrderedDict()
_metrics: dict[str, QFontMetricsF] = {}


def _metrics_of(font: QFont, key: str) -> QFontMetricsF:
    metrics = _metrics.get(key)
    if metrics is None:
        if len(_metrics) >= 16:  # a handful of fonts per theme
            _metrics.clear()
        metrics = _metrics[key] = QFontMetricsF(font)
    return metrics


def _code_points(text: str, utf16: int) -> int:
    """The index in ``text`` of the UTF-16 offset ``utf16`` (what Qt counts in)."""
    if text.isascii() or len(text.encode("utf-16-le")) == 2 * len(text):
        return utf16
    units = 0
    for i, char in enumerate(text):
        if units >= utf16:
            return i
        units += 2 if ord(char) > 0xFFFF else 1
    return len(text)


def _wrap(text: str, font: QFont, metrics: QFontMetricsF, width: float) -> tuple[str, ...]:
    # Two lines hold a few dozen characters: lay out only the text's head (a node's text can be a
    # whole reply), its cost then bounded whatever the text's length.
    head = text[:_HEAD_CHARS]
    layout = QTextLayout(head, font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    layout.beginLayout()
    line = layout.createLine()
    line.setLineWidth(width)
    end = line.textStart() + line.textLength()
    layout.endLayout()
    cut = _code_points(head, end) or 1  # never an empty first line (a glyph wider than the box)
    first, rest = head[:cut].rstrip(), head[cut:].lstrip()
    if metrics.horizontalAdvance(first) > width:
        first = metrics.elidedText(first, Qt.TextElideMode.ElideRight, width)
    if not rest:
        return (first,)
    second = metrics.elidedText(rest, Qt.TextElideMode.ElideRight, width)
    if len(text) > len(head) and not second.endswith("…"):  # a very wide box: still say there is more
        room = width - metrics.horizontalAdvance("…")
        second = metrics.elidedText(rest, Qt.TextElideMode.ElideRight, room).removesuffix("…") + "…"
    return first, second


def _entry(text: str, font: QFont, width: float) -> tuple[tuple[str, ...], tuple[QStaticText, ...], float]:
    key = (text, font.key(), width)
    entry = _cache.get(key)
    if entry is not None:
        _cache.move_to_end(key)
        return entry
    metrics = _metrics_of(font, key[1])
    lines = _wrap(text, font, metrics, width)
    statics = []
    for line in lines:
        static = QStaticText(line)
        static.setTextFormat(Qt.TextFormat.PlainText)
        static.prepare(QTransform(), font)
        statics.append(static)
    entry = _cache[key] = (lines, tuple(statics), metrics.lineSpacing())
    if len(_cache) > CACHED_LAYOUTS:
        _cache.popitem(last=False)
    return entry


def two_lines(text: str, font: QFont, width: float) -> tuple[str, ...]:
    """``text`` as at most two lines no wider than ``width`` in ``font``: one line if it fits,
    else the words that fit and the rest, elided with "…" if still too long. Cached."""
    return _entry(text, font, width)[0]


def paint_lines(painter: QPainter, rect: QRectF, text: str, font: QFont) -> tuple[str, ...]:
    """Draw ``text`` in ``rect`` as :func:`two_lines` wraps it, the lines centred as a block
    vertically (one line sits where the single line always did); the painter's pen is used.
    The lines are drawn as cached ``QStaticText``: their glyphs are not laid out again on a
    repaint. Returns the lines drawn."""
    lines, statics, step = _entry(text, font, rect.width())
    top = rect.top() + (rect.height() - step * len(lines)) / 2
    painter.setFont(font)
    for i, static in enumerate(statics):
        painter.drawStaticText(QPointF(rect.left(), top + i * step), static)
    return lines
