"""``ChatPanel``: the chat of the active leaf (a virtualized list) and the composer below it.

The panel shows what it is given and emits what the user wants; it never touches the session or
the agent (DESIGN.md §3: views never poke the file). The window binds it:

* ``set_context(build_session_context(...).messages)`` on every leaf change (one model reset; the
  layout uses height estimates except for the rows that will be visible, measured exactly);
* ``begin_stream`` / ``append_delta`` / ``end_stream`` / ``abort_stream`` from agent events;
* ``send_requested(text)`` / ``stop_requested()`` back to the agent; ``set_busy`` while a turn runs;
* ``card_action_requested(entry_id, name)`` when an action on a card is clicked (Retry, Regenerate,
  Edit & branch; Copy is done here), rows told apart by ``set_entry_lookup``'s lookup.

The automation surface (DESIGN.md §7.1): ``composer`` (type into it with ``QTest.keyClicks``, Enter
sends, Esc stops), ``card_actions(entry_id)`` (the names on that entry's card) and
``trigger(entry_id, name)`` (the same path as a click on the card's action).

The list stays pinned to the bottom while the user is at the bottom (new messages, a growing
reply), and stays put when they have scrolled up to read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, assert_never

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QGuiApplication,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListView,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.present.card_actions import CardAction
from desktop_app.present.chat_feed import (
    AppendRows,
    ChatUpdate,
    SetBusy,
    ShowContext,
    ShowError,
    StreamChanged,
    StreamDropped,
    StreamEnded,
    StreamStarted,
)
from desktop_app.present.chat_messages import collapsible_sections
from desktop_app.present.chat_theme import ChatTheme
from desktop_app.present.siblings import SiblingSwitch

from ..plain import plain_text
from .approval import ApprovalCardWidget
from .banner import Banner
from .composer import Composer
from .delegate import MessageDelegate
from .model import ChatModel, ChatRole, DeltaKind
from .theme import theme_for_palette

__all__ = ["ChatPanel", "ChatView", "SiblingArrows"]

Message = dict[str, Any]
PIN_SLACK = 6  # pixels from the bottom that still count as "at the bottom"


class EntryLookup(Protocol):
    """Tells rows and entries apart (the window's chat feed is one)."""

    def entry_id_of(self, message: Any) -> str | None:
        """The id of the entry whose message a row shows."""
        ...

    def message_of(self, entry_id: str) -> Any | None:
        """The message of entry ``entry_id`` (``None``: not a message entry)."""
        ...


class ChatView(QListView):
    """The message list: per-pixel scrolling, variable row heights, only visible rows painted."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatView")
        self.setUniformItemSizes(False)
        self.setLayoutMode(QListView.LayoutMode.SinglePass)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Always on: a scrollbar that appears and disappears changes the width, hence every height.
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setFrameShape(QListView.Shape.NoFrame)
        self.setMouseTracking(True)
        self.placeholder = "No messages on this branch yet."

    #: The rows moved (resize, relayout): overlays on rows re-place themselves.
    geometry_changed = Signal()

    def updateGeometries(self) -> None:  # noqa: N802 - Qt's name
        super().updateGeometries()
        self.geometry_changed.emit()
        self.verticalScrollBar().setSingleStep(self.fontMetrics().lineSpacing() * 2)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        super().paintEvent(event)
        model = self.model()
        if model is not None and model.rowCount() == 0 and self.placeholder:
            painter = QPainter(self.viewport())
            painter.setPen(self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
            painter.drawText(self.viewport().rect(), Qt.AlignmentFlag.AlignCenter, self.placeholder)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        """A pointing hand over lines that expand or collapse something."""
        index = self.indexAt(event.position().toPoint())
        delegate = self.itemDelegate()
        model = self.model()
        clickable = False
        if index.isValid() and isinstance(delegate, MessageDelegate) and isinstance(model, ChatModel):
            rect = self.visualRect(index)
            clickable = (
                delegate.hits.hit_action(model, index.row(), rect, event.position()) is not None
                or delegate.hit_section(model, index.row(), rect, event.position()) is not None
            )
        self.viewport().setCursor(
            Qt.CursorShape.PointingHandCursor if clickable else Qt.CursorShape.ArrowCursor
        )
        super().mouseMoveEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 - Qt's name
        index = self.indexAt(event.pos())
        if not index.isValid():
            return
        menu = QMenu(self)
        copy = menu.addAction("Copy message text")
        model = self.model()
        toggle = None
        if isinstance(model, ChatModel) and collapsible_sections(model.message(index.row())):
            collapsed = model.is_collapsed(index.row())
            toggle = menu.addAction("Expand all" if collapsed else "Collapse all")
        chosen = menu.exec(event.globalPos())
        if chosen is copy:
            QGuiApplication.clipboard().setText(str(index.data(Qt.ItemDataRole.DisplayRole) or ""))
        elif toggle is not None and chosen is toggle and isinstance(model, ChatModel):
            model.setData(index, not model.is_collapsed(index.row()), ChatRole.Collapsed)


class SiblingArrows(QFrame):
    """"‹ 2/3 ›" on a message where the active path branches; ``step(leaf_id)`` asks to go there."""

    step = Signal(str)

    def __init__(self, switch: SiblingSwitch, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("siblingArrows")
        self.switch = switch
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(2, 0, 2, 0)
        layout.setSpacing(2)
        self.previous = QToolButton(self)
        self.previous.setText("‹")
        self.label = QLabel(switch.text, self)
        self.next = QToolButton(self)
        self.next.setText("›")
        for button, target, word in (
            (self.previous, switch.previous_leaf, "previous"),
            (self.next, switch.next_leaf, "next"),
        ):
            button.setAutoRaise(True)
            button.setEnabled(target is not None)
            button.setToolTip(plain_text(f"Go to the {word} branch's newest message" if target else f"No {word} branch"))
            if target is not None:
                button.clicked.connect(lambda _c=False, t=target: self.step.emit(t))
        layout.addWidget(self.previous)
        layout.addWidget(self.label)
        layout.addWidget(self.next)
        self.setToolTip(plain_text(f"Branch {switch.index} of {switch.count} here"))
        self.adjustSize()


class ChatPanel(QWidget):
    """Chat of the active leaf: message list, banners, composer with Send/Stop."""

    #: The user sent this text (the composer is cleared already).
    send_requested = Signal(str)
    #: The user asked to stop the running turn (Esc or Stop).
    stop_requested = Signal()
    #: A link inside a message was clicked; nothing is opened by the panel itself.
    link_activated = Signal(str)
    #: A sibling arrow was clicked: move the leaf to this entry (the window asks the agent).
    sibling_requested = Signal(str)
    #: An action on a card was chosen: ``(entry_id, name)`` — "Retry", "Regenerate" or "Edit & branch"
    #: (the window runs it; "Copy" is done by the panel).
    card_action_requested = Signal(str, str)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatPanel")
        self._busy = False
        self._pinned = True

        self._model = ChatModel(self)
        self._view = ChatView(self)
        self._view.setModel(self._model)
        self._delegate = MessageDelegate(self._view)
        self._delegate.attach(self._model)
        self._view.setItemDelegate(self._delegate)
        self._delegate.link_activated.connect(self.link_activated)
        self._delegate.action_clicked.connect(self._card_action)
        self._entries: EntryLookup | None = None
        self._placed_text: str | None = None  #: text put in the composer for the user (Edit & branch)

        self._banner = Banner("info", self)
        self._error = Banner("error", self)
        self._approval = ApprovalCardWidget(self)
        self._composer = Composer(self)
        self._send = QPushButton("Send", self)
        self._send.setObjectName("chatSend")
        self._send.setDefault(False)
        self._send.setAutoDefault(False)
        self._stop = QPushButton("Stop", self)
        self._stop.setObjectName("chatStop")
        self._stop.setAutoDefault(False)
        self._stop.setToolTip("Stop the reply (Esc)")
        self._send.setToolTip("Send (Enter)")

        buttons = QVBoxLayout()
        buttons.setSpacing(4)
        buttons.addWidget(self._send)
        buttons.addWidget(self._stop)
        buttons.addStretch(1)
        composer_row = QHBoxLayout()
        composer_row.setContentsMargins(8, 4, 8, 8)
        composer_row.setSpacing(6)
        composer_row.addWidget(self._composer, 1)
        composer_row.addLayout(buttons)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        banner_box = QVBoxLayout()
        banner_box.setContentsMargins(8, 0, 8, 0)
        banner_box.setSpacing(4)
        banner_box.addWidget(self._banner)
        banner_box.addWidget(self._error)
        approval_box = QVBoxLayout()
        approval_box.setContentsMargins(8, 4, 8, 0)
        approval_box.addWidget(self._approval)
        layout.addWidget(self._view, 1)
        layout.addLayout(approval_box)
        layout.addLayout(banner_box)
        layout.addLayout(composer_row)

        self._composer.submitted.connect(self._submit)
        self._composer.stop.connect(self.stop_requested)
        self._send.clicked.connect(lambda: self._submit(self._composer.toPlainText()))
        self._stop.clicked.connect(self.stop_requested)
        bar = self._view.verticalScrollBar()
        bar.valueChanged.connect(self._on_scrolled)
        bar.rangeChanged.connect(self._on_range_changed)
        self._model.rowsInserted.connect(self._follow_bottom)
        self._model.dataChanged.connect(self._follow_bottom)
        self._model.stream_updated.connect(self._stream_updated)
        self._switches: list[SiblingSwitch] = []
        self._arrows: list[SiblingArrows] = []  #: made on demand, for rows that came on screen
        self._arrow_of: dict[str, SiblingArrows] = {}  #: by the switch's entry id
        self._arrow_rows: dict[int, int] | None = None  #: id(message) → row, while rows stay put
        self._place_timer = QTimer(self)
        self._place_timer.setSingleShot(True)
        self._place_timer.setInterval(0)
        self._place_timer.timeout.connect(self._place_arrows)
        self._view.geometry_changed.connect(self._place_timer.start)
        bar.valueChanged.connect(lambda _v: self._place_arrows())
        for changed in (self._model.modelReset, self._model.rowsInserted, self._model.rowsRemoved):
            changed.connect(self._rows_changed)
        self._apply_theme()
        self.set_busy(False)

    # ================================================================================ parts

    @property
    def model(self) -> ChatModel:
        return self._model

    @property
    def view(self) -> ChatView:
        return self._view

    @property
    def delegate(self) -> MessageDelegate:
        return self._delegate

    @property
    def composer(self) -> Composer:
        return self._composer

    @property
    def send_button(self) -> QPushButton:
        return self._send

    @property
    def stop_button(self) -> QPushButton:
        return self._stop

    @property
    def approval(self) -> ApprovalCardWidget:
        """The approval card above the composer (``await panel.approval.ask(card)``)."""
        return self._approval

    @property
    def error_banner(self) -> Banner:
        return self._error

    @property
    def info_banner(self) -> Banner:
        return self._banner

    # ================================================================================ content

    def set_context(self, messages: Sequence[Message]) -> None:
        """Show a context's messages (``build_session_context(...).messages``), scrolled to the end.

        Cost: one model reset, the layout of every row from cheap estimates, and exact layout of
        just the rows that fit the viewport at the bottom (so the first paint does not jump).
        """
        self._pinned = True
        self._model.set_messages(messages)
        self._prime_bottom_rows()
        self._view.scrollToBottom()  # runs the pending layout now, so the new rows are placed

    def begin_stream(self) -> None:
        """Start the live reply row at the end."""
        self._model.begin_stream()

    def append_delta(self, kind: DeltaKind, text: str) -> None:
        """Add streamed ``text`` (``"text"``, ``"thinking"`` or ``"toolcall"``) to the live row."""
        self._model.append_delta(kind, text)

    def end_stream(self, message: Message) -> None:
        """Replace the live row with the finished assistant message."""
        self._model.end_stream(message)

    def abort_stream(self, message: Message | None = None) -> None:
        """End the live row as aborted (with the persisted partial message, if given)."""
        self._model.abort_stream(message)

    def apply(self, update: ChatUpdate) -> None:
        """Carry out one of the chat feed's updates (``desktop_app.present.chat_feed``)."""
        match update:
            case ShowContext(messages=messages):
                self.set_context(messages)
            case AppendRows(messages=messages):
                for message in messages:
                    self._model.append_message(message)
            case StreamStarted():
                self.begin_stream()
            case StreamChanged(partial=partial):
                self._model.set_stream_message(partial)
            case StreamEnded(message=message, aborted=aborted):
                if aborted:
                    self.abort_stream(message)
                else:
                    self.end_stream(message)
            case StreamDropped():
                self._model.drop_stream()
            case SetBusy(busy=busy):
                self.set_busy(busy)
            case ShowError(text=text):
                self.show_error(text)
            case _ as unreachable:
                assert_never(unreachable)

    def composer_text(self) -> str:
        """What the composer holds (DESIGN.md §7.1)."""
        return self.editor_text()

    @property
    def hidden_count(self) -> int:
        """Context messages not shown (custom messages with ``display: false``)."""
        return self._model.hidden_count

    # ================================================================================ composer

    def set_editor_text(self, text: str) -> None:
        """Put ``text`` in the composer, cursor at the end, focused ("Edit & branch")."""
        self._placed_text = text
        self._composer.setPlainText(text)
        cursor = self._composer.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self._composer.setTextCursor(cursor)
        self._composer.setFocus(Qt.FocusReason.OtherFocusReason)

    def editor_text(self) -> str:
        return self._composer.toPlainText()

    def clear_placed_text(self) -> None:
        """Take away text :meth:`set_editor_text` put in the composer if the user left it as it was:
        a turn that does not come from the composer (Regenerate, Retry) makes an Edit & branch's
        leftover text stale. Anything the user typed or changed stays."""
        if self._placed_text is not None and self._composer.toPlainText() == self._placed_text:
            self._composer.clear()
        self._placed_text = None

    def set_busy(self, busy: bool) -> None:
        """While a turn runs: Stop instead of Send, and Enter does not send. A turn starting clears
        the composer's leftover Edit & branch text (:meth:`clear_placed_text`)."""
        if busy and not self._busy:
            self.clear_placed_text()
        self._busy = busy
        self._send.setVisible(not busy)
        self._send.setEnabled(not busy)
        self._stop.setVisible(busy)
        self._stop.setEnabled(busy)

    @property
    def is_busy(self) -> bool:
        return self._busy

    def _submit(self, text: str) -> None:
        if self._busy or not text.strip():
            return
        self._placed_text = None
        self._composer.clear()
        self._pinned = True
        self.send_requested.emit(text)

    # ================================================================================ card actions

    def set_entry_lookup(self, lookup: EntryLookup | None) -> None:
        """How rows and entries are told apart (card actions name entries, rows hold messages)."""
        self._entries = lookup

    def row_of(self, entry_id: str) -> int | None:
        """The row showing entry ``entry_id`` (the newest rows are looked at first), or ``None``."""
        message = self._entries.message_of(entry_id) if self._entries is not None else None
        if message is None:
            return None
        model = self._model
        rows = range(model.rowCount() - 1, -1, -1)
        for row in rows:  # the same object: the context is built from the entries' messages
            if not model.is_stream_row(row) and model.message(row) is message:
                return row
        for row in rows:  # an equal copy: the reply saved as it streamed (pi 1.6.0 key order)
            if not model.is_stream_row(row) and model.message(row) == message:
                return row
        return None

    def card_actions(self, entry_id: str) -> list[str]:
        """The names of the actions shown on ``entry_id``'s card ("Retry", "Regenerate", "Copy",
        "Edit & branch"), in the order shown; empty when the entry has no card in the chat."""
        row = self.row_of(entry_id)
        return [a.value for a in self._delegate.hits.row_actions(self._model, row)] if row is not None else []

    def trigger(self, entry_id: str, name: str) -> None:
        """Choose the action ``name`` on ``entry_id``'s card, through the path a click takes."""
        row = self.row_of(entry_id)
        if row is None:
            raise LookupError(f"entry {entry_id} has no card in the chat")
        offered = [a.value for a in self._delegate.hits.row_actions(self._model, row)]
        if name not in offered:
            raise ValueError(f"{name!r} is not on the card of {entry_id} (it offers {offered})")
        self._delegate.action_clicked.emit(row, name)

    def _card_action(self, row: int, name: str) -> None:
        """A card's action was clicked: Copy here, the rest to the window by entry id."""
        if not 0 <= row < self._model.rowCount():
            return
        message = self._model.message(row)
        if name == CardAction.COPY.value:
            QGuiApplication.clipboard().setText(str(self._model.index(row).data(Qt.ItemDataRole.DisplayRole) or ""))
            return
        entry_id = self._entries.entry_id_of(message) if self._entries is not None else None
        if entry_id is not None:
            self.card_action_requested.emit(entry_id, name)

    # ================================================================================ sibling arrows

    def set_sibling_switches(self, switches: Sequence[SiblingSwitch]) -> None:
        """Show "‹ k/n ›" on the rows whose message is a switch's ``message`` (the same object).

        A switch's widget is made when its row first comes on screen, not before."""
        for arrows in self._arrows:
            arrows.deleteLater()
        self._arrows = []
        self._arrow_of = {}
        self._switches = list(switches)
        self._arrow_rows = None  # rows may hold other objects now (a streamed reply replaced by the saved one)
        self._place_arrows()

    def _rows_changed(self, *_args: Any) -> None:
        self._arrow_rows = None
        self._place_timer.start()

    @property
    def sibling_arrows(self) -> list[SiblingArrows]:
        """The arrow widgets made so far (only for rows that have been on screen)."""
        return list(self._arrows)

    @property
    def sibling_switches(self) -> list[SiblingSwitch]:
        """Every switch the chat may show arrows for."""
        return list(self._switches)

    def _place_arrows(self) -> None:
        """Each arrow strip at the top right of its row, hidden while the row is off screen."""
        if not self._switches:
            return
        model = self._model
        if self._arrow_rows is None:
            self._arrow_rows = {id(model.message(row)): row for row in range(model.rowCount())}
        rows = self._arrow_rows
        viewport = self._view.viewport().rect()
        for switch in self._switches:
            arrows = self._arrow_of.get(switch.entry_id)
            row = rows.get(id(switch.message))
            rect = self._view.visualRect(model.index(row)) if row is not None else None
            if rect is None or not rect.isValid() or not rect.intersects(viewport):
                if arrows is not None:
                    arrows.hide()
                continue
            if arrows is None:
                arrows = self._arrow_of[switch.entry_id] = SiblingArrows(switch, self._view.viewport())
                arrows.step.connect(self.sibling_requested)
                self._arrows.append(arrows)
            arrows.move(rect.right() - arrows.width() - 14, rect.top() + 6)
            arrows.show()
            arrows.raise_()

    # ================================================================================ banners

    def show_error(self, text: str) -> None:
        """A red, dismissable banner above the composer (plain text)."""
        self._error.show_text(text)

    def clear_error(self) -> None:
        self._error.dismiss()

    def show_banner(self, text: str) -> None:
        """A neutral, dismissable notice (e.g. "Offline model — add an API key to chat with Claude")."""
        self._banner.show_text(text)

    def clear_banner(self) -> None:
        self._banner.dismiss()

    # ================================================================================ scrolling

    @property
    def pinned_to_bottom(self) -> bool:
        return self._pinned

    def _prime_bottom_rows(self) -> None:
        """Measure the last rows exactly until they fill the viewport (a few documents at most)."""
        rows = self._model.rowCount()
        if not rows:
            return
        height = self._view.viewport().height()
        width = self._view.viewport().width()
        total, row = 0, rows - 1
        while row >= 0 and total < height:
            _, row_height = self._delegate.laid_out_document(self._model, row, max(120, width))
            total += row_height
            row -= 1

    def _on_scrolled(self, value: int) -> None:
        self._pinned = value >= self._view.verticalScrollBar().maximum() - PIN_SLACK

    def _on_range_changed(self, _minimum: int, maximum: int) -> None:
        if self._pinned:
            self._view.verticalScrollBar().setValue(maximum)

    def _stream_updated(self, row: int) -> None:
        """Repaint just the live row (its height is re-checked when painted)."""
        self._view.update(self._model.index(row))
        self._follow_bottom()

    def _follow_bottom(self, *_args: Any) -> None:
        if self._pinned:
            self._view.scrollToBottom()

    # ================================================================================ theme

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_theme()
        super().changeEvent(event)

    def theme(self) -> ChatTheme:
        return self._delegate.theme(self.palette())

    def _apply_theme(self) -> None:
        theme = theme_for_palette(self.palette())
        palette = self._view.palette()
        palette.setColor(QPalette.ColorRole.Base, QColor(theme.background))
        self._view.setPalette(palette)
        self._banner.apply_theme(theme.dark)
        self._error.apply_theme(theme.dark)
        self._approval.apply_theme(theme.dark)
