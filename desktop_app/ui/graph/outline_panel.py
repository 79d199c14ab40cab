"""Beside the graph: the outline (landmarks as a list that jumps to the node) and the legend.

The rows come from :func:`desktop_app.present.outline.outline`; a click (or Enter) reveals the
entry on the canvas — unfolding its run if needed — and selects it. The legend says what the
canvas's shapes and colours mean, drawn with the canvas's own style.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.present.outline import OUTLINE_GROUPS, OutlineCache, OutlineItem, outline, outline_counts

from .style import GraphStyle
from .view import GraphView

__all__ = ["Legend", "OutlinePanel"]

_ENTRY_ROLE = Qt.ItemDataRole.UserRole
_ROW = 18


class Legend(QWidget):
    """Kinds, colours, the active path and the leaf pin, as the canvas draws them."""

    ROWS = (
        ("card", "user", "user message"),
        ("card", "assistant", "assistant reply"),
        ("pill", "toolResult", "tool result"),
        ("slab", "compaction", "compaction"),
        ("hexagon", "branch_summary", "branch summary"),
        ("card", "system", "system prompt / change"),
        ("note", "context_edit", "context edit ⇢ its target"),
        ("marker", "usage", "usage (filter “all”)"),
        ("stack", "segment", "folded run"),
        ("path", "", "active path"),
        ("pin", "", "active leaf"),
        ("flag", "", "label"),
    )

    def __init__(self, style: GraphStyle, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._style = style
        self.setToolTip("What the graph's shapes and colours mean")

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return QSize(200, len(self.ROWS) * _ROW + 8)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return self.sizeHint()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt API)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for i, (shape, kind, text) in enumerate(self.ROWS):
            y = 4 + i * _ROW
            self._swatch(painter, shape, kind, QRectF(4, y + 2, 22, _ROW - 5))
            painter.setPen(self.palette().windowText().color())
            painter.drawText(QRectF(32, y, self.width() - 36, _ROW), Qt.AlignmentFlag.AlignVCenter, text)
        painter.end()

    def _swatch(self, painter: QPainter, shape: str, kind: str, r: QRectF) -> None:
        style = self._style
        if shape == "path":
            painter.setPen(QPen(style.active, 3.0))
            painter.drawLine(QPointF(r.left(), r.center().y()), QPointF(r.right(), r.center().y()))
            return
        if shape == "pin":
            painter.setPen(QPen(style.pin.darker(140), 1.0))
            painter.setBrush(style.pin)
            painter.drawEllipse(r.center(), 6, 6)
            return
        if shape == "flag":
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(style.flag)
            path = QPainterPath(QPointF(r.left() + 4, r.top()))
            path.lineTo(r.right(), r.top())
            path.lineTo(r.right() - 5, r.center().y())
            path.lineTo(r.right(), r.bottom())
            path.lineTo(r.left() + 4, r.bottom())
            path.closeSubpath()
            painter.drawPath(path)
            return
        ks = style.kind(kind)
        painter.setPen(QPen(ks.accent, 1.3, Qt.PenStyle.DashLine if ks.dashed else Qt.PenStyle.SolidLine))
        painter.setBrush(ks.fill)
        if shape == "pill":
            painter.drawRoundedRect(r.adjusted(0, 2, 0, -2), 4, 4)
        elif shape == "marker":
            painter.drawRoundedRect(r.adjusted(4, 4, -4, -4), 3, 3)
        elif shape == "note":
            fold = 4.0
            path = QPainterPath(QPointF(r.left(), r.top()))
            path.lineTo(r.right() - fold, r.top())
            path.lineTo(r.right(), r.top() + fold)
            path.lineTo(r.right(), r.bottom())
            path.lineTo(r.left(), r.bottom())
            path.closeSubpath()
            painter.drawPath(path)
            painter.fillRect(QRectF(r.left(), r.top(), 3, r.height()), ks.accent)
        elif shape == "hexagon":
            k = r.height() / 2
            path = QPainterPath(QPointF(r.left(), r.center().y()))
            for point in (
                QPointF(r.left() + k, r.top()),
                QPointF(r.right() - k, r.top()),
                QPointF(r.right(), r.center().y()),
                QPointF(r.right() - k, r.bottom()),
                QPointF(r.left() + k, r.bottom()),
            ):
                path.lineTo(point)
            path.closeSubpath()
            painter.drawPath(path)
        else:
            painter.drawRoundedRect(r, 3, 3)
            if shape == "card":
                painter.fillRect(QRectF(r.left(), r.top(), 3, r.height()), ks.accent)


#: Past this many rows the outline follows the graph at most every :data:`_BIG_OUTLINE_DELAY_MS`.
_BIG_OUTLINE = 1_000
_BIG_OUTLINE_DELAY_MS = 1_000


class OutlinePanel(QWidget):
    """The outline list with its filter, a count line, and the legend under it."""

    def __init__(self, graph: GraphView, style: GraphStyle, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._graph = graph
        self._style = style
        self.counts = QLabel(self)
        self.counts.setWordWrap(True)
        self.filter = QComboBox(self)
        for group in OUTLINE_GROUPS:
            self.filter.addItem(group)
        self.list = QListWidget(self)
        self.list.setUniformItemSizes(True)
        self.list.setToolTip("Landmarks of the tree: click to go there")
        self.legend = Legend(style, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        title = QLabel("<b>Outline</b>", self)
        layout.addWidget(title)
        layout.addWidget(self.counts)
        layout.addWidget(self.filter)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.legend)
        self.items: list[OutlineItem] = []
        self._rows_made: OutlineCache = {}  #: rows unchanged since the last refresh stay the same objects
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(150)
        self._timer.timeout.connect(self.refresh)
        self.filter.currentIndexChanged.connect(lambda _i: self.refresh())
        self.list.itemActivated.connect(self._jump)
        self.list.itemClicked.connect(self._jump)
        graph.layout_applied.connect(self._on_layout)
        self.setMinimumWidth(180)

    def _on_layout(self, _kind: str) -> None:
        # debounced: a streaming turn lays out often; the first fill waits only for the graph's
        # first paint (the next event-loop turn), so the picture is never late for the list. A
        # long outline is a ~10 ms refresh (7,000 landmarks at 100,000 entries): at most once a
        # second while a reply streams, so it seldom meets the other work of an append.
        if not (self.items or self.list.count()):
            self._timer.start(0)
        elif not self._timer.isActive():
            self._timer.start(_BIG_OUTLINE_DELAY_MS if len(self.items) > _BIG_OUTLINE else 150)

    def refresh(self) -> None:
        """Re-read the graph (debounced after every layout). Only the rows that differ are touched:
        an append at the leaf changes a row or two of thousands (100,000 entries: ~3,000 landmarks,
        rebuilt ~300 ms a time before)."""
        graph = self._graph.graph()
        session = self._graph.session
        name = session.get_session_name() if session is not None else None
        everything = outline(graph, name, marks=self._graph.node_marks(), cache=self._rows_made)
        self.counts.setText(outline_counts(everything) or "No landmarks yet")
        roles = OUTLINE_GROUPS[self.filter.currentText()]
        items = [item for item in everything if item.role in roles]
        self._sync_rows(items)
        self.items = items

    def restyle(self) -> None:
        """The palette changed: every row's colour follows (the rows themselves may be unchanged)."""
        self.refresh()
        for i, item in enumerate(self.items):
            self._fill(self.list.item(i), item)

    def _sync_rows(self, items: list[OutlineItem]) -> None:
        """Make the list show ``items`` touching only the rows that differ: equal rows at both ends
        stay; between them rows in both lists stay, gone rows are taken, new rows added."""
        old, lst = self.items, self.list
        if lst.count() != len(old):  # not ours to diff (cleared from outside): fill afresh
            lst.clear()
            old = []
        n, m = len(old), len(items)
        head = 0
        # most rows are the very objects of last time (see ``outline``'s cache): identity first
        while head < n and head < m and (old[head] is items[head] or old[head] == items[head]):
            head += 1
        tail = 0
        while tail < n - head and tail < m - head and (
            old[n - 1 - tail] is items[m - 1 - tail] or old[n - 1 - tail] == items[m - 1 - tail]
        ):
            tail += 1
        if head == n == m:
            return
        before, after = n - head - tail, m - head - tail  # rows replaced, rows replacing them
        if before > 500 and after > 500 and before + after > n:  # most of the list (a filter switch)
            lst.clear()
            for item in items:
                row = QListWidgetItem()
                self._fill(row, item)
                lst.addItem(row)
            return
        # between the equal ends: keep rows found in both in order, take the gone, add the new, refill
        # the rest in place (the old leaf's row gone here and the new leaf's row added there)
        old_mid, new_mid = old[head : n - tail], items[head : m - tail]
        old_set, new_set = set(old_mid), set(new_mid)
        at, i, j = head, 0, 0
        while i < before or j < after:
            if i < before and j < after and old_mid[i] == new_mid[j]:
                i, j, at = i + 1, j + 1, at + 1
            elif i < before and (old_mid[i] not in new_set or j >= after):
                lst.takeItem(at)
                i += 1
            elif j < after and (new_mid[j] not in old_set or i >= before):
                row = QListWidgetItem()
                self._fill(row, new_mid[j])
                lst.insertItem(at, row)
                j, at = j + 1, at + 1
            else:  # both elsewhere in the other list: this row now says the new item
                self._fill(lst.item(at), new_mid[j])
                i, j, at = i + 1, j + 1, at + 1

    def _fill(self, row: QListWidgetItem | None, item: OutlineItem) -> None:
        if row is None:
            return
        row.setText(item.text)
        row.setData(_ENTRY_ROLE, item.entry_id)
        color = self._color(item)
        # plain rows keep the list's own text colour (it follows the theme)
        row.setData(Qt.ItemDataRole.ForegroundRole, color)
        font = row.font()
        font.setBold(item.on_active_path)
        row.setFont(font)

    def _color(self, item: OutlineItem) -> QColor | None:
        style = self._style
        if item.role == "active-leaf":
            return style.pin
        if item.role in ("compaction", "branch_summary"):
            return style.kind(item.kind).accent.darker(115)
        if item.role == "label":
            return style.flag.darker(140)
        return None

    def _jump(self, row: QListWidgetItem) -> None:
        entry = row.data(_ENTRY_ROLE)
        if isinstance(entry, str):
            self.jump_to(entry)

    def jump_to(self, entry_id: str) -> None:
        """Reveal ``entry_id`` on the canvas (unfolding its run) and select it."""
        self._graph.reveal(entry_id)
        self._graph.select(entry_id, center=True, notify=True)
