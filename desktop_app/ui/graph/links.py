"""The scene's links beside the tree's edges: a branch summary → the branch it abandoned (Arbor),
a context edit → the entry it omits or replaces (pi 1.6.0).

Made afresh, as a handful of path items, only when the links or (for edit links, which bend away
from the picture's middle) the picture's width change (:meth:`GraphScene._links_changed`).
"""

from __future__ import annotations

from collections.abc import Mapping
from math import cos, radians, sin
from typing import Any

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsPathItem

from desktop_app.present.viewgraph import ViewGraph

from .items import edit_link_path, edit_link_pen
from .style import GraphStyle

__all__ = ["link_items"]


def link_items(
    graph: ViewGraph, positions: Mapping[Any, tuple[float, float]], style: GraphStyle, middle: float
) -> list[QGraphicsPathItem]:
    """The link items of ``graph`` at ``positions`` (not yet in a scene); ``middle``: the picture's
    middle x (edit links bend away from it)."""
    items: list[QGraphicsPathItem] = []
    spec = style.spec
    pen = QPen(style.summary_link, 2.0, Qt.PenStyle.DashLine)
    for source, target in graph.summary_links:
        if source not in positions or target not in positions or source == target:
            continue
        sx, sy = positions[source]
        tx, ty = positions[target]
        start = QPointF(sx + (spec.node_width / 2 if tx >= sx else -spec.node_width / 2), sy)
        end = QPointF(tx + (-spec.node_width / 2 - 4 if tx >= sx else spec.node_width / 2 + 4), ty)
        path = QPainterPath(start)
        bend = max(abs(end.x() - start.x()) * 0.5, 60.0)
        sign = 1 if end.x() >= start.x() else -1
        path.cubicTo(
            QPointF(start.x() + sign * bend, start.y()), QPointF(end.x() - sign * bend, end.y()), end
        )
        head = _arrow_head(path, 9.0)
        path.addPolygon(head)
        item = QGraphicsPathItem(path)
        item.setPen(pen)
        item.setZValue(0.5)
        item.setToolTip("branch summary → the branch it abandoned")
        items.append(item)
    for source, target in graph.edit_links:  # pi 1.6.0: a context edit → the entry it edits
        if source in positions and target in positions and source != target:
            ends = positions[source], positions[target]
            link = QGraphicsPathItem(edit_link_path(*ends, spec.node_width / 2, outward=ends[0][0] < middle))
            link.setPen(edit_link_pen(style))
            link.setZValue(0.5)
            link.setToolTip("context edit → the entry it omits or replaces in the context")
            items.append(link)
    return items


def _arrow_head(path: QPainterPath, size: float) -> QPolygonF:
    end = path.pointAtPercent(1.0)
    a = radians(path.angleAtPercent(0.98))
    back = QPointF(end.x() - size * cos(a), end.y() + size * sin(a))
    normal = QPointF(size * 0.5 * sin(a), size * 0.5 * cos(a))
    return QPolygonF([end, back + normal, back - normal, end])
