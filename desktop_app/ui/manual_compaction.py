"""Compaction by hand: the compaction preview with a cut the user moves and a summary the user writes.

:class:`ManualCompactionDialog` is the preview dialog (:class:`~desktop_app.ui.dialogs.CompactionDialog`)
plus a cut slider that snaps to the valid cuts of the active path
(:func:`desktop_app.present.context_actions.cut_choices_of`: exactly what ``compact(first_kept_entry_id=…)``
accepts) and says the tokens kept and summarized at each, and an editable summary (Generate → edit →
Compact). Moving the cut emits ``cut_changed(preview)`` so the canvas bands follow; ``generate_requested``
and ``compact_requested(ManualCompaction)`` are carried out by the window through the agent's commands.
Left alone (pi's cut, no summary typed) it runs exactly pi's ``/compact``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QSlider, QVBoxLayout, QWidget

from desktop_app.compaction.manual_cut import CutChoice
from desktop_app.present.compaction_preview import CompactionPreview
from desktop_app.present.context_words import cut_index_of, cut_words

from .dialogs import CompactionDialog

__all__ = ["ManualCompaction", "ManualCompactionDialog"]


@dataclass(frozen=True)
class ManualCompaction:
    """What Compact asks for: ``None`` fields are pi's own (its cut, the model's summary)."""

    focus: str | None
    summary: str | None
    first_kept_entry_id: str | None


class ManualCompactionDialog(CompactionDialog):
    """See the module docstring. ``preview_of(cut_id)`` plans the compaction at a cut (nothing written)."""

    cut_changed = Signal(object)  #: the :class:`CompactionPreview` at the new cut
    generate_requested = Signal(object, object)  #: focus or None, the cut's entry id or None

    def __init__(
        self,
        preview: CompactionPreview,
        choices: list[CutChoice],
        preview_of: Callable[[str], CompactionPreview],
        parent: QWidget | None = None,
        *,
        cut: str | None = None,
    ) -> None:
        self.choices = choices
        self._preview_of = preview_of
        self.default_cut = preview.first_kept_entry_id
        super().__init__(preview, parent)
        self.setObjectName("compactionDialog")
        # not modal: the cut line stays draggable on the canvas (a stale plan is refused in words)
        self.setWindowModality(Qt.WindowModality.NonModal)
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)  # CompactionDialog's own
        at = layout.indexOf(self.focus_edit) + 1
        self.cut_label = QLabel("", self)
        self.cut_label.setObjectName("compactionCut")
        self.cut_label.setWordWrap(True)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("compactionCutSlider")
        self.slider.setRange(0, max(0, len(choices) - 1))
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setPageStep(1)
        self.slider.setToolTip(
            "Where the cut goes: entries before it are summarized, the rest kept word for word. "
            "Only valid cuts: ← → step from one to the next; or drag the dashed cut line on the graph."
        )
        self.slider.setAccessibleName("Cut")
        self.summary_edit = QPlainTextEdit(self)
        self.summary_edit.setObjectName("compactionSummary")
        self.summary_edit.setPlaceholderText(
            "The summary (optional): Generate asks the model for it and puts it here to edit; "
            "left empty, Compact asks the model as /compact does"
        )
        self.generate_button = QPushButton("&Generate summary", self)
        self.generate_button.setObjectName("compactionGenerate")
        self.generate_button.clicked.connect(self._generate)
        self.error = QLabel("", self)
        self.error.setObjectName("compactionError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b3261e;")
        self.error.hide()
        row = QHBoxLayout()
        row.addWidget(self.generate_button)
        row.addStretch(1)
        for i, widget in enumerate((self.cut_label, self.slider)):
            layout.insertWidget(at + i, widget)
        layout.insertWidget(at + 2, self.summary_edit)
        layout.insertLayout(at + 3, row)
        layout.insertWidget(at + 4, self.error)
        runnable = bool(choices) and preview.runnable
        for widget in (self.slider, self.cut_label):
            widget.setVisible(bool(choices))
        self.summary_edit.setEnabled(runnable)
        self.generate_button.setEnabled(runnable)
        self.slider.setValue(cut_index_of(choices, cut or self.default_cut) if choices else 0)
        self.slider.valueChanged.connect(self._moved)
        self._say_cut()
        if cut is not None and cut != self.default_cut:
            self._moved(self.slider.value())
        self.resize(620, self.sizeHint().height())

    # ------------------------------------------------------------------------------- the cut

    @property
    def cut(self) -> str | None:
        """The entry the kept part starts from (the slider's valid cut)."""
        if not self.choices:
            return self.default_cut
        return self.choices[self.slider.value()].entry_id

    def set_cut(self, entry_id: str) -> bool:
        """Move the cut to ``entry_id`` when it is a valid cut (the canvas's drag lands here); never
        while Compact runs (the cut being written stays the one shown)."""
        if self.running:
            return False
        for i, choice in enumerate(self.choices):
            if choice.entry_id == entry_id:
                self.slider.setValue(i)
                return True
        return False

    def _say_cut(self) -> None:
        if self.choices:
            i = self.slider.value()
            self.cut_label.setText(
                cut_words(self.choices[i], i, len(self.choices)) + "\nMove it with this slider or drag the dashed cut line on the graph."
            )

    def show_running(self) -> None:
        """Compact was pressed: the cut and the summary are fixed until the run ends."""
        super().show_running()
        for widget in (self.slider, self.summary_edit, self.generate_button):
            widget.setEnabled(False)

    def _moved(self, _value: int) -> None:
        self._say_cut()
        cut = self.cut
        if cut is None:
            return
        preview = self._preview_of(cut)
        self.preview = preview
        self.facts.setText(preview.describe())
        self.error.setVisible(not preview.runnable)
        self.error.setText("" if preview.runnable else preview.describe())
        for widget in (self.compact_button, self.focus_edit, self.summary_edit, self.generate_button):
            widget.setEnabled(preview.runnable)
        self.cancel_button.setText("Cancel")
        self.cut_changed.emit(preview)

    # ------------------------------------------------------------------------------- summary

    def _focus(self) -> str | None:
        return self.focus_edit.toPlainText().strip() or None

    def _generate(self) -> None:
        self.generate_button.setEnabled(False)
        self.error.hide()
        self.progress.setText("Generating the summary… (nothing is written)")
        self.generate_requested.emit(self._focus(), self.cut)

    def set_summary(self, text: str) -> None:
        """The generated summary, to edit before Compact."""
        self.summary_edit.setPlainText(text)
        self.generate_button.setEnabled(True)
        self.progress.setText("Edit the summary if you like, then Compact: it is stored as it stands.")

    def show_error(self, reason: str) -> None:
        """A refusal or failure, in words; the dialog goes back to the preview (nothing was written)."""
        self.running = False
        self.slider.setEnabled(True)
        self.title.setText("Compact the context?")
        self.compact_button.show()
        self.compact_button.setEnabled(True)
        self.generate_button.setEnabled(True)
        self.summary_edit.setEnabled(True)
        self.focus_edit.setEnabled(True)
        self.cancel_button.setText("Cancel")
        self.progress.setText("")
        self.error.setText(reason)
        self.error.show()

    def finish(self) -> None:
        """Not closed by the window's compaction events (a refusal must stay on screen in words, and
        its CompactionFailed comes before the reason reaches :meth:`show_error`): see :meth:`ended`."""

    def ended(self) -> None:
        """The compaction this dialog ran is over (written, cancelled or failed): close."""
        super().finish()

    def request(self) -> ManualCompaction:
        """What Compact asks for now (a cut equal to pi's own is left to pi)."""
        summary = self.summary_edit.toPlainText()
        cut = self.cut
        return ManualCompaction(
            focus=self._focus(),
            summary=summary if summary.strip() else None,
            first_kept_entry_id=None if cut == self.default_cut else cut,
        )

    def _compact(self) -> None:
        request = self.request()
        self.show_running()
        self.summary_edit.setEnabled(False)
        self.generate_button.setEnabled(False)
        if request.summary is not None:
            self.progress.setText("Writing your summary…")
        self.compact_requested.emit(request)
