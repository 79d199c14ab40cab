"""The canvas's viewport: zoom, fit, centre, reveal, and where nodes are in viewport pixels.

:class:`ViewportController` keeps the scroll and the zoom of a
:class:`~desktop_app.ui.graph.view.GraphView` (a ``QGraphicsView``) and measures nodes on screen
for the minimap and the leaf follower. It only reads the scene's positions of the nodes it is
asked about: no walk of the graph (docs/PERFORMANCE.md).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, QSizeF, Qt
from PySide6.QtWidgets import QGraphicsView

from desktop_app.present.lod import GROUPS_SCALE, Placed
from desktop_app.present.viewgraph import Node

from .scene import GraphScene

__all__ = ["MAX_ZOOM", "MIN_ZOOM", "ViewportController"]

MIN_ZOOM = 0.005  # the overview layer keeps even a 100,000-entry fit cheap
MAX_ZOOM = 3.0
_OVERVIEW_ZOOM = GROUPS_SCALE  # far out the overview layer draws the graph in bulk, landmarks on top

#: A selection or leaf and where it was on screen, to keep it there across a new layout.
Anchor = tuple[Node, QPoint]


class ViewportController:
    """Zoom, scroll and on-screen geometry of one canvas.

    ``selected`` and ``leaf``: the selected node and the leaf's node now (either may be ``None``);
    ``labels``: the screen labels placed now (a node's box takes in its label); ``moved``: called
    after the controller scrolled or zoomed (the minimap's frame follows).
    """

    def __init__(
        self,
        view: QGraphicsView,
        scene: GraphScene,
        selected: Callable[[], Node | None],
        leaf: Callable[[], Node | None],
        labels: Callable[[], list[Placed]],
        moved: Callable[[], None],
    ) -> None:
        self._view = view
        self._scene = scene
        self._selected = selected
        self._leaf = leaf
        self._labels = labels
        self._moved = moved
        self._last_seen = QRectF()  #: the scene rectangle the user saw last (kept across a resize)

    # ================================================================================ zoom

    def zoom(self) -> float:
        return float(self._view.transform().m11())

    def apply_lod(self) -> None:
        """Far out the scene draws its overview layer (call after every change of the transform)."""
        self._scene.set_overview(self.zoom() < _OVERVIEW_ZOOM)

    def zoom_by(self, factor: float) -> None:
        current = self.zoom()
        target = min(max(current * factor, MIN_ZOOM), MAX_ZOOM)
        if current > 0 and target != current:
            self._view.scale(target / current, target / current)
            self._moved()

    def fit_all(self) -> None:
        """Everything in view (never magnified beyond 100 %)."""
        view, scene = self._view, self._scene
        rect = scene.tighten_rect()  # the graph plus its margin: fits without scroll bars
        if not scene.positions or rect.isEmpty():
            return
        view.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        viewport = view.viewport().rect()
        if viewport.height() > 120 and viewport.width() > 120:
            # far out the scene's margin is a pixel or two: keep ~20 px of screen round the graph
            # so the markers at its edges (the root, the leaf) have room for their labels
            shrink = min((viewport.height() - 40) / viewport.height(), (viewport.width() - 40) / viewport.width())
            QGraphicsView.scale(view, shrink, shrink)
            view.centerOn(rect.center())
        self.apply_lod()
        if self.zoom() > 1.0:
            view.resetTransform()
            view.centerOn(rect.center())
        elif self.zoom() < MIN_ZOOM:
            self.zoom_by(MIN_ZOOM / self.zoom())
        self._moved()

    # ================================================================================ scroll

    def center_on_leaf(self) -> None:
        node = self._leaf()
        if node is not None and node in self._scene.positions:
            self._view.centerOn(*self._scene.positions[node])
            self._moved()

    def bring_into_view(self, node: Node) -> None:
        """Scroll as little as needed so ``node``'s whole box (and a margin) is on screen."""
        rect = self._scene.node_rect(node).adjusted(-16, -18, 16, 8)  # the pin and the label flag
        self._view.ensureVisible(rect, 40, 40)
        self._moved()

    def focus_anchor(self) -> Anchor | None:
        """The node the user is looking at (selection, else leaf) and where it is on screen."""
        for node in (self._selected(), self._leaf()):
            if node is not None and node in self._scene.positions:
                x, y = self._scene.positions[node]
                return node, self._view.mapFromScene(QPointF(x, y))
        return None

    def restore_anchor(self, anchor: Anchor | None) -> None:
        """Scroll so the anchor's node is where it was on screen (gone: centre the focus)."""
        if anchor is None:
            return
        view, positions = self._view, self._scene.positions
        node: Node | None
        node, screen = anchor
        if node not in positions:
            node = self._selected() or self._leaf()
            if node is None or node not in positions:
                return
            x, y = positions[node]
            view.centerOn(x, y)
            return
        x, y = positions[node]
        now = view.mapFromScene(QPointF(x, y))
        delta = now - screen
        view.horizontalScrollBar().setValue(view.horizontalScrollBar().value() + delta.x())
        view.verticalScrollBar().setValue(view.verticalScrollBar().value() + delta.y())

    def note_seen(self) -> None:
        """A paint: remember what the user saw (kept across a resize)."""
        self._last_seen = self.visible_scene_rect()

    def focus_seen(self) -> Node | None:
        """The selection (else the leaf) if it was on screen at the last paint."""
        focus = self._selected() or self._leaf()
        if focus is None or focus not in self._scene.positions:
            return None
        return focus if self._last_seen.intersects(self._scene.node_rect(focus)) else None

    # ================================================================================ geometry

    def visible_scene_rect(self) -> QRectF:
        return self._view.mapToScene(self._view.viewport().rect()).boundingRect()

    def leaf_visible(self) -> bool:
        node = self._leaf()
        if node is None or node not in self._scene.positions:
            return False
        return self.visible_scene_rect().intersects(self._scene.node_rect(node))

    def viewport_point(self, node: Node | None) -> QPoint | None:
        if node is None or node not in self._scene.positions:
            return None
        return self._view.mapFromScene(QPointF(*self._scene.positions[node]))

    def node_box(self, node: Node | None) -> QRectF | None:
        """``node``'s box in viewport pixels with its pin and flag, at least 36 px round its centre
        (far out a box is a dot), and its screen label when it has one."""
        if node is None or node not in self._scene.positions:
            return None
        box = self._view.mapFromScene(self._scene.node_rect(node).adjusted(-16, -18, 16, 8)).boundingRect()
        rect = QRectF(box).united(QRectF(QPointF(box.center()) - QPointF(18, 18), QSizeF(36, 36)))
        for placed in self._labels():
            if placed.mark.node == node:
                r = placed.rect
                rect = rect.united(QRectF(r.x, r.y, r.w, r.h))
        return rect

    def leaf_at(self) -> QPointF | None:
        """The leaf's centre in scene coordinates."""
        node = self._leaf()
        at = self._scene.positions.get(node) if node is not None else None
        return QPointF(*at) if at is not None else None

    def leaf_box(self) -> QRectF | None:
        return self.node_box(self._leaf())

    def minimap_avoid(self) -> list[QRect]:
        """Viewport rectangles the minimap must not cover: the leaf (its pin, flag and label) and
        the selected node."""
        boxes = [self.node_box(node) for node in (self._leaf(), self._selected())]
        return [box.toAlignedRect() for box in boxes if box is not None]
