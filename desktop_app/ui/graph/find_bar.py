"""The find bar over the graph: a field, "2 of 4", previous / next, Esc to clear.

It drives a :class:`GraphView` (``search``, ``next_match``, ``previous_match``, ``clear_search``)
and shows the view's ``search_changed`` status, so the count never disappears after Enter.
Keys: typing searches, Enter next, Shift+Enter previous (F3 / Shift+F3 window-wide, bound by
:meth:`FindBar.install_shortcuts`), Esc clears the search and gives the keyboard back to the graph.
Esc is claimed through ``ShortcutOverride`` so the window's Esc (Stop) does not take it (issue 9.8).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from ..plain import plain_label, plain_text
from .view import GraphView

__all__ = ["FindBar", "FindField"]


class FindField(QLineEdit):
    """The find bar's line edit: Enter / Shift+Enter step, Esc clears and leaves."""

    step = Signal(int)
    escaped = Signal()

    def event(self, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Escape
        ):
            event.accept()  # ours, not the window's Stop
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt API)
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.step.emit(-1 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 1)
            event.accept()
            return
        if key == Qt.Key.Key_Escape:
            self.escaped.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class FindBar(QWidget):
    """Find in the tree (see the module docstring)."""

    def __init__(self, graph: GraphView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._graph = graph
        self.field = FindField(self)
        self.field.setPlaceholderText("Find in the tree (Ctrl+F)")
        self.field.setClearButtonEnabled(True)
        self.field.setMinimumWidth(180)
        self.field.setMaximumWidth(280)
        self.status = plain_label(QLabel(self))
        self.status.setMinimumWidth(70)
        self.status.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.previous_button = self._button("▲", "Previous match (Shift+Enter, Shift+F3)", -1)
        self.next_button = self._button("▼", "Next match (Enter, F3)", 1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.field)
        layout.addWidget(self.status)
        layout.addWidget(self.previous_button)
        layout.addWidget(self.next_button)
        self.field.textChanged.connect(self._on_text)
        self.field.step.connect(self.step)
        self.field.escaped.connect(self.close_search)
        graph.search_changed.connect(self._show_status)
        self._show_status("")

    def _button(self, text: str, tip: str, step: int) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(plain_text(tip))
        button.setAutoRaise(True)
        button.clicked.connect(lambda: self.step(step))
        return button

    def install_shortcuts(self, window: QWidget) -> list[QAction]:
        """F3 / Shift+F3 anywhere in ``window``; Ctrl+F focuses the field."""
        actions = []
        for keys, slot in (
            (QKeySequence.StandardKey.FindNext, lambda: self.step(1)),
            (QKeySequence.StandardKey.FindPrevious, lambda: self.step(-1)),
            (QKeySequence.StandardKey.Find, self.focus_field),
        ):
            action = QAction(self)
            action.setShortcuts(QKeySequence.keyBindings(keys) or [QKeySequence(keys)])
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(slot)
            window.addAction(action)
            actions.append(action)
        return actions

    def focus_field(self) -> None:
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()

    def _on_text(self, text: str) -> None:
        if text.strip():
            self._graph.search(text)
        else:
            self._graph.clear_search()

    def step(self, step: int) -> None:
        """Next (``1``) or previous (``-1``) match; typed text not yet searched is searched first."""
        if not self.field.text().strip():
            return
        if step > 0:
            self._graph.next_match()
        else:
            self._graph.previous_match()

    def close_search(self) -> None:
        """Esc: clear the query and the highlights, give the keyboard back to the graph."""
        self.field.clear()
        self._graph.clear_search()
        self._graph.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _show_status(self, status: str) -> None:
        self.status.setText(status)
        none = status == "No matches"
        self.status.setStyleSheet("color: #c92a2a;" if none else "")
        enabled = bool(status) and not none
        self.previous_button.setEnabled(enabled)
        self.next_button.setEnabled(enabled)
