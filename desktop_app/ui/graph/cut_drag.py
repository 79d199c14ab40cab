"""Dragging the compaction preview's cut line along the path on the canvas.

While a manual compaction dialog is open, the dashed cut line the preview draws can be grabbed (the
cursor turns into a vertical-resize arrow over it) and dragged up or down the active path; it snaps to
the valid cut nearest the node under the pointer (:func:`desktop_app.present.context_actions.cut_choices_of`)
and hands it to ``set_cut`` (the dialog's slider, which redraws the bands). The presses and moves of a
drag are taken here, so they never start a node drag or a rubber band.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QGraphicsLineItem

from .view import GraphView

__all__ = ["CutDrag", "GRAB_PX", "cut_line_of", "keep_cut_in_view"]

GRAB_PX = 10  #: how near the line (in screen pixels) a press grabs it


def cut_line_of(graph: GraphView) -> QGraphicsLineItem | None:
    """The cut line the shown bands draw (``None``: no bands, or no cut on screen)."""
    bands = graph.graph_scene().bands
    if bands is None:
        return None
    return next((i for i in bands.items if isinstance(i, QGraphicsLineItem)), None)


def keep_cut_in_view(graph: GraphView, margin: int = 90) -> None:
    """Scroll (vertically only) so the cut line is well inside the canvas, not on its edge, where
    bringing its node into view leaves it and the band captions cover it."""
    line = cut_line_of(graph)
    if line is None:
        return
    y = graph.mapFromScene(line.line().center()).y()
    height = graph.viewport().height()
    if margin <= y <= height - margin:
        return
    centre = graph.mapToScene(graph.viewport().rect().center())
    graph.centerOn(centre.x(), line.line().center().y())


class CutDrag(QObject):
    """An event filter on the graph's viewport while a cut can be dragged (see the module docstring).

    ``path_ids``: the active path's entry ids in order; ``cut_ids``: the valid cuts among them;
    ``set_cut(entry_id)`` moves the cut (the bands follow); ``dropped()`` runs when the drag ends.
    """

    def __init__(
        self,
        graph: GraphView,
        path_ids: Sequence[str],
        cut_ids: Sequence[str],
        set_cut: Callable[[str], object],
        dropped: Callable[[], object] = lambda: None,
    ) -> None:
        super().__init__(graph)
        self._graph = graph
        self._position = {entry_id: i for i, entry_id in enumerate(path_ids)}
        self._cuts = [(self._position[c], c) for c in cut_ids if c in self._position]
        self._set_cut = set_cut
        self._dropped = dropped  #: after a drag: the cut's node unfolded and in view
        self.dragging = False
        self._cursor_set = False  #: the vertical arrow is ours to take off again
        self._viewport = graph.viewport()
        self._viewport.installEventFilter(self)

    def detach(self) -> None:
        self._viewport.removeEventFilter(self)
        self._cursor(False)
        self.dragging = False

    def _cursor(self, on: bool) -> None:
        if on and not self._cursor_set:
            self._viewport.setCursor(Qt.CursorShape.SplitVCursor)
        elif not on and self._cursor_set:
            self._viewport.unsetCursor()
        self._cursor_set = on

    def _line(self) -> QGraphicsLineItem | None:
        return cut_line_of(self._graph)

    def line_point(self) -> QPoint | None:
        """The middle of the cut line on screen (where a drag starts; tests press here)."""
        line = self._line()
        if line is None:
            return None
        return self._graph.mapFromScene(line.line().center())

    def _near_line(self, pos: QPoint) -> bool:
        line = self._line()
        if line is None:
            return False
        a = self._graph.mapFromScene(line.line().p1())
        b = self._graph.mapFromScene(line.line().p2())
        return abs(pos.y() - a.y()) <= GRAB_PX and min(a.x(), b.x()) <= pos.x() <= max(a.x(), b.x())

    def nearest_cut(self, pos: QPoint) -> str | None:
        """The valid cut nearest the path entry under ``pos`` (``None``: no path entry there)."""
        scene = self._graph.graph_scene()
        node = scene.node_at(self._graph.mapToScene(pos))
        if node is None or node not in scene.graph.nodes or not self._cuts:
            return None
        ids = scene.graph.nodes[node].ids
        at = [self._position[i] for i in ids if i in self._position]
        if not at:
            return None
        # the top half of a node keeps it (the cut goes above it), the bottom half keeps what follows it
        centre = self._graph.mapFromScene(scene.node_rect(node).center())
        target = min(at) if pos.y() <= centre.y() else max(at) + 1
        return min(self._cuts, key=lambda c: (abs(c[0] - target), c[0]))[1]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if watched is not self._viewport or not isinstance(event, QMouseEvent):
            return False
        pos = event.position().toPoint()
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton and self._near_line(pos):
            self.dragging = True
            self._cursor(True)
            return True
        if kind == QEvent.Type.MouseMove:
            if self.dragging:
                cut = self.nearest_cut(pos)
                if cut is not None:
                    self._set_cut(cut)
                return True
            self._cursor(self._near_line(pos))
            return False
        if kind == QEvent.Type.MouseButtonRelease and self.dragging:
            self.dragging = False
            self._dropped()
            return True
        return False
