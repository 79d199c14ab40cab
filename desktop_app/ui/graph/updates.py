"""The canvas's picture follows the session: session events, the tidy tree now, ``dot`` later.

Data flows one way: session events → ``ViewGraphModel.apply`` → a :class:`GraphDelta` → the
scene. An append places its new nodes beside their parents (no layout of the whole graph); a
change of structure lays the graph out again as a tidy tree (O(n), on this thread) and starts
``dot`` in a child process (:class:`~desktop_app.present.layout.Layouter`), whose positions come
back through a queued Qt signal tagged with a generation number, so a stale result is dropped
instead of applied. Session events (from any thread) hop onto the UI thread the same way.

:class:`GraphUpdates` is a piece of :class:`~desktop_app.ui.graph.view.GraphView`: it works on the
canvas's parts (scene, selection, minimap...) and asks the canvas itself, through
:class:`UpdateCanvas`, for what the canvas keeps (the model, the search, the visible order).
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QObject, QPoint, Signal, SignalInstance

from desktop_app.present.graph_model import GraphDelta, ViewGraphModel
from desktop_app.present.layout import Layouter, Positions, RowIndex, place_new_node, tidy_tree_layout
from desktop_app.present.viewgraph import Node, SegmentKey, ViewGraph
from desktop_app.session import EntryAppended, LeafMoved, Reloaded, SessionEvent, SessionView

from .canvas_find import CanvasFind
from .follow import LeafFollower
from .minimap import MinimapBinding
from .overlay import CanvasOverlay
from .scene import GraphScene
from .selecting import CanvasSelection
from .style import GraphStyle
from .viewport import ViewportController
from .whole_graph import Named, WholeGraphBuild

__all__ = ["GraphUpdates", "UpdateCanvas"]

_EMPTY = ViewGraph(nodes={}, parent={}, children={}, roots=[])

log = logging.getLogger(__name__)


class UpdateCanvas(Protocol):
    """What the updates need of the canvas itself."""

    layout_applied: SignalInstance

    @property
    def model(self) -> ViewGraphModel | None: ...
    @property
    def session(self) -> SessionView | None: ...
    def set_model(self, model: ViewGraphModel | None) -> None: ...
    def filter_mode(self) -> str: ...
    def folding(self) -> bool: ...
    def resetTransform(self) -> None: ...  # noqa: N802 (Qt API)
    def graph(self) -> ViewGraph: ...
    def selected_entry(self) -> str | None: ...
    def forget_order(self) -> None: ...
    def center_on_leaf(self) -> None: ...


class GraphUpdates(QObject):
    """Applies session events and layouts to one canvas (see the module docstring)."""

    _session_event = Signal(object)  #: queued hop onto the UI thread (events come from any thread)
    _dot_done = Signal(int, object, object)  #: the ``dot`` worker's result, onto the UI thread

    def __init__(
        self,
        canvas: UpdateCanvas,
        parent: QObject,
        *,
        scene: GraphScene,
        style: GraphStyle,
        layouter: Layouter,
        picked: CanvasSelection,
        find: CanvasFind,
        overlay: CanvasOverlay,
        camera: ViewportController,
        minimap: MinimapBinding,
        follower: LeafFollower,
        build: WholeGraphBuild,
        use_dot: bool,
    ) -> None:
        super().__init__(parent)
        self._canvas = canvas
        self._scene = scene
        self._style = style
        self.layouter = layouter
        self._picked = picked
        self._selection = picked.state
        self._find = find
        self._overlay = overlay
        self._camera = camera
        self._minimap = minimap
        self._follower = follower
        self._build = build
        self.use_dot = use_dot
        self.generation = 0  #: bumped by every new picture: a ``dot`` result for an older one is dropped
        self.kind = "none"  #: what the positions on screen are: "tidy", "dot" (or "none")
        self._unsubscribe: Callable[[], None] | None = None
        self._session_event.connect(self._on_session_event)
        self._dot_done.connect(self._on_dot_done)

    def show(self, session: SessionView | None) -> None:
        """Show ``session``'s tree (the canvas holds it already) and follow its changes; ``None``
        empties the canvas."""
        self.close()
        self._build.reset()
        self._selection.reset()
        if session is None:
            self._canvas.set_model(None)
            self.generation += 1
            self._scene.show_graph(_EMPTY, {})
            self._minimap.redraw_now(self._canvas.graph())
            return
        # The loaded session (millions of objects at 100,000 entries) out of the cyclic GC's sight
        # now: SessionManager.open freezes it only when automatic collection is on, and the app's
        # is off (gui_gc.py), so a full collection before the graph below is in would walk it all.
        gc.freeze()
        if self._build.big():  # the leaf's neighbourhood now, the whole graph in slices after it
            self._build.show_neighbourhood(set())
        else:
            canvas = self._canvas
            canvas.set_model(ViewGraphModel(session.index, session.leaf_id, canvas.filter_mode(), canvas.folding()))
            self.relayout()
        self._unsubscribe = session.subscribe(self.post)
        self._canvas.resetTransform()
        self._follower.resume()
        self._canvas.center_on_leaf()

    def close(self) -> None:
        """Stop following the session shown; its layouts are dropped."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.layouter.cancel()
        self._build.cancel()

    def post(self, event: SessionEvent) -> None:
        """A session event, from any thread: applied on the UI thread."""
        self._session_event.emit(event)

    # ================================================================================ events

    def _on_session_event(self, event: SessionEvent) -> None:
        model = self._canvas.model
        if model is None or self._canvas.session is None:
            return
        if isinstance(event, LeafMoved | Reloaded) or (
            isinstance(event, EntryAppended) and event.entry.get("parentId") != model.leaf_id
        ):  # arrows, undo, the menu, the API, a regenerated reply, a branch summary: the new leaf comes into view
            self._follower.resume()
        self._apply_event(event)
        self._follower.follow()

    def _apply_event(self, event: SessionEvent) -> None:
        model, session = self._canvas.model, self._canvas.session
        assert model is not None and session is not None
        if isinstance(event, LeafMoved) and self._build.moves_leaf_far(event.leaf_id):  # a far branch switch
            self._build.show_neighbourhood(set(model.expanded))
            return
        if self._build.partial:  # the whole graph being built may not have it: build again when done
            self._build.events_during_build = True
            return
        delta = model.apply(event, session.index)
        if delta.texts_changed:
            self._find.state.forget_texts()
        if delta.rebuilt:
            self.after_rebuild(delta)
        elif delta.added or delta.removed:
            self._apply_append(model, delta)
        elif delta.changed:
            before = self._scene.version
            self._scene.refresh(model.graph, delta.changed)
            self._overlay.note_marks(before, delta.changed)
            self._canvas.forget_order()
            self._minimap.touch(model.graph, delta.changed)

    def _apply_append(self, model: ViewGraphModel, delta: GraphDelta) -> None:
        graph = model.graph
        scene = self._scene
        before = scene.version
        for node in delta.removed:
            scene.remove_node(node)
        self._selection.drop_if_gone(model)
        for node in delta.added:
            scene.add_node(graph, node, place_new_node(scene.positions, graph, node, self._style.spec, scene.rows))
        scene.refresh(graph, delta.changed)
        # the removed too: update_marks then knows every node that went (its quick way for appends)
        self._overlay.note_marks(before, [*delta.added, *delta.changed, *delta.removed, *(graph.parent_of(n) for n in delta.added)])
        self._canvas.forget_order()
        self._find.rematch()
        if delta.removed:  # a dot cannot be taken off the picture: draw it again
            self._minimap.redraw(graph)
        else:
            self._minimap.touch(graph, [*delta.changed, *delta.added])  # in the graph's order
        self._canvas.layout_applied.emit("incremental")

    def after_rebuild(self, delta: GraphDelta) -> None:
        """The model made its graph again (a filter, a fold, a leaf move): lay it out again if its
        nodes changed, else restyle the items in place."""
        if delta.structure_changed:
            self.relayout()
            return
        model = self._canvas.model
        assert model is not None
        self._scene.rebind(model.graph)
        self._picked.restore()
        self._canvas.forget_order()
        self._minimap.redraw(model.graph)

    # ================================================================================ folds

    def rebuild(self, change: Callable[[ViewGraphModel], GraphDelta]) -> None:
        """A filter or folding ``change`` of the model; the selection stays on its entry."""
        self._build.events_during_build |= self._build.partial  # a whole graph being built has the old one
        model = self._canvas.model
        if model is not None:
            entry = self._canvas.selected_entry()
            delta = change(model)
            self._selection.follow(model, entry)
            self.after_rebuild(delta)

    def expand(self, node: Node) -> None:
        """Unfold a segment and select its first entry."""
        model = self._canvas.model
        if model is None:
            return
        first = node.first_id if isinstance(node, SegmentKey) else node
        delta = model.expand(node)
        self._selection.follow(model, first)
        self.after_rebuild(delta)

    def collapse(self, entry_id: str) -> bool:
        """Fold back the expanded run ``entry_id`` is in; ``False`` if it is in none."""
        model = self._canvas.model
        if model is None:
            return False
        delta = model.collapse(entry_id)
        if not delta.rebuilt:
            return False
        self._selection.follow(model, entry_id)
        self.after_rebuild(delta)
        return True

    def unfold_for(self, entry_id: str) -> Node | None:
        """The node standing for ``entry_id`` once the fold holding it (if any) is open."""
        model = self._canvas.model
        if model is None:
            return None
        node = model.node_for_entry(entry_id)
        if isinstance(node, SegmentKey):
            model.expand(node)
            self._selection.follow(model, self._canvas.selected_entry())
            self.relayout()
            node = model.node_for_entry(entry_id)
        return node

    # ================================================================================ layout

    def relayout(self) -> None:
        """Tidy tree now, ``dot`` in a child process; the canvas keeps its focus point."""
        model = self._canvas.model
        assert model is not None
        graph = model.graph
        self.generation += 1
        generation = self.generation
        anchor = self._camera.focus_anchor()
        positions = self.layouter.tidy(graph)
        self._scene.show_graph(graph, positions)
        self.kind = "tidy"
        self._canvas.forget_order()
        self._picked.restore()
        self._find.rematch()
        self._camera.restore_anchor(anchor)
        self._minimap.redraw_now(self._canvas.graph())
        self._follower.follow()
        self._canvas.layout_applied.emit("tidy")
        self._start_dot(graph, generation, self.use_dot and not self._build.partial)

    def swap_in(
        self, model: ViewGraphModel, entry: str | None, anchor: tuple[Node, QPoint] | None, marks: Named | None = None
    ) -> None:
        """The whole graph's items are on screen (:class:`WholeGraphBuild`): adopt its model and
        the ``marks`` made with it; the selection (else the leaf) keeps its place on screen."""
        if marks is not None:
            self._overlay.adopt_marks(model.graph, *marks)
        current = self._canvas.model
        folds = current.expanded if current is not None else set()
        self._canvas.set_model(model)
        self.generation += 1
        generation = self.generation
        if model.expanded != folds:  # runs were unfolded while the build ran
            model.set_expanded(folds)
            self._scene.show_graph(model.graph, tidy_tree_layout(model.graph, self._style.spec))
        self.kind = "tidy"
        self._canvas.forget_order()
        self._selection.follow(model, entry)
        self._picked.restore()
        self._find.rematch()
        if anchor is not None:
            self._camera.restore_anchor(anchor)
        else:
            self._canvas.center_on_leaf()
        self._follower.follow()
        self._minimap.redraw(model.graph)
        # The whole graph, its items and marks are ~360,000 objects the cyclic GC would walk in
        # each full collection (85 ms at 100,000 entries, the first one while a reply streams):
        # out of its sight they go, as the loaded session's did (SessionManager.open); still freed
        # by reference counting when replaced. A garbage cycle already among them stays.
        gc.freeze()
        self._canvas.layout_applied.emit("tidy")
        self._start_dot(model.graph, generation, self.use_dot)

    def _start_dot(self, graph: ViewGraph, generation: int, use_dot: bool) -> None:
        def done(result: Positions | None, error: str | None, generation: int = generation) -> None:
            self._dot_done.emit(generation, result, error)

        self.layouter.start_dot(graph, done, use_dot)

    def _on_dot_done(self, generation: int, positions: Positions | None, error: str | None) -> None:
        model = self._canvas.model
        if generation != self.generation or model is None:
            return  # superseded: a newer graph is on screen
        if positions is None:
            log.warning("graph layout: %s; keeping the tidy tree", error)
            return
        graph = model.graph
        placed = dict(positions)
        rows = RowIndex(placed, self._style.spec)
        for node in graph:  # appended while dot was running
            if node not in placed:
                placed[node] = place_new_node(placed, graph, node, self._style.spec, rows)
                rows.add(node, placed[node])
        anchor = self._camera.focus_anchor()
        self._scene.move_to(placed)
        self.kind = "dot"
        self._camera.restore_anchor(anchor)
        self._minimap.redraw(graph)  # its own event-loop turn: no single long stall
        self._follower.follow()
        self._canvas.layout_applied.emit("dot")
