"""The files follow the tree (issue 25): the offer after a leaf move, fork or clone, and the diff views.

After the leaf moves by hand (a double-click, the pin dropped, keys, the sibling arrows, undo/redo, a
fork or clone in place), the folder is compared with the new point's checkpoint on a worker thread
(:func:`~desktop_app.present.file_changes.prepare_offer`). When files differ, a strip over the chat
offers "Restore files to this point (N files)" / "Keep my files" / "Show changes"; "Remember for this
session" keeps the answer (in ``ui-state.json``). Files changed by hand since the last checkpoint are
named, and the strip asks again, before a restore overwrites them. A restore runs in the engine's two
halves: ``apply_restore`` (plan, snapshot, file writes) on a worker thread while the strip says
"Restoring N files…" with its buttons waiting, then ``record_restore`` (the one session entry) here;
a failure is said in the chat's error line with the engine's words. A fork or clone opened in a new
window makes the same offer there (:meth:`FilesFollow.arrive`); the node menu's "Ask again about
restoring files" forgets a remembered answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any, Protocol

from PySide6.QtCore import QObject, Qt, Signal, SignalInstance
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QMenu,
    QProgressBar,
    QPushButton,
    QStatusBar,
    QWidget,
)

from desktop_app.agent import AgentSession
from desktop_app.agent.events import AgentEvent, TurnStarted
from desktop_app.present.file_changes import (
    DiffDoc,
    FilesOffer,
    RestoreChoice,
    ask_again_rule,
    has_checkpoints,
    load_branch_diff,
    load_restore_diff,
    load_turn_diff,
    prepare_offer,
    restore_failed_text,
    restored_text,
    restoring_text,
)
from desktop_app.present.node_menu import MenuAction
from desktop_app.present.window_state import UiState
from desktop_app.session import SessionError
from desktop_app.workspace.restore import RestoreError, apply_restore, record_restore
from desktop_app.workspace.store import WorkspaceError

from .chat import ChatPanel
from .diff_view import DiffView
from .offer_strip import OfferStrip
from .plain import plain_text

__all__ = ["OFFER_MS", "RestoreOfferBar", "FilesFollow"]

#: How long the offer stays when nothing is clicked.
OFFER_MS = 60_000


class RestoreOfferBar(OfferStrip):
    """The offer over the top of ``host`` (the chat panel); blocks nothing."""

    restore = Signal(object)  #: the :class:`FilesOffer`, hand edits confirmed (or none)
    keep = Signal(object)
    show_changes = Signal(object)

    def __init__(self, host: QWidget, above: Callable[[], int] = lambda: 0) -> None:
        super().__init__(host, "restoreOffer", "Dismiss (keep my files)", above)
        self.offer: FilesOffer | None = None
        self.confirming = False  #: the second step: files changed by hand are named
        self.busy_offer: FilesOffer | None = None  #: the restore running now (the strip waits for it)
        self.restore_button = QPushButton(self)
        self.keep_button = QPushButton("&Keep my files", self)
        self.changes_button = QPushButton("Show c&hanges", self)
        self.remember = QCheckBox("Remember for this session", self)
        self.remember.setToolTip("Do the same after every move in this session without asking")
        self.progress = QProgressBar(self)  # busy: no count of files written comes back from the worker
        self.progress.setRange(0, 0)
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(8)
        self.progress.hide()
        self.keep_button.setToolTip("Leave the working folder as it is")
        self.changes_button.setToolTip("The diff: the folder now → this point of the tree")
        buttons = QHBoxLayout()  # two rows: the chat may be narrow, and no button text may be cut
        buttons.addWidget(self.restore_button)
        buttons.addWidget(self.keep_button)
        buttons.addStretch(1)
        more = QHBoxLayout()
        more.addWidget(self.changes_button)
        more.addWidget(self.remember)
        more.addStretch(1)
        self.add_rows(self.progress, buttons, more)
        self.restore_button.clicked.connect(self._restore_clicked)
        self.keep_button.clicked.connect(self._keep_clicked)
        self.changes_button.clicked.connect(lambda: self.offer is not None and self.show_changes.emit(self.offer))

    def show_offer(self, offer: FilesOffer, *, confirm: bool = False) -> None:
        """Ask; ``confirm``: straight to the hand-edit question (a remembered "restore")."""
        self._busy(None)
        self.offer = offer
        self.remember.setChecked(False)
        self._stage(confirm and bool(offer.hand_edited))
        self.pop_up(OFFER_MS)

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
        self.place()

    def show_busy(self, offer: FilesOffer) -> None:
        """The restore of ``offer`` runs: the strip says so and its buttons wait until :meth:`done`."""
        self.offer = None
        self.confirming = False
        self._timer.stop()
        self.restore_button.setText("&" + offer.restore_label)
        self.keep_button.setText("&Keep my files")
        self.label.setText(restoring_text(offer))
        self._busy(offer)
        self.pop_up(None)

    def _busy(self, offer: FilesOffer | None) -> None:
        self.busy_offer = offer
        for button in (self.restore_button, self.keep_button, self.changes_button, self.close_button):
            button.setEnabled(offer is None)
        self.remember.setVisible(offer is None and not self.confirming)
        self.progress.setVisible(offer is not None)

    def done(self, offer: FilesOffer) -> None:
        """The restore of ``offer`` ended: the busy strip goes (an offer shown since stays)."""
        if self.busy_offer is offer:
            self._busy(None)
            self.hide()

    def dismiss(self) -> None:
        """Hide the offer (a running restore's strip stays until it ends)."""
        self.offer = None
        self.confirming = False
        self._timer.stop()
        if self.busy_offer is None:
            super().dismiss()

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


class SteeringSignals(Protocol):
    """The signals :class:`FilesFollow` takes from :class:`~desktop_app.ui.steering.Steering`."""

    @property
    def leaf_moved(self) -> SignalInstance: ...

    @property
    def files_requested(self) -> SignalInstance: ...

    @property
    def menu_opened(self) -> SignalInstance: ...

    @property
    def reader(self) -> Any: ...


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
        self._running: asyncio.Future[Any] | None = None  #: the restore whose files are being written
        self._arrival: tuple[str, str | None] | None = None  #: a fork opened here from another window
        window.agent.subscribe(self._on_agent_event)

    def follow_steering(self, steering: SteeringSignals) -> None:
        """Moves by hand, the node menu's file items and the reader's "Show changes" come from ``steering``."""
        steering.leaf_moved.connect(self.leaf_moved)
        steering.files_requested.connect(self.menu_action)
        steering.reader.changes_requested.connect(self.show_turn_diff)
        steering.menu_opened.connect(self.extend_menu)

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
        if not self.window.agent.checkpoints:
            return  # checkpoints are off (settings): no restore is offered
        if not has_checkpoints(self.window.agent.session.index):
            return  # no tool ever wrote here: nothing to restore
        self.window.run_task(self._prepare(self._move, before, after), "Comparing the files")

    def dismiss(self) -> None:
        self._move += 1
        self.bar.dismiss()

    def session_bound(self) -> None:
        """The window shows a session (another one, or the whole file of a big one once parsed)."""
        self.dismiss()
        self._arrive()

    def arrive(self, came_from: str | None) -> None:
        """This window was opened on a fork or clone made in another window (``arbor FILE
        --files-from ENTRY``): the folder is as that window's leaf ``came_from`` left it. Offer the
        restore as a fork in place does: now, or once a big file is wholly read."""
        self._arrival = (self._session_key(), came_from)
        self._arrive()

    def _arrive(self) -> None:
        agent = self.window.agent
        if self._arrival is None or agent.session.loading:
            return
        key, came_from = self._arrival
        self._arrival = None
        if key == self._session_key():  # not if another session was opened meanwhile
            self.landed(came_from, agent.view.leaf_id)

    async def _prepare(self, move: int, before: str | None, after: str) -> None:
        agent = self.window.agent
        manager = agent.session
        folder = agent.working_folder
        loop = asyncio.get_running_loop()
        if self._running is not None:  # compare the folder once the running restore has written it
            await asyncio.wait([self._running])
        size_limit = agent.settings.checkpoints.size_limit
        offer = await loop.run_in_executor(None, prepare_offer, manager, folder, after, before, size_limit)
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

    @property
    def restoring(self) -> bool:
        return self._running is not None

    def restore(self, offer: FilesOffer) -> bool:
        """Start restoring the folder to ``offer``'s point; ``False``: it cannot start now.

        The files are planned, snapshotted and written on a worker thread (a big restore never
        stalls the window; the strip says "Restoring N files…" meanwhile); the one checkpoint entry
        it leaves is appended here, on the thread that owns the session and handles its events."""
        agent = self.window.agent
        if agent.busy:
            self.window.statusBar().showMessage("Stop the running reply before restoring files.", 5000)
            return False
        if self._running is not None:
            self.window.statusBar().showMessage("The files are being restored; wait until it is done.", 5000)
            return False
        self.bar.show_busy(offer)
        self._running = self.window.run_task(self._restore(offer), "Restoring the files")
        return True

    async def _restore(self, offer: FilesOffer) -> None:
        manager = self.window.agent.session
        loop = asyncio.get_running_loop()
        try:
            size_limit = self.window.agent.settings.checkpoints.size_limit
            applied = await loop.run_in_executor(None, apply_restore, manager, offer.target_id, offer.folder,
                                                 size_limit, offer.current_id)
            if self.window.agent.session is manager:  # else another session is open: the files are written
                record_restore(manager, applied)
        except (RestoreError, WorkspaceError, SessionError, OSError) as exc:
            self.window.chat.show_error(restore_failed_text(exc))
            return
        finally:
            self._running = None
            self.bar.done(offer)
        self.window.statusBar().showMessage(restored_text(offer), 8000)
        self.restored.emit(offer)

    # ------------------------------------------------------------------ the node menu

    def extend_menu(self, menu: QMenu, _entry_id: str) -> None:
        """"Ask again about restoring files" in a checkpointed session's node menu: enabled when an
        answer is remembered for the session, it forgets it."""
        if not has_checkpoints(self.window.agent.view.index):
            return
        enabled, reason = ask_again_rule(self.choice())
        menu.addSeparator()
        action = menu.addAction("As&k again about restoring files")
        action.setEnabled(enabled)
        action.setToolTip(plain_text(reason))
        action.setStatusTip(reason)
        action.triggered.connect(self.ask_again)

    def ask_again(self) -> None:
        """Forget this session's remembered answer: the next move asks again."""
        self.set_choice(RestoreChoice.ASK)
        self.window.statusBar().showMessage("Arbor will ask about the files after the next move.", 5000)

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
