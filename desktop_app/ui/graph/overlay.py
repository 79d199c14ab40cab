"""What the canvas paints over its scene in screen pixels: the labels, the audit's captions, the heat strip.

Semantic zoom: labels (:mod:`.labels`) are placed in viewport pixels each paint, clear of the
audit's captions (:mod:`.audit_captions`) and of the minimap. What each node says
(:func:`~desktop_app.present.lod.node_marks`) is cached per scene version; after appends only the
marks they touched are made again (:func:`~desktop_app.present.lod.update_marks`), never a walk of
the whole graph per paint (docs/PERFORMANCE.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QRect, QRectF
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsView

from desktop_app.present.lod import Marks, Placed, Rect, node_marks, update_marks
from desktop_app.present.viewgraph import Node, ViewGraph

from .audit_captions import AuditCaptionPainter
from .heat import HeatStrip
from .labels import LabelPainter
from .scene import GraphScene
from .style import GraphStyle

__all__ = ["CanvasOverlay"]


class CanvasOverlay:
    """The screen-space layer of a :class:`~desktop_app.ui.graph.view.GraphView`.

    ``session_name``: the session's name now (the root's label says it); ``minimap_rect``: where
    the minimap is in viewport pixels, empty while it is hidden (labels keep clear of it).
    """

    def __init__(
        self,
        view: QGraphicsView,
        scene: GraphScene,
        style: GraphStyle,
        session_name: Callable[[], str | None],
        minimap_rect: Callable[[], QRect],
    ) -> None:
        self._view = view
        self._scene = scene
        self._style = style
        self._session_name = session_name
        self._minimap_rect = minimap_rect
        self.labels = LabelPainter(style)
        self.captions = AuditCaptionPainter(style)  #: the audit's words, pinned on screen
        self.heat = HeatStrip()  #: context lens tokens per entry, while it shows
        self._labels_version = -1
        self._marks = Marks()
        self._marks_version = -1
        self._marks_leaf: Node | None = None  #: the graph's leaf node when the marks were made
        self._marks_name: str | None = None
        #: appends since the marks were made: (scene version before, after, nodes whose mark may differ)
        self._marks_pending: tuple[int, int, set[Node]] | None = None

    def forget_graph(self) -> list[object]:
        """Drop the marks and labels of the graph shown (a far switch replaces it); returns them
        so the caller can free them off the UI thread."""
        retired: list[object] = [self._marks, *self.labels.take_graph()]
        self._marks = Marks()
        self._marks_pending, self._marks_version, self._labels_version = None, -1, -1
        return retired

    def paint(self, painter: QPainter) -> None:
        """Heat strip, labels, then the audit's captions, in viewport pixels."""
        view = self._view
        self.layout_labels()
        painter.save()
        painter.resetTransform()
        self.heat.paint(painter, self._scene, view.viewportTransform(), QRectF(view.viewport().rect()))
        self.labels.paint(painter)
        self.captions.paint(painter)  # over the labels' markers: the audit's words are read first
        painter.restore()

    def layout_labels(self) -> None:
        scene, view = self._scene, self._view
        if self._labels_version != scene.version:
            self._labels_version = scene.version
            self.labels.set_graph(scene.graph, self.node_marks())
        obstacles = self.caption_rects()
        g = self._minimap_rect()
        if not g.isEmpty():
            obstacles.append(Rect(g.x(), g.y(), g.width(), g.height()))
        spec = self._style.spec
        self.labels.layout(
            scene.positions,
            view.viewportTransform(),
            QRectF(view.viewport().rect()),
            (spec.node_width / 2, spec.node_height / 2),
            obstacles,
        )

    def adopt_marks(self, graph: ViewGraph, marks: Marks, name: str | None) -> None:
        """``marks``: :func:`node_marks` of ``graph`` for the session ``name``, made elsewhere (the
        whole graph's build, on its worker). Kept as the scene's marks now if ``graph`` is the one
        on screen and the name is still the session's; otherwise they are made again when asked."""
        if self._scene.graph is graph and name == self._session_name():
            self._marks, self._marks_name, self._marks_leaf = marks, name, graph.leaf_node
            self._marks_version, self._marks_pending = self._scene.version, None

    def note_marks(self, before: int, nodes: Iterable[Node | None]) -> None:
        """An append took the scene from version ``before`` to now, touching only ``nodes``' marks."""
        pending = self._marks_pending
        start, dirty = (pending[0], pending[2]) if pending is not None and pending[1] == before else (before, set())
        dirty.update(n for n in nodes if n is not None)
        leaf = self._scene.graph.leaf_node
        if leaf is not None:
            dirty.add(leaf)
        self._marks_pending = (start, self._scene.version, dirty)

    def node_marks(self) -> Marks:
        """What every node says when labelled, most important first (cached until the picture
        changes; the screen labels and the outline share it). After appends only the marks they
        touched are made again (:func:`update_marks`); anything else makes them all afresh."""
        version = self._scene.version
        if self._marks_version != version:
            name = self._session_name()
            graph = self._scene.graph
            pending = self._marks_pending
            if (
                pending is not None
                and pending[0] == self._marks_version
                and pending[1] == version
                and name == self._marks_name
                and self._marks
            ):
                dirty = pending[2] | ({self._marks_leaf} if self._marks_leaf is not None else set())
                self._marks = update_marks(graph, self._marks, dirty, name, in_place=True)
            else:
                self._marks = node_marks(graph, name)
            self._marks_version, self._marks_leaf, self._marks_name = version, graph.leaf_node, name
            self._marks_pending = None
        return self._marks

    def caption_rects(self) -> list[Rect]:
        """Viewport rectangles of the audit's captions, placed for this view (labels keep clear of them)."""
        bands = self._scene.bands
        captions = bands.captions if bands is not None else []
        view = self._view
        return self.captions.layout(captions, view.viewportTransform(), QRectF(view.viewport().rect()))

    def audit_captions(self) -> list[tuple[str, Rect]]:
        """The audit's words on screen now and their viewport rectangles."""
        self.layout_labels()
        return [(caption.text, rect) for caption, rect in self.captions.placed]

    def screen_labels(self) -> list[Placed]:
        """The labels drawn over the graph now, in viewport pixels."""
        self.layout_labels()
        return list(self.labels.placed)
