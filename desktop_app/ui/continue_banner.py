"""``ContinueBanner``: a session from another program is shown read-only; "Continue in Arbor" makes it yours.

A Claude Code transcript opens converted, read-only (DESIGN.md §14): its tree, chat and compaction
audits are all there, but nothing is ever written to Claude Code's file. This strip above the
composer says so and offers the one way on: "Continue in Arbor" writes the conversation as a new pi
session in the sessions folder of its working folder (``AgentSession.continue_in_arbor``, the same
conversion as ``arbor import``), opens it and selects it in the sessions list. What the conversion
met that is worth knowing (a cycle broken, a leaf that named nothing) is in the tooltip.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QBoxLayout, QMessageBox, QPushButton

from desktop_app.agent import SessionOpenError
from desktop_app.session import SessionView

from .chat.banner import Banner
from .plain import plain_text

__all__ = ["ContinueBanner", "continue_text"]


def continue_text(foreign: str) -> str:
    """What the banner says (short: the chat can be narrow)."""
    return (f"A {foreign} session, shown read-only: its file is never changed. "
            "Continue in Arbor to chat on from here.")


class ContinueBanner(Banner):
    """An info strip with "Continue in Arbor", shown while a foreign session is open."""

    def __init__(self, window: Any) -> None:
        """``window``: the main window (its ``agent``, ``chat``, ``shell`` and status bar; not imported
        here, which would make the window and its parts import each other)."""
        super().__init__("info", window.chat)
        self.setObjectName("continueBanner")
        self.apply_theme(dark=False)
        self._window = window
        self._button = QPushButton("Continue in Arbor", self)
        self._button.setObjectName("continueInArbor")
        self._button.setToolTip("Write this conversation as a new Arbor session (pi's format) and open it")
        self._button.clicked.connect(self.continue_session)
        layout = self.layout()
        if isinstance(layout, QBoxLayout):
            layout.insertWidget(1, self._button)

    @property
    def button(self) -> QPushButton:
        return self._button

    def session_bound(self, view: SessionView) -> None:
        """Shown for a foreign session, hidden for any other."""
        foreign = view.report.foreign
        if foreign is None:
            self.dismiss()
            return
        self.apply_theme(dark=self.palette().color(QPalette.ColorRole.Window).lightnessF() < 0.5)
        self.show_text(continue_text(foreign))
        notes = "\n".join(f"• {note}" for note in view.report.notes)
        self.setToolTip(plain_text(f"{view.session_file}\n\n{notes}" if notes else str(view.session_file)))

    def continue_session(self) -> str | None:
        """The button's click: import, open, select in the list; a failure is said, nothing lost."""
        window = self._window
        try:
            path: str = window.agent.continue_in_arbor()
        except SessionOpenError as exc:
            QMessageBox.warning(window, "Continue in Arbor", plain_text(str(exc)))
            return None
        window.shell.panel.refresh()
        window.shell.panel.select_session(path)
        window.statusBar().showMessage(f"Continued in Arbor: {path}", 8000)
        return path


