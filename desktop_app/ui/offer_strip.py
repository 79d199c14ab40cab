"""``OfferStrip``: a strip over the top of the chat that offers something and blocks nothing.

The branch offer after a sibling flip (:mod:`.branch_offer`) and the files offer after a leaf move
(:mod:`.restore_offer`) are both this: words in plain text with a ✕, their own buttons below, the
tooltip colours, placed over the host's top edge (below another strip, if one is shown) and kept
there when the host resizes, and gone by themselves after a while.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from .plain import plain_text

__all__ = ["OfferStrip"]


class OfferStrip(QFrame):
    """The common part; a subclass adds its button rows with :meth:`add_rows` and calls
    :meth:`pop_up` to show itself. ``above``: pixels another strip takes at the host's top."""

    def __init__(self, host: QWidget, name: str, close_tip: str, above: Callable[[], int] = lambda: 0) -> None:
        super().__init__(host)
        self.setObjectName(name)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self._above = above
        self.label = QLabel(self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # words from the session or the folder: never rich text
        self.label.setWordWrap(True)
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip(plain_text(close_tip))
        self.close_button.clicked.connect(self.dismiss)
        top = QHBoxLayout()
        top.addWidget(self.label, 1)
        top.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(10, 6, 6, 6)
        self._layout.setSpacing(4)
        self._layout.addLayout(top)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.dismiss)
        host.installEventFilter(self)
        self.hide()

    def add_rows(self, *rows: QHBoxLayout | QWidget) -> None:
        """The strip's own rows, under the words, in order."""
        for row in rows:
            if isinstance(row, QWidget):
                self._layout.addWidget(row)
            else:
                self._layout.addLayout(row)

    def pop_up(self, for_ms: int | None) -> None:
        """Show the strip in the tooltip's colours over the host; gone after ``for_ms`` (``None``:
        until dismissed)."""
        self.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self.label.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.show()
        self.place()
        self.raise_()
        if for_ms is None:
            self._timer.stop()
        else:
            self._timer.start(for_ms)

    def dismiss(self) -> None:
        self._timer.stop()
        self.hide()

    def room_taken(self) -> int:
        """Room the strip takes over the host while shown (another strip goes below it)."""
        return self.height() + 6 if self.isVisible() else 0

    def place(self) -> None:
        """Across the host's top (below ``above``), as tall as its wrapped words and rows need."""
        host = self.parentWidget()
        if host is None:
            return
        width = max(200, host.width() - 16)
        height = self.heightForWidth(width) if self.hasHeightForWidth() else self.sizeHint().height()
        self.setGeometry(8, 8 + self._above(), width, max(height, self.sizeHint().height()))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize and self.isVisible():
            self.place()
        return False
