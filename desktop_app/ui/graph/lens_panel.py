"""The context lens panel: what the model receives at the active leaf or the selected entry.

A thin view of :func:`desktop_app.present.lens.context_lens`: the total (pi's estimate) beside the
last reported usage, a bar and a line per section (compaction summary, kept entries, newer
messages), and every message with its role as sent, its token estimate and its first line; an
entry a context edit omitted is listed struck through with no tokens, a replaced one says so. While
the panel shows, the graph draws the same numbers as a heat strip along the path. A click on a row
selects its entry on the graph.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.present.chat_feed import session_profile
from desktop_app.present.context_words import edit_effect
from desktop_app.present.lens import SECTIONS, Lens, context_lens

from ..plain import plain_text
from .style import GraphStyle
from .view import GraphView

__all__ = ["LensPanel", "SECTION_COLORS"]

SECTION_COLORS = {"compaction summary": "#e8590c", "kept": "#f08c00", "newer": "#7048e8", "usage": "#adb5bd"}
_ENTRY_ROLE = Qt.ItemDataRole.UserRole
_EDIT_COLOR = "#c92a2a"  #: rows a context edit omitted or replaced (the graph's edit colour)


def _n(value: float | int | None) -> str:
    if value is None or value != value:  # NaN
        return "?"
    return f"{round(value):,}"


class _SectionBar(QWidget):
    """One bar: each section's estimated tokens as a coloured share."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shares: list[tuple[str, int]] = []
        self.setMinimumHeight(14)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return QSize(200, 14)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt API)
        painter = QPainter(self)
        total = sum(t for _, t in self.shares)
        rect = QRectF(self.rect()).adjusted(0, 2, 0, -2)
        painter.fillRect(rect, QColor("#e9ecef"))
        x = rect.left()
        for section, tokens in self.shares:
            if total <= 0 or tokens <= 0:
                continue
            width = rect.width() * tokens / total
            painter.fillRect(QRectF(x, rect.top(), width, rect.height()), QColor(SECTION_COLORS[section]))
            x += width
        painter.end()


