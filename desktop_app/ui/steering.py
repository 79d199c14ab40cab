"""Steering the tree by hand: the window's side of the node menu, the reader, the summary question,
the compaction preview, undo/redo of leaf moves, drafts per session and drag-to-fork.

The window creates one :class:`Steering` and routes a few of its own actions here (a node
activated, Compact, Fork, a session bound), so ``main_window.py`` keeps only the wiring. What each
input means and what each question shows is decided in ``present/`` (``node_menu``, ``reader``,
``branch_preview``, ``compaction_preview``, ``leaf_history``, ``drafts``, ``rubber_band``); the
session changes only through the agent's commands.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Generator
from dataclasses import replace
from typing import Any, Protocol, assert_never

from PySide6.QtCore import QObject, QPoint, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QMenu, QStatusBar, QWidget

from desktop_app.agent import AgentSession
from desktop_app.agent.events import (
    AgentError,
    AgentEvent,
    BranchSummaryFinished,
    BranchSummaryStarted,
    CompactionFailed,
    CompactionFinished,
    CompactionProgress,
    CompactionStarted,
    MessageAppended,
    ReplyRecovered,
    RetryScheduled,
    SessionChanged,
    StreamUpdated,
    ToolCallsFinished,
    ToolCallsStarted,
    ToolResultAppended,
    ToolUpdated,
    TurnFinished,
    TurnStarted,
    WaitingForServer,
    WorkingFolderMissing,
)
from desktop_app.present.branch_preview import preview_branch_summary
from desktop_app.present.drafts import Drafts, draft_key
from desktop_app.present.leaf_history import LeafHistory
from desktop_app.present.node_menu import MenuAction, menu_item, node_menu
from desktop_app.present.reader import context_page, reader_page
from desktop_app.present.rubber_band import BandSelection
from desktop_app.present.siblings import (
    FlipOffer,
    SiblingCache,
    SiblingSwitch,
    flip_offer,
    sibling_switches_in_steps,
)
from desktop_app.present.text import full_text
from desktop_app.session.kinds import EntryKind, Role, entry_role, kind_of
from desktop_app.settings import Settings

from .branch_offer import BranchOfferBar
from .chat import ChatPanel
from .context_hand import ContextHand
from .dialogs import CompactionDialog, LabelDialog, SummaryAnswer, SummaryQuestion
from .graph.interaction import GraphInteraction
from .graph.view import GraphView
from .node_menu import build_node_menu, chosen_action
from .reader import ReaderPanel

__all__ = ["Steering"]


class SteeredWindow(Protocol):
    """What :class:`Steering` uses of the main window (no import of it: no package cycle)."""

    @property
    def agent(self) -> AgentSession: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def chat(self) -> ChatPanel: ...

    @property
    def graph(self) -> GraphView: ...

    @property
    def audit_panel(self) -> QWidget: ...

    def statusBar(self) -> QStatusBar: ...  # noqa: N802 - Qt's name

    def addAction(self, action: QAction) -> None: ...  # noqa: N802 - Qt's name

    def run_task(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Future[Any]: ...

    def _guarded(self, what: str, action: Callable[[], Any]) -> Any: ...

    def fork_drop_target(self, global_pos: QPoint) -> QWidget | None: ...

    def light_fork_drop_target(self, target: QWidget | None) -> None: ...

    def fork_entry(self, entry_id: str, position: str, new_window: bool | None = None) -> bool: ...


#: The chat's newest rows that may be streamed copies of saved messages (a turn with tool calls: a few).
STREAMED_ROWS = 8
#: Seconds of one event-loop turn spent finding the sibling arrows (:meth:`Steering._sibling_step`).
_SIBLING_BUDGET = 0.005


class Steering(QObject):
    """Everything issue 9 adds to the window (see the module docstring)."""

    leaf_moved = Signal(object, object)  #: by hand: the leaf before, after (issue 25: the files may follow)
    files_requested = Signal(str, object)  #: a node menu's file item (issue 25): entry id, MenuAction
    menu_opened = Signal(object, str)  #: the node menu (a ``QMenu``) built for an entry: others may add items

    def __init__(self, window: SteeredWindow, parent: QWidget) -> None:
        super().__init__(parent)
        self.window = window
        self.host = parent  #: the window as a widget: parent of dialogs and menus
        self.drafts = Drafts()
        self.history = LeafHistory()
        self.reader = ReaderPanel(parent)
        self.reader.hide()
        self.node_menu: QMenu | None = None  #: the open node menu (automation: tests read it)
        self.summary_question: SummaryQuestion | None = None
        self.compaction_dialog: CompactionDialog | None = None
        self.band: BandSelection | None = None
        self._drop_target: QWidget | None = None  #: the window's fork target under a carried node
        self.interaction = GraphInteraction(window.graph, lambda: window.agent.view, self._over_fork_target)
        self.interaction.menu_requested.connect(self.open_menu)
        self.interaction.band_selected.connect(self._on_band)
        self.interaction.node_dropped.connect(self.fork_or_clone)
        self.interaction.drag_over.connect(self._highlight_fork_target)
        self.interaction.history_step.connect(lambda step: self.undo() if step < 0 else self.redo())
        self.reader.continue_requested.connect(self.continue_from)
        self.reader.crumb_activated.connect(self._read_crumb)
        window.chat.sibling_requested.connect(self.flip_to)
        #: after a sibling-arrow flip: "Summarize the branch you left?" with Undo (never a dialog)
        self.branch_offer = BranchOfferBar(window.chat)
        self.branch_offer.summarize.connect(self._summarize_left)
        self.branch_offer.undo.connect(self._undo_flip)
        self.branch_offer.never.connect(self._never_offer)
        self._siblings_timer = QTimer(self)
        self._siblings_timer.setSingleShot(True)
        self._siblings_timer.setInterval(100)
        self._siblings_timer.timeout.connect(self._show_siblings)
        self._sibling_cache = SiblingCache()  #: positions and newest leaves, per session view
        self._sibling_cache_view: Any = None
        #: the sibling arrows being found, a slice per event-loop turn, and the session's state
        #: (entries, leaf) they are found for
        self._sibling_steps: Generator[None, None, list[SiblingSwitch]] | None = None
        self._sibling_state: tuple[int, str | None] | None = None
        self._siblings_again = False  #: the chat changed while they were being found
        self.sibling_turns = 0  #: event-loop turns the last search for sibling arrows took (tests)
        self.undo_action = self._action("Undo leaf move", self.undo, QKeySequence.StandardKey.Undo)
        self.redo_action = self._action("Redo leaf move", self.redo, "Ctrl+Shift+Z")
        self._sync_undo()
        self.context_hand = ContextHand(self, self)  #: issue 26: context items, edit dialog, compaction by hand, marks

    def _action(self, text: str, slot: Any, shortcut: QKeySequence.StandardKey | str) -> QAction:
        action = QAction(text, self.host)
        action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        self.window.addAction(action)
        return action

    @property
    def _view(self) -> Any:
        return self.window.agent.view

    # ================================================================================ session

    def session_bound(self) -> None:
        """Another session is on screen: its own draft, a fresh undo history, the reader closed."""
        view = self._view
        chat = self.window.chat
        text = self.drafts.switch(draft_key(view.session_file, view.session_id), chat.editor_text())
        if text != chat.editor_text():
            chat.set_editor_text(text) if text else chat.composer.clear()
        self.history.clear()
        self._sync_undo()
        self.branch_offer.dismiss()
        self.reader.close_reader()
        self.interaction.clear_band()
        self.context_hand.session_bound()

    # ================================================================================ moving the leaf

    def continue_from(self, entry_id: str) -> None:
        """Double-click, Enter, the pin dropped, a menu's Continue: pi's question, then the move."""
        window = self.window
        if window.agent.busy or entry_id == self._view.leaf_id or self.summary_question is not None:
            return
        if window.settings.branch_summary.skip_prompt:  # no question: no preview (~0.6 s at 100k entries)
            self._navigate(entry_id, False, None)
            return
        preview = preview_branch_summary(self._view, entry_id)
        if preview.empty:
            self._navigate(entry_id, False, None)
            return
        question = SummaryQuestion(preview, self.host)
        self.summary_question = question
        window.graph.reveal(entry_id, keep_following=True)  # the target unfolded, in view
        self.reader.show_detail(False)  # the question tells the preview's bands; a selected audit would not
        window.graph.graph_scene().show_audit(preview.as_audit())

        def answered(answer: SummaryAnswer | None) -> None:
            self.summary_question = None
            self._restore_bands()
            question.deleteLater()
            if answer is None:
                return
            if answer.dont_ask_again and not answer.summarize:
                window.settings.branch_summary.skip_prompt = True
                window.settings.save_value(("branchSummary", "skipPrompt"), True)
            self._navigate(entry_id, answer.summarize, answer.focus)

        question.answered.connect(answered)
        self._beside_graph(question)
        question.open()

    def flip_to(self, entry_id: str) -> None:
        """The chat's sibling arrows: switch at once, as ChatGPT does (no question, no summary);
        the branch just left is offered a summary afterwards, in a bar that blocks nothing."""
        window = self.window
        if window.agent.busy or entry_id == self._view.leaf_id or self.summary_question is not None:
            return
        offer = flip_offer(self._view.leaf_id, entry_id, window.settings.branch_summary.skip_prompt)
        self.branch_offer.dismiss()
        self._navigate(entry_id, False, None)
        if offer is not None:
            self.branch_offer.show_offer(offer)

    def _summarize_left(self, offer: FlipOffer) -> None:
        """pi's "Summarize", answered after the flip: back to the branch left (nothing written),
        then the same switch with its summary."""
        agent = self.window.agent
        if agent.busy:
            self.window.statusBar().showMessage("Stop the running reply first.", 4000)
            return
        if self._view.get_entry(offer.left_leaf) is None or self._view.get_entry(offer.target) is None:
            return
        agent.restore_leaf(offer.left_leaf)
        self._navigate(offer.target, True, None)

    def _undo_flip(self, offer: FlipOffer) -> None:
        if self.history.can_undo:
            self.undo()
        elif self.window.agent.restore_leaf(offer.left_leaf):
            self._sync_undo()

    def _never_offer(self) -> None:
        settings = self.window.settings
        settings.branch_summary.skip_prompt = True
        settings.save_value(("branchSummary", "skipPrompt"), True)

    def _navigate(self, entry_id: str, summarize: bool, focus: str | None) -> None:
        self.window.run_task(self._navigate_async(entry_id, summarize, focus), "Switching branch")

    async def _navigate_async(self, entry_id: str, summarize: bool, focus: str | None) -> None:
        agent = self.window.agent
        before = agent.view.leaf_id
        result = await agent.navigate_tree(entry_id, summarize=summarize, custom_instructions=focus)
        if not result.cancelled:
            self.history.record(before, agent.view.leaf_id)
            self._sync_undo()
            self.leaf_moved.emit(before, agent.view.leaf_id)
        if result.editor_text:
            self.window.chat.set_editor_text(result.editor_text)  # the chat itself follows the leaf

    def undo(self) -> None:
        self._step(self.history.undo, self.history.redo)

    def redo(self) -> None:
        self._step(self.history.redo, self.history.undo)

    def _step(self, take: Any, give_back: Any) -> None:
        """Move the leaf back (or forward) without a summary and without writing anything."""
        if self.window.agent.busy:
            self.window.statusBar().showMessage("Stop the running reply first.", 4000)
            return
        target = take()
        if target is None:
            return
        self.branch_offer.dismiss()
        before = self._view.leaf_id
        if not self.window.agent.restore_leaf(target):
            give_back()  # the entry is gone or already the leaf: keep the history as it was
            self.window.statusBar().showMessage("That leaf can no longer be restored.", 4000)
        else:
            self.leaf_moved.emit(before, self._view.leaf_id)
        self._sync_undo()

    def _sync_undo(self) -> None:
        self.undo_action.setEnabled(self.history.can_undo)
        self.redo_action.setEnabled(self.history.can_redo)

    def chat_changed(self) -> None:
        """The chat was rebuilt or grew: the sibling arrows follow (a moment later, once, and after
        the graph's first picture of a big session: finding them walks the whole path)."""
        self.window.graph.after_picture(self._siblings_timer.start)

    def _show_siblings(self) -> None:
        """Arrows only for branch points whose message the chat shows (the panel then makes a
        widget only for the rows on screen): at 100,000 entries the path branches ~2,700 times.
        Found a slice per event-loop turn (:meth:`_sibling_step`): at once, that search held the
        UI thread ~0.45 s at 100,000 entries, right after the first picture (issue 28)."""
        if self._sibling_steps is not None:  # one is under way: again once it is done
            self._siblings_again = True
            return
        self.sibling_turns, self._siblings_again = 0, False
        self._sibling_steps = self._siblings_in_steps()
        self._sibling_state = self._session_state()
        self._sibling_step()

    def _session_state(self) -> tuple[int, str | None]:
        return len(self._view.index.entries), self._view.leaf_id

    def _sibling_step(self) -> None:
        """One slice (a few milliseconds) of the search :meth:`_show_siblings` started; the next
        on the next turn. If the session or the chat changed meanwhile, what was found is dropped
        and the search starts again (quickly: the cache keeps the path, order and newest leaves
        found, and follows appends)."""
        steps = self._sibling_steps
        if steps is None:
            return
        self.sibling_turns += 1
        ends = time.perf_counter() + _SIBLING_BUDGET
        try:
            next(steps)  # at least one slice a turn
            while time.perf_counter() < ends:
                next(steps)
        except StopIteration as done:
            self._sibling_steps = None
            if self._siblings_again or self._sibling_state != self._session_state():
                self._show_siblings()
            else:
                self.window.chat.set_sibling_switches(done.value)
            return
        except BaseException:  # as the one-go search did: the error shows, the next search still runs
            self._sibling_steps = None
            raise
        QTimer.singleShot(0, self, self._sibling_step)

    def _siblings_in_steps(self) -> Generator[None, None, list[SiblingSwitch]]:
        chat = self.window.chat
        messages = chat.model.messages()
        shown = {id(message) for message in messages}
        if self._sibling_cache_view is not self._view:
            self._sibling_cache, self._sibling_cache_view = SiblingCache(), self._view
        cache = self._sibling_cache
        cache.check(self._view)
        # A reply the chat showed as it streamed is an equal copy of the saved message, not the same
        # object: the newest entries count as shown when an equal message is (a regenerated reply's
        # "‹ 2/2 ›" was missing).
        recent = messages[-STREAMED_ROWS:]
        copies: dict[int, Any] = {}  #: id of a saved message → the chat's equal row object
        path = yield from cache.branch_in_steps(self._view)
        for entry in path[-2 * STREAMED_ROWS :]:
            message = entry.get("message")
            if message is not None and id(message) not in shown:
                row = next((row for row in recent if message == row), None)
                if row is not None:
                    shown.add(id(message))
                    copies[id(message)] = row
        switches = yield from sibling_switches_in_steps(self._view, shown, cache)
        return [replace(sw, message=copies[id(sw.message)]) if id(sw.message) in copies else sw for sw in switches]

    def _restore_bands(self) -> None:
        """Take a preview's bands off the graph; a selected compaction's own audit comes back."""
        graph = self.window.graph
        graph.graph_scene().clear_audit()
        selected = graph.selected_entry()
        if selected is not None:
            graph.select(selected, center=False)

    # ================================================================================ menu

    def open_menu(self, entry_id: str, global_pos: QPoint) -> QMenu | None:
        """The node menu at ``global_pos`` (not blocking: the choice comes back through ``triggered``)."""
        items = node_menu(self._view, entry_id, busy=self.window.agent.busy)
        if not items:
            return None
        if self.node_menu is not None:
            self.node_menu.close()
        menu = build_node_menu(items, self.host)
        self.context_hand.extend_menu(menu, entry_id)
        self.menu_opened.emit(menu, entry_id)
        self.node_menu = menu
        menu.triggered.connect(lambda action: self.run_menu_action(entry_id, chosen_action(action)))
        menu.aboutToHide.connect(lambda: self._menu_closed(menu))
        menu.popup(global_pos)
        if menu.actions():
            first = next((a for a in menu.actions() if a.isEnabled() and not a.isSeparator()), None)
            if first is not None:
                menu.setActiveAction(first)
        return menu

    def _menu_closed(self, menu: QMenu) -> None:
        if self.node_menu is menu:
            self.node_menu = None
        menu.deleteLater()

    def run_menu_action(self, entry_id: str, action: MenuAction | None) -> None:
        """Carry out a menu item (re-checked: the session may have moved since the menu opened)."""
        if action is None:
            return
        entry = self._view.get_entry(entry_id)
        if entry is None:
            return
        item = menu_item(self._view, entry, action, busy=self.window.agent.busy)
        if not item.enabled:
            self.window.statusBar().showMessage(item.reason, 5000)
            return
        window = self.window
        match action:
            case MenuAction.CONTINUE | MenuAction.EDIT_BRANCH:
                self.continue_from(entry_id)
            case MenuAction.REGENERATE:
                window.chat.clear_error()
                window.run_task(self._regenerate(entry_id), "Regenerating")
            case MenuAction.FORK:
                self.fork(entry_id, "before")
            case MenuAction.CLONE:
                self.fork(entry_id, "at")
            case MenuAction.LABEL:
                self.label(entry_id)
            case MenuAction.CLEAR_LABEL:
                window._guarded("Label", lambda: window.agent.set_label(entry_id, None))
            case MenuAction.COPY_TEXT:
                QGuiApplication.clipboard().setText(full_text(entry, limit=10**9))
                window.statusBar().showMessage("Copied the entry's text.", 3000)
            case MenuAction.SHOW_CONTEXT:
                page = context_page(self._view, entry_id)
                if page is not None:
                    self.reader.show_page(page)
            case MenuAction.SHOW_CHANGES | MenuAction.CHANGES_SINCE:
                self.files_requested.emit(entry_id, action)
            case _ as unreachable:
                assert_never(unreachable)

    async def _regenerate(self, entry_id: str) -> None:
        before = self._view.leaf_id
        await self.window.agent.regenerate(entry_id)
        self.history.record(before, self._view.leaf_id)  # undo goes back to the old reply
        self._sync_undo()

    def label(self, entry_id: str) -> LabelDialog:
        """Ask for the label without blocking (the answer comes back through a signal)."""
        window = self.window
        dialog = LabelDialog(self._view.get_label(entry_id) or "", self.host)
        dialog.label_chosen.connect(lambda text: window._guarded("Label", lambda: window.agent.set_label(entry_id, text)))
        dialog.open()
        return dialog

    # ================================================================================ fork and clone

    def fork(self, entry_id: str, position: str) -> bool:
        """Fork (``before`` a user message) or clone (``at`` any entry) into a new session (the
        window decides where it opens and says what happened)."""
        return self.window.fork_entry(entry_id, position)

    def fork_or_clone(self, entry_id: str) -> None:
        """A node dropped on Fork or the sessions list: a user message is forked (pi's ``/fork``),
        anything else cloned."""
        entry = self._view.get_entry(entry_id)
        if entry is not None:
            self.fork(entry_id, "before" if entry_role(entry) is Role.USER else "at")

    def _highlight_fork_target(self, over: bool) -> None:
        self.window.light_fork_drop_target(self._drop_target if over else None)

    def _over_fork_target(self, global_pos: QPoint) -> bool:
        self._drop_target = self.window.fork_drop_target(global_pos)
        return self._drop_target is not None

    # ================================================================================ selection

    def node_selected(self, entry_id: str) -> None:
        """A click (or keys, or a search jump) selected a node: read it; side panels follow its kind."""
        entry = self._view.get_entry(entry_id)
        if kind_of(entry) not in (EntryKind.COMPACTION, EntryKind.BRANCH_SUMMARY):
            self.reader.show_detail(False)  # a plain node: its text, no stale compaction or branch-summary audit
        page = reader_page(self._view, entry_id, busy=self.window.agent.busy)
        if page is not None:
            self.reader.show_page(page)

    def _read_crumb(self, entry_id: str) -> None:
        self.window.graph.select(entry_id, center=True, notify=True)
        page = reader_page(self._view, entry_id, busy=self.window.agent.busy)
        if page is not None:
            self.reader.show_page(page)

    def _on_band(self, selection: BandSelection) -> None:
        self.band = selection
        self.window.statusBar().showMessage(selection.describe(), 10_000)

    # ================================================================================ compaction

    def compact(self, cut: str | None = None) -> CompactionDialog:
        """Manual compaction: the dry run on the graph and in a dialog first, with a movable cut and an
        editable summary (:mod:`.context_hand`); nothing is sent before Compact."""
        return self.context_hand.compact(cut)

    def _open_compaction_dialog(self, dialog: CompactionDialog) -> CompactionDialog:
        self.compaction_dialog = dialog
        dialog.cancel_requested.connect(self.window.agent.abort)

        def finished(_result: int) -> None:
            if self.compaction_dialog is dialog:
                self.compaction_dialog = None
            self._restore_bands()
            dialog.deleteLater()

        dialog.finished.connect(finished)
        self._beside_graph(dialog)
        dialog.open()
        return dialog

    def _beside_graph(self, dialog: QWidget) -> None:
        """Over the chat, not the graph: the bands the question is about stay in sight."""
        chat = self.window.chat
        dialog.adjustSize()
        dialog.resize(max(dialog.width(), min(560, chat.width() - 16)), dialog.height())
        dialog.move(chat.mapToGlobal(QPoint(max(0, (chat.width() - dialog.width()) // 2), 48)))

    def on_agent_event(self, event: AgentEvent) -> None:
        """Compaction progress in the dialog; automatic compaction opens it in progress mode.

        Every event is named: a new one is a mypy error here until it is handled or listed as ignored.
        """
        dialog = self.compaction_dialog
        match event:
            case TurnStarted():
                self.branch_offer.dismiss()  # the user went on on the new branch
            case CompactionStarted(reason=reason):
                if dialog is None and reason != "manual":
                    self._open_compaction_dialog(CompactionDialog(None, self.host))
            case CompactionProgress(chars=chars):
                if dialog is not None:
                    dialog.set_progress(chars)
            case CompactionFinished() | CompactionFailed():
                if dialog is not None and dialog.running:
                    dialog.finish()
            case (
                TurnFinished() | StreamUpdated() | WaitingForServer() | MessageAppended() | RetryScheduled()
                | BranchSummaryStarted() | BranchSummaryFinished() | SessionChanged() | AgentError()
                | ReplyRecovered() | ToolCallsStarted() | ToolUpdated() | ToolResultAppended()
                | ToolCallsFinished() | WorkingFolderMissing()
            ):
                pass  # the chat, the graph and the status bar follow these
            case _ as unreachable:
                assert_never(unreachable)
