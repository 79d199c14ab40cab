"""``CompactionAuditPanel``: the side panel next to the canvas for a selected compaction.

Connect ``GraphView.compaction_selected`` to :meth:`CompactionAuditPanel.set_audit` (and, if the
window wants it, ``branch_summary_selected`` to :meth:`CompactionAuditPanel.set_branch_summary`).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_app.compaction.audit import BranchSummaryInfo, CompactionAudit
from desktop_app.present.audit_words import audit_words, checkpoint_words, split_summary
from desktop_app.present.pi16_words import system_text

from ..plain import plain_label

__all__ = ["CompactionAuditPanel"]


def _tokens(value: int | float | None) -> str:
    if value is None:
        return "unknown"
    return f"{value:,.0f} ({value / 1000:.1f}k)"


class CompactionAuditPanel(QWidget):
    """Summary text, tokensBefore, files read/modified, split-turn flag, who made it and pi 1.6.0's
    system-prompt checkpoint."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._title = QLabel()
        self._title.setTextFormat(Qt.TextFormat.RichText)
        self._title.setWordWrap(True)
        self._tokens = plain_label(QLabel())
        self._made_by = plain_label(QLabel())
        self._split = plain_label(QLabel())
        self._counts = plain_label(QLabel())
        self._counts.setWordWrap(True)
        self._first_kept = plain_label(QLabel())
        self._first_kept.setWordWrap(True)
        self._read = QListWidget()
        self._modified = QListWidget()
        for files in (self._read, self._modified):
            files.setMaximumHeight(110)
            files.setSelectionMode(QListWidget.SelectionMode.NoSelection)
        self._checkpoint = plain_label(QLabel())
        self._checkpoint.setWordWrap(True)
        self._prompt = QPlainTextEdit()  # the checkpoint's text (pi 1.6.0's systemMessage)
        self._prompt.setReadOnly(True)
        self._prompt.setMaximumHeight(120)
        self._prompt.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self._summary = QPlainTextEdit()
        self._summary.setReadOnly(True)
        self._summary.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)

        form = QFormLayout()
        form.addRow("Tokens before:", self._tokens)
        form.addRow("Made by:", self._made_by)
        form.addRow("Split turn:", self._split)
        form.addRow("Entries:", self._counts)
        form.addRow("First kept:", self._first_kept)
        form.addRow("System prompt:", self._checkpoint)
        form.addRow("", self._prompt)
        form.addRow("Files read:", self._read)
        form.addRow("Files modified:", self._modified)
        layout = QVBoxLayout(self)
        layout.addWidget(self._title)
        layout.addLayout(form)
        layout.addWidget(QLabel("Summary:"))
        layout.addWidget(self._summary, 1)
        self.set_audit(None)

    def set_audit(self, audit: CompactionAudit | None) -> None:
        """Show ``audit``; ``None`` shows a hint instead."""
        self._audit = audit
        if audit is None:
            self._title.setText(
                "<b>Compaction audit</b><br><i>Select a compaction node to see what it "
                "summarized and what it kept.</i>"
            )
            for label in (self._tokens, self._made_by, self._split, self._counts, self._first_kept, self._checkpoint):
                label.setText("–")
            self._prompt.setPlainText("")
            self._prompt.setVisible(False)
            self._read.clear()
            self._modified.clear()
            self._summary.setPlainText("")
            return
        self._title.setText(f"<b>Compaction</b> <code>{html.escape(audit.compaction_id)}</code>")
        self._tokens.setText(_tokens(audit.tokens_before))
        self._made_by.setText(audit.made_by)
        self._split.setText(
            "yes: the cut fell inside a turn; its start is summarized as a turn prefix"
            if audit.is_split_turn
            else "no"
        )
        words = audit_words(
            len(audit.summarized_ids),
            len(audit.kept_ids),
            audit.first_kept_found,
            audit.is_split_turn,
            keeps_nothing=audit.keeps_nothing,
        )
        self._counts.setText(f"{words.above.removeprefix('▲ ')} · {words.below.removeprefix('▼ ')}")
        self._first_kept.setText(f"{words.first_kept} (entry {audit.first_kept_entry_id or 'none'})")
        self._checkpoint.setText(checkpoint_words(audit.system_message, len(audit.checkpoint_ids)))
        self._checkpoint.setToolTip(
            "pi 1.6.0 stores the system prompt replayed at the compaction (systemMessage): after it the "
            "model reads this prompt first, then the summary"
        )
        self._prompt.setPlainText(system_text(audit.system_message) if audit.system_message is not None else "")
        self._prompt.setVisible(audit.system_message is not None)
        summary, read, modified = split_summary(audit.summary)
        self._fill(self._read, audit.read_files or read)
        self._fill(self._modified, audit.modified_files or modified)
        self._summary.setPlainText(summary)

    def set_branch_summary(self, info: BranchSummaryInfo | None) -> None:
        """Reuse the panel for a branch summary: its text, files and the abandoned leaf."""
        if info is None:
            self.set_audit(None)
            return
        self._title.setText(f"<b>Branch summary</b> <code>{html.escape(info.entry_id)}</code>")
        self._tokens.setText("–")
        self._made_by.setText("an extension" if info.from_hook else "pi / Arbor")
        self._split.setText("–")
        self._counts.setText(f"abandoned branch: {info.abandoned_text}")
        self._first_kept.setText("–")
        self._checkpoint.setText("–")
        self._prompt.setVisible(False)
        summary, read, modified = split_summary(info.summary)
        self._fill(self._read, info.read_files or read)
        self._fill(self._modified, info.modified_files or modified)
        self._summary.setPlainText(summary)

    def audit(self) -> CompactionAudit | None:
        return self._audit

    def text(self) -> str:
        """Everything shown, as plain text (tests, copy to clipboard)."""
        parts = [
            self._title.text(),
            self._tokens.text(),
            self._made_by.text(),
            self._split.text(),
            self._counts.text(),
            self._first_kept.text(),
            self._checkpoint.text(),
            self._prompt.toPlainText(),
            *(self._read.item(i).text() for i in range(self._read.count())),
            *(self._modified.item(i).text() for i in range(self._modified.count())),
            self._summary.toPlainText(),
        ]
        return "\n".join(parts)

    @staticmethod
    def _fill(widget: QListWidget, files: tuple[str, ...]) -> None:
        widget.clear()
        widget.addItems(list(files) or ["(none)"])
