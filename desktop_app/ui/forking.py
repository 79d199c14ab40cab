"""Fork and clone from the window: where the new session opens, and what the window says about it.

The agent writes the new file into the sessions folder of the working folder (pi's layout; see
``AgentSession.fork``). Here (issue 22 item 4): it opens in place, or, with Ctrl or Shift held (or
"… in a new window" from the Fork/Clone buttons' menus), in a new Arbor window while this one
stays on the original; the sessions list selects it at once; the status line says in full what
happened, with "Open" (when it is not open here) and "Show in list". A new window of a session with
checkpoints is told this window's leaf (``--files-from``) and offers to restore the files itself.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Protocol

from PySide6.QtCore import QProcess, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QStatusBar

from desktop_app.agent import AgentSession, ForkResult
from desktop_app.present.file_changes import has_checkpoints
from desktop_app.present.sessions import fork_notice
from desktop_app.session import SessionManager

from .chat import ChatPanel
from .sessions_panel import SessionsPanel
from .shell import WindowShell
from .status_bar import ArborStatusBar
from .window_args import FILES_FROM

__all__ = ["Forker", "fork_to_file", "launch_window", "wants_new_window"]

Position = Literal["before", "at"]


def wants_new_window() -> bool:
    """Ctrl or Shift held while Fork or Clone was clicked (or a menu item chosen, or a node dropped).

    The keys held now, asked of the window system (``queryKeyboardModifiers``), not the modifiers of
    the last input event Qt saw: a Shift+drag's release would otherwise still say "Shift" when a
    menu item is chosen later, and open a window nobody asked for.
    """
    held = QGuiApplication.queryKeyboardModifiers()
    return bool(held & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier))


def launch_window(path: str, files_from: str | None = None) -> bool:
    """Start another Arbor on ``path`` (its own process, so either window can close first).
    ``files_from``: the leaf this window had, whose files the working folder holds; the new window
    offers to restore them to its own point (``--files-from``, issue 25)."""
    more = [FILES_FROM, files_from] if files_from is not None else []
    if getattr(sys, "frozen", False):  # the bundle: its launcher takes the file like `arbor FILE`
        program, arguments = sys.executable, [path, *more]
    else:
        program, arguments = sys.executable, ["-m", "desktop_app", path, *more]
    started, _pid = QProcess.startDetached(program, arguments)
    return bool(started)


def fork_to_file(agent: AgentSession, entry_id: str, position: Position) -> ForkResult:
    """Fork or clone into a new file without leaving the current session: the agent's own fork,
    run on a second handle of the same file, which then lets go of the new one."""
    view = agent.view
    if not view.session_file or view.read_only:
        raise ValueError("This session has no file of its own: fork it here instead")
    handle = SessionManager.open(view.session_file, fsync=agent.settings.fsync, profile=agent.session.profile)
    helper = AgentSession(handle, agent.provider, agent.settings)
    try:
        return helper.fork(entry_id, position)
    finally:
        helper.close()


class ForkingWindow(Protocol):
    """What :class:`Forker` uses of the main window (no import of it: no package cycle)."""

    @property
    def agent(self) -> AgentSession: ...

    @property
    def chat(self) -> ChatPanel: ...

    @property
    def status(self) -> ArborStatusBar: ...

    @property
    def sessions(self) -> SessionsPanel: ...

    @property
    def shell(self) -> WindowShell: ...

    def statusBar(self) -> QStatusBar: ...  # noqa: N802 - Qt's name

    def _guarded(self, what: str, action: Callable[[], Any]) -> Any: ...

    def open_path(self, path: str) -> None: ...


class Forker:
    """The window's fork and clone (toolbar, node menu, drag onto Fork or the sessions list)."""

    def __init__(self, window: ForkingWindow) -> None:
        self.window = window
        self.launch: Callable[..., bool] = launch_window
        """Starts a new window on a file (and, for a checkpointed session, the leaf whose files the
        folder holds: :func:`launch_window`); tests replace it."""

    def fork(self, entry_id: str, position: Position, new_window: bool | None = None) -> bool:
        """Fork (``before`` a user message) or clone (``at`` any entry); ``new_window`` ``None``:
        a new window when Ctrl or Shift is held."""
        window = self.window
        if window.agent.busy:
            window.statusBar().showMessage("Stop the running reply before forking.", 5000)
            return False
        if new_window is None:
            new_window = wants_new_window()
        entry = window.agent.view.get_entry(entry_id)
        if position == "before" and entry is not None and not isinstance(entry.get("parentId"), str):
            new_window = False  # the first message: nothing to copy, an empty session to open here
        what = "Fork" if position == "before" else "Clone"
        agent = window.agent
        cwd = agent.view.cwd
        came_from = agent.view.leaf_id if has_checkpoints(agent.view.index) else None  # the folder's point
        if new_window:
            result = window._guarded(what, lambda: fork_to_file(agent, entry_id, position))
        else:
            result = window._guarded(what, lambda: agent.fork(entry_id, position))
        if result is None:
            return False
        path = result.session_file
        kind = "fork" if position == "before" else "clone"
        if not new_window:
            if result.editor_text:
                window.chat.set_editor_text(result.editor_text)
            where = "here"
        else:
            launched = path and (self.launch(path, came_from) if came_from else self.launch(path))
            where = "window" if launched else "not-opened"
        panel = window.sessions
        if path and panel.search.text():
            panel.search.clear()  # a search could hide the new session: list everything
        if path:
            panel.select_session(path)
            if new_window:
                panel.refresh()  # this window's session did not change: list again for the new file
        actions: list[tuple[str, Callable[[], object]]] = []
        if path and where != "here":
            actions.append(("Open", lambda: window.open_path(path)))
        if path:
            actions.append(("Show in list", lambda: self.show_in_list(path)))
        written = bool(path) and Path(path or "").is_file()
        notice = fork_notice(kind, cwd, where, written=written or not path)
        window.status.show_notice(notice, path or "in memory (not saved)", actions)
        return True

    def show_in_list(self, path: str) -> None:
        """The sessions panel on screen, the new session selected and in view."""
        shell = self.window.shell
        shell.set_panel_visible(True)
        shell.panel.select_session(path)
        shell.panel.tree.setFocus()
