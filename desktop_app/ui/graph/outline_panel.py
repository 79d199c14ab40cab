"""Beside the graph: the outline (landmarks as a list that jumps to the node) and the legend.

The rows come from :func:`desktop_app.present.outline.outline`; a click (or Enter) reveals the
entry on the canvas — unfolding its run if needed — and selects it. The legend says what the
canvas's shapes and colours mean, drawn with the canvas's own style.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPointF,
    QRectF,
    QSize,
    Qt,
    QTimer,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QLabel, QListView, QVBoxLayout, QWidget

from desktop_app.present.outline import OUTLINE_GROUPS, OutlineCache, OutlineItem, outline, outline_counts
from desktop_app.present.text import full_text

from ..plain import plain_label, plain_text
from .edit_marks import paint_edited_swatch, paint_hidden_swatch
from .style import GraphStyle
from .view import GraphView

__all__ = ["Legend", "OutlineModel", "OutlinePanel"]

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
        ("summarized", "", "summarized by a compaction"),
        ("kept", "", "kept word for word after it"),
        ("hidden", "", "hidden from the context"),
        ("edited", "", "text replaced in the context ✎"),
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
        if shape in ("hidden", "edited"):  # context by hand (issue 26)
            (paint_hidden_swatch if shape == "hidden" else paint_edited_swatch)(painter, style, r)
            return
        if shape == "summarized":  # the audit's bands, as the canvas draws them for a selected compaction
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(style.dim)
            painter.drawRoundedRect(r, 4, 4)
            return
        if shape == "kept":
            pen = QPen(style.kept, 1.6, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            fill = QColor(style.kept)
            fill.setAlpha(22)
            painter.setBrush(fill)
            painter.drawRoundedRect(r.adjusted(1, 1, -1, -1), 4, 4)
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


#: More changed rows than this and the outline is reset, not told row by row.
_FEW_ROWS = 64


class OutlineModel(QAbstractListModel):
    """The outline's rows for a ``QListView``: the :class:`OutlineItem` list itself, read row by row
    as the view paints (no object per row: 7,000 landmarks at 100,000 entries).

    :meth:`set_items` tells the view only what changed, row by row (an append at the leaf: a row
    or two), or resets the whole list when much of it changed (a far branch switch: the leaf's
    neighbourhood, then the whole graph). A list widget took its 7,000 rows away one by one there
    (0.26 s each time under the profiler).
    """

    def __init__(
        self,
        color: Callable[[OutlineItem], QColor | None],
        parent: QObject | None = None,
        describe: Callable[[str], str] | None = None,
    ) -> None:
        super().__init__(parent)
        self.items: list[OutlineItem] = []
        self._describe = describe  #: an entry's whole text for the hover (read only when asked)
        self._color = color  #: a row's text colour (the panel's, from the canvas's style); None: the list's own
        self._bold = QFont()
        self._bold.setBold(True)
        self._row_height = QFontMetrics(self._bold).height() + 2  #: every row, so the list can elide them

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802 (Qt API)
        return 0 if parent.isValid() else len(self.items)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = index.row()
        if not index.isValid() or not 0 <= row < len(self.items):
            return None
        item = self.items[row]
        if role == Qt.ItemDataRole.DisplayRole:
            return item.text
        if role == _ENTRY_ROLE:
            return item.entry_id
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._color(item)  # plain rows keep the list's own text colour (it follows the theme)
        if role == Qt.ItemDataRole.FontRole:
            return self._bold if item.on_active_path else None
        if role == Qt.ItemDataRole.SizeHintRole:  # as wide as the list, whatever the text: it elides
            return QSize(1, self._row_height)
        if role == Qt.ItemDataRole.ToolTipRole:  # the whole row and its entry's text, as text (never HTML)
            whole = self._describe(item.entry_id) if self._describe is not None else ""
            return plain_text(f"{item.text}\n\n{whole}" if whole and whole not in item.text else item.text)
        return None

    def set_items(self, items: list[OutlineItem]) -> None:
        """Show ``items``, telling the view which rows changed (see the class docstring)."""
        old = self.items
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
        before, after = n - head - tail, m - head - tail  # rows replaced, rows replacing them
        if before == after == 0:
            self.items = items
            return
        old_mid, new_mid = old[head : n - tail], items[head : m - tail]
        old_set, new_set = {id(x) for x in old_mid}, {id(x) for x in new_mid}
        if before + after > _FEW_ROWS and len(old_set ^ new_set) > _FEW_ROWS:
            self.beginResetModel()  # many rows changed (a filter switch, a far branch switch)
            self.items = items
            self.endResetModel()
            return
        # Between the equal ends: rows in both stay, gone rows are taken, new rows put in; a row in
        # both lists but elsewhere is refilled in place (the old leaf's row gone here and the new
        # leaf's row added there leaves the rows between alone: a selection among them stays).
        # Rows are told apart by identity (unchanged rows are the very objects of last time, see
        # ``outline``'s cache): hashing thousands of rows by value took ~3 ms an append at 100k.
        rows = self.items = list(old)  # what the view knows at every signal
        at, i, j = head, 0, 0
        while i < before or j < after:
            if i < before and j < after and old_mid[i] is new_mid[j]:
                i, j, at = i + 1, j + 1, at + 1
            elif i < before and (id(old_mid[i]) not in new_set or j >= after):
                self.beginRemoveRows(QModelIndex(), at, at)
                del rows[at]
                self.endRemoveRows()
                i += 1
            elif j < after and (id(new_mid[j]) not in old_set or i >= before):
                self.beginInsertRows(QModelIndex(), at, at)
                rows.insert(at, new_mid[j])
                self.endInsertRows()
                j, at = j + 1, at + 1
            else:
                rows[at] = new_mid[j]
                self.dataChanged.emit(self.index(at), self.index(at))
                i, j, at = i + 1, j + 1, at + 1
        self.items = items

    def restyled(self) -> None:
        """Every row's colour follows a new palette."""
        if self.items:
            self.dataChanged.emit(self.index(0), self.index(len(self.items) - 1), [Qt.ItemDataRole.ForegroundRole])


