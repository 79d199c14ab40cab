"""The main window: the session graph, the chat of the active leaf, and the status bar.

The window owns no session logic. It forwards what the user does to the :class:`AgentSession` and
redraws from events: the agent's (streaming, compaction, errors) and the session manager's
(entries appended, leaf moved, file reloaded, appends by another program). Views never write the
file; the agent never touches widgets (DESIGN.md §3).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any, assert_never

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QLabel,
    QListView,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QToolBar,
    QToolButton,
    QWidget,
)

from desktop_app.agent import (
    AgentEvent,
    AgentSession,
    SessionChanged,
    SessionOpenError,
    TurnFinished,
    TurnStarted,
)
from desktop_app.agent.events import ToolCallsStarted
from desktop_app.present.approval_card import approval_card
from desktop_app.present.chat_feed import (
    AppendRows,
    ChatFeed,
    ChatUpdate,
    SetBusy,
    ShowContext,
    ShowError,
    StreamChanged,
    StreamDropped,
    StreamEnded,
    StreamStarted,
    agent_status,
)
from desktop_app.present.context_meter import ContextMeterState
from desktop_app.present.file_changes import compaction_file_lines
from desktop_app.present.reader import refreshed_page
from desktop_app.present.window_state import UiState
from desktop_app.session import EntryAppended, LeafMoved, Reloaded, SessionEvent, SessionView
from desktop_app.session.entries import THINKING_LEVELS
from desktop_app.settings import Settings
from desktop_app.tools import ApprovalDecision, ApprovalRequest

from .chat import ChatPanel
from .chat.actions import bind_card_actions
from .continue_banner import ContinueBanner
from .export_action import SessionExport
from .folder_banner import FolderBanner, folder_dialog, place_above_composer
from .fork_actions import ForkActions
from .forking import Forker
from .graph.audit_panel import CompactionAuditPanel
from .graph.find_bar import FindBar
from .graph.sidebar import GraphSidebar
from .graph.view import NEIGHBOURHOOD_MIN_ENTRIES, GraphView
from .panes import Pane, PaneKeys
from .plain import plain_text
from .restore_offer import FilesFollow
from .session_binding import OFFLINE_BANNER, SessionBinding
from .shell import WindowShell
from .status_bar import ArborStatusBar
from .steering import Steering

FILTERS = [("default", "Default"), ("no-tools", "No tools"), ("user-only", "User only"),
           ("labeled-only", "Labeled only"), ("all", "All")]


#: The chat's least height (px): a side panel under it (reader, audit) never squeezes it below this.
CHAT_MIN_HEIGHT = 260

#: How long a moved leaf waits before the UI state file is written (closing the window writes it at once).
LEAF_WRITE_DELAY_MS = 1000


class MainWindow(QMainWindow):
    """Graph on the left, chat on the right; every action goes through the agent."""

    closed = Signal()

    def __init__(
        self, agent: AgentSession, settings: Settings, *, follow_interval_ms: int = 1000, ui_state: UiState | None = None
    ) -> None:
        super().__init__()
        self.agent = agent
        self.settings = settings
        self.ui_state = ui_state
        if ui_state is not None:  # the leaf moves with every entry: its file is written a moment later
            ui_state.write_leaves_later(lambda flush: QTimer.singleShot(LEAF_WRITE_DELAY_MS, self, flush))
        self.feed = ChatFeed(agent.view)  # what the chat shows, from both event streams
        self._tasks: set[asyncio.Future[Any]] = set()
        self._window_closed = False  #: closeEvent ran: a deferred open's late install is not wanted
        self.setWindowTitle("Arbor")
        self.resize(1500, 950)

        self.graph = GraphView(self)
        self.chat = ChatPanel(self)
        self.audit_panel = CompactionAuditPanel(self)  # shown in the reader's place (see _show_audit)
        self.chat.setMinimumHeight(CHAT_MIN_HEIGHT)  # never squeezed below a readable height
        right = QSplitter(Qt.Orientation.Vertical, self)
        right.setChildrenCollapsible(False)
        right.addWidget(self.chat)
        right.setStretchFactor(0, 3)
        self.sidebar = GraphSidebar(self.graph, self)  # outline + legend, context lens
        self.outline, self.lens = self.sidebar.outline, self.sidebar.lens
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.sidebar)
        splitter.addWidget(self.graph)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 3)
        splitter.setStretchFactor(2, 2)
        splitter.setSizes([250, 900, 600])
        self.setCentralWidget(splitter)
        self.status = ArborStatusBar(self)
        self.setStatusBar(self.status)
        self._meter = ContextMeterState()
        self._build_toolbar()
        self.steering = Steering(self, self)  # node menu, reader, summary question, compaction preview, undo
        self.files = FilesFollow(self, self, self.steering.branch_offer.room_taken)  # issue 25: the files follow the tree
        self.files.follow_steering(self.steering)  # moves by hand, the node menu's file items, the reader's diff
        right.insertWidget(1, self.steering.reader)
        # the reader says where its node stands now: it follows leaf moves (issue 22 item 7)
        self.steering.reader.follow(
            lambda page: refreshed_page(self.agent.view, page, busy=self.agent.busy), lambda: self.agent.busy
        )
        right.setStretchFactor(1, 1)
        self.steering.reader.set_detail(self.audit_panel)
        self._right = right
        self._reader_size_chosen = False  #: the person dragged the chat/reader handle: keep their size
        right.splitterMoved.connect(lambda _pos, _index: setattr(self, "_reader_size_chosen", True))
        self.graph.node_selected.connect(self.steering.node_selected)
        self.graph.node_selected.connect(lambda _e: self._sync_fork_actions())
        self.shell = WindowShell(self, agent, settings, ui_state, (splitter, right), self.open_path)  # sessions panel, title, recent, geometry
        self.panes = PaneKeys(self, self._panes())  # Tab's order and F6 / Shift+F6 between the panes
        self.sessions = self.shell.panel  #: the sessions list (DESIGN.md §7.1: ``listed_paths()``)
        self.forker = Forker(self)  # fork and clone: here or in a new window, said in the status line
        self.forks = ForkActions(self, self.fork_action, self.clone_action)
        self.forks.add_menus(self._fork_selected)

        self.chat.send_requested.connect(self._on_send)
        self.chat.stop_requested.connect(self.agent.abort)
        bind_card_actions(self)  # Retry, Regenerate, Edit & branch on the chat's cards
        self.graph.node_activated.connect(self._on_node_activated)
        self.graph.compaction_selected.connect(self._on_compaction_selected)
        self.graph.branch_summary_selected.connect(self._on_branch_summary_selected)
        self.agent.subscribe(self._on_agent_event)
        self.agent.approver = self._approve
        self.folder_dialog: QFileDialog | None = None
        self.folder_banner = FolderBanner(self.chat)  # the missing working folder, said when a tool needs it
        place_above_composer(self.chat, self.folder_banner, self.chat.error_banner)
        self.folder_banner.choose_requested.connect(self.ask_working_folder)
        self.continue_banner = ContinueBanner(self)  # a Claude Code transcript: read-only, "Continue in Arbor"
        place_above_composer(self.chat, self.continue_banner, self.chat.error_banner)

        self._meter_timer = QTimer(self)
        self._meter_timer.setSingleShot(True)
        self._meter_timer.setInterval(150)
        self._meter_timer.timeout.connect(lambda: self._update_meter())

        self._follow_timer = QTimer(self)
        self._follow_timer.setInterval(follow_interval_ms)
        self._follow_timer.timeout.connect(self._poll_external)
        self._follow_timer.start()
        self.binding = SessionBinding(self, self)  # graph, chat, panels: at once, or an install's over a few turns
        self._bind_session()

    def _panes(self) -> list[Pane]:
        """The panes in reading order: toolbar, side column, canvas, chat, composer (see :mod:`.panes`)."""
        side, panel, outline, lens = self.sidebar, self.shell.panel, self.outline, self.lens
        messages = self.chat.findChild(QListView)
        page_target: dict[int, QWidget] = {id(panel): panel.search, id(outline): outline.list, id(lens): lens.table}

        def side_target() -> QWidget | None:
            page = side.currentWidget()
            return page_target.get(id(page), page) if page is not None else None

        return [
            Pane("toolbar", lambda: self.search_box, lambda: [self.search_box, self.filter_box, self.thinking_box],
                 lambda: self.toolbar),
            Pane("side", side_target, lambda: [side.tabBar(), panel.search, panel.new_button, panel.tree,
                                               outline.filter, outline.list, lens.leaf_button, lens.table],
                 lambda: side),
            Pane("canvas", lambda: self.graph, lambda: [self.graph], lambda: self.graph),
            Pane("chat", lambda: messages, lambda: [messages] if messages is not None else [], lambda: messages),
            Pane("composer", lambda: self.chat.composer, lambda: [self.chat.composer], lambda: self.chat.composer),
        ]

    @property
    def session(self) -> SessionView:
        """The open session, read-only (DESIGN.md §7.1); changes go through :attr:`agent`."""
        return self.agent.view

    # ============================================================================ building

    def _action(self, text: str, slot: Callable[[], Any],
                shortcut: str | QKeySequence | QKeySequence.StandardKey | None = None,
                tip: str | None = None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setToolTip(plain_text(f"{tip or text}" + (f" ({QKeySequence(shortcut).toString()})" if shortcut else "")))
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_toolbar(self) -> None:
        bar = QToolBar("Main", self)
        bar.setObjectName("mainToolbar")
        self.toolbar = bar
        bar.setMovable(False)
        self.addToolBar(bar)
        bar.addAction(self._action("New", self.new_session, QKeySequence.StandardKey.New, "New session"))
        bar.addAction(self._action("Open…", self.open_dialog, QKeySequence.StandardKey.Open, "Open a session file"))
        self.exporter = SessionExport(self, lambda: self.agent.view)  # Export…: the session as one web page or Markdown
        bar.addAction(self.exporter.action)
        self.fork_action = self._action("Fork", self.fork_selected, None, "Fork the selected user message into a new session")
        bar.addAction(self.fork_action)
        self.clone_action = self._action("Clone", self.clone_selected, None, "Clone the path up to the selected entry")
        bar.addAction(self.clone_action)
        bar.addAction(self._action("Compact", self.compact, "Ctrl+Shift+K", "Compact the context"))
        bar.addSeparator()
        bar.addAction(self._action("Fit", self.graph.fit_all, "Ctrl+0", "Fit the whole tree"))
        bar.addAction(self._action("Leaf", self.graph.jump_to_leaf, "Ctrl+L", "Centre on the active leaf and follow it"))
        bar.addAction(self._action("Label…", self.label_selected, "F2", "Label the selected entry"))
        self._action("Stop", self.agent.abort, "Esc", "Stop the running reply")
        bar.addSeparator()
        bar.addWidget(QLabel(" Filter ", self))
        self.filter_box = QComboBox(self)
        for key, text in FILTERS:
            self.filter_box.addItem(text, key)
        self.filter_box.currentIndexChanged.connect(lambda _i: self.graph.set_filter(self.filter_box.currentData()))
        bar.addWidget(self.filter_box)
        bar.addWidget(QLabel(" Thinking ", self))
        self.thinking_box = QComboBox(self)
        self.thinking_box.addItems(list(THINKING_LEVELS))
        self.thinking_box.activated.connect(lambda _i: self._set_thinking(self.thinking_box.currentText()))
        bar.addWidget(self.thinking_box)
        spacer = QWidget(self)
        spacer.setSizePolicy(spacer.sizePolicy().horizontalPolicy().Expanding, spacer.sizePolicy().verticalPolicy())
        bar.addWidget(spacer)
        self.find_bar = FindBar(self.graph, self)  # "2 of 4", Enter/Shift+Enter, F3, Esc clears
        self.search_box = self.find_bar.field
        bar.addWidget(self.find_bar)
        self.find_bar.install_shortcuts(self)

    # ============================================================================ binding

    def _bind_session(self) -> None:
        """Show the agent's session (at start and whenever the agent switches to another one)."""
        self.binding.bind()

    def install_full_session(self) -> None:
        """A big session opened from its first picture's lines (``SessionManager.open(defer=True)``):
        install the whole file and bind it anew, with what it held (skipped lines), the graph now
        and the rest over the next event-loop turns (:class:`SessionBinding`). Nothing once the
        window is closed (the parse can end during the app's exit: the graph is shut down)."""
        if self._window_closed:
            return
        if self.agent.session.finish_loading(announce=False):
            self.binding.install_in_turns()

    def show_open_report(self) -> None:
        """Say what opening the session found: an error, or the lines it skipped. Called when a session
        is bound, and again once a big session's whole file is parsed (``run_gui``, issue 28)."""
        view = self.agent.view
        if view.read_only and view.report.error:
            self.chat.show_error(view.report.error)
        elif view.report.malformed_lines:
            lines = ", ".join(str(n) for n in view.report.malformed_lines[:10])
            more = "…" if len(view.report.malformed_lines) > 10 else ""
            self.chat.show_error(f"Skipped {len(view.report.malformed_lines)} unreadable line(s): {lines}{more}")

    def model_changed(self) -> None:
        """The agent's model changed (settings, model picker): status bar, thinking, meter, banner."""
        self.status.set_model(self.agent.model.id)
        self._sync_thinking()
        self._update_meter()
        if self.agent.is_offline:
            self.chat.show_banner(OFFLINE_BANNER)
        else:
            self.chat.clear_banner()
        self.shell.model_changed()

    def _apply_chat(self, updates: list[ChatUpdate]) -> None:
        """Hand the chat feed's updates to the panel; the context meter follows what changed."""
        for update in updates:
            self.chat.apply(update)
            match update:
                case ShowContext(messages=messages):
                    if len(self.agent.view.index.by_id) >= NEIGHBOURHOOD_MIN_ENTRIES:
                        # a big session: the picture first (the meter walks the whole path: ~0.1 s at 100k)
                        self.graph.after_picture(partial(self._update_meter, list(messages)))
                    else:
                        self._update_meter(list(messages))
                case AppendRows() | StreamEnded():
                    self._meter_timer.start()  # a moment later, in its own event
                case StreamStarted() | StreamChanged() | StreamDropped() | SetBusy() | ShowError():
                    pass  # the meter counts finished rows, not the live one or the banners
                case _ as unreachable:
                    assert_never(unreachable)
            # A saved reply (StreamEnded: the live row became the entry's message) changed the
            # session too: a search of the arrows that ran while it streamed missed its branch point.
            if isinstance(update, ShowContext | AppendRows | StreamEnded):
                self.steering.chat_changed()

    def _update_meter(self, messages: list[Any] | None = None) -> None:
        view = self.agent.view
        if messages is None:
            messages = list(view.build_session_context().messages)
        usage = self.agent.context_usage(messages)
        # whether the path only grew is told as well by its end the context is built from (a few
        # hundred entries; the whole branch was a 20 ms walk at 100k when it was not kept)
        reading = self._meter.read(view.get_context_branch(), usage.tokens, messages)
        self.status.set_context_usage(
            reading.tokens, usage.context_window, usage.reserve_tokens, reading.explanation, estimated=reading.estimated
        )

    def _sync_thinking(self) -> None:
        self.status.set_thinking(self.agent.thinking_level)
        index = self.thinking_box.findText(self.agent.thinking_level)
        self.thinking_box.setCurrentIndex(max(index, 0))
        self.thinking_box.setEnabled(bool(getattr(self.agent.model, "reasoning", False)))

    # ============================================================================ events

    def _on_session_event(self, event: SessionEvent) -> None:
        self._apply_chat(self.feed.on_session_event(event))
        if not self.agent.busy or isinstance(event, LeafMoved | Reloaded):
            # during a turn the page is re-read once, when it ends (at 100k entries a re-read walks a
            # 70,000-entry path: not once per appended tool result)
            self.steering.reader.refresh_later()
        self.shell.session_event(event)
        if self.ui_state is not None and isinstance(event, EntryAppended | LeafMoved):
            self.ui_state.remember_leaf(self.agent.view.session_file, event.leaf_id)

    def _on_agent_event(self, event: AgentEvent) -> None:
        self._apply_chat(self.feed.on_agent_event(event))
        self.steering.on_agent_event(event)
        status = agent_status(event)
        if status is not None:
            text, timeout = status
            if text:
                self.statusBar().showMessage(text, timeout)
            else:
                self.statusBar().clearMessage()
        if isinstance(event, TurnStarted | TurnFinished):
            self.steering.reader.refresh_later()  # "Continue from here" waits for the reply
        if isinstance(event, SessionChanged):
            self._bind_session()
        elif isinstance(event, ToolCallsStarted) and self.agent.working_folder_missing:
            self.folder_banner.show_missing(self.agent.working_folder)  # inline, never a dialog by itself

    async def _approve(self, request: ApprovalRequest) -> ApprovalDecision:
        """The agent's approver: the card above the composer (Esc cancels this and closes it)."""
        return await self.chat.approval.ask(approval_card(request))

    def ask_working_folder(self) -> None:
        """"Choose folder…" on the folder banner: pick the folder this session's tools run in. Not
        modal to the agent: the turn goes on, and tools report the missing folder until one is
        chosen; cancelling keeps the missing folder."""
        if self.folder_dialog is not None or not self.agent.working_folder_missing:
            return
        dialog = folder_dialog(self, self.agent.working_folder)

        def chosen(folder: str) -> None:
            self._guarded("Working folder", lambda: self.agent.use_working_folder(folder))
            if not self.agent.working_folder_missing:
                self.folder_banner.dismiss()
                self.statusBar().showMessage(f"Tools run in {folder}", 5000)

        def finished(_result: int) -> None:
            self.folder_dialog = None
            dialog.deleteLater()

        dialog.fileSelected.connect(chosen)
        dialog.finished.connect(finished)
        self.folder_dialog = dialog
        dialog.open()

    def _poll_external(self) -> None:
        try:
            self.agent.follow_file()
        except Exception as exc:  # noqa: BLE001 - a vanished or unreadable file must not kill the timer
            self.status.set_following(False)
            self.statusBar().showMessage(f"Stopped following the file: {exc}", 8000)
            self._follow_timer.stop()

    # ============================================================================ actions

    def run_task(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Future[Any]:
        """Run agent work on the asyncio loop; failures are shown, never raised into Qt."""
        future = asyncio.ensure_future(coro)
        self._tasks.add(future)

        def done(f: asyncio.Future[Any]) -> None:
            self._tasks.discard(f)
            if f.cancelled():
                return
            exc = f.exception()
            if exc is not None:
                self.chat.show_error(f"{what} failed: {exc}")
                self.chat.set_busy(False)
                self._apply_chat(self.feed.bind(self.agent.view))

        future.add_done_callback(done)
        return future

    def _on_send(self, text: str) -> None:
        if not text.strip():
            return
        self.chat.clear_error()
        self.run_task(self._send(text), "Sending")

    async def _send(self, text: str) -> None:
        await self.agent.prompt(text)
        if self.agent.last_prompt_unsent == text and not self.chat.editor_text():
            self.chat.set_editor_text(text)  # stopped before it was sent: the user's text is not lost

    def compact(self) -> None:
        """Compact asks first: a dry run on the graph, optional focus, then Compact or Cancel."""
        self.steering.compact()

    def _guarded(self, what: str, action: Callable[[], Any]) -> Any:
        """Run a menu/toolbar action; a failure is shown in the status bar, never raised into Qt."""
        try:
            result = action()
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.statusBar().showMessage(f"{what}: {exc}", 8000)
            return None
        self.statusBar().clearMessage()  # an earlier failure is no longer news
        self.chat.clear_error()
        return result

    def _set_thinking(self, level: str) -> None:
        """The toolbar's Thinking: the session's level, and (as in pi) the level new sessions start at."""
        self._guarded("Thinking level", lambda: self.agent.set_thinking_level(level))
        chosen = self.agent.thinking_level
        if chosen == level and chosen != self.settings.default_thinking_level:
            self.settings.default_thinking_level = chosen
            self.settings.save_value(("defaultThinkingLevel",), chosen)
        self._sync_thinking()

    def _on_node_activated(self, entry_id: str) -> None:
        self.steering.continue_from(entry_id)  # pi's summary question (with its preview), then the move

    def fork_selected(self) -> None:
        self._fork_selected("before")

    def clone_selected(self) -> None:
        self._fork_selected("at")

    def _fork_selected(self, position: str, new_window: bool | None = None) -> None:
        entry_id = self.graph.selected_entry()
        if not entry_id:
            self.statusBar().showMessage("Select an entry to fork or clone from.", 5000)
            return
        self.fork_entry(entry_id, position, new_window)

    def fork_entry(self, entry_id: str, position: str, new_window: bool | None = None) -> bool:
        """Fork (``before`` a user message) or clone (``at``) ``entry_id``: in place, or in a new
        window (``None``: when Ctrl or Shift is held)."""
        before, session = self.agent.view.leaf_id, self.agent.session
        forked = self.forker.fork(entry_id, "before" if position == "before" else "at", new_window)
        if forked and self.agent.session is not session:  # in place: the files may follow the new leaf
            self.files.landed(before, self.agent.view.leaf_id)
        return forked

    def _sync_fork_actions(self) -> None:
        """Fork and Clone say whether they apply to the selection, and why not (issue 9, item 2)."""
        self.forks.sync(self.agent.view, self.graph.selected_entry(), busy=self.agent.busy)

    def fork_button(self) -> QToolButton | None:
        """The toolbar's Fork button (a node dragged onto it is forked or cloned)."""
        return self.forks.toolbar_button(self.fork_action)

    def fork_drop_target(self, global_pos: QPoint) -> QWidget | None:
        """Where a node carried out of the graph would be forked (a user message) or cloned: the
        toolbar's Fork, or the sessions list when it is on screen; ``None`` elsewhere."""
        return self.forks.drop_target(global_pos, self.shell.panel if self.shell.panel_shown() else None)

    def light_fork_drop_target(self, target: QWidget | None) -> None:
        """Light up the drop target under a carried node (``None``: none is)."""
        button = self.fork_button()
        if button is not None:
            button.setDown(target is button)
        self.shell.panel.show_drop_hint(target is self.shell.panel)

    def label_selected(self) -> None:
        entry_id = self.graph.selected_entry()
        if entry_id:
            self.steering.label(entry_id)  # the node menu's Label… too: a question that never blocks

    def new_session(self) -> None:
        if self.agent.busy:
            self.statusBar().showMessage("Stop the running reply before starting a new session.", 5000)
            return
        self._guarded("New session", self.agent.new_session)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open session", self.shell.open_folder(), "Sessions (*.jsonl);;All files (*)")
        if path:
            self.open_path(path)

    def open_path(self, path: str) -> None:
        if self.agent.busy:
            self.statusBar().showMessage("Stop the running reply before opening another session.", 5000)
            return
        try:
            self.agent.open_session_file(path)
        except SessionOpenError as exc:  # shown to the user, nothing is lost
            QMessageBox.warning(self, "Cannot open session", plain_text(str(exc)))

    # ============================================================================ graph side panel

    def _on_compaction_selected(self, audit: Any) -> None:
        self.audit_panel.set_audit(audit)
        if audit is not None:
            self.audit_panel.set_file_changes(compaction_file_lines(self.agent.view.index, audit.compaction_id))
        self._show_audit(audit is not None)

    def _on_branch_summary_selected(self, info: Any) -> None:
        self.audit_panel.set_branch_summary(info)
        self._show_audit(info is not None)

    def _show_audit(self, shown: bool) -> None:
        """The audit takes the reader's place, with room to read it: the first time, the reader gets
        what the chat can spare above its readable height; after that the splitter keeps the size the
        person chose (the window's state remembers it)."""
        reader = self.steering.reader
        was_hidden = not reader.isVisible()
        reader.show_detail(shown)
        if shown and was_hidden and not self._reader_size_chosen:
            total = sum(self._right.sizes())
            room = max(total - max(CHAT_MIN_HEIGHT, total * 2 // 5), reader.minimumSizeHint().height())
            self._right.setSizes([total - room, room])

    # ============================================================================ closing

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        self._window_closed = True
        self.binding.cancel()
        self._follow_timer.stop()
        self.shell.shutdown()
        self.agent.abort()
        self.graph.shutdown()
        self.agent.close()
        self.closed.emit()
        super().closeEvent(event)
