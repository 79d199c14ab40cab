"""The canvas's side of find: highlight the hits, unfold and select the current one.

Which entries match and which hit is current is decided in
:class:`~desktop_app.present.search.GraphSearch` (no Qt). :class:`CanvasFind` shows its result on
the scene of a :class:`~desktop_app.ui.graph.view.GraphView` and tells the find bar through the
canvas's ``search_changed`` signal.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import SignalInstance

from desktop_app.present.graph_model import ViewGraphModel
from desktop_app.present.search import GraphSearch
from desktop_app.present.viewgraph import Node, SegmentKey
from desktop_app.session import SessionView

from .scene import GraphScene
from .selecting import CanvasSelection

__all__ = ["CanvasFind", "FindCanvas"]


class FindCanvas(Protocol):
    """What find needs of the canvas itself."""

    search_changed: SignalInstance

    @property
    def model(self) -> ViewGraphModel | None: ...
    @property
    def session(self) -> SessionView | None: ...
    def visible_order(self) -> list[Node]: ...
    def selected_entry(self) -> str | None: ...
    def relayout(self) -> None: ...


class CanvasFind:
    """Find on one canvas (see the module docstring); ``state`` is the Qt-free search."""

    def __init__(self, canvas: FindCanvas, scene: GraphScene, selection: CanvasSelection) -> None:
        self._canvas = canvas
        self._scene = scene
        self._selection = selection
        self.state = GraphSearch()

    def reset(self) -> None:
        """Another session: no query."""
        self.state = GraphSearch()

    def search(self, text: str) -> int:
        self.state.query = text
        self.state.current = -1
        self.rematch()
        return len(self.state.hits)

    def rematch(self) -> list[Node]:
        """Find again in the graph shown (it changed); returns the matching nodes."""
        search, canvas = self.state, self._canvas
        old = list(search.matches)
        model, session = canvas.model, canvas.session
        if model is None or session is None:
            self._scene.show_matches(old, (), None)
            return []
        # the visible order only when there is a query: it walks the whole graph (~15 ms at 10,000 nodes)
        order = canvas.visible_order() if search.query.strip() else []
        matches = search.rematch(model.graph, order, session.index)
        self._scene.show_matches(old, matches, search.current_node)
        canvas.search_changed.emit(search.status())
        return matches

    def jump(self, step: int) -> str | None:
        """To the hit ``step`` away (wrapping): unfold its run, select it and bring it into view."""
        search, canvas = self.state, self._canvas
        model = canvas.model
        if model is None:
            return None
        node = search.step(step)
        entry = search.current_entry
        if node is None or entry is None:
            return None
        if isinstance(node, SegmentKey) and node in model.graph:  # a hit inside a fold: open it
            selected = canvas.selected_entry()
            model.expand(node)
            self._selection.state.follow(model, selected)
            canvas.relayout()  # rematches; the current hit follows its entry
            node = search.current_node
            if node is None:
                return None
        self._scene.show_matches((), search.matches, node)
        self._selection.select_node(node, center=True, notify=True)
        canvas.search_changed.emit(search.status())
        return entry

    def clear(self) -> None:
        self.state.query = ""
        self.rematch()
