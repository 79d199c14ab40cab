"""Screen-space labels of the semantic zoom: paints what :mod:`desktop_app.present.lod` placed.

The view calls :meth:`LabelPainter.paint` from ``drawForeground`` with the painter reset to
viewport pixels, so labels keep the UI's text size at every zoom. What each node says and which
labels fit is decided in ``present/`` (no Qt); this class only maps scene positions to the screen,
measures text with the real font, caches the placement until the picture moves, and draws.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QPainter,
    QPainterPath,
    QPen,
    QTransform,
)

from desktop_app.present.lod import Detail, Mark, Marks, Placed, Rect, detail_for, landmarks_of, place_labels
from desktop_app.present.viewgraph import Node, ViewGraph

from .style import GraphStyle

__all__ = ["LabelPainter", "label_font"]

_MARKER_RADIUS = 6.0


def label_font() -> QFont:
    """The UI font, never smaller than 12 px: labels are read at the size of the window's text."""
    font = QFont(QGuiApplication.font())
    size = QFontMetricsF(font).height()
    font.setPixelSize(max(12, round(size * 0.8)))
    return font


class LabelPainter:
    """Marks for the current graph, their placement for the current view, and the painting."""

    def __init__(self, style: GraphStyle) -> None:
        self._style = style
        self.font = label_font()
        self._metrics = QFontMetricsF(self.font)
        self._widths: dict[str, float] = {}
        self._graph: ViewGraph | None = None
        self._marks: list[Mark] = []
        self._landmarks: list[Mark] = []
        self._key: tuple[object, ...] | None = None
        self.placed: list[Placed] = []
        self.markers: list[tuple[Mark, float, float]] = []
        self.detail = Detail.FULL

    @property
    def line_height(self) -> float:
        return self._metrics.height() + 4.0

    def measure(self, text: str) -> float:
        width = self._widths.get(text)
        if width is None:
            width = self._widths[text] = self._metrics.horizontalAdvance(text)
        return width

    def set_graph(self, graph: ViewGraph, marks: Marks) -> None:
        """The graph changed (or its flags did): what every node says (:func:`node_marks`)."""
        self._graph = graph
        self._marks = list(marks.ranked)
        self._landmarks = landmarks_of(self._marks)
        self._key = None

    def invalidate(self) -> None:
        self._key = None

    def take_graph(self) -> list[object]:
        """Forget the graph and its marks (a far branch switch replaces them) and hand them over,
        for the caller to free where it likes (thousands of marks at 100,000 entries)."""
        taken: list[object] = [self._graph, self._marks, self._landmarks, self.placed, self.markers]
        self._graph, self._marks, self._landmarks = None, [], []
        self.placed, self.markers = [], []
        self._key = None
        return taken

    def layout(
        self,
        positions: Mapping[Node, tuple[float, float]],
        transform: QTransform,
        viewport: QRectF,
        box: tuple[float, float],
        obstacles: list[Rect],
    ) -> None:
        """Place labels for the view ``transform`` (scene → viewport) unless nothing moved."""
        scale = transform.m11()
        key = (
            scale,
            transform.m22(),
            round(transform.m31(), 1),
            round(transform.m32(), 1),
            viewport.width(),
            viewport.height(),
            tuple(obstacles),
            id(self._graph),
        )
        if key == self._key:
            return
        self._key = key
        self.detail = detail_for(scale)
        self.placed, self.markers = [], []
        if self.detail is Detail.FULL:
            return
        dx, dy, sy_scale = transform.m31(), transform.m32(), transform.m22()
        half_w, half_h = box[0] * scale, box[1] * sy_scale
        margin = max(half_w, _MARKER_RADIUS)
        left, top = viewport.left() - margin, viewport.top() - margin
        right, bottom = viewport.right() + margin, viewport.bottom() + margin
        marks = self._landmarks if self.detail is Detail.LANDMARKS else self._marks
        screen: dict[Node, tuple[float, float]] = {}
        for mark in marks:
            at = positions.get(mark.node)
            if at is None:
                continue
            x, y = at[0] * scale + dx, at[1] * sy_scale + dy
            if left <= x <= right and top <= y <= bottom:
                screen[mark.node] = (x, y)
        view = Rect(viewport.left(), viewport.top(), viewport.width(), viewport.height())
        self.placed = place_labels(
            marks,
            self.detail,
            screen,
            (half_w, half_h),
            view,
            self.measure,
            self.line_height,
            marker_radius=_MARKER_RADIUS,
            obstacles=obstacles,
            text_height=self._metrics.lineSpacing(),  # two lines inside a box tall enough for them
        )
        if self.detail is Detail.LANDMARKS:
            self.markers = [(m, *screen[m.node]) for m in reversed(marks) if m.node in screen]

    # ------------------------------------------------------------------------------- paint

    def paint(self, painter: QPainter) -> None:
        """Draw markers and labels; ``painter`` is in viewport pixels."""
        if self.detail is Detail.FULL:
            return
        style = self._style
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for mark, x, y in self.markers:  # least important first: the leaf ends up on top
            self._paint_marker(painter, mark, x, y)
        painter.setFont(self.font)
        back = QColor(style.background)
        back.setAlpha(235)
        for placed in self.placed:
            r = placed.rect
            rect = QRectF(r.x, r.y, r.w, r.h)
            ks = style.kind(placed.mark.kind)
            if placed.inside:
                painter.setPen(ks.text)
                painter.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, placed.text)
                continue
            painter.setPen(QPen(self._accent(placed.mark), 1.2))
            painter.setBrush(back)
            painter.drawRoundedRect(rect, 4, 4)
            painter.setPen(style.text)
            painter.drawText(rect.adjusted(4, 0, -4, 0), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, placed.text)

    def _accent(self, mark: Mark) -> QColor:
        style = self._style
        if mark.role == "active-leaf":
            return style.pin
        if mark.role == "label":
            return style.flag
        if mark.role in ("branch", "root") and mark.kind not in ("compaction", "branch_summary"):
            return style.active if mark.rank[1] == 0 else style.muted
        return style.kind(mark.kind).accent

    def _paint_marker(self, painter: QPainter, mark: Mark, x: float, y: float) -> None:
        style = self._style
        r = _MARKER_RADIUS
        color = self._accent(mark)
        painter.setPen(QPen(style.background, 1.5))
        painter.setBrush(color)
        if mark.kind == "compaction":  # a diamond: history was cut here
            path = QPainterPath(QPointF(x, y - r - 1))
            path.lineTo(x + r + 1, y)
            path.lineTo(x, y + r + 1)
            path.lineTo(x - r - 1, y)
            path.closeSubpath()
            painter.drawPath(path)
        elif mark.role == "active-leaf":
            painter.drawEllipse(QPointF(x, y), r + 2, r + 2)
            painter.setBrush(style.background)
            painter.drawEllipse(QPointF(x, y), 3, 3)
        else:
            painter.drawEllipse(QPointF(x, y), r, r)
