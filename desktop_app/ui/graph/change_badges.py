"""File-change badges on the canvas (issue 25): "2 files +12 −3" on the node whose turn changed files.

Painted in viewport pixels over the scene, like the labels (:mod:`.overlay`), so node items stay as
they are. What each node says comes from :class:`~desktop_app.present.file_changes.BadgeCache`
(store-free, remade only when the session grew); here only where the badges go on screen now. Far
out (nodes smaller than :data:`MIN_NODE_PX` wide, or the overview) no badge is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from weakref import WeakKeyDictionary

from PySide6.QtCore import QPointF, QRect, QRectF
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QGraphicsView

from desktop_app.present.file_changes import BadgeCache, ChangeBadge, badge_for
from desktop_app.present.viewgraph import Node
from desktop_app.session import SessionView

from .scene import GraphScene

__all__ = ["ChangeBadgePainter", "PlacedBadge", "MIN_NODE_PX", "badges_of"]

#: Below this on-screen node width the badge would cover the node: none is drawn.
MIN_NODE_PX = 70
#: Pixels kept free at the node's top-right corner, where the active-leaf pin stands.
PIN_ROOM = 24


@dataclass(frozen=True)
class PlacedBadge:
    node: Node
    badge: ChangeBadge
    rect: QRect  #: viewport pixels


class ChangeBadgePainter:
    """Places and paints the badges of the nodes on screen."""

    def __init__(self) -> None:
        self.cache = BadgeCache()
        self.placed: list[PlacedBadge] = []
        self._font = QFont()
        self._font.setPointSizeF(max(7.0, self._font.pointSizeF() * 0.85))
        self._font.setBold(True)

    def node_badges(self, scene: GraphScene, session: SessionView | None) -> dict[Node, ChangeBadge]:
        """The badge of every node of the scene's graph that has one."""
        if session is None:
            return {}
        badges = self.cache.badges(session.index)
        if not badges:
            return {}
        graph = scene.graph
        nodes: dict[Node, list[str]] = {}
        for entry_id in badges:
            node = graph.node_for_entry(entry_id)
            if node is not None and node in scene.positions:
                nodes.setdefault(node, []).append(entry_id)
        found: dict[Node, ChangeBadge] = {}
        for node, ids in nodes.items():
            badge = badge_for(badges, ids)
            if badge is not None:
                found[node] = badge
        return found

    def layout(self, view: QGraphicsView, scene: GraphScene, session: SessionView | None) -> list[PlacedBadge]:
        self.placed = []
        if scene.overview:
            return self.placed
        by_node = self.node_badges(scene, session)
        if not by_node:
            return self.placed
        metrics = QFontMetrics(self._font)
        screen = QRectF(view.viewport().rect())
        transform = view.viewportTransform()
        for node, badge in by_node.items():
            box = transform.mapRect(scene.node_rect(node))
            if box.width() < MIN_NODE_PX or not box.intersects(screen):
                continue
            width = metrics.horizontalAdvance(badge.text) + 12
            height = metrics.height() + 4
            # on the node's top edge, right-aligned: over the frame, clear of the node's text and the leaf pin
            rect = QRect(int(box.right() - width - PIN_ROOM), int(box.top() - height / 2), width, height)
            self.placed.append(PlacedBadge(node, badge, rect))
        return self.placed

    def paint(self, painter: QPainter, view: QGraphicsView, scene: GraphScene, session: SessionView | None) -> None:
        placed = self.layout(view, scene, session)
        if not placed:
            return
        dark = view.palette().window().color().lightness() < 128
        fill = QColor("#161b22" if dark else "#ffffff")
        frame = QColor("#8b949e" if dark else "#57606a")
        text = QColor("#c9d1d9" if dark else "#24292f")
        plus = QColor("#3fb950" if dark else "#1a7f37")
        minus = QColor("#f85149" if dark else "#cf222e")
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(self._font)
        metrics = QFontMetrics(self._font)
        for item in placed:
            rect = item.rect
            painter.setPen(QPen(frame, 1))
            painter.setBrush(fill)
            painter.drawRoundedRect(QRectF(rect), rect.height() / 2, rect.height() / 2)
            files, added, removed = item.badge.parts
            x = rect.left() + 6
            baseline = rect.top() + (rect.height() + metrics.ascent() - metrics.descent()) / 2
            for part, colour in ((files + " ", text), (added + " ", plus), (removed, minus)):
                painter.setPen(colour)
                painter.drawText(QPointF(x, baseline), part)
                x += metrics.horizontalAdvance(part)
        painter.restore()



_PAINTERS: WeakKeyDictionary[QGraphicsView, ChangeBadgePainter] = WeakKeyDictionary()


def badges_of(view: QGraphicsView) -> ChangeBadgePainter:
    """The badge painter of ``view`` (made on first use; automation: ``badges_of(window.graph).placed``)."""
    painter = _PAINTERS.get(view)
    if painter is None:
        painter = _PAINTERS[view] = ChangeBadgePainter()
    return painter