class LensPanel(QWidget):
    """See the module docstring."""

    def __init__(self, graph: GraphView, style: GraphStyle, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._graph = graph
        self._style = style
        self._target: str | None = None  #: ``None``: follow the active leaf
        self.lens = Lens(None, (), 0, 0, 0, None)
        self.title = QLabel(self)
        self.title.setWordWrap(True)
        self.leaf_button = QPushButton("Active leaf", self)
        self.leaf_button.setToolTip("Show the context at the active leaf again")
        self.leaf_button.clicked.connect(lambda: self.set_target(None))
        self.total = QLabel(self)
        self.total.setWordWrap(True)
        self.total.setTextFormat(Qt.TextFormat.RichText)
        self.bar = _SectionBar(self)
        self.sections = QLabel(self)
        self.sections.setWordWrap(True)
        self.sections.setTextFormat(Qt.TextFormat.RichText)
        self.effect = QLabel(self)  #: a selected entry's context edit: what the model got before and gets now
        self.effect.setObjectName("lensEditEffect")
        self.effect.setWordWrap(True)
        self.effect.setTextFormat(Qt.TextFormat.PlainText)
        self.effect.setStyleSheet(f"color: {_EDIT_COLOR};")
        self.effect.hide()
        self.table = QTreeWidget(self)
        self.table.setRootIsDecorated(False)
        self.table.setUniformRowHeights(True)
        self.table.setHeaderLabels(["#", "tokens", "sent as", "message"])
        self.table.itemClicked.connect(self._select_row)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.leaf_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(head)
        layout.addWidget(self.total)
        layout.addWidget(self.bar)
        layout.addWidget(self.sections)
        layout.addWidget(self.effect)
        layout.addWidget(self.table, 1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(200)
        self._timer.timeout.connect(self.refresh)
        graph.layout_applied.connect(self._on_layout)
        graph.node_selected.connect(self._on_selected)

    def _on_layout(self, _kind: str) -> None:
        if self.isVisible():  # a hidden lens is rebuilt when it is shown (showEvent)
            self._timer.start()

    # ------------------------------------------------------------------------------- target

    def set_target(self, entry_id: str | None) -> None:
        """Show the context at ``entry_id`` (``None``: the active leaf, following it)."""
        self._target = entry_id
        self.refresh()

    def _on_selected(self, entry_id: str) -> None:
        if self.isVisible():
            self.set_target(entry_id)
        else:
            self._target = entry_id

    def showEvent(self, event: object) -> None:  # noqa: N802 (Qt API)
        self.refresh()
        self._graph.set_heat(self.lens.by_entry())

    def hideEvent(self, event: object) -> None:  # noqa: N802 (Qt API)
        self._graph.set_heat(None)

    # ------------------------------------------------------------------------------- content

    def refresh(self) -> None:
        session = self._graph.session
        if session is None:
            self.lens = Lens(None, (), 0, 0, 0, None)
        else:
            target = self._target if self._target is not None and session.get_entry(self._target) else None
            self.lens = context_lens(session, target)
        self._show()
        if self.isVisible():
            self._graph.set_heat(self.lens.by_entry())

    def _show(self) -> None:
        lens = self.lens
        session = self._graph.session
        at_leaf = session is not None and lens.entry_id == session.leaf_id
        self.title.setText(
            "<b>Context at the active leaf</b>" if at_leaf else f"<b>Context at the selected entry</b> {html.escape(lens.entry_id or '')}"
        )
        self.leaf_button.setEnabled(not at_leaf)
        covered = [r for r in lens.rows if r.covered_by_usage]
        sent_rows = lens.sent_rows
        after = len(sent_rows) - len(covered)
        if lens.total is None:
            total = "Total unknown: a malformed message (pi's estimate would fail)."
        else:
            total = f"<b>≈ {_n(lens.total)} tokens</b> in {len(sent_rows)} messages (pi's estimate)"
        omitted = len(lens.rows) - len(sent_rows)
        replaced = sum(1 for r in lens.rows if r.edit == "replaced")
        if omitted or replaced:
            total += (
                f"<br><span style='color:{_EDIT_COLOR}'>Context edits: {omitted} omitted (listed, not sent),"
                f" {replaced} replaced</span>"
            )
        if covered:
            total += (
                f"<br>Last reported usage: <b>{_n(lens.usage_tokens)}</b> — counts the system prompt, the tools"
                f" and messages 1–{len(covered)} (their text alone ≈ {_n(lens.estimated_covered)})"
                f"<br>Estimated after it: <b>{_n(lens.trailing_tokens)}</b> ({after} message{'s' if after != 1 else ''})"
            )
        elif lens.rows:
            total += "<br>No reply has reported usage yet: every message is estimated (chars ÷ 4)."
        self.total.setText(total)
        sections = lens.section_tokens()
        self.bar.shares = [(s, sections[s]) for s in SECTIONS]
        self.bar.update()
        self.sections.setText(
            " · ".join(
                f"<span style='color:{SECTION_COLORS[s]}'>■</span> {s} {_n(sections[s])}"
                for s in SECTIONS
                if sections[s] or s == "newer"
            )
        )
        effect = edit_effect(session, self._target, session_profile(session)) if session and self._target else None
        self.effect.setText(effect.describe() if effect is not None else "")
        self.effect.setVisible(effect is not None)
        self.table.clear()
        rows = []
        number = 0
        for row in lens.rows:
            sent = row.llm_role if row.llm_role == row.role else f"{row.role} → {row.llm_role}"
            if row.sent:
                number += 1
            if row.edit == "omitted":
                item = QTreeWidgetItem(["–", "0", f"{row.role} · omitted", row.text])
            else:
                item = QTreeWidgetItem([str(number), _n(row.tokens), sent + (" · replaced" if row.edit else ""), row.text])
            item.setData(0, _ENTRY_ROLE, row.entry_id)
            item.setForeground(2, QColor(_EDIT_COLOR if row.edit else SECTION_COLORS[row.section]))
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            tip = f"{row.section} · {row.text}"
            if row.edit:
                tip = f"{row.edit} by context edit {row.edit_id} · " + tip
            item.setToolTip(3, plain_text(tip))
            if row.edit == "omitted":
                font = item.font(3)
                font.setStrikeOut(True)
                item.setFont(3, font)
                for column in (0, 1, 3):
                    item.setForeground(column, QColor("#868e96"))
            rows.append(item)
        self.table.addTopLevelItems(rows)
        for column in (0, 1, 2):
            self.table.resizeColumnToContents(column)

    def _select_row(self, item: QTreeWidgetItem) -> None:
        entry = item.data(0, _ENTRY_ROLE)
        if isinstance(entry, str):
            self._graph.reveal(entry)
            self._graph.select(entry, center=True, notify=False)
