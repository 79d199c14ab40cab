"""Keyboard navigation over the view graph, mirroring pi's ``/tree`` keys (pi-spec §6.2). No Qt.

The visible list is pi's: depth-first pre-order where, at every node (and among the roots), the
child on the active path comes first and the others follow in their timestamp order. Up/Down walk
that list with wrap-around; Left/Right jump between branch segments when there is nothing to fold.
"""

from __future__ import annotations

import networkx as nx

from .model import Node

__all__ = ["ordered_children", "visible_order", "segment_start_above", "branch_target_below"]


def ordered_children(graph: nx.DiGraph, node: Node | None) -> list[Node]:
    """Children of ``node`` (roots for ``None``) in pi's order: active path first."""
    kids = list(graph.graph.get("roots", ())) if node is None else list(graph.succ[node])
    active = [k for k in kids if graph.nodes[k].get("on_active_path")]
    return active + [k for k in kids if not graph.nodes[k].get("on_active_path")]


def visible_order(graph: nx.DiGraph) -> list[Node]:
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
    if len(out) < graph.number_of_nodes():  # anything unreachable (never in a model graph) goes last
        out.extend(n for n in graph.nodes if n not in seen)
    return out


def _parent(graph: nx.DiGraph, node: Node) -> Node | None:
    return next(iter(graph.predecessors(node)), None)


def _is_segment_start(graph: nx.DiGraph, node: Node) -> bool:
    parent = _parent(graph, node)
    return parent is None or graph.out_degree(parent) > 1


def segment_start_above(graph: nx.DiGraph, node: Node) -> Node:
    """pi's "jump up to the previous branch-segment start" (Ctrl+←/Alt+← with nothing to fold).

    The start of ``node``'s own branch segment, or, when already there, of the segment above.
    """
    current = node
    if _is_segment_start(graph, current):
        parent = _parent(graph, current)
        if parent is None:
            return current
        current = parent
    while not _is_segment_start(graph, current):
        parent = _parent(graph, current)
        assert parent is not None
        current = parent
    return current


def branch_target_below(graph: nx.DiGraph, node: Node) -> Node:
    """pi's "jump down to the next branch point's first child, or the branch end" (Ctrl+→/Alt+→)."""
    current = node
    while True:
        kids = ordered_children(graph, current)
        if not kids:
            return current
        if len(kids) > 1:
            return kids[0]
        current = kids[0]
