"""The main window: the session graph, the chat of the active leaf, and the status bar.

The window owns no session logic. It forwards what the user does to the :class:`AgentSession` and
redraws from events: the agent's (streaming, compaction, errors) and the session manager's
(entries appended, leaf moved, file reloaded, appends by another program). Views never write the
file; the agent never touches widgets (DESIGN.md §3).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, assert_never

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QToolBar,
    QWidget,
)

from desktop_app.agent import (
    AgentError,
    AgentEvent,
    AgentSession,
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
    SessionOpenError,
    StreamUpdated,
    TurnFinished,
    TurnStarted,
    WaitingForServer,
)
from desktop_app.llm.protocol import TextDelta, ThinkingDelta
from desktop_app.session import (
    EntryAppended,
    ExternalAppend,
    LeafMoved,
    Reloaded,
    SessionEvent,
    SessionFailed,
)
from desktop_app.session.context import context_message
from desktop_app.session.entries import THINKING_LEVELS
from desktop_app.settings import Settings

from .chat import ChatPanel
from .graph.audit_panel import CompactionAuditPanel
from .graph.view import GraphView
from .state import UiState
from .status_bar import ArborStatusBar

FILTERS = [("default", "Default"), ("no-tools", "No tools"), ("user-only", "User only"),
           ("labeled-only", "Labeled only"), ("all", "All")]
OFFLINE_BANNER = (
    "Offline model: replies describe what the model would receive. "
    "Set ANTHROPIC_API_KEY (or store a key in the system keyring) to chat with Claude."
)


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
        self._tasks: set[asyncio.Future[Any]] = set()
        self._unsubscribe_session: Callable[[], None] | None = None
        self._streaming = False
        self.setWindowTitle("Arbor")
        self.resize(1500, 950)

        self.graph = GraphView(self)
        self.chat = ChatPanel(self)
        self.audit_panel = CompactionAuditPanel(self)
        self.audit_panel.hide()
        right = QSplitter(Qt.Orientation.Vertical, self)
        right.addWidget(self.chat)
        right.addWidget(self.audit_panel)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.graph)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([900, 600])
        self.setCentralWidget(splitter)
        self.status = ArborStatusBar(self)
        self.setStatusBar(self.status)
        self._build_toolbar()

        self.chat.send_requested.connect(self._on_send)
        self.chat.stop_requested.connect(self.agent.abort)
        self.graph.node_activated.connect(self._on_node_activated)
        self.graph.compaction_selected.connect(self._on_compaction_selected)
        self.graph.branch_summary_selected.connect(self._on_branch_summary_selected)
        self.agent.subscribe(self._on_agent_event)

        self._chat_leaf: str | None = None
        self._meter_timer = QTimer(self)
        self._meter_timer.setSingleShot(True)
        self._meter_timer.setInterval(150)
        self._meter_timer.timeout.connect(lambda: self._update_meter())

        self._follow_timer = QTimer(self)
        self._follow_timer.setInterval(follow_interval_ms)
        self._follow_timer.timeout.connect(self._poll_external)
        self._follow_timer.start()
        self._bind_session()

    # ============================================================================ building

    def _action(self, text: str, slot: Callable[[], Any], shortcut: str | QKeySequence | None = None,
                tip: str | None = None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setToolTip(f"{tip or text}" + (f" ({QKeySequence(shortcut).toString()})" if shortcut else ""))
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_toolbar(self) -> None:
        bar = QToolBar("Main", self)
        bar.setObjectName("mainToolbar")
        bar.setMovable(False)
        self.addToolBar(bar)
        bar.addAction(self._action("New", self.new_session, QKeySequence.StandardKey.New, "New session"))
        bar.addAction(self._action("Open…", self.open_dialog, QKeySequence.StandardKey.Open, "Open a session file"))
        bar.addAction(self._action("Fork", self.fork_selected, None, "Fork the selected user message into a new session"))
        bar.addAction(self._action("Compact", self.compact, "Ctrl+Shift+K", "Compact the context"))
        bar.addSeparator()
        bar.addAction(self._action("Fit", self.graph.fit_all, "Ctrl+0", "Fit the whole tree"))
        bar.addAction(self._action("Leaf", self.graph.center_on_leaf, "Ctrl+L", "Centre on the active leaf"))
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
        self.search_box = QLineEdit(self)
        self.search_box.setPlaceholderText("Search the tree (Ctrl+F)")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setMaximumWidth(260)
        self.search_box.textChanged.connect(self._on_search)
        self.search_box.returnPressed.connect(self._next_match)
        bar.addWidget(self.search_box)
        self._action("Search", self._focus_search, QKeySequence.StandardKey.Find)

    # ============================================================================ binding

    def _bind_session(self) -> None:
        manager = self.agent.session
        if self.ui_state is not None:
            remembered = self.ui_state.last_leaf(manager.session_file)
            if remembered:
                self.agent.restore_leaf(remembered)  # where the user left this session (not stored in the file)
        if self._unsubscribe_session is not None:
            self._unsubscribe_session()
        self._unsubscribe_session = manager.subscribe(self._on_session_event)
        self.graph.set_session(manager)
        self.status.set_session_file(manager.session_file)
        self.status.set_following(manager.session_file is not None)
        model = self.agent.provider.model
        self.status.set_model(model.id)
        self._sync_thinking()
        self._refresh_chat()
        if self.agent.is_offline:
            self.chat.show_banner(OFFLINE_BANNER)
        else:
            self.chat.clear_banner()
        if manager.read_only and manager.report.error:
            self.chat.show_error(manager.report.error)
        elif manager.report.malformed_lines:
            lines = ", ".join(str(n) for n in manager.report.malformed_lines[:10])
            more = "…" if len(manager.report.malformed_lines) > 10 else ""
            self.chat.show_error(f"Skipped {len(manager.report.malformed_lines)} unreadable line(s): {lines}{more}")
        title = manager.get_session_name() or (Path(manager.session_file).name if manager.session_file else "In memory")
        self.setWindowTitle(f"{title} — Arbor")

    def _refresh_chat(self) -> None:
        if self._streaming:
            return
        manager = self.agent.session
        messages = manager.build_session_context().messages
        self.chat.set_context(messages)
        self._chat_leaf = manager.leaf_id
        self._update_meter(messages)

    def _update_meter(self, messages: list[Any] | None = None) -> None:
        usage = self.agent.context_usage(messages)
        self.status.set_context_usage(usage.tokens, usage.context_window, usage.reserve_tokens)

    def _follow_append(self, entries: list[dict[str, Any]]) -> bool:
        """Entries added right under the chat's leaf: add their rows instead of re-binding the chat.

        A long session's context takes tens of milliseconds to rebuild and lay out; an append at the
        leaf changes it only by one message (compactions and branch summaries still re-bind).
        """
        for entry in entries:
            if entry.get("parentId") != self._chat_leaf or entry.get("type") in ("compaction", "branch_summary"):
                return False
            message = context_message(entry)
            if message is not None:
                self.chat.model.append_message(message)
            self._chat_leaf = entry.get("id")
        self._meter_timer.start()  # the meter follows a moment later, in its own event
        return True

    def _sync_thinking(self) -> None:
        self.status.set_thinking(self.agent.thinking_level)
        index = self.thinking_box.findText(self.agent.thinking_level)
        self.thinking_box.setCurrentIndex(max(index, 0))
        self.thinking_box.setEnabled(bool(getattr(self.agent.provider.model, "reasoning", False)))

    # ============================================================================ events

    def _on_session_event(self, event: SessionEvent) -> None:
        match event:
            case EntryAppended(entry=entry, leaf_id=leaf_id):
                self._follow_entries([entry], leaf_id)
                if self.ui_state is not None:
                    self.ui_state.remember_leaf(self.agent.session.session_file, leaf_id)
            case ExternalAppend(entries=entries, leaf_id=leaf_id):
                self._follow_entries(list(entries), leaf_id)
            case LeafMoved(leaf_id=leaf_id):
                self._refresh_chat()
                if self.ui_state is not None:
                    self.ui_state.remember_leaf(self.agent.session.session_file, leaf_id)
            case Reloaded():
                self._refresh_chat()
            case SessionFailed(message=message):
                if message:
                    self.chat.show_error(message)
            case _:
                assert_never(event)

    def _follow_entries(self, entries: list[dict[str, Any]], leaf_id: str | None) -> None:
        if self._streaming:
            return
        if not (leaf_id == entries[-1].get("id") and self._follow_append(entries)):
            self._refresh_chat()

    def _on_agent_event(self, event: AgentEvent) -> None:
        match event:
            case TurnStarted():
                self._streaming = True
                self.chat.begin_stream()
                self.chat.set_busy(True)
            case StreamUpdated(event=TextDelta(text=text)):
                self.chat.append_delta("text", text)
            case StreamUpdated(event=ThinkingDelta(text=text)):
                self.chat.append_delta("thinking", text)
            case StreamUpdated():
                pass  # tool calls, usage and the final event: the row is finished by MessageAppended
            case MessageAppended(entry_id=entry_id, message=message):
                if message.get("role") != "assistant" or not self._streaming:
                    return
                if message.get("stopReason") == "aborted":
                    self.chat.abort_stream(message)
                else:
                    self.chat.end_stream(message)
                self._streaming = False
                self._chat_leaf = entry_id  # the live row became this message
                if message.get("stopReason") == "error":
                    self.chat.show_error(str(message.get("errorMessage") or "The request failed"))
            case RetryScheduled(attempt=attempt, delay_ms=delay_ms, error=error):
                self.statusBar().showMessage(f"Retrying in {delay_ms / 1000:.1f} s (attempt {attempt}): {error}", 8000)
                self._streaming = True
                self.chat.begin_stream()
            case WaitingForServer(seconds=seconds):
                self.statusBar().showMessage(f"Waiting for the server… {seconds:.0f} s (Esc to stop)", 1500)
            case TurnFinished():
                self._streaming = False
                self.chat.set_busy(False)
                if self._chat_leaf == self.agent.session.leaf_id:
                    self._meter_timer.start()  # the rows already match the context
                else:
                    self._refresh_chat()
            case CompactionStarted(reason=reason):
                self.statusBar().showMessage(
                    "Compacting context… (Esc to cancel)" if reason == "manual" else "Auto-compacting… (Esc to cancel)"
                )
            case CompactionProgress(chars=chars):
                self.statusBar().showMessage(f"Compacting context… {chars:,} characters received (Esc to cancel)")
            case CompactionFinished():
                self.statusBar().showMessage("Compacted.", 5000)
                self._refresh_chat()
            case CompactionFailed(error=error):
                self.statusBar().showMessage(error, 8000)
            case BranchSummaryStarted():
                self.statusBar().showMessage("Summarizing the branch you are leaving… (Esc to cancel)")
            case BranchSummaryFinished():
                self.statusBar().clearMessage()
            case SessionChanged():
                self._bind_session()
            case AgentError(message=message):
                self.chat.show_error(message)
            case ReplyRecovered(path=path, message=message):
                self.chat.show_error(f"{message}. The reply was saved to {path}")
            case _:
                assert_never(event)

    def _poll_external(self) -> None:
        try:
            self.agent.session.poll_external_changes()
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
                self._streaming = False
                self._refresh_chat()

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
        self.run_task(self.agent.compact(), "Compaction")

    def _guarded(self, what: str, action: Callable[[], Any]) -> Any:
        """Run a menu/toolbar action; a failure is shown in the status bar, never raised into Qt."""
        try:
            return action()
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.statusBar().showMessage(f"{what}: {exc}", 8000)
            return None

    def _set_thinking(self, level: str) -> None:
        self._guarded("Thinking level", lambda: self.agent.set_thinking_level(level))
        self._sync_thinking()

    def _on_node_activated(self, entry_id: str) -> None:
        if self.agent.busy or entry_id == self.agent.session.leaf_id:
            return
        summarize, custom = self._ask_summary()
        if summarize is None:
            return
        self.run_task(self._navigate(entry_id, summarize, custom), "Switching branch")

    async def _navigate(self, entry_id: str, summarize: bool, custom: str | None) -> None:
        result = await self.agent.navigate_tree(entry_id, summarize=summarize, custom_instructions=custom)
        if result.editor_text:
            self.chat.set_editor_text(result.editor_text)  # the chat itself follows the leaf_moved event

    def _ask_summary(self) -> tuple[bool | None, str | None]:
        """pi's question when leaving a branch: no summary, summarize, or summarize with a focus."""
        if self.settings.branch_summary.skip_prompt:
            return False, None
        box = QMessageBox(self)
        box.setWindowTitle("Switch branch")
        box.setText("Summarize the branch you are leaving?")
        no = box.addButton("No summary", QMessageBox.ButtonRole.AcceptRole)
        yes = box.addButton("Summarize", QMessageBox.ButtonRole.YesRole)
        focus = box.addButton("Summarize with custom focus…", QMessageBox.ButtonRole.ActionRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        remember = QCheckBox("Don't ask again (never summarize)", box)
        box.setCheckBox(remember)
        box.exec()
        clicked = box.clickedButton()
        if clicked is no:
            if remember.isChecked():
                self.settings.branch_summary.skip_prompt = True
                self.settings.save_value(("branchSummary", "skipPrompt"), True)
            return False, None
        if clicked is yes:
            return True, None
        if clicked is focus:
            text, ok = QInputDialog.getMultiLineText(self, "Summary focus", "What should the summary focus on?")
            return (True, text.strip() or None) if ok else (None, None)
        return None, None

    def fork_selected(self) -> None:
        entry_id = self.graph.selected_entry()
        if not entry_id:
            self.statusBar().showMessage("Select a user message to fork from.", 5000)
            return
        if self.agent.busy:
            self.statusBar().showMessage("Stop the running reply before forking.", 5000)
            return
        result = self._guarded("Fork", lambda: self.agent.fork(entry_id))
        if result is not None and result.editor_text:
            self.chat.set_editor_text(result.editor_text)

    def label_selected(self) -> None:
        entry_id = self.graph.selected_entry()
        if not entry_id:
            return
        current = self.agent.session.get_label(entry_id) or ""
        text, ok = QInputDialog.getText(self, "Label", "Label (empty clears it):", text=current)
        if ok:
            self._guarded("Label", lambda: self.agent.set_label(entry_id, text))

    def new_session(self) -> None:
        if self.agent.busy:
            self.statusBar().showMessage("Stop the running reply before starting a new session.", 5000)
            return
        self._guarded("New session", self.agent.new_session)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open session", str(Path.home()), "Sessions (*.jsonl);;All files (*)")
        if path:
            self.open_path(path)

    def open_path(self, path: str) -> None:
        if self.agent.busy:
            self.statusBar().showMessage("Stop the running reply before opening another session.", 5000)
            return
        try:
            self.agent.open_session_file(path)
        except SessionOpenError as exc:  # shown to the user, nothing is lost
            QMessageBox.warning(self, "Cannot open session", str(exc))

    # ============================================================================ graph side panel

    def _on_compaction_selected(self, audit: Any) -> None:
        self.audit_panel.set_audit(audit)
        self.audit_panel.setVisible(audit is not None)

    def _on_branch_summary_selected(self, info: Any) -> None:
        self.audit_panel.set_branch_summary(info)
        self.audit_panel.setVisible(info is not None)

    def _on_search(self, text: str) -> None:
        count = self.graph.search(text) if text else 0
        if not text:
            self.graph.clear_search()
        self.statusBar().showMessage(f"{count} match(es)" if text else "", 3000)

    def _next_match(self) -> None:
        self.graph.next_match()

    def _focus_search(self) -> None:
        self.search_box.setFocus()
        self.search_box.selectAll()

    # ============================================================================ closing

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        self._follow_timer.stop()
        self.agent.abort()
        self.graph.shutdown()
        self.agent.session.close()
        self.closed.emit()
        super().closeEvent(event)
