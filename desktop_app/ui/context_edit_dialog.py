""""Edit text in context…": the text the model receives for one entry, in plain text, with the entry's
own text shown beside it and the token change (pi's estimate) updated as the user types, before saving.

Saving emits ``text_chosen(text)``; the window turns it into ``agent.edit_context(entry_id, text)`` (a
``context_edit`` entry: the entry itself is never rewritten). Cancel or Esc emit nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_app.present.context_actions import TokenChange
from desktop_app.present.context_words import token_change_words

from .plain import plain_text

__all__ = ["ContextEditDialog"]


class ContextEditDialog(QDialog):
    """Emits ``text_chosen(text)`` on Save; ``change_of(text)`` gives the token change shown."""

    text_chosen = Signal(str)

    def __init__(
        self,
        entry_id: str,
        original: str,
        current: str,
        change_of: Callable[[str], TokenChange],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("contextEditDialog")
        self.setWindowTitle("Edit text in context")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.entry_id = entry_id
        self._change_of = change_of
        intro = QLabel(
            f"The text the model receives for entry {entry_id} from now on. The entry itself stays as it "
            "was: this writes a context edit, undone by “Restore original text” or by moving the leaf back.",
            self,
        )
        intro.setWordWrap(True)
        original_title = QLabel("Original text:", self)
        self.original = QPlainTextEdit(original, self)
        self.original.setObjectName("contextEditOriginal")
        self.original.setReadOnly(True)
        self.original.setMaximumHeight(140)
        edit_title = QLabel("&Text in the context:", self)
        self.editor = QPlainTextEdit(current, self)
        self.editor.setObjectName("contextEditText")
        edit_title.setBuddy(self.editor)
        self.change = QLabel("", self)
        self.change.setObjectName("contextEditChange")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(original_title)
        layout.addWidget(self.original)
        layout.addWidget(edit_title)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.change)
        layout.addWidget(self.buttons)
        self._timer = QTimer(self)  # estimating on every key is cheap, but a paste of 1 MB is not
        self._timer.setSingleShot(True)
        self._timer.setInterval(120)
        self._timer.timeout.connect(self.update_change)
        self.editor.textChanged.connect(self._timer.start)
        self.accepted.connect(lambda: self.text_chosen.emit(self.editor.toPlainText()))
        self.finished.connect(lambda _r: self.deleteLater())
        self.update_change()
        self.resize(620, 520)

    def update_change(self) -> None:
        """The token change of the text as it stands (Save stays off while it equals the text now)."""
        text = self.editor.toPlainText()
        change = self._change_of(text)
        self.change.setText(token_change_words(change))
        save = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        save.setEnabled(bool(text.strip()))
        save.setToolTip(plain_text("" if text.strip() else "An empty text cannot be saved; use “Hide from context” instead"))
