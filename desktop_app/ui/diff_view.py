"""``DiffView``: a turn's, a branch's or a restore's file changes (issue 25), as plain text.

The file list (``M path  +3 −1``) on the left jumps to that file; the unified diff on the right is
monospace with added and removed lines coloured by their first character
(:func:`~desktop_app.present.file_changes.diff_line_kind`). Session content is never read as rich
text: the diff goes into a ``QPlainTextEdit``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QGuiApplication,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop_app.present.file_changes import DiffDoc, LineKind, diff_line_kind, file_line, file_offsets

__all__ = ["DiffView", "DiffHighlighter"]


def _dark() -> bool:
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def _formats() -> dict[LineKind, QTextCharFormat]:
    dark = _dark()
    colours = {
        LineKind.ADDED: ("#3fb950", "#12261e") if dark else ("#116329", "#e6ffec"),
        LineKind.REMOVED: ("#f85149", "#2d1517") if dark else ("#a40e26", "#ffebe9"),
        LineKind.HUNK: ("#a371f7", "") if dark else ("#6639ba", ""),
        LineKind.FILE: ("#c9d1d9", "") if dark else ("#24292f", ""),
    }
    formats: dict[LineKind, QTextCharFormat] = {}
    for kind, (fg, bg) in colours.items():
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(fg))
        if bg:
            fmt.setBackground(QColor(bg))
        if kind is LineKind.FILE:
            fmt.setFontWeight(700)
        formats[kind] = fmt
    return formats


class DiffHighlighter(QSyntaxHighlighter):
    """Colours each line of a unified diff by its kind (plain text in, colours out)."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._formats = _formats()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt API)
        fmt = self._formats.get(diff_line_kind(text))
        if fmt is not None:
            self.setFormat(0, len(text), fmt)


class DiffView(QDialog):
    """A window of its own (not modal): the canvas and the chat stay usable beside it."""

    def __init__(self, doc: DiffDoc, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("diffView")
        self.setWindowTitle(f"Arbor — {doc.title}")
        self.setModal(False)
        self.doc = doc
        self.heading = QLabel(self)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.heading.setWordWrap(True)
        count = len(doc.files)
        added = sum(f.added for f in doc.files)
        removed = sum(f.removed for f in doc.files)
        summary = f"{count} file{'s' if count != 1 else ''} +{added} \u2212{removed}" if count else ""
        self.heading.setText("  ·  ".join(p for p in (doc.title, summary, doc.note) if p))
        self.files = QListWidget(self)
        self.files.setObjectName("diffFiles")
        for change in doc.files:
            item = QListWidgetItem(file_line(change))
            item.setData(Qt.ItemDataRole.UserRole, change.path)
            self.files.addItem(item)
        self.text = QPlainTextEdit(self)
        self.text.setObjectName("diffText")
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.highlighter = DiffHighlighter(self.text.document())
        self.text.setPlainText(doc.text)
        self._offsets = file_offsets(doc.text, doc.files)
        self.files.currentItemChanged.connect(self._jump)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.files)
        split.addWidget(self.text)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 4)
        split.setSizes([260, 900])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(split, 1)
        layout.addWidget(buttons)
        self.resize(1100, 700)

    def file_paths(self) -> list[str]:
        """The paths listed, in order (automation and tests)."""
        return [str(self.files.item(i).data(Qt.ItemDataRole.UserRole)) for i in range(self.files.count())]

    def show_file(self, path: str) -> None:
        """Scroll the diff to ``path``'s header."""
        line = self._offsets.get(path)
        if line is None:
            return
        block = self.text.document().findBlockByLineNumber(line)
        cursor = QTextCursor(block)
        self.text.setTextCursor(cursor)
        bar = self.text.verticalScrollBar()
        bar.setValue(min(bar.maximum(), line))  # the header at the top, not merely in view

    def _jump(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if current is not None:
            self.show_file(str(current.data(Qt.ItemDataRole.UserRole)))
