"""``CompactionAuditPanel``: the side panel next to the canvas for a selected compaction.

Connect ``GraphView.compaction_selected`` to :meth:`CompactionAuditPanel.set_audit` (and, if the
window wants it, ``branch_summary_selected`` to :meth:`CompactionAuditPanel.set_branch_summary`).

The summary is rendered as markdown once, in a box that takes the room left (the facts above it
scroll with it when the panel is short); the window shows the panel in the reader's place, so the
summary is never shown twice.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QScrollArea,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop_app.compaction.audit import BranchSummaryInfo, CompactionAudit
from desktop_app.present.audit_words import audit_words_of, checkpoint_words, split_summary
from desktop_app.present.pi16_words import system_text

from ..markdown import SafeTextDocument, markdown_to_html
from ..plain import plain_label, plain_text

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
        self._summary = QTextBrowser()  # the summary as markdown: "Goal" as a heading, never "## Goal"
        self._summary.setDocument(SafeTextDocument(self._summary))
        self._summary.setOpenLinks(False)
        self._summary.setOpenExternalLinks(False)
        self._summary.setMinimumHeight(180)
        self._summary_markdown = ""

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
        self.changed = QListWidget()  #: issue 25: files changed in the summarized range, from the checkpoints
        self.changed.setMaximumHeight(110)
        self.changed.setSelectionMode(QListWidget.SelectionMode.NoSelection)
        self.changed.setToolTip("What the tools did to the working folder in the summarized entries (checkpoints)")
        form.addRow("Files changed:", self.changed)
        body = QWidget()
        inner = QVBoxLayout(body)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.addWidget(self._title)
        heading = QLabel("<b>Summary</b> (what the model reads instead of the summarized entries)")
        heading.setWordWrap(True)
        inner.addWidget(heading)
        inner.addWidget(self._summary, 1)
        inner.addLayout(form)
        for label in (self._tokens, self._made_by, self._split, self._counts, self._first_kept, self._checkpoint):
            label.setWordWrap(True)  # long facts wrap: the panel never scrolls sideways
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self._scroll = QScrollArea(self)
        self._scroll.setWidget(body)
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self._scroll)
        self.set_audit(None)

    def set_file_changes(self, lines: list[str]) -> None:
        """The files changed in the summarized range (``M path  +3 −1``; none: "(none recorded)")."""
        self.changed.clear()
        self.changed.addItems(lines or ["(none recorded)"])

    def set_audit(self, audit: CompactionAudit | None) -> None:
        """Show ``audit``; ``None`` shows a hint instead."""
        self._audit = audit
        self.changed.clear()
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
            self._set_summary("")
            return
        self._title.setText(f"<b>Compaction</b> <code>{html.escape(audit.compaction_id)}</code>")
        self._tokens.setText(_tokens(audit.tokens_before))
        self._made_by.setText(audit.made_by)
        self._made_by.setToolTip(plain_text(audit.made_by_why))
        self._split.setText(
            "yes: the cut fell inside a turn; its start is summarized as a turn prefix"
            if audit.is_split_turn
            else "no"
        )
        words = audit_words_of(audit)
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
        self._set_summary(summary)

    def set_branch_summary(self, info: BranchSummaryInfo | None) -> None:
        """Reuse the panel for a branch summary: its text, files and the abandoned leaf."""
        if info is None:
            self.set_audit(None)
            return
        self._title.setText(f"<b>Branch summary</b> <code>{html.escape(info.entry_id)}</code>")
        self._tokens.setText("–")
        self._made_by.setText(info.made_by)
        self._made_by.setToolTip("")
        self._split.setText("–")
        self._counts.setText(f"abandoned branch: {info.abandoned_text}")
        self._first_kept.setText("–")
        self._checkpoint.setText("–")
        self._prompt.setVisible(False)
        summary, read, modified = split_summary(info.summary)
        self._fill(self._read, info.read_files or read)
        self._fill(self._modified, info.modified_files or modified)
        self._set_summary(summary)

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

    def summary_markdown(self) -> str:
        """The summary's source text as shown (without pi's file lists, which are listed apart)."""
        return self._summary_markdown

    def _set_summary(self, markdown: str) -> None:
        self._summary_markdown = markdown
        dark = self.palette().base().color().lightness() < 128
        self._summary.document().setHtml(markdown_to_html(markdown, dark=dark) if markdown else "")
        self._summary.moveCursor(QTextCursor.MoveOperation.Start)  # a new summary reads from its start ("Goal")
        self._summary.verticalScrollBar().setValue(0)
        self._scroll.verticalScrollBar().setValue(0)

    @staticmethod
    def _fill(widget: QListWidget, files: tuple[str, ...]) -> None:
        widget.clear()
        widget.addItems(list(files) or ["(none)"])
