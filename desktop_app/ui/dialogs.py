"""The questions Arbor asks before it writes an entry: the two before a summary, each showing what it
would summarize, and the label of a node.

* :class:`SummaryQuestion` — pi's "summarize the branch you are leaving?" with the abandoned branch's
  entry count, token estimate, first and last message (:class:`~desktop_app.present.branch_preview.BranchPreview`);
  No summary / Summarize / Summarize with focus…, and "don't ask again" (pi's ``branchSummary.skipPrompt``).
* :class:`CompactionDialog` — manual compaction's dry run (:class:`~desktop_app.present.compaction_preview.CompactionPreview`)
  with optional focus instructions (pi's ``/compact [text]``); "nothing would be summarized" is said
  and Compact is disabled. Once running it shows the progress, and Cancel stops the compaction
  (which then writes nothing). Auto-compaction shows the same progress.

* :class:`LabelDialog` — the node's label (Label… in the node menu and the toolbar, F2); empty clears it.

All are window-modal but never block the event loop (``open()``, not ``exec()``): the answer
arrives through a signal, so the agent's asyncio tasks keep running meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.present.branch_preview import BranchPreview
from desktop_app.present.compaction_preview import CompactionPreview

from .plain import plain_text

__all__ = ["CompactionDialog", "LabelDialog", "SummaryAnswer", "SummaryQuestion"]


@dataclass(frozen=True)
class SummaryAnswer:
    summarize: bool
    focus: str | None
    dont_ask_again: bool


def _facts(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setObjectName("previewFacts")
    return label


class SummaryQuestion(QDialog):
    """Emits ``answered(SummaryAnswer)``, or ``answered(None)`` when cancelled."""

    answered = Signal(object)

    def __init__(self, preview: BranchPreview, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("summaryQuestion")
        self.setWindowTitle("Switch branch")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.preview = preview
        self._answer: SummaryAnswer | None = None
        question = QLabel("Summarize the branch you are leaving?", self)
        font = question.font()
        font.setBold(True)
        question.setFont(font)
        self.facts = _facts(preview.describe() + "\nIts entries are highlighted on the graph.", self)
        self.focus_edit = QPlainTextEdit(self)
        self.focus_edit.setObjectName("summaryFocus")
        self.focus_edit.setPlaceholderText("What should the summary focus on?")
        self.focus_edit.setMaximumHeight(80)
        self.focus_edit.hide()
        self.dont_ask = QCheckBox("Don't ask again (never summarize)", self)
        self.no_button = QPushButton("&No summary", self)
        self.summarize_button = QPushButton("&Summarize", self)
        self.focus_button = QPushButton("Summarize with &focus…", self)
        self.cancel_button = QPushButton("Cancel", self)
        self.no_button.setDefault(True)
        self.no_button.clicked.connect(lambda: self._finish(SummaryAnswer(False, None, self.dont_ask.isChecked())))
        self.summarize_button.clicked.connect(self._summarize)
        self.focus_button.clicked.connect(self._ask_focus)
        self.cancel_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        for button in (self.no_button, self.summarize_button, self.focus_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(question)
        layout.addWidget(self.facts)
        layout.addWidget(self.focus_edit)
        layout.addWidget(self.dont_ask)
        layout.addLayout(buttons)
        self.finished.connect(lambda _r: self.answered.emit(self._answer))

    def _ask_focus(self) -> None:
        """Show the focus box; Summarize then uses it (the focus button's second press too)."""
        if self.focus_edit.isVisible():
            self._summarize()
            return
        self.focus_edit.show()
        self.focus_edit.setFocus()
        self.summarize_button.setDefault(True)
        self.dont_ask.setEnabled(False)

    def _summarize(self) -> None:
        focus = self.focus_edit.toPlainText().strip() if self.focus_edit.isVisible() else ""
        self._finish(SummaryAnswer(True, focus or None, False))

    def _finish(self, answer: SummaryAnswer) -> None:
        self._answer = answer
        self.accept()

    def choose(self, choice: str, focus: str = "") -> None:
        """Answer as a person would (automation): ``"none"``, ``"summarize"``, ``"focus"`` or ``"cancel"``."""
        if choice == "none":
            self.no_button.click()
        elif choice == "summarize":
            self.summarize_button.click()
        elif choice == "focus":
            self.focus_button.click()
            self.focus_edit.setPlainText(focus)
            self.focus_button.click()
        elif choice == "cancel":
            self.cancel_button.click()
        else:
            raise ValueError(choice)


class CompactionDialog(QDialog):
    """Preview, then progress. ``compact_requested(focus or None)``; ``cancel_requested()`` while running."""

    compact_requested = Signal(object)
    cancel_requested = Signal()

    def __init__(self, preview: CompactionPreview | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compactionDialog")
        self.setWindowTitle("Compact the context")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.preview = preview
        self.running = False
        title = QLabel("Compact the context?" if preview is not None else "Compacting the context", self)
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        self.title = title
        facts = preview.describe() if preview is not None else "Automatic compaction: the context is near its limit."
        if preview is not None and preview.runnable:
            facts += "\nOn the graph: the dimmed band would be summarized, the outlined band kept verbatim."
        self.facts = _facts(facts, self)
        self.focus_edit = QPlainTextEdit(self)
        self.focus_edit.setObjectName("compactionFocus")
        self.focus_edit.setPlaceholderText("Focus instructions for the summary (optional), as /compact <text>")
        self.focus_edit.setMaximumHeight(80)
        self.progress = QLabel("", self)
        self.progress.setObjectName("compactionProgress")
        self.compact_button = QPushButton("&Compact", self)
        self.cancel_button = QPushButton("Cancel", self)
        self.compact_button.setDefault(True)
        if preview is None or not preview.runnable:
            self.compact_button.setEnabled(False)
            self.focus_edit.setEnabled(False)
            if preview is not None:
                self.compact_button.setToolTip(plain_text(preview.describe()))
                self.cancel_button.setText("Close")
        self.compact_button.clicked.connect(self._compact)
        self.cancel_button.clicked.connect(self._cancel)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.compact_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.facts)
        layout.addWidget(self.focus_edit)
        layout.addWidget(self.progress)
        layout.addLayout(buttons)
        if preview is None:
            self.show_running()
        self.resize(520, self.sizeHint().height())

    def show_running(self) -> None:
        """From preview to progress: Cancel now stops the running compaction."""
        self.running = True
        self.title.setText("Compacting the context…")
        self.compact_button.hide()
        self.focus_edit.setEnabled(False)
        self.cancel_button.setText("Cancel")
        self.cancel_button.setToolTip("Stop the summary; nothing is written")
        self.progress.setText("Waiting for the model…")

    def finish(self) -> None:
        """The compaction ended (done, failed or cancelled): close."""
        self.running = False
        self.accept()

    def set_progress(self, chars: int) -> None:
        self.progress.setText(f"Summarizing… {chars:,} characters so far")

    def _compact(self) -> None:
        focus = self.focus_edit.toPlainText().strip()
        self.show_running()
        self.compact_requested.emit(focus or None)

    def _cancel(self) -> None:
        if self.running:
            self.cancel_requested.emit()
            self.progress.setText("Cancelling…")
            return
        self.reject()

    def reject(self) -> None:  # Esc
        if self.running:
            self.cancel_requested.emit()
            return
        super().reject()


class LabelDialog(QDialog):
    """Emits ``label_chosen(text)`` on OK (an empty text clears the label); Cancel or Esc emit nothing.

    Replaces ``QInputDialog.getText``, whose nested event loop held the window's asyncio work (a
    streaming reply, the file follower) until the question was answered.
    """

    label_chosen = Signal(str)

    def __init__(self, current: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("labelDialog")
        self.setWindowTitle("Label")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        prompt = QLabel("Label (empty clears it):", self)
        self.field = QLineEdit(current, self)
        self.field.setObjectName("labelField")
        self.field.selectAll()
        prompt.setBuddy(self.field)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(prompt)
        layout.addWidget(self.field)
        layout.addWidget(self.buttons)
        self.accepted.connect(lambda: self.label_chosen.emit(self.field.text()))
        self.finished.connect(lambda _r: self.deleteLater())
        self.resize(max(360, self.sizeHint().width()), self.sizeHint().height())
