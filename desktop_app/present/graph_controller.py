"""What an input on the graph canvas means: typed commands, decided without Qt.

The canvas (``ui/graph/view.py``) translates a Qt event into a call here — which node was clicked,
which :class:`Key` was pressed — and executes the command it gets back: select a node, unfold or
fold a run, zoom, clear the search, or ask the window to move the leaf (pi's ``/tree`` Enter,
a double-click, or the leaf pin dropped on another node). Key meanings follow pi's ``/tree``
selector (pi-spec §6.2): Up/Down walk the visible list with wrap-around, PageUp/PageDown by ten,
Left folds back an unfolded run or jumps to the branch segment's start, Right unfolds a segment or
jumps to the next branch point.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, auto
from typing import TypeAlias

from .navigation import branch_target_below, segment_start_above
from .viewgraph import Node, SegmentKey, ViewGraph

__all__ = [
    "PAGE",
    "Activate",
    "ClearSearch",
    "Collapse",
    "Expand",
    "GraphCommand",
    "GraphController",
    "Key",
    "MoveLeaf",
    "Select",
    "Zoom",
]

PAGE = 10  #: rows per PageUp/PageDown, as a list page in pi's selector


class Key(Enum):
    UP = auto()
    DOWN = auto()
    PAGE_UP = auto()
    PAGE_DOWN = auto()
    HOME = auto()
    END = auto()
    LEFT = auto()
    RIGHT = auto()
    ENTER = auto()
    ESCAPE = auto()
    ZOOM_IN = auto()
    ZOOM_OUT = auto()


@dataclass(frozen=True)
class Select:
    """Select ``node`` (and tell the window); ``center`` brings it into view."""

    node: Node
    center: bool = False


@dataclass(frozen=True)
class Expand:
    """Unfold the segment ``node`` and select its first entry."""

    node: SegmentKey


@dataclass(frozen=True)
class Collapse:
    """Fold back the unfolded run ``entry_id`` is in and select its segment."""

    entry_id: str


@dataclass(frozen=True)
class Activate:
    """Make ``entry_id`` the leaf (the window asks pi's summary question, then the agent navigates)."""

    entry_id: str


@dataclass(frozen=True)
class MoveLeaf:
    """The leaf pin was dropped on ``entry_id``: switch branch there (same road as :class:`Activate`)."""

    entry_id: str


@dataclass(frozen=True)
class Zoom:
    factor: float


@dataclass(frozen=True)
class ClearSearch:
    pass


GraphCommand: TypeAlias = Select | Expand | Collapse | Activate | MoveLeaf | Zoom | ClearSearch


class GraphController:
    """Input → :data:`GraphCommand`. Holds only the state of a drag of the leaf pin."""

    def __init__(self) -> None:
        self._pin_drag = False

    # ------------------------------------------------------------------------------- mouse

    def press(self, graph: ViewGraph, node: Node | None) -> GraphCommand | None:
        """A left-button press on ``node`` (``None``: empty canvas). Pressing the leaf's node also
        picks up the pin: releasing it on another node moves the leaf there."""
        self._pin_drag = node is not None and node == graph.leaf_node
        return Select(node) if node is not None and node in graph else None

    @property
    def dragging_pin(self) -> bool:
        """A press on the leaf's node is held: the canvas must not pan while the pin is carried."""
        return self._pin_drag

    def release(self, graph: ViewGraph, node: Node | None) -> GraphCommand | None:
        """The button went up over ``node``: a pin carried onto another entry node moves the leaf."""
        carried, self._pin_drag = self._pin_drag, False
        if not carried or node is None or node == graph.leaf_node or node not in graph:
            return None
        view = graph.nodes[node]
        return None if view.is_segment else MoveLeaf(view.entry_id)

    def double_click(self, graph: ViewGraph, node: Node | None) -> GraphCommand | None:
        """Unfold a segment; on an entry, ask to move the leaf there."""
        return self.activate(graph, node)

    def activate(self, graph: ViewGraph, node: Node | None) -> GraphCommand | None:
        if node is None or node not in graph:
            return None
        if isinstance(node, SegmentKey):
            return Expand(node)
        return Activate(graph.nodes[node].entry_id)

    # ------------------------------------------------------------------------------- keys

    def key(
        self, graph: ViewGraph, order: list[Node], selected: Node | None, key: Key, searching: bool = False
    ) -> GraphCommand | None:
        """What ``key`` means with ``selected`` (else the leaf's node) current; ``None``: not ours.

        ``order`` is :func:`~.navigation.visible_order` of ``graph``; ``searching`` says a search
        is active (Escape clears it).
        """
        if key is Key.ZOOM_IN:
            return Zoom(1.25)
        if key is Key.ZOOM_OUT:
            return Zoom(0.8)
        if key is Key.ESCAPE:
            return ClearSearch() if searching else None
        if not order:
            return None
        current = selected if selected is not None and selected in graph else graph.leaf_node
        position = order.index(current) if current in order else -1
        target: Node | None = None
        if key is Key.UP:
            target = order[(position - 1) % len(order)] if position >= 0 else order[-1]
        elif key is Key.DOWN:
            target = order[(position + 1) % len(order)] if position >= 0 else order[0]
        elif key is Key.PAGE_UP:
            target = order[max(0, position - PAGE)]
        elif key is Key.PAGE_DOWN:
            target = order[min(len(order) - 1, position + PAGE)]
        elif key is Key.HOME:
            target = order[0]
        elif key is Key.END:
            target = order[-1]
        elif key is Key.ENTER:
            return self.activate(graph, current)
        elif current is None:
            return None
        elif key is Key.LEFT:
            entry = graph.nodes[current].entry_id
            if graph.run_of.get(entry) in graph.expanded:
                return Collapse(entry)
            target = segment_start_above(graph, current)
        elif key is Key.RIGHT:
            if isinstance(current, SegmentKey):
                return Expand(current)
            target = branch_target_below(graph, current)
        return Select(target, center=True) if target is not None else None
