"""The ``QGraphicsScene`` of the canvas: items for a view graph at given positions.

It knows nothing about sessions or layouts: it is handed a graph and positions, and keeps items in
step with them: all at once (:meth:`GraphScene.show_graph`), or node by node for appends
(:meth:`GraphScene.add_node`), so a streaming turn never rebuilds 10,000 items. The item index is
``NoIndex`` (DESIGN.md §8: the BSP index made the first paint 100× slower and buys nothing for a
scene whose items move in bulk).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Generator, Iterable, Mapping
from typing import Any

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QBrush, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
)

from desktop_app.compaction.audit import CompactionAudit
from desktop_app.present.layout import RowIndex
from desktop_app.present.viewgraph import Node, ViewGraph

from .audit_bands import AuditBands, build_audit_bands
from .items import Edge, EdgeLayer, NodeItem, OverviewLayer
from .layer_trash import LayerTrash
from .links import link_items
from .style import GraphStyle

__all__ = ["GraphScene", "AuditBands"]

#: A sliced :meth:`GraphScene.show_graph_in_steps` reads the clock after this many items.
_CLOCK_EVERY = 16

#: When an append takes the graph out of the scene rect, the rect grows this many rows beyond it.
_GROW_ROWS = 8

Positions = Mapping[Any, tuple[float, float]]


def _clip_to_nothing(layer: QGraphicsItem, on: bool) -> None:
    """Clip the children of ``layer`` (made by :meth:`GraphScene._layer`: an empty box) to that
    box (``on``: Qt skips them when it paints, as it skips what lies outside a clip) or let them
    show. While clipping, the layer counts as having contents: Qt only culls by the box of an
    item that has some."""
    flags = QGraphicsItem.GraphicsItemFlag
    layer.setFlag(flags.ItemHasNoContents, not on)
    layer.setFlag(flags.ItemClipsChildrenToShape, on)


class StretchLayer(QGraphicsItem):
    """Far out, a folded run's edge drawn as a thick line: the tidy tree gives a run
    :func:`~desktop_app.present.lod.stretch_rows` rows, so the line's length shows the run's size
    where no count is legible (issue 10 item 1). Drawn with the overview, in one bulk call."""

    def __init__(self, style: GraphStyle) -> None:
        super().__init__()
        self._style = style
        self._bounds = QRectF()
        self._lines: list[QLineF] = []
        self._active: list[QLineF] = []
        self.setZValue(1.6)

    def set_lines(self, bounds: QRectF, lines: list[QLineF], active: list[QLineF]) -> None:
        self.prepareGeometryChange()
        self._bounds = QRectF(bounds)
        self._lines, self._active = lines, active
        self.update()

    @property
    def line_count(self) -> int:
        return len(self._lines) + len(self._active)

    def lines(self) -> list[QLineF]:
        return self._lines + self._active

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt API)
        return self._bounds

    def paint(self, painter: QPainter, option: Any, widget: Any = None) -> None:
        for lines, color, width in (
            (self._lines, self._style.kind("segment").accent, 4.0),
            (self._active, self._style.active, 6.0),
        ):
            if lines:
                pen = QPen(color, width)
                pen.setCosmetic(True)  # as thick far out as near
                pen.setCapStyle(Qt.PenCapStyle.FlatCap)
                painter.setPen(pen)
                painter.drawLines(lines)


class GraphScene(QGraphicsScene):
    """Items for one view graph; see the module docstring."""

    def __init__(self, style: GraphStyle) -> None:
        super().__init__()
        self.graph_style = style  # not ``style``: that would shadow QGraphicsScene.style()
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.setBackgroundBrush(QBrush(style.background))
        self.graph = ViewGraph(nodes={}, parent={}, children={}, roots=[])
        self.positions: dict[Node, tuple[float, float]] = {}
        #: :attr:`positions` by row, made when first asked for (:attr:`rows`), kept through appends
        self._rows: RowIndex | None = None
        #: min x, min y, max x, max y of :attr:`positions` (``None``: to be measured again)
        self._extent: tuple[float, float, float, float] | None = None
        #: what the links were last drawn from (:meth:`_rebuild_links`)
        self._links_key: tuple[object, ...] | None = None
        self.nodes: dict[Node, NodeItem] = {}
        self.edges: dict[tuple[Node, Node], Edge] = {}
        self.links: list[QGraphicsPathItem] = []
        self.bands: AuditBands | None = None
        self.overview = False
        self._pinned: Node | None = None
        self._edge_layer = self._edges_layer()
        self._node_layer = self._layer(1.0)
        self._overview = OverviewLayer(style)
        self._overview.setVisible(False)
        self.addItem(self._overview)
        self.stretches = StretchLayer(style)
        self.stretches.setVisible(False)
        self.addItem(self.stretches)
        self._overview_dirty = True
        self._trash = LayerTrash(self)  #: replaced layers, emptied a slice per turn
        #: bumped whenever nodes, their flags or their positions change (screen labels follow it)
        self.version = 0

    @property
    def edge_layer(self) -> EdgeLayer:
        """The item drawing every edge of the picture on screen."""
        return self._edge_layer

    def _edges_layer(self) -> EdgeLayer:
        """The item that draws every edge (below links and nodes)."""
        layer = EdgeLayer(self.graph_style)
        layer.setZValue(0.0)
        self.addItem(layer)
        return layer

    def _layer(self, z: float) -> QGraphicsRectItem:
        """A content-less parent: hiding it hides thousands of children in one call."""
        layer = QGraphicsRectItem()
        layer.setPen(QPen(Qt.PenStyle.NoPen))
        layer.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)
        layer.setZValue(z)
        self.addItem(layer)
        return layer

    # ------------------------------------------------------------------------------- whole graph

    def show_graph(self, graph: ViewGraph, positions: Positions) -> None:
        """Replace every item: the graph's nodes and edges at ``positions``."""
        for _ in self.show_graph_in_steps(graph, positions, step=0):
            pass

    def show_graph_in_steps(
        self,
        graph: ViewGraph,
        positions: Positions,
        step: int = 1000,
        budget: float = 0.0,
        *,
        rows: RowIndex | None = None,
        extent: tuple[float, float, float, float] | None = None,
    ) -> Generator[int, None, None]:
        """:meth:`show_graph` in slices: the new items are made into hidden layers (yielding the
        count made so far after each slice) while the old ones stay on screen; the last step swaps
        them in. A slice ends after ``step`` items, or once it has taken ``budget`` seconds (the
        same event-loop turn of a few milliseconds on any machine, issue 28: 600 items were 10 ms
        here, 50 ms on a loaded machine); ``step=0`` and no ``budget``: all at once. Edges are
        indexed slice by slice too (their layer is hidden meanwhile: 35 ms at 100,000 entries in
        one go). Nothing else may change the scene until the iterator is exhausted (an abandoned
        one leaves the old picture). ``rows`` and ``extent``: :attr:`rows` and the positions'
        extent made elsewhere (the whole graph's build worker), not on the first turns after."""
        edge_layer, node_layer = self._edges_layer(), self._layer(1.0)
        # Shown but clipped to nothing, not hidden: Qt paints no child of a layer that clips them
        # to its empty box, and unclipping marks no child dirty, where showing a hidden layer of
        # 40,000 items took 0.2-0.4 s of Qt's on the next turn (issue 28).
        edge_layer.setVisible(False)  # one item: showing it costs nothing
        _clip_to_nothing(node_layer, True)
        style = self.graph_style
        where = dict(positions)
        nodes: dict[Node, NodeItem] = {}
        edges: dict[tuple[Node, Node], Edge] = {}
        batch: list[Edge] = []
        clock = time.perf_counter
        sliced = bool(step or budget)
        step = step or sys.maxsize
        made = 0
        slice_ends = clock() + budget if budget else math.inf

        def slice_done() -> bool:
            nonlocal slice_ends
            if made % step == 0 or (made % _CLOCK_EVERY == 0 and clock() >= slice_ends):
                slice_ends = clock() + budget if budget else math.inf
                return True
            return False

        try:
            for node, view in graph.nodes.items():
                node_item = NodeItem(node, view, style, node_layer)
                node_item.setPos(*where[node])
                nodes[node] = node_item
                made += 1
                if sliced and slice_done():
                    yield made
            view_nodes = graph.nodes
            for a, b in graph.edges():
                if a in where and b in where:
                    active = view_nodes[a].on_active_path and view_nodes[b].on_active_path
                    edge = edges[(a, b)] = Edge(active)
                    ax, ay = where[a]
                    bx, by = where[b]
                    edge.set_ends(ax, ay + nodes[a].half_height, bx, by - nodes[b].half_height)
                    batch.append(edge)
                    made += 1
                    if sliced and slice_done():
                        edge_layer.add_many(batch)
                        batch.clear()
                        yield made
        except GeneratorExit:
            self.removeItem(edge_layer)
            self.removeItem(node_layer)
            raise
        edge_layer.add_many(batch)  # the last ones
        _clip_to_nothing(node_layer, False)
        audit = self.bands.audit if self.bands is not None else None
        split = self.bands.split_entry if self.bands is not None else None
        self.clear_audit()
        for item in self.links:
            self.removeItem(item)
        self.removeItem(self._edge_layer)  # one item: its edges are plain data
        self._trash.discard(self._node_layer, list(self.nodes.values()))
        self._edge_layer, self._node_layer = edge_layer, node_layer
        self.nodes = nodes
        self.edges = edges
        self.links.clear()
        self.graph = graph
        self.positions = where
        self._forget_positions()
        self._rows, self._extent = rows, extent
        self._apply_overview_visibility()
        self._pinned = None
        self.update_pin()
        self._rebuild_links()
        self.tighten_rect()
        self._content_changed()
        if audit is not None:
            self.show_audit(audit, split)

    @property
    def discarding(self) -> bool:
        """Items of a replaced picture are still being deleted (hidden meanwhile)."""
        return self._trash.busy

    def move_to(self, positions: Positions) -> None:
        """New positions for the same graph (the dot layout arriving): move items, re-route edges."""
        self.positions.update({n: positions[n] for n in self.nodes if n in positions})
        self._forget_positions()
        for node, item in self.nodes.items():
            item.setPos(*self.positions[node])
        for (a, b), edge in self.edges.items():
            edge.set_ends(*self._ends(a, b))
        self._edge_layer.reindex()
        self._rebuild_links()
        self.tighten_rect()
        self._content_changed()
        if self.bands is not None:
            self.show_audit(self.bands.audit, self.bands.split_entry)

    # ------------------------------------------------------------------------------- overview

    def set_overview(self, on: bool) -> None:
        """Far out: hide the items, draw the overview layer instead (see :class:`OverviewLayer`)."""
        if on == self.overview:
            return
        self.overview = on
        if on and self._overview_dirty:
            self._refresh_overview()
        self._apply_overview_visibility()
        self.update_marks()

    def _apply_overview_visibility(self) -> None:
        self._edge_layer.setVisible(not self.overview)
        self._node_layer.setVisible(not self.overview)
        self._overview.setVisible(self.overview)
        self.stretches.setVisible(self.overview)

    def _content_changed(self) -> None:
        self.version += 1
        self._overview_dirty = True
        if self.overview:
            self._refresh_overview()

    def _refresh_overview(self) -> None:
        kinds = {n: view.kind for n, view in self.graph.nodes.items()}
        edges = [(a, b, e.active) for (a, b), e in self.edges.items()]
        self._overview.set_content(self.sceneRect(), self.positions, kinds, edges)
        lines: list[QLineF] = []
        active: list[QLineF] = []
        nodes = self.graph.nodes
        for (a, b), edge in self.edges.items():
            view = nodes.get(a)
            if view is not None and view.is_segment:
                (ax, ay), (bx, by) = self.positions[a], self.positions[b]
                (active if edge.active else lines).append(QLineF(ax, ay, bx, by - self.nodes[b].half_height))
        self.stretches.set_lines(self.sceneRect(), lines, active)
        self._overview_dirty = False
        self.update_marks()

    def restyle(self) -> None:
        """Repaint everything with the style's current colours (after :meth:`GraphStyle.adopt`):
        edges and links carry pens made from it, nodes and the overview cache their pictures."""
        self.setBackgroundBrush(QBrush(self.graph_style.background))
        self._edge_layer.update()  # its pens follow the style's colours
        for item in self.nodes.values():
            item.update()
        self._rebuild_links()
        self._overview_dirty = True
        if self.overview:
            self._refresh_overview()
        self.update()

    def update_marks(self) -> None:
        """Carry selection, matches and the leaf over to the overview layer (when it shows)."""
        if not self.overview:
            return
        marks: dict[str, list[Node]] = {"selected": [], "match": [], "current": [], "leaf": []}
        for node, item in self.nodes.items():
            if item.selected:
                marks["selected"].append(node)
            if item.match:
                marks["current" if item.match == 2 else "match"].append(node)
        if self._pinned is not None:
            marks["leaf"].append(self._pinned)
        self._overview.set_marks(marks)

    def rebind(self, graph: ViewGraph) -> None:
        """A rebuilt graph with the same nodes and edges: restyle items, keep positions."""
        self.graph = graph
        for node, item in self.nodes.items():
            item.set_view(graph.nodes[node])
        self._edge_layer.set_active((edge, self._edge_active(a, b)) for (a, b), edge in self.edges.items())
        self.update_pin()
        self._rebuild_links()
        self._content_changed()
        if self.bands is not None:
            self.show_audit(self.bands.audit, self.bands.split_entry)

    # ------------------------------------------------------------------------------- increments

    def add_node(self, graph: ViewGraph, node: Node, position: tuple[float, float]) -> NodeItem:
        """One new node of ``graph`` (the model's graph after an append) and its in-edge; nothing
        else moves."""
        self.graph = graph
        item = NodeItem(node, graph.nodes[node], self.graph_style, self._node_layer)
        item.setPos(*position)
        self.positions[node] = position
        if self._rows is not None:
            self._rows.add(node, position)
        if self._extent is not None:
            (x0, y0, x1, y1), (x, y) = self._extent, position
            self._extent = (min(x0, x), min(y0, y), max(x1, x), max(y1, y))
        self.nodes[node] = item
        parent = graph.parent_of(node)
        if parent is not None:
            self._add_edge(parent, node)
        if self._links_changed(node):
            self._rebuild_links()
        self._grow_rect()
        self._content_changed()
        return item

    def remove_node(self, node: Node) -> None:
        item = self.nodes.pop(node, None)
        if item is not None:
            self.removeItem(item)
        for key in self._edge_keys_of(node):
            self._edge_layer.discard(self.edges.pop(key))
        at = self.positions.pop(node, None)
        if at is not None:
            if self._rows is not None:
                self._rows.discard(node, at)
            if self._extent is not None and (at[0] in self._extent[::2] or at[1] in self._extent[1::2]):
                self._extent = None  # it was on the edge: measure again when asked
        if self._pinned == node:
            self._pinned = None
        self._content_changed()

    def _edge_keys_of(self, node: Node) -> list[tuple[Node, Node]]:
        """The drawn edges into and out of ``node``: read from the graph the items were made for
        (:attr:`graph` until the caller hands over the next one), not by scanning every edge
        (~1 ms per removed node at 100,000 entries, while a turn with tool calls streams)."""
        graph = self.graph
        if node not in graph:  # not a node of that graph: the careful way
            return [k for k in self.edges if node in k]
        parent = graph.parent_of(node)
        keys = [(parent, node)] if parent is not None else []
        keys.extend((node, child) for child in graph.children_of(node))
        return [k for k in keys if k in self.edges]

    def refresh(self, graph: ViewGraph, nodes: Iterable[Node]) -> None:
        """Re-read ``graph`` (the model's current one) for ``nodes`` and their edges: active path,
        leaf, label."""
        self.graph = graph
        restyled: list[tuple[Edge, bool]] = []
        for node in nodes:
            item = self.nodes.get(node)
            if item is None or node not in graph:
                continue
            item.set_view(graph.nodes[node])
            for a, b in graph.edges_of(node):
                edge = self.edges.get((a, b))
                if edge is not None:
                    restyled.append((edge, self._edge_active(a, b)))
        self._edge_layer.set_active(restyled)
        self.update_pin()
        self._content_changed()

    def show_matches(self, old: Iterable[Node], new: Iterable[Node], current: Node | None) -> None:
        """Search marks: ``old`` matches cleared, ``new`` marked, ``current`` marked as the one
        jumped to."""
        for node in old:
            if node in self.nodes:
                self.nodes[node].set_state(match=0)
        for node in new:
            if node in self.nodes:
                self.nodes[node].set_state(match=2 if node == current else 1)
        self.update_marks()

    def update_pin(self) -> None:
        """Put the leaf pin on the node standing for the leaf."""
        target = self.graph.leaf_node
        if target == self._pinned:
            return
        if self._pinned is not None and self._pinned in self.nodes:
            self.nodes[self._pinned].set_state(pinned=False)
        self._pinned = target if target in self.nodes else None
        if self._pinned is not None:
            self.nodes[self._pinned].set_state(pinned=True)
        self.update_marks()

    # ------------------------------------------------------------------------------- edges

    def _edge_active(self, a: Node, b: Node) -> bool:
        nodes = self.graph.nodes
        return nodes[a].on_active_path and nodes[b].on_active_path

    def _ends(self, a: Node, b: Node) -> tuple[float, float, float, float]:
        """From the bottom of ``a``'s drawn shape to the top of ``b``'s (pills are shorter)."""
        ax, ay = self.positions[a]
        bx, by = self.positions[b]
        return ax, ay + self.nodes[a].half_height, bx, by - self.nodes[b].half_height

    def _add_edge(self, a: Node, b: Node) -> None:
        if a not in self.positions or b not in self.positions:
            return
        edge = Edge(self._edge_active(a, b))
        edge.set_ends(*self._ends(a, b))
        self._edge_layer.add(edge)
        self.edges[(a, b)] = edge

    def _links_key_now(self) -> tuple[object, ...]:
        extent = self._measured_extent()
        middle = (extent[0] + extent[2]) / 2 if extent is not None else 0.0
        edit = tuple(self.graph.edit_links)
        return (tuple(self.graph.summary_links), edit, middle if edit else None)

    def _links_changed(self, node: Node) -> bool:
        """Whether appending ``node`` changes the links: new links, one ending at it, or (with
        edit links, which bend away from the middle) a wider picture."""
        if self._links_key != self._links_key_now():
            return True
        return any(node in link for link in (*self.graph.summary_links, *self.graph.edit_links))

    def _rebuild_links(self) -> None:
        """Dashed edges from Arbor-made branch summaries to the leaf they abandoned, and pi 1.6.0's
        context edits to the entries they edit (:func:`.links.link_items`)."""
        self._links_key = self._links_key_now()
        for item in self.links:
            self.removeItem(item)
        extent = self._measured_extent()
        middle = (extent[0] + extent[2]) / 2 if extent is not None else 0.0
        self.links[:] = link_items(self.graph, self.positions, self.graph_style, middle)
        for item in self.links:
            self.addItem(item)

    def _forget_positions(self) -> None:
        """New positions: what was measured of the old ones goes; the row index is made again on
        the next event-loop turn (2-5 ms at 100,000 entries), not in the first append after."""
        self._rows = self._extent = None
        QTimer.singleShot(0, self, self._make_rows)

    def _make_rows(self) -> RowIndex:
        if self._rows is None:
            self._rows = RowIndex(self.positions, self.graph_style.spec)
        return self._rows

    @property
    def rows(self) -> RowIndex:
        """:attr:`positions` by row, for placing appended nodes (made once, then kept up to date)."""
        return self._make_rows()

    def _measured_extent(self) -> tuple[float, float, float, float] | None:
        """Min x, min y, max x, max y of the positions: measured once, then widened by appends
        (a pass over 10,000 positions per append cost ~1 ms while a reply streams)."""
        if self._extent is None and self.positions:
            xs = [x for x, _ in self.positions.values()]
            ys = [y for _, y in self.positions.values()]
            self._extent = (min(xs), min(ys), max(xs), max(ys))
        return self._extent

    def content_rect(self) -> QRectF:
        """The graph and a margin round it (the scene rect may be a little bigger: :meth:`_grow_rect`)."""
        extent = self._measured_extent()
        if extent is None:
            return QRectF(-200, -100, 400, 200)
        x0, y0, x1, y1 = extent
        spec = self.graph_style.spec
        margin = 160.0
        return QRectF(
            x0 - spec.node_width / 2 - margin,
            y0 - spec.node_height / 2 - margin,
            x1 - x0 + spec.node_width + 2 * margin,
            y1 - y0 + spec.node_height + 2 * margin,
        )

    def tighten_rect(self) -> QRectF:
        """The scene rect back to :meth:`content_rect` (no slack left by appends: Fit frames the
        graph, with room round it, and nothing below it), which it returns."""
        rect = self.content_rect()
        if self.sceneRect() != rect:
            self.setSceneRect(rect)
        return rect

    def _grow_rect(self) -> None:
        """After an append: the scene rect grows only when the graph leaves it, and then by
        :data:`_GROW_ROWS` rows more than it needs, so most appends leave it alone (a new scene
        rect per append made each repaint of the canvas ~2 ms slower at 100,000 entries)."""
        needed, current = self.content_rect(), self.sceneRect()
        if current.contains(needed):
            return
        slack = self.graph_style.spec.row * _GROW_ROWS
        grown = needed.united(current)
        self.setSceneRect(
            grown.adjusted(
                -slack if needed.left() < current.left() else 0.0,
                -slack if needed.top() < current.top() else 0.0,
                slack if needed.right() > current.right() else 0.0,
                slack if needed.bottom() > current.bottom() else 0.0,
            )
        )

    # ------------------------------------------------------------------------------- audit

    def clear_audit(self) -> None:
        if self.bands is not None:
            for item in self.bands.items:
                self.removeItem(item)
        self.bands = None

    def show_audit(self, audit: CompactionAudit, split_entry: str | None = None) -> AuditBands:
        """Dim the summarized entries, outline the kept tail, draw the cut line; mark where a split
        turn starts (``split_entry``). Lines and words keep their screen size at any zoom."""
        self.clear_audit()
        bands = build_audit_bands(audit, split_entry, self.graph, self.positions, self.graph_style)
        for band_item in bands.items:
            self.addItem(band_item)
        self.bands = bands
        return bands

    # ------------------------------------------------------------------------------- queries

    def node_at(self, point: QPointF) -> Node | None:
        """The node whose box contains ``point`` (by position, so it works in overview mode too)."""
        spec = self.graph_style.spec
        half_w, half_h = spec.node_width / 2, spec.node_height / 2
        px, py = point.x(), point.y()
        for node, (x, y) in self.positions.items():
            if abs(px - x) <= half_w and abs(py - y) <= half_h:
                return node
        return None

    def node_rect(self, node: Node) -> QRectF:
        x, y = self.positions[node]
        spec = self.graph_style.spec
        return QRectF(x - spec.node_width / 2, y - spec.node_height / 2, spec.node_width, spec.node_height)
