"""``Composer``: the message editor. Enter sends, Shift+Enter breaks the line, Esc stops.

A ``QPlainTextEdit`` (plain text: what is typed is what is sent) that grows with its content up to
a few lines, then scrolls. It only emits intents; the panel decides whether sending is allowed.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QPlainTextEdit, QSizePolicy

__all__ = ["Composer"]

MIN_LINES = 2
MAX_LINES = 8


class Composer(QPlainTextEdit):
    """Emits :attr:`submitted` on Enter (text not cleared here) and :attr:`stop` on Esc."""

    submitted = Signal(str)
    stop = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatComposer")
        self.setPlaceholderText("Message…  (Enter to send · Shift+Enter for a new line · Esc to stop)")
        self.setTabChangesFocus(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().contentsChanged.connect(self.updateGeometry)
        self.document().documentLayout().documentSizeChanged.connect(lambda _size: self.updateGeometry())

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        key = event.key()
        modifiers = event.modifiers()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if modifiers & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")  # a plain newline, not Qt's Shift+Enter line separator
                event.accept()
                return
            self.submitted.emit(self.toPlainText())  # Enter, and Ctrl+Enter for those used to it
            event.accept()
            return
        if key == Qt.Key.Key_Escape and not modifiers:
            self.stop.emit()
            event.accept()
            return
        super().keyPressEvent(event)

    def _line_height(self) -> int:
        return self.fontMetrics().lineSpacing()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        lines = max(MIN_LINES, min(MAX_LINES, self._visual_lines()))
        margins = self.contentsMargins()
        frame = (
            2 * self.frameWidth()
            + int(2 * self.document().documentMargin())
            + margins.top()
            + margins.bottom()
        )
        return QSize(super().sizeHint().width(), lines * self._line_height() + frame + 2)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self.sizeHint()

    def _visual_lines(self) -> int:
        layout = self.document().documentLayout()
        total = 0
        block = self.document().begin()
        while block.isValid():
            block_layout = block.layout()
            total += max(1, block_layout.lineCount() if block_layout is not None else 1)
            block = block.next()
        return total or int(layout.documentSize().height()) or 1
