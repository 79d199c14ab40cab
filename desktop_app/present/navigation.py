"""Keyboard navigation over the view graph, mirroring pi's ``/tree`` keys (pi-spec §6.2). No Qt.

The visible list is pi's: depth-first pre-order where, at every node (and among the roots), the
child on the active path comes first and the others follow in their timestamp order. Up/Down walk
that list with wrap-around; Left/Right jump between branch segments when there is nothing to fold.
"""

from __future__ import annotations

from .viewgraph import Node, ViewGraph

__all__ = ["branch_target_below", "ordered_children", "segment_start_above", "visible_order"]


def ordered_children(graph: ViewGraph, node: Node | None) -> list[Node]:
    """Children of ``node`` (roots for ``None``) in pi's order: active path first."""
    kids = graph.roots if node is None else graph.children_of(node)
    nodes = graph.nodes
    active = [k for k in kids if nodes[k].on_active_path]
    return active + [k for k in kids if not nodes[k].on_active_path]


def visible_order(graph: ViewGraph) -> list[Node]:
    """Every node once, in pi's list order."""
    out: list[Node] = []
    stack = list(reversed(ordered_children(graph, None)))
    seen: set[Node] = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        out.append(node)
        stack.extend(reversed(ordered_children(graph, node)))
    if len(out) < len(graph):  # anything unreachable (never in a model graph) goes last
        out.extend(n for n in graph if n not in seen)
    return out


def _is_segment_start(graph: ViewGraph, node: Node) -> bool:
    parent = graph.parent_of(node)
    return parent is None or len(graph.children_of(parent)) > 1


def segment_start_above(graph: ViewGraph, node: Node) -> Node:
    """pi's "jump up to the previous branch-segment start" (Ctrl+←/Alt+← with nothing to fold).

    The start of ``node``'s own branch segment, or, when already there, of the segment above.
    """
    current = node
    if _is_segment_start(graph, current):
        parent = graph.parent_of(current)
        if parent is None:
            return current
        current = parent
    while not _is_segment_start(graph, current):
        parent = graph.parent_of(current)
        assert parent is not None
        current = parent
    return current


def branch_target_below(graph: ViewGraph, node: Node) -> Node:
    """pi's "jump down to the next branch point's first child, or the branch end" (Ctrl+→/Alt+→)."""
    current = node
    while True:
        kids = ordered_children(graph, current)
        if not kids:
            return current
        if len(kids) > 1:
            return kids[0]
        current = kids[0]
