"""``GraphView``: the session graph canvas the main window embeds — a thin Qt adapter.

What the canvas shows and what an input means are decided in ``present/`` (no Qt): the view
graph and its folds (:class:`ViewGraphModel`), the selection and the folds a compaction's audit
opens (:class:`Selection`), find (:class:`GraphSearch`), what a click, double-click, key or drag
means (:class:`GraphController`, :mod:`~desktop_app.present.canvas_gestures`) and the hover text
(:func:`preview_html`). This class owns the scene and the session, keeps the automation surface
(DESIGN.md §7.1), and hands each job to a small piece beside it:

- :mod:`.updates` — session events → the scene; the tidy tree now, ``dot`` from a child process;
- :mod:`.whole_graph` — a big session's neighbourhood first, its whole graph built a slice per turn;
- :mod:`.canvas_input` — Qt keys, mouse, wheel, pinch and tooltips → the commands they mean, carried out;
- :mod:`.viewport` — zoom, fit, centre, reveal, and where nodes are in viewport pixels;
- :mod:`.selecting` and :mod:`.canvas_find` — the selection and find shown on the scene;
- :mod:`.overlay` — labels, the audit's captions and the heat strip, painted in screen pixels;
- :mod:`.minimap` and :mod:`.follow` — the minimap and following the leaf.

Data flows one way: session events → ``ViewGraphModel.apply`` → a :class:`GraphDelta` → the
scene. The view never changes the session: it *asks* through ``node_activated`` ("make this the
leaf"), and the window decides (through the agent).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QPoint, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent, QPainter, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import QGraphicsView, QWidget

from desktop_app.present.filters import check_mode, next_mode
from desktop_app.present.graph_model import ViewGraphModel
from desktop_app.present.layout import DOT_NODE_LIMIT, Layouter
from desktop_app.present.lod import (
    Detail,
    Marks,
    Placed,
    Rect,
    detail_for,
)
from desktop_app.present.navigation import visible_order
from desktop_app.present.neighbourhood import NeighbourhoodLimits
from desktop_app.present.node_preview import node_preview
from desktop_app.present.viewgraph import Node, ViewGraph
from desktop_app.session import SessionView

from .canvas_find import CanvasFind
from .canvas_input import CanvasInput
from .change_badges import badges_of
from .follow import LeafFollower
from .minimap import MinimapBinding
from .overlay import CanvasOverlay
from .scene import GraphScene
from .selecting import CanvasSelection
from .style import GraphStyle, default_style
from .updates import GraphUpdates
from .viewport import ViewportController
from .whole_graph import NEIGHBOURHOOD_MIN_ENTRIES, Named, WholeGraphBuild

__all__ = ["NEIGHBOURHOOD_MIN_ENTRIES", "GraphView"]

log = logging.getLogger(__name__)


_EMPTY = ViewGraph(nodes={}, parent={}, children={}, roots=[])


class GraphView(QGraphicsView):
    """The session tree as a zoomable, searchable, keyboard-navigable graph.

    Signals:
        node_selected(entry_id): the user selected an entry node (click, keys, search jump).
        node_activated(entry_id): double-click or Enter on an entry, or the leaf pin dropped on
            it: the window should move the leaf there (pi's ``/tree`` Enter).
        compaction_selected(audit): a :class:`CompactionAudit` when a compaction is selected (the
            canvas shows its bands), ``None`` when the selection leaves it.
        branch_summary_selected(info): a :class:`BranchSummaryInfo` for a selected branch summary.
        layout_applied(kind): ``"tidy"``, ``"dot"`` or ``"incremental"`` positions are on screen.
        search_changed(status): the find status changed (``"2 of 4"``, ``"No matches"``, ``""``).
    """

    node_selected = Signal(str)
    node_activated = Signal(str)
    compaction_selected = Signal(object)
    branch_summary_selected = Signal(object)
    layout_applied = Signal(str)
    search_changed = Signal(str)
    style_changed = Signal()  #: light ↔ dark: panels that colour rows from the style refill them

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        style: GraphStyle | None = None,
        use_dot: bool = True,
        dot_node_limit: int | None = DOT_NODE_LIMIT,
        filter_mode: str = "default",
        folding: bool = True,
        neighbourhood_min_entries: int | None = NEIGHBOURHOOD_MIN_ENTRIES,
        neighbourhood_limits: NeighbourhoodLimits | None = None,
    ) -> None:
        super().__init__(parent)
        self._input = CanvasInput(self, self)  #: what a key, click, wheel or gesture means (first: Qt sends events at once)
        self._style = style or default_style()
        self._scene = GraphScene(self._style)
        self.setScene(self._scene)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        # Screen-space labels (semantic zoom) move with every scroll: repaint the whole viewport.
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.FullViewportUpdate)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setBackgroundBrush(self._style.background)
        self.viewport().grabGesture(Qt.GestureType.PinchGesture)

        self._layouter = Layouter(self._style.spec, dot_node_limit)
        self._filter = check_mode(filter_mode)
        self._folding = folding
        self._session: SessionView | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._model: ViewGraphModel | None = None
        self._order: list[Node] | None = None
        self._build = WholeGraphBuild(self, self, neighbourhood_min_entries, neighbourhood_limits)

        self._camera = ViewportController(
            self,
            self._scene,
            lambda: self._selection.node,
            lambda: self.graph().leaf_node,
            lambda: self._overlay.labels.placed,
            lambda: self._minimap.follow_viewport(),
        )
        camera = self._camera
        self._minimap = MinimapBinding(self, self._style, self._scene, camera.minimap_avoid, camera.leaf_at)
        self._minimap.widget.navigated.connect(self.user_moved)
        self._picked = CanvasSelection(self, self._scene, camera, self._minimap)
        self._selection = self._picked.state
        self._find = CanvasFind(self, self._scene, self._picked)
        self._follower = LeafFollower(self, camera.leaf_box, lambda: [self.minimap_rect()])
        self._follower.jump_requested.connect(self.jump_to_leaf)
        self._overlay = CanvasOverlay(
            self,
            self._scene,
            self._style,
            lambda: self._session.get_session_name() if self._session is not None else None,
            self.minimap_rect,
        )
        self._heat = self._overlay.heat  #: context lens tokens per entry, while it shows
        self._updates = GraphUpdates(
            self, self, scene=self._scene, style=self._style, layouter=self._layouter, picked=self._picked, find=self._find,
            overlay=self._overlay, camera=camera, minimap=self._minimap, follower=self._follower,
            build=self._build, use_dot=use_dot,
        )  # fmt: skip
        self._scene.show_graph(_EMPTY, {})

    # ================================================================================ session

    def set_session(self, session: SessionView | None) -> None:
        """Show ``session``'s tree and follow its changes (``None`` empties the canvas)."""
        self._session = session
        self._find.reset()
        self._updates.show(session)

    def shutdown(self) -> None:
        """Stop following the session and kill any layout child (call when the window closes)."""
        self._updates.close()
        self._layouter.close()

    # ================================================================================ whole graph

    @property
    def partial(self) -> bool:
        """Only the leaf's neighbourhood is shown; the whole graph is being built."""
        return self._build.partial

    @property
    def _build_state(self) -> str:
        return self._build.state

    def after_picture(self, work: Callable[[], None]) -> None:
        """Run ``work`` on a later event-loop turn, after the leaf's neighbourhood is painted if it
        is waiting to be (see :meth:`WholeGraphBuild.after_picture`)."""
        self._build.after_picture(work)

    def forget_graph(self) -> list[object]:
        """Let go of the graph model and what is made from it (a far switch replaces them); returns
        them, for :class:`WholeGraphBuild` to free off the UI thread."""
        self._model = None
        return self._overlay.forget_graph()

    def adopt_model(self, model: ViewGraphModel, entry: str | None) -> None:
        """Show ``model`` (laid out by the caller); the selection follows ``entry``."""
        self._model = model
        self._selection.follow(model, entry)

    def swap_in(self, model: ViewGraphModel, entry: str | None, anchor: tuple[Node, QPoint] | None,
                marks: Named | None = None) -> None:
        """The whole graph's items are on screen: adopt its model (see :meth:`GraphUpdates.swap_in`)."""
        self._updates.swap_in(model, entry, anchor, marks)

    def set_model(self, model: ViewGraphModel | None) -> None:
        self._model = model

    def paintEvent(self, event: Any) -> None:  # noqa: N802 (Qt API)
        super().paintEvent(event)
        self._build.painted()

    # ================================================================================ layout

    def relayout(self) -> None:
        """Tidy tree now, ``dot`` in a child process; the canvas keeps its focus point."""
        self._updates.relayout()

    # ================================================================================ options

    def filter_mode(self) -> str:
        return self._filter

    def set_filter(self, mode: str) -> None:
        """One of pi's ``/tree`` modes; folds reset and the selection stays on its entry (pi)."""
        self._filter = check_mode(mode)
        self._updates.rebuild(lambda model: model.set_filter(mode))

    def cycle_filter(self, step: int = 1) -> str:
        """pi's Ctrl+O / Shift+Ctrl+O; returns the new mode (the window binds the keys)."""
        mode = next_mode(self._filter, step)
        self.set_filter(mode)
        return mode

    def folding(self) -> bool:
        return self._folding

    def set_folding(self, folding: bool) -> None:
        """Fold linear runs into segment nodes (``True``) or show every visible entry."""
        self._folding = folding
        self._updates.rebuild(lambda model: model.set_folding(folding))

    def set_use_dot(self, use_dot: bool) -> None:
        self._updates.use_dot = use_dot

    @property
    def _use_dot(self) -> bool:
        return self._updates.use_dot

    def set_minimap_visible(self, visible: bool) -> None:
        """The user's choice (the M key toggles it); it still hides when the pane is small or
        when every corner would cover the leaf or the selection."""
        self._minimap.set_wanted(visible)

    def minimap_wanted(self) -> bool:
        return self._minimap.wanted

    def minimap_widget(self) -> QWidget:
        return self._minimap.widget

    def minimap_rect(self) -> QRect:
        """Where the minimap is, in viewport coordinates; empty when it is hidden (DESIGN.md §7.1)."""
        return self._minimap.rect()

    # ================================================================================ selection

    def selected_node(self) -> Node | None:
        return self._selection.node

    def selected_entry(self) -> str | None:
        """The entry id of the selection (a segment's first entry for a folded run)."""
        return self._selection.entry(self._model) if self._model is not None else None

    def select(self, entry_id: str | None, *, center: bool = True, notify: bool = False) -> Node | None:
        """Select the node standing for ``entry_id`` (its segment, or nearest visible ancestor).

        Programmatic selection does not emit ``node_selected`` unless ``notify``; it does emit
        ``compaction_selected`` since the audit panel follows what the canvas shows.
        """
        node = self._model.node_for_entry(entry_id) if self._model is not None else None
        self.select_node(node, center=center, notify=notify)
        return node

    def select_node(self, node: Node | None, *, center: bool = False, notify: bool = True) -> None:
        self._picked.select_node(node, center=center, notify=notify)

    def audit_bands(self) -> tuple[list[Node], list[Node]]:
        """The nodes in the summarized and kept bands now on screen (empty when no audit)."""
        return self._picked.audit_bands()

    def activate(self, node: Node | None = None) -> None:
        """Enter / double-click: unfold a segment, or ask the window to move the leaf here."""
        self._input.activate(node)

    def expand(self, node: Node) -> None:
        """Unfold a segment and select its first entry."""
        self._updates.expand(node)

    def collapse(self, entry_id: str) -> bool:
        """Fold back the expanded run ``entry_id`` is in; ``False`` if it is in none."""
        return self._updates.collapse(entry_id)

    # ================================================================================ viewing

    def zoom(self) -> float:
        return self._camera.zoom()

    def scale(self, sx: float, sy: float) -> None:
        super().scale(sx, sy)
        self._camera.apply_lod()

    def resetTransform(self) -> None:  # noqa: N802 (Qt API)
        super().resetTransform()
        self._camera.apply_lod()

    def setTransform(self, matrix: Any, combine: bool = False) -> None:  # noqa: N802 (Qt API)
        super().setTransform(matrix, combine)
        self._camera.apply_lod()

    def zoom_by(self, factor: float) -> None:
        self._camera.zoom_by(factor)

    def fit_all(self) -> None:
        """Everything in view (never magnified beyond 100 %). Following goes on: the leaf is in the
        picture, and kept there if the tree outgrows it."""
        self._camera.fit_all()

    @property
    def following(self) -> bool:
        """The canvas keeps the active leaf in view (a pan or zoom by the user stops it)."""
        return self._follower.following

    def jump_button(self) -> QWidget:
        """The "Jump to leaf" button over the canvas (shown while the canvas does not follow)."""
        return self._follower.button

    def jump_to_leaf(self) -> None:
        """Ctrl+L and the "Jump to leaf" button: centre on the leaf and follow it again."""
        self._follower.resume()
        self.center_on_leaf()
        self._follower.follow()  # clear of the minimap, which may sit over the centre

    def user_moved(self) -> None:
        """The user panned or zoomed: the canvas stops following the leaf."""
        self._follower.user_moved()

    def center_on_leaf(self) -> None:
        self._camera.center_on_leaf()

    # ================================================================================ automation

    def reveal(self, entry_id: str, *, keep_following: bool = False) -> bool:
        """Unfold and scroll so ``entry_id`` has its own visible item (DESIGN.md §7.1).

        ``False`` when the entry is filtered out (no node of its own in this filter mode). When the
        leaf is then out of sight the canvas stops following it, as after a search jump: else the
        next relayout (a click that unfolds) pulled the view back to the leaf, away from ``entry_id``.
        ``keep_following``: the window shows something for a moment (the compaction preview's cut)
        and the leaf it is about to write must still be brought into view.
        """
        node = self._updates.unfold_for(entry_id)
        if node is None or node != entry_id or node not in self._scene.positions:
            return False
        self._camera.bring_into_view(node)
        if not keep_following and not self._camera.leaf_visible():  # taken away from the leaf, as a search jump does
            self.user_moved()
        return True

    def node_center(self, entry_id: str) -> QPoint | None:
        """Viewport coordinates of the item showing ``entry_id`` (a folded entry: its fold's
        item); ``None`` when it is filtered out or unknown."""
        if self._model is None or self._model.graph.anchor.get(entry_id) != entry_id:
            return None
        node = self._model.graph.node_of.get(entry_id)
        return self._camera.viewport_point(node)

    def pin_center(self) -> QPoint | None:
        """Viewport coordinates of the active-leaf pin (the node standing for the leaf)."""
        return self._camera.viewport_point(self.graph().leaf_node)

    # ================================================================================ search

    def search(self, text: str) -> int:
        """Highlight nodes holding entries whose text has every word of ``text`` (all of their
        text: :func:`~desktop_app.present.search.find_text`); returns the number of entries."""
        return self._find.search(text)

    def matches(self) -> list[Node]:
        """The nodes holding hits, in list order (a folded run once, however many hits it holds)."""
        return list(self._find.state.matches)

    def search_hits(self) -> list[str]:
        """The matching entries, in list order (entries inside a folded run each count)."""
        return [entry for _, entry in self._find.state.hits]

    def next_match(self) -> str | None:
        """Jump to the next hit (wrapping): unfold its run, select it and bring it into view."""
        return self._find.jump(1)

    def previous_match(self) -> str | None:
        return self._find.jump(-1)

    def clear_search(self) -> None:
        self._find.clear()

    # ================================================================================ input

    def forget_order(self) -> None:
        """The graph changed: the visible order is made again when next asked for."""
        self._order = None

    def visible_order(self) -> list[Node]:
        """The visible nodes in pi's list order (cached until the graph changes)."""
        if self._order is None:
            self._order = visible_order(self._model.graph) if self._model is not None else []
        return self._order

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt API)
        """A theme switch (the application palette changed): the canvas follows at once."""
        if event.type() == QEvent.Type.PaletteChange:
            self.follow_palette()
        super().changeEvent(event)

    def follow_palette(self) -> bool:
        """Light or dark as the application palette is now; ``True`` when the canvas changed."""
        fresh = default_style()
        if fresh.dark == self._style.dark:
            return False
        fresh.spec = self._style.spec
        self._style.adopt(fresh)
        self.setBackgroundBrush(self._style.background)
        self._scene.restyle()
        if self._model is not None:
            self._minimap.redraw_now(self._model.graph)
        self.style_changed.emit()
        self.viewport().update()
        return True

    def event(self, event: QEvent) -> bool:
        if self._input.takes_shortcut(event):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt API)
        self._input.key_press(event, lambda: QGraphicsView.keyPressEvent(self, event))

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt API)
        self._input.mouse_press(event, lambda: QGraphicsView.mousePressEvent(self, event))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt API)
        self._input.mouse_move(event, lambda: QGraphicsView.mouseMoveEvent(self, event))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt API)
        self._input.mouse_release(event, lambda: QGraphicsView.mouseReleaseEvent(self, event))

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt API)
        self._input.double_click(event, lambda: QGraphicsView.mouseDoubleClickEvent(self, event))

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 (Qt API)
        self._input.wheel(event, lambda: QGraphicsView.wheelEvent(self, event))

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        return self._input.viewport_event(event) or super().viewportEvent(event)

    @property
    def search_active(self) -> bool:
        return self._find.state.active

    def node_at(self, point: QPoint) -> Node | None:
        """The node under viewport ``point``."""
        return self._scene.node_at(self.mapToScene(point))

    def toggle_minimap(self) -> None:
        self.set_minimap_visible(not self._minimap.wanted)

    def preview_text(self, node: Node) -> str:
        """The hover preview (rich text): kind, id, label and the start of the entry's text."""
        if self._model is None or self._session is None:
            return ""
        return node_preview(self._model.graph, node, self._session)

    # ================================================================================ labels

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:  # noqa: N802 (Qt API)
        """Semantic zoom: labels in screen pixels over the scene (see :mod:`.overlay`)."""
        super().drawForeground(painter, rect)
        self._camera.note_seen()  # what the user saw last (kept across a resize)
        self._overlay.paint(painter)
        badges_of(self).paint(painter, self, self.graph_scene(), self._session)  # issue 25: files changed per turn

    def set_heat(self, tokens_by_entry: dict[str, int] | None) -> None:
        self._heat.set(tokens_by_entry)  # the lens's tokens per entry beside the path (None: off)
        self.viewport().update()

    def node_marks(self) -> Marks:
        """What every node says when labelled, most important first (cached; labels and outline share it)."""
        return self._overlay.node_marks()

    def _caption_rects(self) -> list[Rect]:
        """Viewport rectangles of the audit's captions, placed for this view (labels keep clear of them)."""
        return self._overlay.caption_rects()

    def audit_captions(self) -> list[tuple[str, Rect]]:
        """The audit's words on screen now and their viewport rectangles (tests, checks)."""
        return self._overlay.audit_captions()

    def screen_labels(self) -> list[Placed]:
        """The labels drawn over the graph now (semantic zoom), in viewport pixels."""
        return self._overlay.screen_labels()

    def detail(self) -> Detail:
        """The level of detail the current zoom shows (see :mod:`desktop_app.present.lod`)."""
        return detail_for(self.zoom())

    # ================================================================================ minimap

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt API)
        """Keep what the user looked at: the selection (else the leaf) stays on screen if it was
        (issue 9.7: after a resize to 900×600 the pane showed empty canvas)."""
        focus = self._camera.focus_seen()
        super().resizeEvent(event)
        if focus is not None:
            self._camera.bring_into_view(focus)
        self._minimap.follow_viewport()
        self._follower.place()
        self._follower.follow()

    # ================================================================================ introspection

    @property
    def model(self) -> ViewGraphModel | None:
        return self._model

    @property
    def session(self) -> SessionView | None:
        """The session shown (read-only)."""
        return self._session

    @property
    def graph_style(self) -> GraphStyle:
        """Colours, shapes and fonts of this canvas (the legend draws with them)."""
        return self._style

    def graph(self) -> ViewGraph:
        return self._model.graph if self._model is not None else _EMPTY

    def positions(self) -> dict[Node, tuple[float, float]]:
        return dict(self._scene.positions)

    @property
    def layout_kind(self) -> str:
        """``"tidy"`` until ``dot``'s positions arrive, then ``"dot"``."""
        return self._updates.kind

    @property
    def layout_busy(self) -> bool:
        """A layout is on its way: the whole graph (after the neighbourhood) or ``dot``'s."""
        return self._build.partial or self._layouter.busy

    @property
    def layout_worker_pid(self) -> int | None:
        """The ``dot`` child's process id while it runs (tests check layout is off this process)."""
        return self._layouter.worker_pid

    def graph_scene(self) -> GraphScene:
        return self._scene

    def visible_scene_rect(self) -> QRectF:
        return self._camera.visible_scene_rect()
