"""The files follow the tree (issue 25): the offer after a leaf move, fork or clone, and the diff views.

After the leaf moves by hand (a double-click, the pin dropped, keys, the sibling arrows, undo/redo, a
fork or clone in place), the folder is compared with the new point's checkpoint on a worker thread
(:func:`~desktop_app.present.file_changes.prepare_offer`). When files differ, a strip over the chat
offers "Restore files to this point (N files)" / "Keep my files" / "Show changes"; "Remember for this
session" keeps the answer (in ``ui-state.json``). Files changed by hand since the last checkpoint are
named, and the strip asks again, before a restore overwrites them. Restores go through the engine's
``restore_to``; a failure is said in the chat's error line with the engine's words.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any, Protocol

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStatusBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.agent import AgentSession
from desktop_app.agent.events import AgentEvent, TurnStarted
from desktop_app.present.file_changes import (
    DiffDoc,
    FilesOffer,
    RestoreChoice,
    has_checkpoints,
    load_branch_diff,
    load_restore_diff,
    load_turn_diff,
    prepare_offer,
    restore_failed_text,
    restored_text,
)
from desktop_app.present.node_menu import MenuAction
from desktop_app.present.window_state import UiState
from desktop_app.workspace.restore import RestoreError, restore_to
from desktop_app.workspace.store import WorkspaceError

from .chat import ChatPanel
from .diff_view import DiffView

__all__ = ["OFFER_MS", "RestoreOfferBar", "FilesFollow"]

#: How long the offer stays when nothing is clicked.
OFFER_MS = 60_000


class RestoreOfferBar(QFrame):
    """The offer over the top of ``host`` (the chat panel); blocks nothing."""

    restore = Signal(object)  #: the :class:`FilesOffer`, hand edits confirmed (or none)
    keep = Signal(object)
    show_changes = Signal(object)

    def __init__(self, host: QWidget, above: Callable[[], int] = lambda: 0) -> None:
        super().__init__(host)
        self.setObjectName("restoreOffer")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self._above = above  #: pixels taken at the top of the host by another strip
        self.offer: FilesOffer | None = None
        self.confirming = False  #: the second step: files changed by hand are named
        self.label = QLabel(self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # paths come from the folder: never rich text
        self.label.setWordWrap(True)
        self.restore_button = QPushButton(self)
        self.keep_button = QPushButton("&Keep my files", self)
        self.changes_button = QPushButton("Show c&hanges", self)
        self.remember = QCheckBox("Remember for this session", self)
        self.remember.setToolTip("Do the same after every move in this session without asking")
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Dismiss (keep my files)")
        self.keep_button.setToolTip("Leave the working folder as it is")
        self.changes_button.setToolTip("The diff: the folder now → this point of the tree")
        top = QHBoxLayout()
        top.addWidget(self.label, 1)
        top.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        buttons = QHBoxLayout()  # two rows: the chat may be narrow, and no button text may be cut
        buttons.addWidget(self.restore_button)
        buttons.addWidget(self.keep_button)
        buttons.addStretch(1)
        more = QHBoxLayout()
        more.addWidget(self.changes_button)
        more.addWidget(self.remember)
        more.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addLayout(buttons)
        layout.addLayout(more)
        self.restore_button.clicked.connect(self._restore_clicked)
        self.keep_button.clicked.connect(self._keep_clicked)
        self.changes_button.clicked.connect(lambda: self.offer is not None and self.show_changes.emit(self.offer))
        self.close_button.clicked.connect(self.dismiss)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.dismiss)
        host.installEventFilter(self)
        self.hide()

    def show_offer(self, offer: FilesOffer, *, confirm: bool = False) -> None:
        """Ask; ``confirm``: straight to the hand-edit question (a remembered "restore")."""
        self.offer = offer
        self.remember.setChecked(False)
        self._stage(confirm and bool(offer.hand_edited))
        self.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self.label.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.show()
        self._place()
        self.raise_()
        self._timer.start(OFFER_MS)

    def _stage(self, confirming: bool) -> None:
        offer = self.offer
        if offer is None:
            return
        self.confirming = confirming
        if confirming:
            self.label.setText(offer.hand_edit_text)
            self.restore_button.setText("&Overwrite and restore")
            self.keep_button.setText("&Keep my files")
        else:
            self.label.setText(offer.text)
            self.restore_button.setText("&" + offer.restore_label)
            self.keep_button.setText("&Keep my files")
        self.remember.setVisible(not confirming)
        self._place()

    def dismiss(self) -> None:
        self.offer = None
        self.confirming = False
        self._timer.stop()
        self.hide()

    def _restore_clicked(self) -> None:
        offer = self.offer
        if offer is None:
            return
        if offer.hand_edited and not self.confirming:
            self._stage(True)  # name the files changed by hand, and ask again
            return
        self.dismiss()
        self.restore.emit(offer)

    def _keep_clicked(self) -> None:
        offer = self.offer
        self.dismiss()
        if offer is not None:
            self.keep.emit(offer)

    def _place(self) -> None:
        host = self.parentWidget()
        if host is None:
            return
        width = max(200, host.width() - 16)
        height = self.heightForWidth(width) if self.hasHeightForWidth() else self.sizeHint().height()
        self.setGeometry(8, 8 + self._above(), width, max(height, self.sizeHint().height()))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize and self.isVisible():
            self._place()
        return False


class FilesWindow(Protocol):
    """What :class:`FilesFollow` uses of the main window (no import of it: no package cycle)."""

    @property
    def agent(self) -> AgentSession: ...

    @property
    def chat(self) -> ChatPanel: ...

    @property
    def ui_state(self) -> UiState | None: ...

    def statusBar(self) -> QStatusBar: ...  # noqa: N802 - Qt's name

    def run_task(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Future[Any]: ...


class FilesFollow(QObject):
    """The window's side of issue 25's "restore with the tree" (see the module docstring)."""

    offered = Signal(object)  #: a :class:`FilesOffer` shown (tests wait for it)
    restored = Signal(object)
    diff_opened = Signal(object)  #: the :class:`DiffView`

    def __init__(self, window: FilesWindow, host: QWidget, above: Callable[[], int] = lambda: 0) -> None:
        super().__init__(host)
        self.window = window
        self.host = host
        self.bar = RestoreOfferBar(window.chat, above)
        self.bar.restore.connect(self._restore_chosen)
        self.bar.keep.connect(self._keep_chosen)
        self.bar.show_changes.connect(self.show_restore_diff)
        self.diff_views: list[DiffView] = []  #: open diff windows (kept alive; tests read the newest)
        self._memory: dict[str, str] = {}  #: remembered choices of sessions without a file
        self._move = 0  #: bumped by every move: an older move's answer is not shown
        window.agent.subscribe(self._on_agent_event)

    # ------------------------------------------------------------------ the choice

    def _session_key(self) -> str:
        view = self.window.agent.view
        return view.session_file or f"id:{view.session_id}"

    def choice(self) -> RestoreChoice:
        key = self._session_key()
        state = self.window.ui_state
        value = state.files_choice(key) if state is not None else self._memory.get(key)
        try:
            return RestoreChoice(value) if value else RestoreChoice.ASK
        except ValueError:
            return RestoreChoice.ASK

    def set_choice(self, choice: RestoreChoice) -> None:
        key = self._session_key()
        state = self.window.ui_state
        value = None if choice is RestoreChoice.ASK else choice.value
        if state is not None:
            state.set_files_choice(key, value)
        elif value is None:
            self._memory.pop(key, None)
        else:
            self._memory[key] = value

    # ------------------------------------------------------------------ moves

    def leaf_moved(self, before: str | None, after: str | None) -> None:
        """The leaf was moved by hand from ``before`` to ``after``."""
        if after != before:
            self.landed(before, after)

    def landed(self, before: str | None, after: str | None) -> None:
        """The leaf is at ``after`` now, the folder as ``before`` left it (a fork or clone in place
        lands on an entry with the same id as the leaf it came from: still an offer)."""
        self._move += 1
        self.bar.dismiss()
        if after is None or self.choice() is RestoreChoice.KEEP:
            return
        if not has_checkpoints(self.window.agent.session.index):
            return  # no tool ever wrote here: nothing to restore
        self.window.run_task(self._prepare(self._move, before, after), "Comparing the files")

    def dismiss(self) -> None:
        self._move += 1
        self.bar.dismiss()

    async def _prepare(self, move: int, before: str | None, after: str) -> None:
        agent = self.window.agent
        manager = agent.session
        folder = agent.working_folder
        loop = asyncio.get_running_loop()
        offer = await loop.run_in_executor(None, prepare_offer, manager, folder, after, before)
        if move != self._move or agent.session is not manager or agent.view.leaf_id != after or offer is None:
            return
        if self.choice() is RestoreChoice.RESTORE and not offer.hand_edited:
            self.restore(offer)
            return
        self.bar.show_offer(offer, confirm=self.choice() is RestoreChoice.RESTORE)
        self.offered.emit(offer)

    def _on_agent_event(self, event: AgentEvent) -> None:
        if isinstance(event, TurnStarted):
            self.dismiss()  # the user went on with the folder as it is

    # ------------------------------------------------------------------ answers

    def _restore_chosen(self, offer: FilesOffer) -> None:
        if self.bar.remember.isChecked():
            self.set_choice(RestoreChoice.RESTORE)
        self.restore(offer)

    def _keep_chosen(self, offer: FilesOffer) -> None:
        if self.bar.remember.isChecked():
            self.set_choice(RestoreChoice.KEEP)

    def restore(self, offer: FilesOffer) -> bool:
        """Restore through the engine (on this thread: it appends a checkpoint to the session, whose
        events the window handles here; the slow snapshot was taken by the offer's worker, so this
        one reads only what changed since)."""
        agent = self.window.agent
        if agent.busy:
            self.window.statusBar().showMessage("Stop the running reply before restoring files.", 5000)
            return False
        try:
            restore_to(agent.session, offer.target_id, offer.folder, current_id=offer.current_id)
        except (RestoreError, WorkspaceError, OSError) as exc:
            self.window.chat.show_error(restore_failed_text(exc))
            return False
        self.window.statusBar().showMessage(restored_text(offer), 8000)
        self.restored.emit(offer)
        return True

    # ------------------------------------------------------------------ diffs

    def menu_action(self, entry_id: str, action: MenuAction) -> None:
        """The node menu's "Show changes" (the turn's diff) or "Changes since this node" (to the leaf)."""
        if action is MenuAction.SHOW_CHANGES:
            self.show_turn_diff(entry_id)
        elif action is MenuAction.CHANGES_SINCE:
            self.show_branch_diff(entry_id)

    def show_restore_diff(self, offer: FilesOffer) -> None:
        index = self.window.agent.session.index
        self.open_diff(partial(load_restore_diff, offer, index))

    def show_turn_diff(self, entry_id: str) -> None:
        agent = self.window.agent
        self.open_diff(partial(load_turn_diff, agent.session.index, agent.working_folder, entry_id))

    def show_branch_diff(self, since_id: str) -> None:
        agent = self.window.agent
        until = agent.view.leaf_id
        if until is None:
            return
        self.open_diff(partial(load_branch_diff, agent.session.index, agent.working_folder, since_id, until))

    def open_diff(self, load: Callable[[], DiffDoc]) -> None:
        """Load the diff on a worker thread, then open it in a window of its own."""
        self.window.run_task(self._open_diff(load), "Showing the changes")

    async def _open_diff(self, load: Callable[[], DiffDoc]) -> None:
        doc = await asyncio.get_running_loop().run_in_executor(None, load)
        view = DiffView(doc, self.host)
        view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        view.destroyed.connect(lambda _o=None, v=view: self.diff_views.remove(v) if v in self.diff_views else None)
        self.diff_views.append(view)
        view.show()
        self.diff_opened.emit(view)
