"""F1: a window listing every key (``present.keys_help`` decides the rows; this draws them)."""

from __future__ import annotations

from html import escape

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from desktop_app.present.keys_help import KeySection, help_sections

__all__ = ["KeysDialog", "window_shortcuts"]


def window_shortcuts(window: QWidget) -> list[tuple[str, str]]:
    """``(text, shortcut)`` of the window's actions that have a shortcut, in the order they were added."""
    found: list[tuple[str, str]] = []
    for action in window.findChildren(QAction):
        shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        if shortcut and action.text():
            found.append((action.text(), shortcut))
    return found


def _html(sections: tuple[KeySection, ...]) -> str:
    parts = []
    for section in sections:
        rows = "".join(
            f"<tr><td style='padding:2px 16px 2px 0; white-space:nowrap;'><b>{escape(row.keys)}</b></td>"
            f"<td style='padding:2px 0;'>{escape(row.what)}</td></tr>"
            for row in section.rows
        )
        parts.append(f"<h3 style='margin:10px 0 4px 0;'>{escape(section.title)}</h3><table>{rows}</table>")
    return "".join(parts)


class KeysDialog(QDialog):
    """The keys of the window, the chat, the tree and the sessions panel."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.setWindowTitle("Keys — Arbor")
        self.setObjectName("keysDialog")
        self.sections = help_sections(window_shortcuts(window))
        self.text = QTextBrowser(self)
        self.text.setOpenLinks(False)
        self.text.setHtml(_html(self.sections))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, parent=self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
        self.resize(560, 620)
