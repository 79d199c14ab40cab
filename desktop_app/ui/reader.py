"""``ReaderPanel``: any node's full content, read-only, while the chat stays on the active leaf.

Renders a :class:`desktop_app.present.reader.ReaderPage`: a title (kind, label), where the entry
stands (active path, another branch, summarized away), the path from the root as breadcrumbs (a
click reads that entry instead), the whole text, and "Continue from here" (the same as a
double-click on the node: the window asks the agent to move the leaf). Text is shown as plain text:
what a session holds is never interpreted as HTML here.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.present.reader import ReaderPage

from .plain import plain_text

__all__ = ["ReaderPanel"]

CRUMBS_SHOWN = 6  #: the root, an ellipsis, and the last crumbs of a long path


class ReaderPanel(QWidget):
    """Read one entry; ``continue_requested(entry_id)``, ``crumb_activated(entry_id)``, ``closed()``."""

    continue_requested = Signal(str)
    crumb_activated = Signal(str)
    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reader")
        self._page: ReaderPage | None = None
        self._title = QLabel(self)
        self._title.setObjectName("readerTitle")
        self._title.setTextFormat(Qt.TextFormat.PlainText)
        font = self._title.font()
        font.setBold(True)
        self._title.setFont(font)
        self._status = QLabel(self)
        self._status.setObjectName("readerStatus")
        self._status.setTextFormat(Qt.TextFormat.PlainText)
        self._crumbs = QLabel(self)
        self._crumbs.setObjectName("readerCrumbs")
        self._crumbs.setTextFormat(Qt.TextFormat.RichText)
        self._crumbs.setWordWrap(True)
        self._crumbs.setTextInteractionFlags(
            Qt.TextInteractionFlag.LinksAccessibleByMouse | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        self._crumbs.linkActivated.connect(self.crumb_activated)
        self._body = QPlainTextEdit(self)
        self._body.setObjectName("readerBody")
        self._body.setReadOnly(True)
        self._body.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self._continue = QPushButton("Continue from here", self)
        self._continue.setObjectName("readerContinue")
        self._continue.clicked.connect(self._on_continue)
        self._close = QToolButton(self)
        self._close.setText("✕")
        self._close.setToolTip("Close the reader")
        self._close.clicked.connect(self.close_reader)

        head = QHBoxLayout()
        head.addWidget(self._title, 1)
        head.addWidget(self._continue)
        head.addWidget(self._close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        layout.addLayout(head)
        layout.addWidget(self._crumbs)
        layout.addWidget(self._status)
        layout.addWidget(self._body, 1)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """A strip under the chat, not half of it: the chat stays the main thing on the right."""
        return QSize(420, 240)

    @property
    def page(self) -> ReaderPage | None:
        return self._page

    def entry_id(self) -> str | None:
        return self._page.entry_id if self._page is not None else None

    def text(self) -> str:
        return self._body.toPlainText()

    def crumbs_text(self) -> str:
        return self._crumbs.text()

    @property
    def continue_button(self) -> QPushButton:
        return self._continue

    def show_page(self, page: ReaderPage) -> None:
        self._page = page
        self._title.setText(page.title)
        self._status.setText(page.status)
        self._body.setPlainText(page.body)
        self._continue.setEnabled(page.can_continue)
        self._continue.setToolTip(plain_text(page.continue_reason))
        crumbs = list(page.crumbs)
        parts = [f'<a href="{html.escape(c.entry_id)}">{html.escape(c.text)}</a>' for c in crumbs]
        if len(parts) > CRUMBS_SHOWN:
            parts = [parts[0], "…", *parts[-(CRUMBS_SHOWN - 1) :]]
        if parts:
            parts[-1] = f"<b>{html.escape(crumbs[-1].text)}</b>"
        self._crumbs.setText(" › ".join(parts))
        self.show()

    def close_reader(self) -> None:
        self._page = None
        self.hide()
        self.closed.emit()

    def _on_continue(self) -> None:
        if self._page is not None:
            self.continue_requested.emit(self._page.entry_id)
