"""``Banner``: a one-message strip above or below the chat, dismissable with its ✕ button.

Errors (a failed request, a refused file) and notices ("Offline model — add an API key ...") must
be seen without blocking the window, so they are banners, not dialogs. Text is shown as plain text:
an error string from a server is never interpreted as HTML.
"""

from __future__ import annotations

from typing import Any, Literal

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton

__all__ = ["Banner"]

_STYLES = {
    "error": ("#fff0ee", "#ff8182", "#82071e", "#2a1416", "#da3633", "#ffdcd7"),
    "info": ("#ddf4ff", "#80ccff", "#0a3069", "#0c2d4a", "#1f6feb", "#cae8ff"),
}


class Banner(QFrame):
    """A coloured strip with a label and a dismiss button; hidden until :meth:`show_text`."""

    dismissed = Signal()

    def __init__(self, kind: Literal["error", "info"], parent: Any = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.setObjectName(f"{kind}Banner")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self._label = QLabel(self)
        self._label.setTextFormat(Qt.TextFormat.PlainText)
        self._label.setWordWrap(True)
        self._label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._close = QToolButton(self)
        self._close.setText("✕")
        self._close.setToolTip("Dismiss")
        self._close.setAutoRaise(True)
        self._close.clicked.connect(self.dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 4, 6)
        layout.addWidget(self._label, 1)
        layout.addWidget(self._close, 0, Qt.AlignmentFlag.AlignTop)
        self.apply_theme(dark=False)
        self.hide()

    def apply_theme(self, dark: bool) -> None:
        light_fill, light_border, light_text, dark_fill, dark_border, dark_text = _STYLES[self.kind]
        fill, border, text = (
            (dark_fill, dark_border, dark_text) if dark else (light_fill, light_border, light_text)
        )
        self.setStyleSheet(
            f"#{self.objectName()} {{ background: {fill}; border: 1px solid {border}; border-radius: 6px; }}"
            f" #{self.objectName()} QLabel {{ color: {text}; background: transparent; }}"
            f" #{self.objectName()} QToolButton {{ color: {text}; border: none; padding: 2px 6px; }}"
        )

    def show_text(self, text: str) -> None:
        self._label.setText(text)
        self.show()

    def text(self) -> str:
        return self._label.text()

    def dismiss(self) -> None:
        if self.isVisible() or self._label.text():
            self._label.clear()
            self.hide()
            self.dismissed.emit()

    @property
    def close_button(self) -> QToolButton:
        return self._close
