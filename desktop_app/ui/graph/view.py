"""``GraphView``: the session graph canvas the main window embeds.

Data flows one way: ``SessionManager`` events → :class:`ViewGraphModel` (pure Python) → a
:class:`GraphDelta` → the scene. The view never writes to the session; it *asks* for changes through
its signals (``node_activated`` means "make this the leaf"), and the window decides.

Layout never runs on the UI thread beyond the O(n) tidy tree: the ``dot`` layout runs in a child
process (:class:`Layouter`) and its result comes back through a queued Qt signal, tagged with a
generation number so a stale result is dropped instead of applied.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from typing import Any, assert_never

import networkx as nx
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent, QPainter, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import QGestureEvent, QGraphicsView, QPinchGesture, QToolTip, QWidget

from desktop_app.compaction.audit import CompactionAudit, audit_compaction, branch_summary_info
from desktop_app.session import (
    EntryAppended,
    ExternalAppend,
    LeafMoved,
    Reloaded,
    SessionEvent,
    SessionFailed,
    SessionManager,
)

from .layout import DOT_NODE_LIMIT, Layouter, Positions, place_new_node
from .minimap import Minimap
from .model import FILTER_MODES, GraphDelta, Node, SegmentKey, ViewGraphModel
from .navigation import branch_target_below, segment_start_above, visible_order
from .scene import GraphScene
from .style import KIND_TITLES, GraphStyle, default_style
from .text import full_text, searchable_text

__all__ = ["GraphView"]

log = logging.getLogger(__name__)

_MIN_ZOOM = 0.005  # the overview layer keeps even a 100,000-entry fit cheap
_MAX_ZOOM = 3.0
_OVERVIEW_ZOOM = 0.3  # below this no text is legible: the overview layer draws the graph in bulk
_PAGE = 10  # rows per PageUp/PageDown, as a list page in pi's selector


class _Bridge(QObject):
    """Queued hops onto the UI thread: session events (any thread) and dot results (a worker)."""

    session_event = Signal(object)
    dot_done = Signal(int, object, object)


class GraphView(QGraphicsView):
    """The session tree as a zoomable, searchable, keyboard-navigable graph.

    Signals:
        node_selected(entry_id): the user selected an entry node (click, keys, search jump).
        node_activated(entry_id): double-click or Enter on an entry: the window should move the
            leaf there (pi's ``/tree`` Enter).
        compaction_selected(audit): a :class:`CompactionAudit` when a compaction is selected (the
            canvas shows its bands), ``None`` when the selection leaves it.
        branch_summary_selected(info): a :class:`BranchSummaryInfo` for a selected branch summary.
        layout_applied(kind): ``"tidy"``, ``"dot"`` or ``"incremental"`` positions are on screen.
    """

    node_selected = Signal(str)
    node_activated = Signal(str)
    compaction_selected = Signal(object)
    branch_summary_selected = Signal(object)
    layout_applied = Signal(str)

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        style: GraphStyle | None = None,
        use_dot: bool = True,
        dot_node_limit: int | None = DOT_NODE_LIMIT,
        filter_mode: str = "default",
        folding: bool = True,
    ) -> None:
        super().__init__(parent)
        if filter_mode not in FILTER_MODES:
            raise ValueError(f"unknown filter mode {filter_mode!r}")
        self._style = style or default_style()
        self._scene = GraphScene(self._style)
        self.setScene(self._scene)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setBackgroundBrush(self._style.background)
        self.viewport().grabGesture(Qt.GestureType.PinchGesture)

        self._layouter = Layouter(self._style.spec, dot_node_limit)
        self._use_dot = use_dot
        self._filter = filter_mode
        self._folding = folding
        self._manager: SessionManager | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._model: ViewGraphModel | None = None
        self._generation = 0
        self._layout_kind = "none"
        self._selected: Node | None = None
        self._audit: CompactionAudit | None = None
        self._auto_expanded: set[str] = set()  # segments unfolded only for the current audit
        self._query = ""
        self._matches: list[Node] = []
        self._match_index = -1
        self._search_cache: dict[str, str] = {}
        self._order: list[Node] | None = None

        self._bridge = _Bridge(self)
        self._bridge.session_event.connect(self._on_session_event)
        self._bridge.dot_done.connect(self._on_dot_done)

        self._minimap = Minimap(self._style, self._center_on_point, self)
        self._minimap_timer = QTimer(self)
        self._minimap_timer.setSingleShot(True)
        self._minimap_timer.setInterval(120)
        self._minimap_timer.timeout.connect(self._refresh_minimap)
        self.horizontalScrollBar().valueChanged.connect(self._update_minimap_viewport)
        self.verticalScrollBar().valueChanged.connect(self._update_minimap_viewport)
        self._scene.show_graph(nx.DiGraph(), {})

    # ================================================================================ session

    def set_session(self, manager: SessionManager | None) -> None:
        """Show ``manager``'s tree and follow its changes (``None`` empties the canvas)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._layouter.cancel()
        self._manager = manager
        self._selected = None
        self._audit = None
        self._auto_expanded = set()
        self._search_cache.clear()
        self._matches, self._match_index = [], -1
        if manager is None:
            self._model = None
            self._generation += 1
            self._scene.show_graph(nx.DiGraph(), {})
            self._refresh_minimap()
            return
        self._model = ViewGraphModel(manager.index, manager.leaf_id, self._filter, self._folding)
        self._unsubscribe = manager.subscribe(self._bridge.session_event.emit)
        self._relayout()
        self.resetTransform()
        self.center_on_leaf()

    def shutdown(self) -> None:
        """Stop following the session and kill any layout child (call when the window closes)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._layouter.close()

    def _on_session_event(self, event: SessionEvent) -> None:
        model = self._model
        manager = self._manager
        if model is None or manager is None:
            return
        match event:
            case EntryAppended(entry=entry, leaf_id=leaf_id):
                self._follow_entries([entry], leaf_id)
            case ExternalAppend(entries=entries, leaf_id=leaf_id):
                self._follow_entries(list(entries), leaf_id)
            case LeafMoved(leaf_id=leaf_id):
                delta = model.set_leaf(leaf_id)
                if delta.rebuilt:
                    self._after_rebuild(delta)
                else:
                    self._scene.refresh(delta.changed)
                    self._order = None
                    self._schedule_minimap()
            case Reloaded():
                self._search_cache.clear()
                self._after_rebuild(model.set_index(manager.index, manager.leaf_id))
            case SessionFailed():
                pass  # the window shows errors; the tree did not change
            case _:
                assert_never(event)

    def _follow_entries(self, appended: list[dict[str, Any]], leaf_id: str | None) -> None:
        model = self._model
        assert model is not None
        entries = [e for e in appended if isinstance(e, dict)]
        if not entries:
            return
        if any(e.get("type") == "label" for e in entries):
            self._search_cache.clear()  # a label is part of its target's searchable text
        if leaf_id == entries[-1].get("id"):
            deltas = [model.add_entry(e) for e in entries]
            if any(d.rebuilt for d in deltas):
                self._after_rebuild(GraphDelta(rebuilt=True, structure_changed=True))
            else:
                for delta in deltas:
                    self._apply_append(delta)
        else:  # appended elsewhere (another writer while we look at an older leaf)
            model.leaf_id = leaf_id
            self._after_rebuild(model.rebuild(reindex=True))

    def _apply_append(self, delta: GraphDelta) -> None:
        assert self._model is not None
        graph = self._model.graph
        scene = self._scene
        was_visible = self._leaf_visible()
        for node in delta.removed:
            scene.remove_node(node)
            if self._selected == node:
                self._selected = None
        for node in delta.added:
            scene.add_node(node, place_new_node(scene.positions, graph, node, self._style.spec))
        scene.refresh(delta.changed)
        self._order = None
        if delta.added and was_visible:
            self.ensureVisible(scene.node_rect(delta.added[-1]), 40, 40)
        if self._query:
            self._rematch()
        self._schedule_minimap()
        self.layout_applied.emit("incremental")

    def _after_rebuild(self, delta: GraphDelta) -> None:
        if delta.structure_changed:
            self._relayout()
        else:
            assert self._model is not None
            self._scene.rebind(self._model.graph)
            self._restore_selection()
            self._order = None
            self._schedule_minimap()

    # ================================================================================ layout

    def _relayout(self) -> None:
        """Tidy tree now, ``dot`` in a child process; the canvas keeps its focus point."""
        assert self._model is not None
        graph = self._model.graph
        self._generation += 1
        generation = self._generation
        anchor = self._focus_anchor()
        positions = self._layouter.tidy(graph)
        self._scene.show_graph(graph, positions)
        self._layout_kind = "tidy"
        self._order = None
        self._restore_selection()
        if self._query:
            self._rematch()
        self._restore_anchor(anchor)
        self._refresh_minimap()
        self.layout_applied.emit("tidy")

        def done(result: Positions | None, error: str | None, generation: int = generation) -> None:
            self._bridge.dot_done.emit(generation, result, error)

        self._layouter.start_dot(graph, done, self._use_dot)

    def _on_dot_done(self, generation: int, positions: Positions | None, error: str | None) -> None:
        if generation != self._generation or self._model is None:
            return  # superseded: a newer graph is on screen
        if positions is None:
            log.warning("graph layout: %s; keeping the tidy tree", error)
            return
        graph = self._model.graph
        placed = dict(positions)
        for node in graph.nodes:  # appended while dot was running
            if node not in placed:
                placed[node] = place_new_node(placed, graph, node, self._style.spec)
        anchor = self._focus_anchor()
        self._scene.move_to(placed)
        self._layout_kind = "dot"
        self._restore_anchor(anchor)
        self._schedule_minimap()  # its own event-loop turn: no single long stall
        self.layout_applied.emit("dot")

    def _focus_anchor(self) -> tuple[Node, QPoint] | None:
        """The node the user is looking at (selection, else leaf) and where it is on screen."""
        for node in (self._selected, self._leaf_node()):
            if node is not None and node in self._scene.positions:
                x, y = self._scene.positions[node]
                return node, self.mapFromScene(QPointF(x, y))
        return None

    def _restore_anchor(self, anchor: tuple[Node, QPoint] | None) -> None:
        if anchor is None:
            return
        node, screen = anchor
        if node not in self._scene.positions:
            node = self._selected or self._leaf_node()  # type: ignore[assignment]
            if node is None or node not in self._scene.positions:
                return
            x, y = self._scene.positions[node]
            self.centerOn(x, y)
            return
        x, y = self._scene.positions[node]
        now = self.mapFromScene(QPointF(x, y))
        delta = now - screen
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() + delta.x())
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() + delta.y())

    # ================================================================================ options

    def filter_mode(self) -> str:
        return self._filter

    def set_filter(self, mode: str) -> None:
        """One of pi's ``/tree`` modes; folds reset and the selection stays on its entry (pi)."""
        if mode not in FILTER_MODES:
            raise ValueError(f"unknown filter mode {mode!r}")
        self._filter = mode
        if self._model is not None:
            entry = self.selected_entry()
            delta = self._model.set_filter(mode)
            self._selected = self._model.node_for_entry(entry) if entry else None
            self._after_rebuild(delta)

    def cycle_filter(self, step: int = 1) -> str:
        """pi's Ctrl+O / Shift+Ctrl+O; returns the new mode (the window binds the keys)."""
        mode = FILTER_MODES[(FILTER_MODES.index(self._filter) + step) % len(FILTER_MODES)]
        self.set_filter(mode)
        return mode

    def folding(self) -> bool:
        return self._folding

    def set_folding(self, folding: bool) -> None:
        """Fold linear runs into segment nodes (``True``) or show every visible entry."""
        self._folding = folding
        if self._model is not None:
            entry = self.selected_entry()
            delta = self._model.set_folding(folding)
            self._selected = self._model.node_for_entry(entry) if entry else None
            self._after_rebuild(delta)

    def set_use_dot(self, use_dot: bool) -> None:
        self._use_dot = use_dot

    def set_minimap_visible(self, visible: bool) -> None:
        self._minimap.setVisible(visible)

    # ================================================================================ selection

    def selected_node(self) -> Node | None:
        return self._selected

    def selected_entry(self) -> str | None:
        """The entry id of the selection (a segment's first entry for a folded run)."""
        node = self._selected
        if node is None or self._model is None or node not in self._model.graph:
            return None
        return str(self._model.graph.nodes[node]["ids"][0])

    def select(self, entry_id: str | None, *, center: bool = True, notify: bool = False) -> Node | None:
        """Select the node standing for ``entry_id`` (its segment, or nearest visible ancestor).

        Programmatic selection does not emit ``node_selected`` unless ``notify``; it does emit
        ``compaction_selected`` since the audit panel follows what the canvas shows.
        """
        node = self._model.node_for_entry(entry_id) if self._model is not None else None
        self._select_node(node, center=center, notify=notify)
        return node

    def _select_node(self, node: Node | None, *, center: bool = False, notify: bool = True) -> None:
        scene = self._scene
        if self._selected is not None and self._selected in scene.nodes:
            scene.nodes[self._selected].set_state(selected=False)
        self._selected = node if node is not None and node in scene.nodes else None
        if self._selected is None:
            scene.update_marks()
            self._set_audit(None)
            return
        scene.nodes[self._selected].set_state(selected=True)
        scene.update_marks()
        if center:
            self.ensureVisible(scene.node_rect(self._selected), 60, 60)
        assert self._model is not None
        attrs = self._model.graph.nodes[self._selected]
        kind = attrs["kind"]
        entry_id = str(attrs["ids"][0])
        if kind == "compaction":
            self._set_audit(entry_id)
        else:
            self._set_audit(None)
        if kind == "branch_summary":
            self.branch_summary_selected.emit(branch_summary_info(self._model.index, entry_id))
        if notify and kind != "segment":
            self.node_selected.emit(entry_id)

    def _restore_selection(self) -> None:
        node = self._selected
        if node is not None and node in self._scene.nodes:
            self._scene.nodes[node].set_state(selected=True)
        elif node is not None:
            self._selected = None

    def _set_audit(self, compaction_id: str | None) -> None:
        """Show (or clear) a compaction's bands.

        Segments straddling a band edge are unfolded for the audit so the bands are exact, and
        folded back when the audit goes away: they were opened for the audit, not by the user.
        """
        if compaction_id is None and self._audit is None:
            return
        assert self._model is not None
        model = self._model
        on_screen = set(self._scene.graph.nodes)
        selected_entry = self.selected_entry()
        audit = audit_compaction(model.index, compaction_id) if compaction_id is not None else None
        if (
            selected_entry is not None
            and model.graph.graph["run_of"].get(selected_entry) in self._auto_expanded
        ):
            self._auto_expanded = set()  # the user went into an unfolded run: it stays open
        if self._auto_expanded:
            model.expanded -= self._auto_expanded
            self._auto_expanded = set()
            model.rebuild()
        if audit is not None:
            self._auto_expanded = self._straddling(audit) - model.expanded
            if self._auto_expanded:
                model.expanded |= self._auto_expanded
                model.rebuild()
        self._audit = audit
        if set(model.graph.nodes) != on_screen:
            if self._selected is not None and self._selected not in model.graph:
                self._selected = model.node_for_entry(selected_entry)
            self._relayout()
        elif model.graph is not self._scene.graph:
            self._scene.rebind(model.graph)
        if audit is None:
            self._scene.clear_audit()
        else:
            self._scene.show_audit(audit)
        self.compaction_selected.emit(audit)

    def _straddling(self, audit: CompactionAudit) -> set[str]:
        """First ids of segments that lie across an edge of the summarized or kept band."""
        assert self._model is not None
        summarized, kept = set(audit.summarized_ids), set(audit.kept_ids)
        out: set[str] = set()
        for node, attrs in self._model.graph.nodes(data=True):
            if isinstance(node, SegmentKey):
                ids = set(attrs["ids"])
                if any(0 < len(ids & band) < len(ids) for band in (summarized, kept)):
                    out.add(node.first_id)
        return out

    def audit_bands(self) -> tuple[list[Node], list[Node]]:
        """The nodes in the summarized and kept bands now on screen (empty when no audit)."""
        bands = self._scene.bands
        return (list(bands.summarized_nodes), list(bands.kept_nodes)) if bands is not None else ([], [])

    def activate(self, node: Node | None = None) -> None:
        """Enter / double-click: unfold a segment, or ask the window to move the leaf here."""
        node = node if node is not None else self._selected
        if node is None or self._model is None or node not in self._model.graph:
            return
        if isinstance(node, SegmentKey):
            self.expand(node)
            return
        self.node_activated.emit(str(self._model.graph.nodes[node]["ids"][0]))

    def expand(self, node: Node) -> None:
        """Unfold a segment and select its first entry."""
        if self._model is None:
            return
        first = node.first_id if isinstance(node, SegmentKey) else node
        delta = self._model.expand(node)
        self._selected = self._model.node_for_entry(first)
        self._after_rebuild(delta)

    def collapse(self, entry_id: str) -> bool:
        """Fold back the expanded run ``entry_id`` is in; ``False`` if it is in none."""
        if self._model is None:
            return False
        delta = self._model.collapse(entry_id)
        if not delta.rebuilt:
            return False
        self._selected = self._model.node_for_entry(entry_id)
        self._after_rebuild(delta)
        return True

    # ================================================================================ viewing

    def zoom(self) -> float:
        return float(self.transform().m11())

    def _apply_lod(self) -> None:
        self._scene.set_overview(self.zoom() < _OVERVIEW_ZOOM)

    def scale(self, sx: float, sy: float) -> None:
        super().scale(sx, sy)
        self._apply_lod()

    def resetTransform(self) -> None:  # noqa: N802 (Qt API)
        super().resetTransform()
        self._apply_lod()

    def setTransform(self, matrix: Any, combine: bool = False) -> None:  # noqa: N802 (Qt API)
        super().setTransform(matrix, combine)
        self._apply_lod()

    def zoom_by(self, factor: float) -> None:
        current = self.zoom()
        target = min(max(current * factor, _MIN_ZOOM), _MAX_ZOOM)
        if current > 0 and target != current:
            self.scale(target / current, target / current)
            self._update_minimap_viewport()

    def fit_all(self) -> None:
        """Everything in view (never magnified beyond 100 %)."""
        rect = self._scene.sceneRect()  # the graph plus its margin: fits without scroll bars
        if not self._scene.positions or rect.isEmpty():
            return
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        self._apply_lod()
        if self.zoom() > 1.0:
            self.resetTransform()
            self.centerOn(rect.center())
        elif self.zoom() < _MIN_ZOOM:
            self.zoom_by(_MIN_ZOOM / self.zoom())
        self._update_minimap_viewport()

    def center_on_leaf(self) -> None:
        node = self._leaf_node()
        if node is not None and node in self._scene.positions:
            self.centerOn(*self._scene.positions[node])
            self._update_minimap_viewport()

    def _leaf_node(self) -> Node | None:
        return self._model.graph.graph.get("leaf_node") if self._model is not None else None

    def _leaf_visible(self) -> bool:
        node = self._leaf_node()
        if node is None or node not in self._scene.positions:
            return False
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        return visible.intersects(self._scene.node_rect(node))

    def _center_on_point(self, point: QPointF) -> None:
        self.centerOn(point)
        self._update_minimap_viewport()

    # ================================================================================ search

    def search(self, text: str) -> int:
        """Highlight nodes whose text holds every word of ``text`` (pi's rule); returns the count."""
        self._query = text
        self._match_index = -1
        return self._rematch()

    def _rematch(self) -> int:
        tokens = self._query.lower().split()
        for node in self._matches:
            if node in self._scene.nodes:
                self._scene.nodes[node].set_state(match=0)
        self._matches = []
        if not tokens or self._model is None:
            return 0
        index = self._model.index
        graph = self._model.graph
        cache = self._search_cache
        for node in self._visible_order():
            for entry_id in graph.nodes[node]["ids"]:
                text = cache.get(entry_id)
                if text is None:
                    entry = index.by_id.get(entry_id)
                    text = searchable_text(entry, index.labels.get(entry_id)).lower() if entry else ""
                    cache[entry_id] = text
                if all(t in text for t in tokens):
                    self._matches.append(node)
                    break
        for node in self._matches:
            self._scene.nodes[node].set_state(match=1)
        self._scene.update_marks()
        if self._match_index >= len(self._matches):
            self._match_index = -1
        return len(self._matches)

    def matches(self) -> list[Node]:
        return list(self._matches)

    def next_match(self) -> str | None:
        """Jump to the next match (wrapping): select it and bring it into view."""
        return self._jump(1)

    def previous_match(self) -> str | None:
        return self._jump(-1)

    def _jump(self, step: int) -> str | None:
        if not self._matches or self._model is None:
            return None
        if 0 <= self._match_index < len(self._matches):
            self._scene.nodes[self._matches[self._match_index]].set_state(match=1)
        self._match_index = (self._match_index + step) % len(self._matches)
        node = self._matches[self._match_index]
        self._scene.nodes[node].set_state(match=2)
        self._scene.update_marks()
        self._select_node(node, center=False, notify=True)
        self.centerOn(*self._scene.positions[node])
        self._update_minimap_viewport()
        return str(self._model.graph.nodes[node]["ids"][0])

    def clear_search(self) -> None:
        self._query = ""
        self._rematch()

    # ================================================================================ keys

    def _visible_order(self) -> list[Node]:
        if self._order is None:
            self._order = visible_order(self._model.graph) if self._model is not None else []
        return self._order

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt API)
        key = event.key()
        if self._model is None or self._model.graph.number_of_nodes() == 0:
            super().keyPressEvent(event)
            return
        graph = self._model.graph
        order = self._visible_order()
        current = self._selected if self._selected in graph else self._leaf_node()
        position = order.index(current) if current in order else -1
        target: Node | None = None
        if key == Qt.Key.Key_Up:
            target = order[(position - 1) % len(order)] if position >= 0 else order[-1]
        elif key == Qt.Key.Key_Down:
            target = order[(position + 1) % len(order)] if position >= 0 else order[0]
        elif key == Qt.Key.Key_PageUp:
            target = order[max(0, position - _PAGE)]
        elif key == Qt.Key.Key_PageDown:
            target = order[min(len(order) - 1, position + _PAGE)]
        elif key == Qt.Key.Key_Home:
            target = order[0]
        elif key == Qt.Key.Key_End:
            target = order[-1]
        elif key == Qt.Key.Key_Left and current is not None:
            entry = str(graph.nodes[current]["ids"][0])
            if not self.collapse(entry):
                target = segment_start_above(graph, current)
        elif key == Qt.Key.Key_Right and current is not None:
            if isinstance(current, SegmentKey):
                self.expand(current)
            else:
                target = branch_target_below(graph, current)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.activate(current)
        elif key == Qt.Key.Key_Escape and self._query:
            self.clear_search()
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom_by(1.25)
        elif key == Qt.Key.Key_Minus:
            self.zoom_by(0.8)
        else:
            super().keyPressEvent(event)
            return
        if target is not None:
            self._select_node(target, center=True, notify=True)
        event.accept()

    # ================================================================================ mouse

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt API)
        if event.button() == Qt.MouseButton.LeftButton:
            node = self._scene.node_at(self.mapToScene(event.position().toPoint()))
            if node is not None:
                self._select_node(node, notify=True)
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt API)
        node = self._scene.node_at(self.mapToScene(event.position().toPoint()))
        if node is not None:
            self.activate(node)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 (Qt API)
        if event.modifiers() & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.AltModifier):
            super().wheelEvent(event)  # Shift/Alt+wheel scrolls
            return
        delta = event.angleDelta().y() or event.pixelDelta().y()
        if delta:
            self.zoom_by(1.0015**delta)
        event.accept()

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        kind = event.type()
        if kind == QEvent.Type.ToolTip:
            pos = event.pos()  # type: ignore[attr-defined]
            node = self._scene.node_at(self.mapToScene(pos))
            if node is None:
                QToolTip.hideText()
            else:
                QToolTip.showText(event.globalPos(), self.preview_text(node), self.viewport())  # type: ignore[attr-defined]
            return True
        if kind == QEvent.Type.Gesture:
            pinch = event.gesture(Qt.GestureType.PinchGesture)  # type: ignore[attr-defined]
            if isinstance(pinch, QPinchGesture) and isinstance(event, QGestureEvent):
                self.zoom_by(pinch.scaleFactor())
                return True
        if kind == QEvent.Type.NativeGesture:
            if event.gestureType() == Qt.NativeGestureType.ZoomNativeGesture:  # type: ignore[attr-defined]
                self.zoom_by(1.0 + event.value())  # type: ignore[attr-defined]
                return True
        return super().viewportEvent(event)

    def preview_text(self, node: Node) -> str:
        """The hover preview (rich text): kind, id, label and the start of the entry's text."""
        if self._model is None or node not in self._model.graph:
            return ""
        attrs = self._model.graph.nodes[node]
        index = self._model.index
        kind = attrs["kind"]
        if isinstance(node, SegmentKey):
            ids = attrs["ids"]
            kinds = ", ".join(f"{n} {KIND_TITLES.get(k, k)}" for k, n in attrs.get("kinds", {}).items())
            first = index.by_id.get(ids[0])
            last = index.by_id.get(ids[-1])
            body = (
                f"<b>{len(ids)} entries folded</b> ({html.escape(kinds)})<br>"
                f"first: {html.escape(full_text(first, 200) if first else '')}<br>"
                f"last: {html.escape(full_text(last, 200) if last else '')}<br><i>Enter or double-click to unfold</i>"
            )
            return f"<div style='max-width:420px'>{body}</div>"
        entry_id = str(attrs["ids"][0])
        entry = index.by_id.get(entry_id) or {}
        head = f"<b>{html.escape(KIND_TITLES.get(kind, kind))}</b> · <code>{html.escape(entry_id)}</code>"
        if attrs.get("label"):
            head += f" · ⚑ {html.escape(str(attrs['label']))}"
        if attrs.get("is_leaf"):
            head += " · <b>current leaf</b>"
        extra = ""
        if kind == "compaction":
            audit = audit_compaction(index, entry_id)
            extra = (
                f"<br>{len(audit.summarized_ids)} entries summarized, {len(audit.kept_ids)} kept"
                f"{' · split turn' if audit.is_split_turn else ''} · made by {html.escape(audit.made_by)}"
            )
        elif kind == "branch_summary":
            info = branch_summary_info(index, entry_id)
            extra = f"<br>abandoned branch: {html.escape(info.abandoned_text)}"
        text = html.escape(full_text(entry, 700)).replace("\n", "<br>")
        return f"<div style='max-width:460px'>{head}{extra}<hr>{text}</div>"

    # ================================================================================ minimap

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt API)
        super().resizeEvent(event)
        self._place_minimap()
        self._update_minimap_viewport()

    def _place_minimap(self) -> None:
        area = self.viewport().geometry()
        size = self._minimap.size()
        self._minimap.move(area.right() - size.width() - 10, area.bottom() - size.height() - 10)
        self._minimap.raise_()

    def _schedule_minimap(self) -> None:
        self._minimap_timer.start()

    def _refresh_minimap(self) -> None:
        graph = self._model.graph if self._model is not None else nx.DiGraph()
        kinds = {n: a.get("kind", "") for n, a in graph.nodes(data=True)}
        active = {n: bool(a.get("on_active_path")) for n, a in graph.nodes(data=True)}
        self._minimap.set_content(self._scene.sceneRect(), self._scene.positions, kinds, active)
        self._update_minimap_viewport()

    def _update_minimap_viewport(self, *_: Any) -> None:
        self._minimap.set_viewport(self.mapToScene(self.viewport().rect()).boundingRect())

    # ================================================================================ introspection

    @property
    def model(self) -> ViewGraphModel | None:
        return self._model

    def graph(self) -> nx.DiGraph:
        return self._model.graph if self._model is not None else nx.DiGraph()

    def positions(self) -> dict[Any, tuple[float, float]]:
        return dict(self._scene.positions)

    @property
    def layout_kind(self) -> str:
        """``"tidy"`` until ``dot``'s positions arrive, then ``"dot"``."""
        return self._layout_kind

    @property
    def layout_busy(self) -> bool:
        return self._layouter.busy

    @property
    def layout_worker_pid(self) -> int | None:
        """The ``dot`` child's process id while it runs (tests check layout is off this process)."""
        return self._layouter.worker_pid

    def graph_scene(self) -> GraphScene:
        return self._scene

    def visible_scene_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()
