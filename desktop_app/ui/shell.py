"""What makes the main window a place to live in, around the session it shows (issue 11).

The Sessions panel left of the graph (collapsible, Ctrl+Shift+E), the recent-sessions menu, the
window title (the session's name or first message, then "— Arbor"), the Open dialog starting in the
sessions folder, and the window geometry and splitter sizes restored from the UI state. Kept out of
``main_window.py`` so the window's session logic stays where it is; the window calls
:meth:`WindowShell.session_bound`, :meth:`session_event` and :meth:`save`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QSplitter, QToolBar, QToolButton

from desktop_app.agent import AgentSession
from desktop_app.present.sessions import SessionSources, window_title
from desktop_app.session import EntryAppended, ExternalAppend, Reloaded, SessionEvent
from desktop_app.settings import Settings

from .sessions_panel import SessionsPanel
from .state import UiState

__all__ = ["WindowShell"]

MAIN_SPLITTER = "main"
RIGHT_SPLITTER = "right"
PANEL_VISIBLE = "sessionsPanel"
DEFAULT_SIZES = [280, 820, 560]


class WindowShell:
    """Builds the Sessions panel and the window chrome into ``window`` and keeps them current."""

    def __init__(
        self,
        window: QMainWindow,
        agent: AgentSession,
        settings: Settings,
        ui_state: UiState | None,
        splitters: tuple[QSplitter, QSplitter],
        open_path: Callable[[str], None],
    ) -> None:
        self.window = window
        self.agent = agent
        self.settings = settings
        self.splitter, self.right = splitter, right = splitters
        self.ui_state = ui_state
        self.open_path = open_path
        self.sources = SessionSources(settings.sessions_root or None)
        self.panel = SessionsPanel(agent, self.sources, window)
        self.panel.open_requested.connect(open_path)
        splitter.insertWidget(0, self.panel)
        splitter.setCollapsible(0, True)
        splitter.setStretchFactor(0, 0)
        splitter.setSizes(DEFAULT_SIZES)

        self.toggle_panel = QAction("Sessions", window)
        self.toggle_panel.setCheckable(True)
        self.toggle_panel.setChecked(True)
        self.toggle_panel.setShortcut(QKeySequence("Ctrl+Shift+E"))
        self.toggle_panel.setToolTip("Show or hide the sessions panel (Ctrl+Shift+E)")
        self.toggle_panel.toggled.connect(self.set_panel_visible)
        window.addAction(self.toggle_panel)
        new_in_folder = QAction("New in folder…", window)
        new_in_folder.setShortcut(QKeySequence("Ctrl+Shift+N"))
        new_in_folder.triggered.connect(self.panel.new_session)
        window.addAction(new_in_folder)
        self.recent_menu = QMenu("Recent", window)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._install_toolbar()
        self._restore()

    # ============================================================================ building

    def _install_toolbar(self) -> None:
        bar = self.window.findChild(QToolBar, "mainToolbar")
        if bar is None:
            return
        first = bar.actions()[0] if bar.actions() else None
        if first is not None:
            bar.insertAction(first, self.toggle_panel)
        else:
            bar.addAction(self.toggle_panel)
        recent = QToolButton(bar)
        recent.setText("Recent")
        recent.setToolTip("Recently opened sessions")
        recent.setMenu(self.recent_menu)
        recent.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        actions = bar.actions()
        opener = next((a for a in actions if a.text().startswith("Open")), None)
        after = actions[actions.index(opener) + 1] if opener is not None and actions.index(opener) + 1 < len(actions) else None
        if after is not None:
            bar.insertWidget(after, recent)
        else:
            bar.addWidget(recent)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        paths = [p for p in self.recent_paths() if Path(p).is_file()]
        if not paths:
            none = self.recent_menu.addAction("No recent sessions")
            none.setEnabled(False)
            return
        for path in paths:
            action = self.recent_menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.setData(path)
            action.triggered.connect(lambda _checked=False, p=path: self.open_path(p))

    def recent_paths(self) -> list[str]:
        return self.ui_state.recent() if self.ui_state is not None else []

    def _restore(self) -> None:
        state = self.ui_state
        if state is None:
            return
        geometry = state.geometry()
        if geometry:
            self.window.restoreGeometry(geometry)
        sizes = state.splitter_sizes(MAIN_SPLITTER)
        if sizes and len(sizes) == self.splitter.count():
            self.splitter.setSizes(sizes)
        right = state.splitter_sizes(RIGHT_SPLITTER)
        if right and len(right) == self.right.count():
            self.right.setSizes(right)
        self.toggle_panel.setChecked(state.flag(PANEL_VISIBLE, True))

    # ============================================================================ state

    def set_panel_visible(self, visible: bool) -> None:
        self.panel.setVisible(visible)
        if self.toggle_panel.isChecked() != visible:
            self.toggle_panel.setChecked(visible)
        if visible:
            self.panel.refresh()

    def open_folder(self) -> str:
        """Where the Open dialog starts: the sessions folder (the current session's root), else home."""
        root = self.sources.arbor_root
        return str(root) if root.is_dir() else str(Path.home())

    def session_bound(self) -> None:
        """The window shows another session: title, recent list, panel highlight."""
        view = self.agent.view
        self.window.setWindowTitle(window_title(view))
        if self.ui_state is not None and view.session_file and Path(view.session_file).is_file():
            self.ui_state.add_recent(view.session_file)
        self.panel.refresh()

    def session_event(self, event: SessionEvent) -> None:
        """A name or a first message may have arrived: the title follows."""
        if isinstance(event, EntryAppended | ExternalAppend | Reloaded):
            self.window.setWindowTitle(window_title(self.agent.view))
            if isinstance(event, EntryAppended) and event.entry.get("type") == "session_info":
                self.panel.refresh()

    def save(self) -> None:
        """Remember geometry, splitter sizes and the panel's visibility (on close)."""
        state = self.ui_state
        if state is None:
            return
        state.set_geometry(bytes(self.window.saveGeometry().data()))
        state.set_splitter_sizes(MAIN_SPLITTER, self.splitter.sizes())
        state.set_splitter_sizes(RIGHT_SPLITTER, self.right.sizes())
        state.set_flag(PANEL_VISIBLE, self.panel.isVisibleTo(self.window))

    def shutdown(self) -> None:
        self.save()
        self.panel.shutdown()

