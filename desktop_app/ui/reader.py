"""``ReaderPanel``: any node's full content, read-only, while the chat stays on the active leaf.

Renders a :class:`desktop_app.present.reader.ReaderPage`: a title (kind, label), where the entry
stands (active path, another branch, summarized away), the path from the root as breadcrumbs (a
click reads that entry instead), the whole text, and "Continue from here" (the same as a
double-click on the node: the window asks the agent to move the leaf). Text is shown as plain text:
what a session holds is never interpreted as HTML here.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.present.reader import ReaderPage

from .plain import plain_text

__all__ = ["ReaderPanel"]

CRUMBS_SHOWN = 6  #: the root, an ellipsis, and the last crumbs of a long path
REFRESH_MS = 50  #: a burst of appended entries (a turn's tool results) re-reads the page once
BUSY_RECHECK_MS = 100  #: how often a re-read asked for while a reply runs checks whether it is over


class ReaderPanel(QWidget):
    """Read one entry; ``continue_requested(entry_id)``, ``crumb_activated(entry_id)``, ``closed()``."""

    continue_requested = Signal(str)
    crumb_activated = Signal(str)
    closed = Signal()
    changes_requested = Signal(str)  #: "Show changes": the diff of the entry's turn (issue 25)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reader")
        self._page: ReaderPage | None = None
        self._refresher: Callable[[ReaderPage], ReaderPage | None] | None = None
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(REFRESH_MS)
        self._refresh_timer.timeout.connect(self.refresh)
        self._busy: Callable[[], bool] | None = None
        self._waiting = QTimer(self)  #: re-checks the busy flag until the reply is over, then re-reads
        self._waiting.setSingleShot(True)
        self._waiting.setInterval(BUSY_RECHECK_MS)
        self._waiting.timeout.connect(self.refresh)
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
        self.changes_button = QPushButton("Show changes", self)
        self.changes_button.setObjectName("readerChanges")
        self.changes_button.hide()
        self.changes_button.clicked.connect(lambda: self._page is not None and self.changes_requested.emit(self._page.entry_id))
        self._close = QToolButton(self)
        self._close.setText("✕")
        self._close.setToolTip("Close the reader")
        self._close.clicked.connect(self.close_reader)

        head = QHBoxLayout()
        head.addWidget(self._title, 1)
        head.addWidget(self.changes_button)
        head.addWidget(self._continue)
        head.addWidget(self._close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        layout.addLayout(head)
        layout.addWidget(self._crumbs)
        layout.addWidget(self._status)
        self._stack = QStackedWidget(self)  # the entry's text, or a detail panel in its place (the audit)
        self._stack.addWidget(self._body)
        self._detail: QWidget | None = None
        layout.addWidget(self._stack, 1)

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
        if page.body != self._body.toPlainText():  # the same text (a refresh) keeps the scroll position
            self._body.setPlainText(page.body)
        self._continue.setEnabled(page.can_continue)
        self.changes_button.setVisible(bool(page.changes))
        self.changes_button.setToolTip(plain_text(f"The diff of this turn: {page.changes}" if page.changes else ""))
        self._continue.setToolTip(plain_text(page.continue_reason))
        crumbs = list(page.crumbs)
        parts = [f'<a href="{html.escape(c.entry_id)}">{html.escape(c.text)}</a>' for c in crumbs]
        if len(parts) > CRUMBS_SHOWN:
            parts = [parts[0], "…", *parts[-(CRUMBS_SHOWN - 1) :]]
        if parts:
            parts[-1] = f"<b>{html.escape(crumbs[-1].text)}</b>"
        self._crumbs.setText(" › ".join(parts))
        self.show()

    def set_detail(self, widget: QWidget) -> None:
        """The panel shown in the text's place for entries that have one (a compaction's audit): the
        summary is read there, once, with the reader's title, breadcrumbs and Continue above it."""
        self._detail = widget
        self._stack.addWidget(widget)

    def show_detail(self, shown: bool) -> None:
        """Show the detail panel (``True``) or the entry's text in the body."""
        detail = self._detail if shown else None
        self._stack.setCurrentWidget(detail if detail is not None else self._body)
        if detail is not None:
            self.show()

    def detail_shown(self) -> bool:
        return self._detail is not None and self._stack.currentWidget() is self._detail and self.isVisible()

    def follow(
        self, refresher: Callable[[ReaderPage], ReaderPage | None], busy: Callable[[], bool] | None = None
    ) -> None:
        """How to re-read the page shown when the session changes under it (``None``: the entry is gone).

        ``busy``: a reply is running. A re-read asked for at its end waits until it is really over (the
        turn's last event comes before its task ends, and an automatic compaction may follow), so
        "Continue from here" is not left disabled; while it waits only this flag is read, every
        :data:`BUSY_RECHECK_MS`."""
        self._refresher = refresher
        self._busy = busy

    def refresh_later(self) -> None:
        """The leaf moved, entries arrived, a reply started or ended: re-read the page a moment later
        (at most once per :data:`REFRESH_MS`, however many events come)."""
        if self._page is not None and self._refresher is not None and not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def refresh(self) -> None:
        """Re-read the page now: where the entry stands and whether "Continue from here" applies."""
        if self._page is None or self._refresher is None:
            return
        if self._busy is not None and self._busy():
            self._waiting.start()
            return
        page = self._refresher(self._page)
        if page is None:
            self.close_reader()
        elif page != self._page:
            self.show_page(page)

    def close_reader(self) -> None:
        self._page = None
        self.hide()
        self.closed.emit()

    def _on_continue(self) -> None:
        if self._page is not None:
            self.continue_requested.emit(self._page.entry_id)
