"""The active leaf's neighbourhood: the part of a big tree the canvas shows first. No Qt.

Building the view graph and laying it out is O(n): ~1–2 s of pure Python at 100,000 entries
(docs/PERFORMANCE.md). The user looks at the leaf first, so the canvas opens on a small graph —
the last stretch of the active path and the branches that leave it nearby — built with the very
same rules (:func:`~.graph_model.build_view_graph` over a :func:`sub_index`), while the whole
graph is built and laid out off the UI thread and swapped in around the leaf.

The neighbourhood is bounded by entry counts, never by the session's size, so it costs the same
at 1,000 entries as at 1,000,000.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from desktop_app.session.tree import SessionIndex

__all__ = ["NeighbourhoodLimits", "leaf_neighbourhood", "sub_index"]


@dataclass(frozen=True)
class NeighbourhoodLimits:
    """How much of the tree the first picture holds (entries, not view nodes).

    ``path``: entries of the active path above the leaf (leaf included); ``branch``: entries of each
    branch that leaves one of them (breadth first, so a branch's start is always in); ``total``: all
    entries together. The defaults fill a window many times over at 100 % zoom (a folded path shows
    a few dozen nodes for 400 entries) and build in a few milliseconds.
    """

    path: int = 400
    branch: int = 60
    total: int = 2_500


def leaf_neighbourhood(
    index: SessionIndex, leaf_id: str | None, limits: NeighbourhoodLimits = NeighbourhoodLimits()
) -> list[str]:
    """Entry ids near ``leaf_id``: its path upwards (nearest first), then the branches leaving that
    stretch, nearest branch point first (the leaf's own children first of all).

    Only string ids are taken (the view graph names nodes by them). A ``parentId`` cycle stops the
    walk up. An unknown or missing leaf gives an empty list.
    """
    by_id = index.by_id
    entry = by_id.get(leaf_id) if isinstance(leaf_id, str) and leaf_id else None
    path: list[str] = []
    chosen: set[str] = set()
    while entry is not None and len(path) < min(limits.path, limits.total):
        entry_id = entry.get("id")
        if not isinstance(entry_id, str) or entry_id in chosen:
            break
        path.append(entry_id)
        chosen.add(entry_id)
        parent = entry.get("parentId")
        entry = by_id.get(parent) if isinstance(parent, str) and parent else None
    out = list(path)
    for stem in path:  # nearest first: the leaf's children, then its parent's other children, ...
        if len(out) >= limits.total:
            break
        for first in index.get_children(stem):
            first_id = first.get("id")
            if not isinstance(first_id, str) or first_id in chosen:
                continue
            budget = min(limits.branch, limits.total - len(out))
            out.extend(_branch(index, first_id, budget, chosen))
            if len(out) >= limits.total:
                break
    return out


def _branch(index: SessionIndex, first_id: str, budget: int, chosen: set[str]) -> Iterable[str]:
    """Up to ``budget`` entries of the subtree at ``first_id``, breadth first (adds them to ``chosen``)."""
    taken: list[str] = []
    queue = deque([first_id])
    while queue and len(taken) < budget:
        entry_id = queue.popleft()
        if entry_id in chosen:
            continue
        chosen.add(entry_id)
        taken.append(entry_id)
        for child in index.get_children(entry_id):
            child_id = child.get("id")
            if isinstance(child_id, str) and child_id not in chosen:
                queue.append(child_id)
    return taken


def sub_index(index: SessionIndex, ids: Iterable[str]) -> SessionIndex:
    """A :class:`SessionIndex` holding only ``ids`` (labels shared): enough for
    :class:`~.graph_model.ViewGraphModel`, which reads ``by_id`` and ``labels``. An entry whose
    parent is not among ``ids`` becomes a root there."""
    by_id = index.by_id
    return SessionIndex(by_id={i: by_id[i] for i in ids if i in by_id}, labels=index.labels)
