"""Session text shown as text, never as HTML, wherever Qt guesses the format.

Tooltips, ``QMessageBox`` texts, ``QInputDialog`` prompts and ``QLabel`` s left at
``Qt.AutoText`` render a string as rich text when ``Qt.mightBeRichText`` says it looks like HTML
(a tag at the start of its first line). A user message ``<img src="file:///…/red.png"> hello``
then drew a local image in the context lens's tooltip. Every string that may hold session text
(messages, labels, ids, titles, paths, error texts quoting them) therefore goes through
:func:`plain_text` before such a surface, or the label is made plain once (:func:`plain_label`).

Surfaces that always paint plain text need nothing: ``QPainter.drawText`` (graph nodes, labels,
outline and session rows), item views' display text, ``QStatusBar.showMessage``, window titles.
"""

from __future__ import annotations

import html

from PySide6.QtGui import Qt
from PySide6.QtWidgets import QLabel

__all__ = ["plain_label", "plain_text"]


def plain_text(text: str) -> str:
    """``text`` in a form Qt shows literally: unchanged when Qt would take it for plain text (so
    ordinary tooltips keep their look), else escaped inside a paragraph that keeps its spaces and
    line breaks (``white-space: pre-wrap``), so ``<img src=…>`` and ``&amp;`` read as typed."""
    if not Qt.mightBeRichText(text):
        return text
    return f'<p style="white-space:pre-wrap">{html.escape(text, quote=False)}</p>'


def plain_label(label: QLabel) -> QLabel:
    """``label`` set to show its text literally (``Qt.PlainText``), whatever it is given later."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label
