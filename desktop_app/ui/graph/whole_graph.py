"""The big session's two-step picture: the leaf's neighbourhood now, the whole graph in slices.

A session with ``neighbourhood_min_entries`` entries or more opens on the active leaf's
neighbourhood (:mod:`desktop_app.present.neighbourhood`): a small view graph built and laid out in
milliseconds at any size. Once that first picture is painted, the whole view graph, its tidy tree,
marks and rows are built on the UI thread a few milliseconds per event-loop turn (pure Python over
the session's dicts, ~1–4 s at 100,000 entries: :mod:`desktop_app.present.pacing`), their scene
items made a slice per turn too, and swapped in with the leaf (or the selection) kept where it was
on screen. Session events that arrive meanwhile restart that build, so the swapped-in graph is
never stale.

Why not a worker thread (as before issue 28's last point): the build held the GIL for seconds and
the UI thread waited for it after each Qt call, up to ~70 ms at a time on a loaded machine. Why not
a child process (as ``dot`` runs): it would parse the 136 MB file again (1.5–2.2 s) and its graph
must come back as Python objects made on this thread anyway (the model keeps the session's own
entries and a skeleton of every id, for the streaming appends after the swap).

:class:`WholeGraphBuild` is a piece of :class:`~desktop_app.ui.graph.view.GraphView`: it keeps the
build's state and timers and works on the canvas it belongs to (its model, scene and selection)
through the :class:`Canvas` protocol.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Generator
from threading import Event, Lock  # bound here: tests stand in for this module's `threading`
from typing import Protocol

from PySide6.QtCore import QObject, QPoint, QPointF, QTimer

from desktop_app.present.filters import is_visible
from desktop_app.present.graph_build import Built, Named, build_whole_graph
from desktop_app.present.graph_model import ViewGraphModel
from desktop_app.present.layout import tidy_tree_layout
from desktop_app.present.neighbourhood import NeighbourhoodLimits, leaf_neighbourhood, sub_index
from desktop_app.present.pacing import Pace, Steps
from desktop_app.present.viewgraph import Node, ViewGraph
from desktop_app.session import SessionIndex, SessionView

from ..gui_gc import hold_collections, release_collections
from .scene import GraphScene
from .style import GraphStyle

__all__ = ["NEIGHBOURHOOD_MIN_ENTRIES", "Canvas", "Named", "WholeGraphBuild"]

log = logging.getLogger(__name__)

#: Sessions with this many entries or more open on the leaf's neighbourhood (see the module
#: docstring); below it the whole graph is built at once (~0.3 s at 10,000 entries).
NEIGHBOURHOOD_MIN_ENTRIES = 6_000
#: Builds restarted because the session changed under them before the whole graph is built on the
#: UI thread instead (a session streaming from the first second on must still get its graph).
_MAX_BUILD_RESTARTS = 2
#: If the canvas is hidden (never painted), the whole graph's build starts this long after opening.
_BUILD_START_MS = 250
#: A shown canvas waits this much longer for its first paint before the build starts anyway.
_PICTURE_WAIT_MS = 2_000
#: The work waiting for the first picture and the whole graph's build start this long after it.
_AFTER_PICTURE_MS = 1
#: The whole graph's build starts this long after the first picture: the work that waited for
#: the picture (the context meter, the sibling arrows' first slice) and the chat's paint it causes
#: run first.
_BUILD_AFTER_PICTURE_MS = 60
#: How often a whole-graph build waiting for a replaced picture's deletion looks again.
_BUILD_AFTER_DISCARD_MS = 20
#: How long one event-loop turn builds the whole graph (seconds; issue 28: as for the swap's
#: slices, a turn with this and the rest of the loop's work stays far from a 50 ms gap).
_BUILD_BUDGET = 0.006
#: How long one event-loop turn makes scene items while the whole graph replaces the
#: neighbourhood (seconds; issue 28: with 5 ms more for the rest of the turn and a paint, no gap
#: of the heartbeat reaches 50 ms).
_SWAP_BUDGET = 0.006


def _release_elsewhere(holder: list[object], delay: float = 1.0) -> None:
    """Empty ``holder`` on a worker thread after ``delay`` seconds: when it holds the last
    reference to a replaced graph model, deallocating its nodes, anchors and texts (~20 ms at
    100,000 entries) happens there, not in the branch switch that replaced it. The delay lets the
    canvas, labels and minimap let go of the old graph first. Plain Python data only: a view
    graph model holds no Qt object."""

    wake = Event()

    def drop() -> None:
        wake.wait(delay)
        holder.clear()
        with _RELEASES_LOCK:
            _RELEASES.discard(wake)

    with _RELEASES_LOCK:
        _RELEASES.add(wake)
    threading.Thread(target=drop, name="arbor-release", daemon=True).start()


_RELEASES: set[Event] = set()  #: the wake-ups of releases still waiting for their delay
_RELEASES_LOCK = Lock()


def release_waiting_now() -> None:
    """Let every release still waiting for its delay go at once (a test's teardown joins these
    threads; it need not sleep through the delay the canvas needed)."""
    with _RELEASES_LOCK:
        waiting = list(_RELEASES)
    for wake in waiting:
        wake.set()


class Canvas(Protocol):
    """What the build needs of the canvas it belongs to (:class:`~desktop_app.ui.graph.view.GraphView`)."""

    @property
    def session(self) -> SessionView | None: ...
    @property
    def model(self) -> ViewGraphModel | None: ...
    @property
    def graph_style(self) -> GraphStyle: ...
    def graph(self) -> ViewGraph: ...
    def graph_scene(self) -> GraphScene: ...
    def filter_mode(self) -> str: ...
    def folding(self) -> bool: ...
    def selected_entry(self) -> str | None: ...
    def selected_node(self) -> Node | None: ...
    def isVisible(self) -> bool: ...  # noqa: N802 (Qt API)
    def mapFromScene(self, point: QPointF, /) -> QPoint: ...  # noqa: N802 (Qt API)
    def forget_graph(self) -> list[object]: ...
    def adopt_model(self, model: ViewGraphModel, entry: str | None) -> None: ...
    def relayout(self) -> None: ...
    def swap_in(
        self, model: ViewGraphModel, entry: str | None, anchor: tuple[Node, QPoint] | None, marks: Named | None = None
    ) -> None: ...


class WholeGraphBuild(QObject):
    """The neighbourhood-first picture of a big session and the whole graph's build behind it."""

    def __init__(
        self, view: Canvas, parent: QObject, min_entries: int | None, limits: NeighbourhoodLimits | None
    ) -> None:
        super().__init__(parent)
        self._view = view
        self._min_entries = min_entries
        self._limits = limits or NeighbourhoodLimits()
        #: the model holds only the leaf's neighbourhood; the whole graph is on its way
        self.partial = False
        self._generation = 0
        self.state = "idle"  #: idle, waiting (for the first paint), running, swapping
        self._restarts = 0
        #: the session changed while the whole graph was built: what is built is stale
        self.events_during_build = False
        self._swap: tuple[ViewGraphModel, Generator[int, None, None], Named | None] | None = None
        #: event-loop turns the last swap took (tests: it yields to the loop between slices)
        self.swap_turns = 0
        self._reselect: str | None = None  #: the selected entry, outside the neighbourhood
        #: The leaf's neighbourhood is shown but not painted yet: the window's other work waits
        #: (:meth:`after_picture`), and so does the whole graph's build.
        self._picture_pending = False
        self._after_picture: list[Callable[[], None]] = []
        self._picture_timer = QTimer(self)  #: a hidden canvas is never painted: go on without it
        self._picture_timer.setSingleShot(True)
        self._picture_timer.timeout.connect(self._picture_overdue)
        self._picture_waited = False
        self._building: Steps[Built] | None = None  #: the whole graph's build, a slice a turn
        self._pace = Pace(_BUILD_BUDGET)
        #: event-loop turns the last build took (tests: it yields to the loop between slices)
        self.build_turns = 0
        self._build_timer = QTimer(self)  #: the build's next slice, on a later turn (see :meth:`_start`)
        self._build_timer.setInterval(0)
        self._build_timer.timeout.connect(self._build_step)

    # ================================================================================ neighbourhood

    def big(self) -> bool:
        """The session is big enough to show the leaf's neighbourhood first (module docstring)."""
        session = self._view.session
        limit = self._min_entries
        return session is not None and limit is not None and len(session.index.by_id) >= limit

    def reset(self) -> None:
        """Another session (or none): drop the build; the old picture's waiting work goes on."""
        self.cancel()
        if self._picture_pending:  # the old session's picture will never come
            self._picture_painted()

    def show_neighbourhood(self, expanded: set[str]) -> None:
        """The session leaf's neighbourhood now (folds ``expanded`` kept), the whole graph after
        the next paint. The selection follows its entry, or comes back with the whole graph."""
        view = self._view
        session = view.session
        assert session is not None
        entry = view.selected_entry() if view.model is not None else None
        self.cancel()
        ids = leaf_neighbourhood(session.index, session.leaf_id, self._limits)
        part = sub_index(session.index, ids)
        kept = self._same_neighbourhood(part, expanded)
        # Freeing a whole 100,000-entry graph, its marks and labels took ~30 ms of a far switch.
        retired: list[object] = [view.model, *view.forget_graph()] if kept is None else view.forget_graph()
        _release_elsewhere(retired)
        model = kept or ViewGraphModel(part, session.leaf_id, view.filter_mode(), view.folding(), expanded)
        view.adopt_model(model, entry)
        self._reselect = entry if view.selected_node() is None else None
        self.partial = True
        view.relayout()
        self._restarts = 0
        self.state = "waiting"  # starts after the first paint: the picture comes first
        self._picture_pending, self._picture_waited = True, False
        self._picture_timer.start(_BUILD_START_MS)

    def _same_neighbourhood(self, part: SessionIndex, expanded: set[str]) -> ViewGraphModel | None:
        """The model on screen, if it was made from another index (a deferred open's first
        picture: its neighbourhood, or the whole graph of its lines) and already shows ``part``
        as the new index has it (the same entries and labels, leaf, filter and folds): the whole
        file installed under the first picture. Issue 28: building the neighbourhood again was
        ~13 ms of that event-loop turn at 100,000 entries (up to 60 ms loaded), then its paint.
        The model is only shown (the session's events wait for the whole graph's build) until
        the whole graph replaces it."""
        model, session = self._view.model, self._view.session
        if model is None or session is None or model.index is session.index or expanded or model.expanded:
            return None
        shown = model.index.by_id
        if (
            model.leaf_id != session.leaf_id
            or model.filter_mode != self._view.filter_mode()
            or model.folding != self._view.folding()
            or model.index.labels != part.labels
            or any(shown.get(key) != entry for key, entry in part.by_id.items())
        ):
            return None
        return model

    def leaf_move_is_cheap(self, leaf_id: str | None) -> bool:
        """Whether the model can move the leaf without rebuilding (a restyle of two paths).

        A hint only, mirroring ``ViewGraphModel.set_leaf``'s fast path: a wrong "cheap" costs a
        rebuild on this thread, a wrong "not cheap" a neighbourhood and a build on the worker."""
        model, session, mode = self._view.model, self._view.session, self._view.filter_mode()
        assert model is not None and session is not None
        graph = model.graph
        if leaf_id is not None:
            rep = graph.anchor.get(leaf_id)
            if leaf_id not in graph.anchor or (rep is not None and not isinstance(graph.node_of.get(rep), str)):
                return False
        index, old = session.index, model.leaf_id
        for entry_id in (old, leaf_id):
            entry = index.by_id.get(entry_id) if entry_id is not None else None
            if entry is not None and is_visible(entry, mode, old, index.labels) != is_visible(
                entry, mode, leaf_id, index.labels
            ):
                return False
        return True

    def moves_leaf_far(self, leaf_id: str | None) -> bool:
        """A leaf move that shows the new leaf's neighbourhood (and builds the whole graph again)."""
        if self.partial:
            return True
        return self.big() and not self.leaf_move_is_cheap(leaf_id)

    # ================================================================================ first picture

    def after_picture(self, work: Callable[[], None]) -> None:
        """Run ``work`` on a later event-loop turn, after the leaf's neighbourhood is painted if it
        is waiting to be (a big session just opened or switched far). What the window does besides
        the graph (the context meter, the chat's sibling arrows: each a walk of the whole path,
        ~0.1-0.2 s at 100,000 entries) would otherwise run before the picture's paint."""
        if self._picture_pending:
            self._after_picture.append(work)
        else:
            QTimer.singleShot(0, self, work)

    def painted(self) -> None:
        """The canvas painted: the first picture is on screen if one was awaited."""
        if self._picture_pending or self.state == "waiting":
            self._picture_painted()

    def _picture_painted(self) -> None:
        """The first picture is on screen (or never will be): the waiting work, then the build."""
        self._picture_pending = False
        self._picture_timer.stop()
        waiting, self._after_picture = self._after_picture, []
        # Timers, not posted calls: Qt runs every call posted before a pass of its loop in that
        # one pass (with the rest of the window's paint and the chat's), timers each in their
        # turn beside the rest (issue 28: one 40-75 ms turn right after the first picture).
        for work in waiting:
            QTimer.singleShot(_AFTER_PICTURE_MS, self, work)
        if self.state == "waiting":  # after that work and the paints it causes, not beside them
            QTimer.singleShot(_BUILD_AFTER_PICTURE_MS, self, self._start)

    def _picture_overdue(self) -> None:
        if self._picture_pending and self._view.isVisible() and not self._picture_waited:
            self._picture_waited = True  # shown: its paint is on the way, unless the loop is busy
            self._picture_timer.start(_PICTURE_WAIT_MS)
            return
        self._picture_painted()

    # ================================================================================ whole graph

    def cancel(self) -> None:
        release_collections(self)
        self._generation += 1
        self.state = "idle"
        self.partial = False
        self._stop_building()
        if self._swap is not None:
            self._swap[1].close()  # the half-made items go; the picture on screen stays
            self._swap = None

    def _start(self) -> None:
        """Build the whole view graph, its tidy tree, marks and rows a slice per event-loop turn
        (see the module docstring)."""
        view = self._view
        session, current = view.session, view.model
        if self.state != "waiting" or session is None or current is None:
            return
        if view.graph_scene().discarding:
            # Not while a replaced picture is being deleted, a slice per turn too: the two would
            # take turns, and the deletion is done in ~0.1 s.
            QTimer.singleShot(_BUILD_AFTER_DISCARD_MS, self, self._start)
            return
        self.state = "running"
        # No collection walks what the build makes (it all survives, and is frozen once swapped in).
        hold_collections(self)
        self._generation += 1
        self.events_during_build = False
        # The index is read between the session's events, on this thread: one that arrives
        # meanwhile sets ``events_during_build`` and the next slice starts again (:meth:`_build_step`).
        self._stop_building()
        self._building = build_whole_graph(
            session.index,
            session.leaf_id,
            view.filter_mode(),
            view.folding(),
            set(current.expanded),
            view.graph_style.spec,
            session.get_session_name(),
            self._pace,
        )
        self.build_turns = 0
        self._build_timer.start()

    def _stop_building(self) -> None:
        self._build_timer.stop()
        if self._building is not None:
            self._building.close()
            self._building = None

    def _build_step(self) -> None:
        """One slice of the whole graph's build; the last one starts the swap."""
        steps = self._building
        if steps is None:
            self._build_timer.stop()
            return
        generation = self._generation
        if self.events_during_build:  # the session moved on: what is being built is stale
            self._stop_building()
            self._done(generation, None, None)
            return
        self.build_turns += 1
        self._pace.begin()
        try:
            next(steps)
        except StopIteration as end:
            self._stop_building()
            self._done(generation, end.value, None)
        except Exception as exc:  # e.g. the index changed under a walk: the build starts again
            self._stop_building()
            self._done(generation, None, f"{type(exc).__name__}: {exc}")

    def _done(self, generation: int, built: Built | None, error: str | None) -> None:
        if generation != self._generation or self._view.session is None or self._view.model is None:
            return  # superseded (another session, or a restarted build)
        if built is None or self.events_during_build:
            self._rebuild_whole(error)
            return
        self.state = "swapping"
        model = built.model
        steps = self._view.graph_scene().show_graph_in_steps(
            model.graph, built.positions, 0, _SWAP_BUDGET, rows=built.rows, extent=built.extent
        )
        self._swap = (model, steps, built.marks)
        self.swap_turns = 0
        self._swap_step()

    def _rebuild_whole(self, error: str | None) -> None:
        """The build failed or went stale: again in slices, or (after a few tries) at once, right here."""
        if self._swap is not None:
            self._swap[1].close()
            self._swap = None
        if self._restarts < _MAX_BUILD_RESTARTS:
            self._restarts += 1
            self.state = "waiting"
            self._start()
            return
        view = self._view
        session = view.session
        assert session is not None
        log.info("graph build: %s; building on the UI thread", error or "the session kept changing")
        model = ViewGraphModel(session.index, session.leaf_id, view.filter_mode(), view.folding())
        self.state = "swapping"
        positions = tidy_tree_layout(model.graph, view.graph_style.spec)
        self._swap = (model, view.graph_scene().show_graph_in_steps(model.graph, positions, 0), None)
        self.swap_turns = 0
        self.events_during_build = False
        self._swap_step()

    def _swap_step(self) -> None:
        """Make the next slice of the whole graph's items; the last one swaps them in."""
        view = self._view
        if self._swap is None or view.model is None:
            return
        if self.events_during_build:  # the session moved on: what is being made is stale
            self._rebuild_whole(None)
            return
        model, steps, marks = self._swap
        self.swap_turns += 1
        entry = view.selected_entry()
        anchor: tuple[Node, QPoint] | None = None
        positions = view.graph_scene().positions
        for old in (view.selected_node(), view.graph().leaf_node):
            if old is not None and old in positions:
                shown = view.graph().nodes.get(old)
                new = model.node_for_entry(shown.entry_id) if shown is not None else None
                if new is not None:
                    anchor = (new, view.mapFromScene(QPointF(*positions[old])))
                    break
        try:
            next(steps)
        except StopIteration:
            pass
        else:
            QTimer.singleShot(0, self, self._swap_step)
            return
        self._swap = None
        self.state = "idle"
        self.partial = False
        view.swap_in(model, entry or self._reselect, anchor, marks)
        self._reselect = None
        release_collections(self)
