"""Binding the agent's session to the window: at once, or over a few event-loop turns.

A session opened or switched to is bound at once (:meth:`SessionBinding.bind`). A big session's
whole file, installed after its first picture (``SessionManager.open(defer=True)``), is bound
again in three steps, each on its own event-loop turn (:meth:`SessionBinding.install_in_turns`):
the graph (and the status bar) first, the chat's context (and the meter, the sibling arrows) a
turn later, then the panels (files, fork actions, banners, the open report, the shell). Issue 28:
done in one turn, the install was the longest gap left after the first picture (35–83 ms at
100,000 entries on a loaded machine: the neighbourhood again, the chat's context, the panels, then
the graph's and the chat's paints in the same pass). The steps are the same code in the same
order either way, so what the window shows once they have run is the same.

Another bind (a session switch) while steps are pending drops them: it does them all itself.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer

from desktop_app.agent import AgentSession
from desktop_app.present.chat_feed import ChatFeed, ChatUpdate
from desktop_app.present.context_meter import ContextMeterState
from desktop_app.present.window_state import UiState
from desktop_app.session import SessionEvent

from .chat import ChatPanel
from .continue_banner import ContinueBanner
from .folder_banner import FolderBanner
from .graph.view import GraphView
from .restore_offer import FilesFollow
from .status_bar import ArborStatusBar


class Window(Protocol):
    """What of the main window a bind uses (``ui.main_window.MainWindow``; no import of it here:
    the window imports this module)."""

    agent: AgentSession
    ui_state: UiState | None
    graph: GraphView
    status: ArborStatusBar
    feed: ChatFeed
    chat: ChatPanel
    files: FilesFollow
    folder_banner: FolderBanner
    continue_banner: ContinueBanner
    _meter: ContextMeterState
    steering: Any  # ui.steering.Steering: session_bound()
    shell: Any  # ui.shell.WindowShell: session_bound(), model_changed()

    def _on_session_event(self, event: SessionEvent) -> None: ...
    def _apply_chat(self, updates: list[ChatUpdate]) -> None: ...
    def _sync_thinking(self) -> None: ...
    def _sync_fork_actions(self) -> None: ...
    def show_open_report(self) -> None: ...


__all__ = ["OFFLINE_BANNER", "STEP_GAP_MS", "SessionBinding"]

OFFLINE_BANNER = (
    "Offline model: replies describe what the model would receive. "
    "Add an API key (or set ANTHROPIC_API_KEY) to chat with Claude."
)

#: The next step of an install runs on a timer this long after the last (a timer, not a posted
#: call: Qt runs every posted call in one pass with the paints; timers each in their own turn).
STEP_GAP_MS = 1


class SessionBinding(QObject):
    """Binds :attr:`MainWindow.agent`'s session to the window's graph, chat and panels."""

    def __init__(self, window: Window, parent: QObject) -> None:
        super().__init__(parent)
        self._window = window
        self._unsubscribe: Callable[[], None] | None = None
        self._pending: Generator[str, None, None] | None = None
        #: the steps the last bind ran, in order (tests: an install runs them a turn each)
        self.steps_done: list[str] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(STEP_GAP_MS)
        self._timer.timeout.connect(self._next)

    @property
    def pending(self) -> bool:
        """An install's later steps have not run yet."""
        return self._pending is not None

    def bind(self) -> None:
        """Every step now (at start and whenever the agent switches to another session)."""
        self.cancel()
        self.steps_done = []
        for name in self._steps():
            self.steps_done.append(name)

    def install_in_turns(self) -> None:
        """The graph's step now, each of the others on a later event-loop turn (module docstring)."""
        self.cancel()
        self.steps_done = []
        self._pending = self._steps()
        self._next()

    def cancel(self) -> None:
        """Drop an install's steps not run yet (the window closed, or a bind does them all)."""
        self._timer.stop()
        if self._pending is not None:
            self._pending.close()
            self._pending = None

    def _next(self) -> None:
        steps = self._pending
        if steps is None:
            return
        try:
            self.steps_done.append(next(steps))
        except StopIteration:
            self._pending = None
            return
        self._timer.start()

    def _steps(self) -> Generator[str, None, None]:
        """The binding, yielding after each part that ends in a paint of its own."""
        window = self._window
        agent = window.agent
        if window.ui_state is not None:
            remembered = window.ui_state.last_leaf(agent.view.session_file)
            if remembered and agent.session.loading and agent.view.get_entry(remembered) is None:
                agent.session.finish_loading(announce=False)  # the leaf left there is not parsed yet
            if remembered:
                agent.restore_leaf(remembered)  # where the user left this session (not stored in the file)
        view = agent.view
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._unsubscribe = view.subscribe(window._on_session_event)
        window.graph.set_session(view)
        window.status.set_session_file(view.session_file)
        window.status.set_following(view.session_file is not None and view.report.foreign is None)
        window.status.set_model(agent.model.id)
        window._sync_thinking()
        yield "graph"
        window._meter.reset()
        window._apply_chat(window.feed.bind(view))
        window.steering.session_bound()
        yield "chat"
        window.files.session_bound()
        window._sync_fork_actions()
        if agent.is_offline:
            window.chat.show_banner(OFFLINE_BANNER)
        else:
            window.chat.clear_banner()
        window.show_open_report()
        window.shell.session_bound()
        window.shell.model_changed()
        window.folder_banner.dismiss()  # said again when a tool of this session needs the folder
        window.continue_banner.session_bound(agent.view)
        yield "panels"
