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
from typing import TypeAlias, assert_never

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
        match key:
            case Key.ZOOM_IN:
                return Zoom(1.25)
            case Key.ZOOM_OUT:
                return Zoom(0.8)
            case Key.ESCAPE:
                return ClearSearch() if searching else None
            case Key.UP | Key.DOWN | Key.PAGE_UP | Key.PAGE_DOWN | Key.HOME | Key.END:
                target = _list_target(order, _current(graph, selected), key) if order else None
                return Select(target, center=True) if target is not None else None
            case Key.ENTER:
                return self.activate(graph, _current(graph, selected)) if order else None
            case Key.LEFT | Key.RIGHT:
                current = _current(graph, selected) if order else None
                return _tree_move(graph, current, key) if current is not None else None
            case _ as unreachable:
                assert_never(unreachable)


def _current(graph: ViewGraph, selected: Node | None) -> Node | None:
    """The node keys move from: the selected one, else the leaf's."""
    return selected if selected is not None and selected in graph else graph.leaf_node


def _list_target(order: list[Node], current: Node | None, key: Key) -> Node | None:
    """Up, Down, Page Up, Page Down, Home and End move through ``order`` like a list (Up and Down wrap
    around; from no current node Up goes to the end and Down to the start)."""
    position = order.index(current) if current in order else -1
    if key is Key.UP:
        return order[(position - 1) % len(order)] if position >= 0 else order[-1]
    if key is Key.DOWN:
        return order[(position + 1) % len(order)] if position >= 0 else order[0]
    if key is Key.PAGE_UP:
        return order[max(0, position - PAGE)]
    if key is Key.PAGE_DOWN:
        return order[min(len(order) - 1, position + PAGE)]
    if key is Key.HOME:
        return order[0]
    if key is Key.END:
        return order[-1]
    return None


def _tree_move(graph: ViewGraph, current: Node, key: Key) -> GraphCommand | None:
    """Left folds back an unfolded run or goes to the start of the segment above; Right unfolds a
    segment or goes down to the next branch."""
    if key is Key.LEFT:
        entry = graph.nodes[current].entry_id
        if graph.run_of.get(entry) in graph.expanded:
            return Collapse(entry)
        target = segment_start_above(graph, current)
    else:
        if isinstance(current, SegmentKey):
            return Expand(current)
        target = branch_target_below(graph, current)
    return Select(target, center=True) if target is not None else None
