"""What makes the main window a place to live in, around the session it shows (issue 11).

The Sessions panel left of the graph (collapsible, Ctrl+Shift+E), the recent-sessions menu, the
window title (the session's name or first message, then "— Arbor"), the Open dialog starting in the
sessions folder, the window geometry and splitter sizes restored from the UI state, the Settings
dialog (Ctrl+,) and the model picker in the status bar, the theme, the "Add API key…" button on the
offline banner, and the keys help (F1). Kept out of
``main_window.py`` so the window's session logic stays where it is; the window calls
:meth:`WindowShell.session_bound`, :meth:`session_event` and :meth:`save`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QMainWindow,
    QMenu,
    QPushButton,
    QSplitter,
    QTabWidget,
    QToolBar,
    QToolButton,
    QWidget,
)

from desktop_app.agent import AgentSession
from desktop_app.agent.providers import make_provider
from desktop_app.present.keys_help import tooltip_with_shortcut
from desktop_app.present.sessions import SessionSources, window_title
from desktop_app.present.settings_form import SettingsForm, apply_form, changed_values, form_from_settings
from desktop_app.present.window_state import UiState
from desktop_app.session import EntryAppended, ExternalAppend, Reloaded, SessionEvent
from desktop_app.session.kinds import EntryKind, kind_of
from desktop_app.settings import Settings

from .help import KeysDialog
from .model_picker import ModelPicker
from .plain import plain_text
from .sessions_panel import SessionsPanel
from .settings_dialog import SettingsDialog
from .status_bar import ArborStatusBar
from .theme import apply_theme

__all__ = ["WindowShell"]

MAIN_SPLITTER = "main"
RIGHT_SPLITTER = "right"
PANEL_VISIBLE = "sessionsPanel"
GRAPH_ROOM = 360
"""When the window narrows, the sessions panel gives up its width (down to collapsed) before the
graph gets narrower than this."""


class _ResizeWatch(QObject):
    """Calls back (once the layout has settled) after the watched window is resized."""

    def __init__(self, callback: Callable[[], None]) -> None:
        super().__init__()
        self._callback = callback

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Resize:
            QTimer.singleShot(0, self._callback)
        return False


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
        self._narrowing_guard = _ResizeWatch(self.make_room_for_graph)
        self._shown_width: int | None = None  #: the window's width when last seen on screen
        side = getattr(window, "sidebar", None)  # one tabbed side column: Sessions, Outline, Context
        self.side: QTabWidget | None = side if isinstance(side, QTabWidget) else None
        if self.side is not None:
            self.side.insertTab(0, self.panel, "Sessions")
            self.side.setTabToolTip(0, "Your sessions and pi's, by working folder (Ctrl+Shift+E)")
            self.column: QWidget = self.side
        else:
            splitter.insertWidget(0, self.panel)
            self.column = self.panel
        splitter.setCollapsible(0, True)
        splitter.setStretchFactor(0, 0)
        window.installEventFilter(self._narrowing_guard)

        self.toggle_panel = QAction("Sessions", window)
        self.toggle_panel.setCheckable(True)
        self.toggle_panel.setChecked(True)
        self.toggle_panel.setShortcut(QKeySequence("Ctrl+Shift+E"))
        self.toggle_panel.setToolTip("Show or hide the sessions panel (Ctrl+Shift+E)")
        self.toggle_panel.triggered.connect(lambda _checked=False: self.set_panel_visible(not self.panel_shown()))
        if self.side is not None:  # a click on a tab is a toggle too
            self.side.currentChanged.connect(lambda _i: self.toggle_panel.setChecked(self._panel_current()))
        window.addAction(self.toggle_panel)
        self._window_action("New in folder…", "Ctrl+Shift+N", "New session in a folder you choose", self.panel.new_session)
        self.settings_action = self._window_action("Settings…", "Ctrl+,", "Settings and API key", self.open_settings)
        self.help_action = self._window_action("Keys", "F1", "Show every key", self.show_keys)
        self.recent_menu = QMenu("Recent", window)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.settings_dialog: SettingsDialog | None = None
        self.keys_dialog: KeysDialog | None = None
        self.model_picker = ModelPicker(window)
        self.model_picker.picked.connect(self.pick_model)
        self.model_picker.settings_requested.connect(self.open_settings)
        status = window.statusBar()
        if isinstance(status, ArborStatusBar):
            status.use_model_picker(self.model_picker)  # the model once: the picker replaces the label
        else:
            status.insertPermanentWidget(0, self.model_picker)
        self.add_key_button = QPushButton("Add API key…")
        self.add_key_button.setObjectName("addApiKey")
        self.add_key_button.setToolTip("Enter an Anthropic API key (kept in the system keyring) (Ctrl+,)")
        self.add_key_button.clicked.connect(lambda: self.open_settings(focus_key=True))
        self._install_banner_button()
        self._install_toolbar()
        self._restore()
        self.model_changed()
        self.name_shortcuts()

    def name_shortcuts(self) -> None:
        """Every action's tooltip names its shortcut (issue 11 item 6), whoever made the action."""
        for action in self.window.findChildren(QAction):
            shortcut = action.shortcut().toString()
            if shortcut:
                tip = action.toolTip() or action.text().replace("&", "")
                action.setToolTip(plain_text(tooltip_with_shortcut(tip, shortcut)))

    def _window_action(self, text: str, keys: str, tip: str, slot: Callable[[], object]) -> QAction:
        action = QAction(text, self.window)
        action.setShortcut(QKeySequence(keys))
        action.setToolTip(plain_text(tooltip_with_shortcut(tip, action.shortcut().toString())))
        action.triggered.connect(slot)
        self.window.addAction(action)
        return action

    def _install_banner_button(self) -> None:
        """The offline banner gets an "Add API key…" button (the banner itself is the chat's)."""
        banner = getattr(getattr(self.window, "chat", None), "info_banner", None)
        layout = banner.layout() if banner is not None else None
        if layout is not None and hasattr(layout, "insertWidget"):
            layout.insertWidget(1, self.add_key_button)

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
        bar.addAction(self.settings_action)
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
            action = self.recent_menu.addAction(Path(path).name.replace("&", "&&"))  # no mnemonic
            action.setToolTip(plain_text(path))
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
        self.set_panel_visible(state.flag(PANEL_VISIBLE, True))

    # ============================================================================ state

    def make_room_for_graph(self) -> None:
        """The graph keeps :data:`GRAPH_ROOM` pixels while the sessions panel has width to give.

        Only when the window narrows: the sizes it opens with (restored from the last run, or
        set by the user since) are left as they are.
        """
        graph = getattr(self.window, "graph", None)
        index = self.splitter.indexOf(graph) if isinstance(graph, QWidget) else -1
        sizes = self.splitter.sizes()
        if index <= 0 or not self.window.isVisible():
            return
        width, before = self.window.width(), self._shown_width
        self._shown_width = width
        if before is None or width >= before:
            return
        if not sizes[0]:
            return
        deficit = GRAPH_ROOM - sizes[index]
        if deficit <= 0:
            return
        give = min(deficit, sizes[0])
        if sizes[0] - give < self.column.minimumSizeHint().width():
            give = sizes[0]  # too narrow to be useful: collapsed (the splitter handle brings it back)
        sizes[0] -= give
        sizes[index] += give
        self.splitter.setSizes(sizes)

    def _panel_current(self) -> bool:
        """The sessions list is the side column's page on top (or, without a column, not hidden)."""
        if self.side is not None:
            return self.side.currentWidget() is self.panel and not self.side.isHidden()
        return not self.panel.isHidden()

    def panel_shown(self) -> bool:
        """The panel is on screen with some width (its tab on top, not collapsed by the splitter)."""
        return self._panel_current() and bool(self.splitter.sizes()[:1] and self.splitter.sizes()[0])

    def set_panel_visible(self, visible: bool) -> None:
        """Show the sessions list (its tab on top of the side column, with width) or put it away (the
        column shows the outline instead; Ctrl+Shift+E brings the list back)."""
        if self.side is not None:
            if visible:
                self.side.setCurrentWidget(self.panel)
            elif self.side.currentWidget() is self.panel:
                self.side.setCurrentIndex(1 if self.side.count() > 1 else 0)
        else:
            self.panel.setVisible(visible)
        if self.toggle_panel.isChecked() != visible:
            self.toggle_panel.setChecked(visible)
        if visible:
            sizes = self.splitter.sizes()
            if sizes and sizes[0] == 0 and self.window.isVisible():  # collapsed by a narrow window
                widest = max(range(1, len(sizes)), key=lambda i: sizes[i])
                width = min(self.column.sizeHint().width(), sizes[widest] // 2)
                sizes[0], sizes[widest] = width, sizes[widest] - width
                self.splitter.setSizes(sizes)
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
            if isinstance(event, EntryAppended) and kind_of(event.entry) is EntryKind.SESSION_INFO:
                self.panel.refresh()

    # ============================================================================ model, settings, keys

    def model_changed(self) -> None:
        """The agent's model may have changed: the picker and the offline banner's button follow."""
        provider = "offline" if self.agent.is_offline else str(self.agent.model.provider)
        self.model_picker.set_current(provider, str(self.agent.model.id))
        self.add_key_button.setVisible(self.agent.is_offline)

    def open_settings(self, focus_key: bool = False) -> SettingsDialog:
        """Show the Settings dialog (not modal to the window's work); OK applies and saves it."""
        if self.settings_dialog is not None:
            self.settings_dialog.raise_()
            return self.settings_dialog
        reasoning = bool(getattr(self.agent.model, "reasoning", False))
        dialog = SettingsDialog(
            form_from_settings(self.settings), self.window, thinking=self.agent.thinking_level, reasoning=reasoning
        )
        self.settings_dialog = dialog

        def finished(result: int) -> None:
            self.settings_dialog = None
            if result == QDialog.DialogCode.Accepted:
                self.apply_settings(dialog.initial, dialog.form, key_changed=dialog.key_saved_to is not None)
            dialog.deleteLater()

        dialog.finished.connect(finished)
        dialog.open()
        if focus_key:
            dialog.focus_key()
        return dialog

    def apply_settings(self, before: SettingsForm, after: SettingsForm, *, key_changed: bool = False) -> list[str]:
        """Save what changed (pi's names) and put it to work: theme now, model now (or after the reply).

        Returns the problems to show (a settings file that cannot be written: the values last this run).
        """
        problems = [
            f"Could not save {'.'.join(keys)} to {self.settings.path}; it applies until Arbor quits."
            for keys, value in changed_values(before, after)
            if not self.settings.save_value(keys, value)
        ]
        apply_form(self.settings, after)
        if before.theme != after.theme:
            apply_theme(after.theme)
        model_fields = (before.provider, before.model, before.base_url) != (after.provider, after.model, after.base_url)
        if model_fields or key_changed:
            self.switch_model()
        for problem in problems:
            self.window.statusBar().showMessage(problem, 10_000)
        return problems

    def switch_model(self) -> bool:
        """Give the agent the provider the settings now describe (offline without a key)."""
        if self.agent.busy:
            self.window.statusBar().showMessage("Stop the running reply to change the model.", 6000)
            return False
        try:
            self.agent.set_model(make_provider(self.settings, offline_on_invalid_key=True))
        except Exception as exc:  # noqa: BLE001 - a read-only session, a refused write: shown, not raised
            self.window.statusBar().showMessage(f"Model: {exc}", 8000)
            return False
        changed = getattr(self.window, "model_changed", None)
        if callable(changed):
            changed()
        else:
            self.model_changed()
        return True

    def pick_model(self, provider: str, model_id: str) -> None:
        """A model chosen in the picker: saved as the setting and used from the next turn."""
        before = form_from_settings(self.settings)
        after = replace(before, provider=provider, model=model_id)
        self.apply_settings(before, after)
        if provider != "offline" and self.agent.is_offline:
            self.window.statusBar().showMessage("No API key yet: add one to chat with Claude.", 8000)
            self.open_settings(focus_key=True)

    def show_keys(self) -> KeysDialog:
        """F1: every key of the window."""
        self.name_shortcuts()
        if self.keys_dialog is not None:
            self.keys_dialog.close()
        self.keys_dialog = KeysDialog(self.window)
        self.keys_dialog.show()
        return self.keys_dialog

    def save(self) -> None:
        """Remember geometry, splitter sizes and the panel's visibility (on close)."""
        state = self.ui_state
        if state is None:
            return
        state.set_geometry(bytes(self.window.saveGeometry().data()))
        state.set_splitter_sizes(MAIN_SPLITTER, self.splitter.sizes())
        state.set_splitter_sizes(RIGHT_SPLITTER, self.right.sizes())
        state.set_flag(PANEL_VISIBLE, self._panel_current())

    def shutdown(self) -> None:
        self.save()
        self.panel.shutdown()