#: Past this many rows the outline follows the graph at most every :data:`_BIG_OUTLINE_DELAY_MS`.
_BIG_OUTLINE = 1_000
_BIG_OUTLINE_DELAY_MS = 1_000


class OutlinePanel(QWidget):
    """The outline list with its filter, a count line, and the legend under it."""

    def __init__(self, graph: GraphView, style: GraphStyle, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._graph = graph
        self._style = style
        self.counts = plain_label(QLabel(self))
        self.counts.setWordWrap(True)
        self.filter = QComboBox(self)
        for group in OUTLINE_GROUPS:
            self.filter.addItem(group)
        self.model = OutlineModel(self._color, self, self._whole_text)
        self.list = QListView(self)
        self.list.setModel(self.model)
        self.list.setUniformItemSizes(True)
        # Rows laid out a batch per event-loop turn: after a change the view placed all 7,000 rows
        # of a 100,000-entry session in one go, ~16 ms of the loop each time the outline followed
        # a stream (batched: ~5 ms).
        self.list.setLayoutMode(QListView.LayoutMode.Batched)
        self.list.setBatchSize(200)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setToolTip("Landmarks of the tree: click to go there")
        # Rows never push a sideways scroll bar: a long one is cut with "…" and read whole on hover.
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
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
        self._rows_made: OutlineCache = {}  #: rows unchanged since the last refresh stay the same objects
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(150)
        self._timer.timeout.connect(self.refresh)
        self.filter.currentIndexChanged.connect(lambda _i: self.refresh())
        self.list.activated.connect(self._jump)
        self.list.clicked.connect(self._jump)
        graph.layout_applied.connect(self._on_layout)
        self.setMinimumWidth(180)

    def _on_layout(self, _kind: str) -> None:
        # debounced: a streaming turn lays out often; the first fill waits only for the graph's
        # first paint (the next event-loop turn), so the picture is never late for the list. A
        # long outline is a ~10 ms refresh (7,000 landmarks at 100,000 entries): at most once a
        # second while a reply streams, so it seldom meets the other work of an append.
        if not self.items:
            self._timer.start(0)
        elif not self._timer.isActive():
            self._timer.start(_BIG_OUTLINE_DELAY_MS if len(self.items) > _BIG_OUTLINE else 150)

    def _whole_text(self, entry_id: str) -> str:
        session = self._graph.session
        entry = session.get_entry(entry_id) if session is not None else None
        return full_text(entry, 600) if entry is not None else ""

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
        self.model.set_items([item for item in everything if item.role in roles])

    @property
    def items(self) -> list[OutlineItem]:
        """The rows shown, in order."""
        return self.model.items

    def restyle(self) -> None:
        """The palette changed: every row's colour follows (the rows themselves may be unchanged)."""
        self.refresh()
        self.model.restyled()

    def _color(self, item: OutlineItem) -> QColor | None:
        style = self._style
        if item.role == "active-leaf":
            return style.pin
        if item.role in ("compaction", "branch_summary"):
            return style.kind(item.kind).accent.darker(115)
        if item.role == "label":
            return style.flag.darker(140)
        return None

    def _jump(self, row: QModelIndex) -> None:
        entry = row.data(_ENTRY_ROLE)
        if isinstance(entry, str):
            self.jump_to(entry)

    def jump_to(self, entry_id: str) -> None:
        """Reveal ``entry_id`` on the canvas (unfolding its run) and select it."""
        self._graph.reveal(entry_id)
        self._graph.select(entry_id, center=True, notify=True)
