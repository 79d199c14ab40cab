"""The Sessions panel: every session (Arbor's and pi's) by working folder, left of the graph.

What it shows is decided in :mod:`desktop_app.present.sessions`; this widget renders the groups, runs
listings on a worker thread (a thousand session files are read once, then only ``stat``-ed, but even
the ``stat``s never run on the UI thread), and turns clicks into agent commands: open, new (asking
for the working folder), rename (one ``session_info`` entry) and delete (to the desktop trash after a
question). The current session's own changes and a five-second timer keep the list fresh. A node
carried out of the graph onto the panel is forked or cloned into a new session, as on the toolbar's
Fork (the window's drop target; the panel only lights up, :meth:`SessionsPanel.show_drop_hint`).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QColor, QFont, QFontMetrics, QKeyEvent, QKeySequence, QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.agent import AgentSession, SessionOpenError
from desktop_app.present.sessions import CLAUDE_CODE, SessionGroup, SessionRow, SessionSources, build_groups
from desktop_app.present.trash import TrashError, move_to_trash

from .plain import plain_label, plain_text

__all__ = ["SessionsPanel"]

PATH_ROLE = Qt.ItemDataRole.UserRole
DETAIL_ROLE = Qt.ItemDataRole.UserRole + 1
SOURCE_ROLE = Qt.ItemDataRole.UserRole + 2
REFRESH_MS = 5000
#: Sources whose rows carry a small tag with their name (Arbor's own rows carry none).
TAGGED_SOURCES = frozenset({"pi", CLAUDE_CODE})


class _RowDelegate(QStyledItemDelegate):
    """A session row: its title, and under it the count and age in a smaller, dimmer line, with a
    small "pi" tag for pi's sessions and "Claude Code" for Claude Code's transcripts. Folder rows are
    drawn as usual."""

    PAD = 3

    def _detail_font(self, option: QStyleOptionViewItem) -> QFont:
        font = QFont(option.font)
        font.setPointSizeF(max(6.0, font.pointSizeF() * 0.88))
        return font

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:  # noqa: N802
        base = super().sizeHint(option, index)
        if not index.data(DETAIL_ROLE):
            return base
        lines = QFontMetrics(option.font).height() + QFontMetrics(self._detail_font(option)).height()
        return QSize(base.width(), lines + 2 * self.PAD)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        detail = index.data(DETAIL_ROLE)
        if not detail:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        title = opt.text
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect: QRect = opt.rect.adjusted(4, self.PAD, -4, -self.PAD)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        palette = opt.palette
        text_colour = palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        dim = QColor(text_colour)
        dim.setAlphaF(0.62)
        painter.save()
        font = QFont(opt.font)
        metrics = QFontMetrics(font)
        source = index.data(SOURCE_ROLE)
        tag_width = 0
        if source in TAGGED_SOURCES:
            tag_font = self._detail_font(opt)
            tag_width = QFontMetrics(tag_font).horizontalAdvance(f" {source} ") + 6
            tag = QRect(rect.right() - tag_width + 4, rect.top() + 1, tag_width - 4, metrics.height() - 2)
            painter.setPen(dim)
            painter.drawRoundedRect(tag, 3, 3)
            painter.setFont(tag_font)
            painter.drawText(tag, Qt.AlignmentFlag.AlignCenter, str(source))
        painter.setFont(font)
        painter.setPen(text_colour)
        top = QRect(rect.left(), rect.top(), rect.width() - tag_width, metrics.height())
        painter.drawText(top, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         metrics.elidedText(title, Qt.TextElideMode.ElideRight, top.width()))
        small = self._detail_font(opt)
        painter.setFont(small)
        painter.setPen(dim)
        bottom = QRect(rect.left(), top.bottom() + 1, rect.width(), QFontMetrics(small).height())
        painter.drawText(bottom, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, str(detail))
        painter.restore()


def _same_path(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


class _Lister(QObject):
    """Runs :meth:`SessionSources.list` on one worker thread; only the newest request's answer counts.

    The worker never touches Qt (a Python thread that emits a Qt signal becomes a Qt "adopted" thread,
    which Qt may still hold when the application ends): the UI thread polls the future on a short
    timer while a listing is pending, and emits the signals itself.
    """

    listed = Signal(int, object)  # generation, tuple[SessionGroup, ...]
    failed = Signal(int, str)

    POLL_MS = 15

    def __init__(self, sources: SessionSources, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.sources = sources
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arbor-sessions")
        self._generation = 0
        self._future: Future[tuple[SessionGroup, ...]] | None = None
        self._poll = QTimer(self)
        self._poll.setInterval(self.POLL_MS)
        self._poll.timeout.connect(self._check)

    @property
    def pending(self) -> bool:
        return self._future is not None

    def request(self, query: str, current: str | None) -> int:
        """List and group on the worker (reading files and sorting rows never run on the UI thread)."""
        self._generation += 1
        sources = self.sources
        self._future = self._pool.submit(lambda: build_groups(sources.list(query), current=current))
        self._poll.start()
        return self._generation

    def _check(self) -> None:
        future = self._future
        if future is None or not future.done():
            return
        self._future = None
        self._poll.stop()
        exc = future.exception()
        if exc is not None:
            self.failed.emit(self._generation, str(exc))
        else:
            self.listed.emit(self._generation, future.result())

    def current(self, generation: int) -> bool:
        return generation == self._generation

    def shutdown(self) -> None:
        self._poll.stop()
        self._future = None
        self._pool.shutdown(wait=False, cancel_futures=True)


class SessionsPanel(QWidget):
    """Search box, New button, and a tree of folders → sessions; a click opens a session."""

    open_requested = Signal(str)
    listing_done = Signal()
    """Emitted after the rows of the newest listing are on screen (tests wait for it)."""

    def __init__(self, agent: AgentSession, sources: SessionSources, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sessionsPanel")
        self.agent = agent
        self.sources = sources
        self.groups: tuple[SessionGroup, ...] = ()
        self.confirm: Callable[[str, str], bool] = self._confirm
        """Asks a yes/no question (title, text); tests replace it."""
        self.ask_text: Callable[[str, str, str], str | None] = self._ask_text
        """Asks for a line of text (title, label, current); ``None`` when cancelled; tests replace it."""
        self.ask_folder: Callable[[str], str | None] = self._ask_folder
        """Asks for a working folder, starting at the given one; tests replace it."""

        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search sessions")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Search every session's text, tool results included (Ctrl+Shift+F)")
        self.new_button = QToolButton(self)
        self.new_button.setText("New…")
        self.new_button.setToolTip("New session in a working folder you choose (Ctrl+Shift+N)")
        self.new_button.clicked.connect(self.new_session)
        self.tree = QTreeWidget(self)
        self.tree.setHeaderHidden(True)
        self.tree.setColumnCount(1)
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(False)
        self.tree.setItemDelegate(_RowDelegate(self.tree))
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._menu)
        self.tree.itemActivated.connect(self._activated)
        self.tree.itemClicked.connect(self._activated)
        self.status = plain_label(QLabel("", self))
        self.status.setObjectName("sessionsStatus")
        # Wrapped: a long line (the drop hint while a node is carried over) neither widens the side
        # column under the mouse nor is cut at its edge (issue 22 item 10).
        self.status.setWordWrap(True)
        self._drop_hint = False
        self._status_before_hint = ""
        self._select_when_listed: str | None = None  #: a new session to select once a listing shows it

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.search, 1)
        top.addWidget(self.new_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.status)

        self._add_shortcut("Search sessions", "Ctrl+Shift+F", self._focus_search)
        # F2 and Delete act on the list only while it has focus (F2 labels a node elsewhere): the
        # list takes them before the window's shortcuts see them.
        self.tree.installEventFilter(self)
        self.tree.setToolTip("Click to open · F2 rename · Delete move to the trash · right-click for more")

        self._lister = _Lister(sources, self)
        self._lister.listed.connect(self._on_listed)
        self._lister.failed.connect(self._on_failed)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(200)
        self._debounce.timeout.connect(self.refresh)
        self.search.textChanged.connect(lambda _t: self._debounce.start())
        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self._refresh_if_visible)
        self._timer.start()
        self.refresh()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.tree and event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            key = event.key() if isinstance(event, QKeyEvent) else None
            action = {Qt.Key.Key_F2: self.rename_selected, Qt.Key.Key_Delete: self.delete_selected}.get(key)  # type: ignore[call-overload]
            if action is not None and self.selected_path() is not None:
                event.accept()
                if event.type() == QEvent.Type.KeyPress:
                    action()
                return True
        return super().eventFilter(watched, event)

    def _add_shortcut(self, text: str, keys: str | QKeySequence.StandardKey, slot: Callable[[], Any],
                      widget: QWidget | None = None) -> None:
        action = QAction(text, self)
        action.setShortcut(QKeySequence(keys))
        action.setToolTip(plain_text(f"{text} ({action.shortcut().toString()})"))
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(slot)
        (widget or self).addAction(action)

    # ============================================================================ listing

    @property
    def listing_pending(self) -> bool:
        return self._lister.pending

    def refresh(self) -> None:
        """List again (off the UI thread); the rows change when the answer arrives."""
        self._lister.request(self.search.text(), self.agent.view.session_file)

    def _refresh_if_visible(self) -> None:
        if self.isVisible() and not self._lister.pending:
            self.refresh()

    def _on_listed(self, generation: int, groups: tuple[SessionGroup, ...]) -> None:
        if not self._lister.current(generation):
            return
        self.show_groups(groups)
        self.listing_done.emit()

    def _on_failed(self, generation: int, message: str) -> None:
        if self._lister.current(generation):
            self.status.setText(f"Could not list sessions: {message}")
            self.listing_done.emit()

    def show_groups(self, groups: tuple[SessionGroup, ...]) -> None:
        """Render ``groups``, keeping folders the user collapsed collapsed and the selection."""
        if groups == self.groups and self.tree.topLevelItemCount():
            self._select_pending()
            return
        collapsed = set()
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            if top is not None and not top.isExpanded():
                collapsed.add(top.data(0, PATH_ROLE))
        selected = self.selected_path()
        self.groups = groups
        self.tree.setUpdatesEnabled(False)
        self.tree.clear()
        bold = QFont(self.font())
        bold.setBold(True)
        for group in groups:
            folder = QTreeWidgetItem([f"{group.label}  ({len(group.rows)})"])
            folder.setData(0, PATH_ROLE, f"folder:{group.folder}")
            folder.setToolTip(0, plain_text(group.folder or "Sessions without a working folder"))
            folder.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.tree.addTopLevelItem(folder)
            children = []
            for row in group.rows:
                item = QTreeWidgetItem([row.title])
                item.setData(0, PATH_ROLE, row.path)
                item.setData(0, DETAIL_ROLE, row.detail)
                item.setData(0, SOURCE_ROLE, row.source)
                item.setToolTip(0, plain_text(row.tooltip))
                if row.current:
                    item.setFont(0, bold)
                children.append(item)
            folder.addChildren(children)  # one insertion per folder, not one per row
            for item in children:
                if item.data(0, PATH_ROLE) == selected:
                    item.setSelected(True)
            folder.setExpanded(f"folder:{group.folder}" not in collapsed)
        self.tree.setUpdatesEnabled(True)
        self._select_pending()
        total = sum(len(g.rows) for g in groups)
        query = self.search.text().strip()
        text = f"{total} session{'' if total == 1 else 's'}" + (f" matching “{query}”" if query else "")
        if self._drop_hint:
            self._status_before_hint = text  # shown again when the carried node leaves
        else:
            self.status.setText(text)

    def show_drop_hint(self, shown: bool) -> None:
        """A node carried out of the graph is over the panel: say that letting go forks it here."""
        if shown == self._drop_hint:
            return
        self._drop_hint = shown
        self.tree.setStyleSheet("QTreeWidget { border: 2px solid palette(highlight); }" if shown else "")
        if shown:
            self._status_before_hint = self.status.text()
            self.status.setText("Release to fork (a user message) or clone into a new session")
        else:
            self.status.setText(self._status_before_hint)

    def select_session(self, path: str) -> bool:
        """Select ``path``'s row (its folder expanded, scrolled into view), now if it is listed,
        else as soon as a listing shows it (a fork just written); ``True`` when selected now."""
        self._select_when_listed = path
        return self._select_pending()

    def _select_pending(self) -> bool:
        path = self._select_when_listed
        item = self._item(path) if path is not None else None
        if item is None:
            return False
        self._select_when_listed = None
        parent = item.parent()
        if parent is not None:
            parent.setExpanded(True)
        self.tree.setCurrentItem(item)
        self.tree.clearSelection()
        item.setSelected(True)
        self.tree.scrollToItem(item)
        return True

    def _item(self, path: str) -> QTreeWidgetItem | None:
        items: list[QTreeWidgetItem] = []
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            if top is not None:
                items.extend(c for j in range(top.childCount()) if (c := top.child(j)) is not None)
        for same in (lambda p: p == path, lambda p: _same_path(p, path)):  # the exact path first: no stat
            for item in items:
                value = item.data(0, PATH_ROLE)
                if isinstance(value, str) and same(value):
                    return item
        return None

    def listed_paths(self) -> list[str]:
        """The session files the panel lists now (DESIGN.md §7.1), in display order."""
        return [row.path for row in self.rows()]

    def rows(self) -> list[SessionRow]:
        """Every row on screen, in display order."""
        return [row for group in self.groups for row in group.rows]

    def selected_path(self) -> str | None:
        items = self.tree.selectedItems()
        value = items[0].data(0, PATH_ROLE) if items else None
        return value if isinstance(value, str) and not value.startswith("folder:") else None

    def _row(self, path: str) -> SessionRow | None:
        return next((r for r in self.rows() if r.path == path), None)

    # ============================================================================ actions

    def _activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        path = item.data(0, PATH_ROLE)
        if isinstance(path, str) and not path.startswith("folder:"):
            self.open_requested.emit(path)

    def _menu(self, pos: QPoint) -> None:
        item = self.tree.itemAt(pos)
        path = item.data(0, PATH_ROLE) if item is not None else None
        menu = QMenu(self)
        if isinstance(path, str) and not path.startswith("folder:"):
            item.setSelected(True)  # type: ignore[union-attr]
            menu.addAction("Open", lambda: self.open_requested.emit(path))
            row = self._row(path)
            if row is None or row.source != CLAUDE_CODE:  # another program's file is only ever read
                menu.addAction("Rename… (F2)", lambda: self.rename(path))
                menu.addAction("Move to Trash… (Delete)", lambda: self.delete(path))
            menu.addSeparator()
        menu.addAction("New session… (Ctrl+Shift+N)", self.new_session)
        menu.addAction("Refresh", self.refresh)
        menu.popup(self.tree.viewport().mapToGlobal(pos))

    def rename_selected(self) -> None:
        path = self.selected_path()
        if path:
            self.rename(path)

    def delete_selected(self) -> None:
        path = self.selected_path()
        if path:
            self.delete(path)

    def rename(self, path: str) -> bool:
        """Ask for a name and append one ``session_info`` entry to that session (through the agent)."""
        row = self._row(path)
        if row is not None and row.source == CLAUDE_CODE:
            return False  # a Claude Code transcript is never written: continue it in Arbor to name it
        current = row.title if row is not None and row.named else ""
        name = self.ask_text("Rename session", "Name (empty clears it):", current)
        if name is None:
            return False
        try:
            self.agent.rename_session(name, path)
        except Exception as exc:  # noqa: BLE001 - shown, never raised into Qt
            QMessageBox.warning(self, "Rename session", plain_text(f"Could not rename the session:\n{exc}"))
            return False
        self.refresh()
        return True

    def delete(self, path: str) -> bool:
        """After a question, move the session file to the desktop trash (restorable from there)."""
        row = self._row(path)
        if row is not None and row.source == CLAUDE_CODE:
            return False  # Claude Code's own file: Arbor never moves or changes it
        title = row.title if row is not None else Path(path).name
        if not self.confirm("Move to Trash", f"Move the session “{title}” to the trash?\n\n{path}"):
            return False
        current = self.agent.view.session_file
        if current is not None and Path(current).resolve() == Path(path).resolve():
            if self.agent.busy:
                QMessageBox.information(self, "Move to Trash", "Stop the running reply first.")
                return False
            self.agent.new_session()  # let go of the file before it moves
        try:
            move_to_trash(path)
        except TrashError as exc:
            QMessageBox.warning(self, "Move to Trash", plain_text(str(exc)))
            return False
        self.refresh()
        return True

    def new_session(self) -> bool:
        """Ask for the working folder and start a blank session there (written on the first message)."""
        if self.agent.busy:
            QMessageBox.information(self, "New session", "Stop the running reply first.")
            return False
        folder = self.ask_folder(self.agent.view.cwd)
        if not folder:
            return False
        try:
            self.agent.new_session(folder)
        except (OSError, SessionOpenError, ValueError) as exc:
            QMessageBox.warning(self, "New session", plain_text(str(exc)))
            return False
        return True

    # ============================================================================ questions

    def _confirm(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(self, title, plain_text(text), QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                                      QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Yes

    def _ask_text(self, title: str, label: str, current: str) -> str | None:
        text, ok = QInputDialog.getText(self, title, plain_text(label), text=current)
        return text if ok else None

    def _ask_folder(self, start: str) -> str | None:
        folder = QFileDialog.getExistingDirectory(self, "Working folder for the new session", start)
        return folder or None

    def _focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def shutdown(self) -> None:
        self._timer.stop()
        self._lister.shutdown()
