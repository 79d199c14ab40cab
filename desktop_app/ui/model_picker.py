"""The model picker: a button showing the model and its context window, with a menu of the others.

Used in the status bar (and anywhere else a window wants one). The entries come from
``present.settings_form.model_choices`` (the model catalog); picking one emits :attr:`picked`, and
the window decides what that means (save the setting, switch the agent's provider).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from desktop_app.present.settings_form import PROVIDERS, model_choices, model_label

__all__ = ["ModelPicker"]


class ModelPicker(QToolButton):
    """``Claude Sonnet 4.5 · 200k context ▾``; the menu lists every model with its context window."""

    picked = Signal(str, str)  # provider, model id
    settings_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelPicker")
        self.setAutoRaise(True)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setToolTip("Choose the model (its context window decides when Arbor compacts)")
        self._menu = QMenu(self)
        self._menu.aboutToShow.connect(self._fill)
        self.setMenu(self._menu)
        self._provider = "offline"
        self._model = ""

    def set_current(self, provider: str, model_id: str) -> None:
        """Show the model in use (``provider`` ``offline`` for the offline model)."""
        self._provider, self._model = provider, model_id
        self.setText(model_label(model_id))

    def current(self) -> tuple[str, str]:
        return self._provider, self._model

    def _fill(self) -> None:
        self._menu.clear()
        group = QActionGroup(self._menu)
        for provider, title in PROVIDERS:
            self._menu.addSection(title)
            for choice in model_choices(provider, self._model if provider == self._provider else None):
                action = QAction(choice.label, self._menu)
                action.setCheckable(True)
                action.setChecked((provider, choice.id) == (self._provider, self._model))
                action.triggered.connect(lambda _c=False, p=provider, m=choice.id: self.picked.emit(p, m))
                group.addAction(action)
                self._menu.addAction(action)
        self._menu.addSeparator()
        self._menu.addAction("API key and settings…", self.settings_requested.emit)

    def menu_entries(self) -> list[str]:
        """The menu's entry texts (fills it first); for tests and the keys help."""
        self._fill()
        return [a.text() for a in self._menu.actions() if a.text()]
