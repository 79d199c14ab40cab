"""The outline beside the graph: the landmarks of a session as a list that jumps to the node.

The same landmarks the far-out canvas labels (:mod:`.lod`) — compactions, branch summaries, branch
points, labels, leaves, the root and the active leaf — in the tree's list order (pre-order, pi's
``/tree`` order), each with the entry a click should reveal. A folded run that ends in a leaf
stands for its last entry: that is the leaf the user wants to see.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from .lod import LANDMARK_ROLES, Mark, MarkRole, Marks, landmarks_of, node_marks
from .viewgraph import Node, ViewGraph, ViewNode

__all__ = ["OUTLINE_GROUPS", "OutlineCache", "OutlineItem", "outline", "outline_counts"]

#: The outline's filter choices: a title and the roles it shows.
OUTLINE_GROUPS: Final[dict[str, frozenset[str]]] = {
    "Everything": LANDMARK_ROLES,
    "Compactions": frozenset({MarkRole.COMPACTION}),
    "Branch points": frozenset({MarkRole.BRANCH}),
    "Labels": frozenset({MarkRole.LABEL}),
    "Leaves": frozenset({MarkRole.LEAF, MarkRole.ACTIVE_LEAF}),
    "Branch summaries": frozenset({MarkRole.BRANCH_SUMMARY}),
}


@dataclass(frozen=True, slots=True)
class OutlineItem:
    """One row: what it says, and which entry a click reveals."""

    node: Node
    entry_id: str
    role: str
    kind: str
    text: str
    on_active_path: bool


#: What :func:`outline` may reuse: ``id(mark)`` → (the mark, its node's view, the row made of them).
OutlineCache = dict[int, tuple[Mark, ViewNode, "OutlineItem"]]


def outline(
    graph: ViewGraph,
    session_name: str | None = None,
    roles: Iterable[str] = LANDMARK_ROLES,
    marks: Marks | None = None,
    cache: OutlineCache | None = None,
) -> list[OutlineItem]:
    """The landmarks of ``graph`` with a role in ``roles``, in list order (``marks``: the graph's
    :func:`~.lod.node_marks` when the caller has them already).

    Marks come most important first, landmarks before plain entries and runs, so only the
    landmarks are read (7,000 of 10,000 nodes at 100,000 entries: the outline follows every
    append while a reply streams) and put back in list order by their position. With ``cache``
    (kept by the caller between calls) a row whose mark and node are the very objects of last
    time is that time's row, the same object: marks kept by :func:`~.lod.update_marks` after an
    append give back all but a few rows, and the caller can tell them unchanged by identity. The
    cache only gains rows until it holds twice as many as the outline, then keeps the current ones
    (rebuilding it on every call was a third of a refresh's time at 100,000 entries).
    """
    wanted = frozenset(roles)
    if marks is None:
        marks = node_marks(graph, session_name)
    found = landmarks_of(marks.ranked)
    if not wanted >= LANDMARK_ROLES:
        found = [mark for mark in found if mark.role in wanted]
    found.sort(key=_position)  # pre-order
    items = []
    nodes = graph.nodes
    for mark in found:
        view = nodes[mark.node]
        hit = cache.get(id(mark)) if cache is not None else None
        if hit is not None and hit[0] is mark and hit[1] is view:
            item = hit[2]
        else:
            entry = view.ids[-1] if mark.role in ("leaf", "active-leaf") else view.entry_id
            item = OutlineItem(mark.node, entry, mark.role, view.kind, mark.text, view.on_active_path)
            if cache is not None:  # it holds the mark, so no other mark can take its id meanwhile
                cache[id(mark)] = (mark, view, item)
        items.append(item)
    if cache is not None and len(cache) > 2 * len(items) + 256:  # rows of marks long gone: let them go
        kept = {id(item_mark): cache[id(item_mark)] for item_mark in found if id(item_mark) in cache}
        cache.clear()
        cache.update(kept)
    return items


def _position(mark: Mark) -> int:
    return mark.rank[2]


def outline_counts(items: Iterable[OutlineItem]) -> str:
    """A one-line summary: ``"18 compactions · 24 branch points · 2 labels · 25 leaves"``."""
    counts: dict[str, int] = {}
    for item in items:
        role = "leaf" if item.role == "active-leaf" else item.role
        counts[role] = counts.get(role, 0) + 1
    words = (
        ("compaction", "compaction", "compactions"),
        ("branch_summary", "branch summary", "branch summaries"),
        ("branch", "branch point", "branch points"),
        ("label", "label", "labels"),
        ("leaf", "leaf", "leaves"),
    )
    return " · ".join(f"{counts[r]} {one if counts[r] == 1 else many}" for r, one, many in words if counts.get(r))
