"""Which nodes of a transcript the first picture reads (issue 27 point 5: 100 MB to a picture in ≤ 3 s).

Reading the lines and building the tree must see the whole file (the leaf, merged turns, cycles and
boundaries all depend on every line), but converting 31,000 nodes to pi entries and indexing them
(~0.4 s at 100 MB) is not needed before the window shows: the first picture reads the leaf's stretch
of the tree. The same bounds as the pi skeleton open (:mod:`desktop_app.session.skeleton`, the
canvas's neighbourhood): the leaf's path up past its newest compaction (where its context starts)
and :data:`PATH_NODES` further, the branches leaving the path's first :data:`PATH_NODES` nodes
(:data:`BRANCH_NODES` each, :data:`TOTAL_NODES` in all), the file's first nodes up to its first user
message (an untitled window's title), and from each chosen compaction the nodes down to its first
kept message (so its ``firstKeptEntryId`` is the whole conversion's). The conversion of those nodes
is exactly the whole conversion's entries for them (:func:`.convert.convert` ``only=``).
"""

from __future__ import annotations

from collections import deque

from desktop_app.session.skeleton import BRANCH_ENTRIES, MAX_FIRST_LINES, PATH_ENTRIES, TOTAL_ENTRIES

from .model import MESSAGE_KINDS, Node, NodeKind, Transcript

__all__ = ["first_picture_nodes", "PATH_NODES", "BRANCH_NODES", "TOTAL_NODES", "MAX_NODES", "LEADING_NODES"]

PATH_NODES = PATH_ENTRIES
BRANCH_NODES = BRANCH_ENTRIES
TOTAL_NODES = TOTAL_ENTRIES
#: Beyond this many nodes for the first picture, converting them is most of a whole open: convert all.
MAX_NODES = MAX_FIRST_LINES
#: How far into the conversion order the first user message is looked for.
LEADING_NODES = 20


def first_picture_nodes(transcript: Transcript, order: list[Node]) -> set[str] | None:
    """The uuids of the nodes the first picture reads (``order``: the conversion's order, parents
    first), or ``None`` when there is no leaf or that is most of the transcript."""
    if transcript.leaf is None:
        return None
    nodes = transcript.nodes
    children: dict[str, list[Node]] = {}
    for node in order:  # the conversion's order: the order of each entry's children
        if node.parent is not None:
            children.setdefault(node.parent, []).append(node)
    path: list[Node] = []
    on_path: set[str] = set()
    at: str | None = transcript.leaf
    passed_compaction = False
    while at is not None and at not in on_path:
        if passed_compaction and len(path) >= PATH_NODES:
            break
        if len(path) > MAX_NODES:
            return None
        node = nodes[at]
        path.append(node)
        on_path.add(at)
        passed_compaction = passed_compaction or node.kind is NodeKind.COMPACTION
        at = node.parent
    chosen = set(on_path)
    chosen.update(_branches(path, children, on_path))
    for node in order[:LEADING_NODES]:
        if node.kind is NodeKind.USER:
            chosen.update(n.uuid for n in order[: order.index(node) + 1])
            break
    for uuid in [u for u in chosen if nodes[u].kind is NodeKind.COMPACTION]:
        chosen.update(_to_first_kept(nodes[uuid], children))
    return chosen if len(chosen) <= MAX_NODES else None


def _to_first_kept(compaction: Node, children: dict[str, list[Node]]) -> list[str]:
    """The nodes from ``compaction`` down its first non-sidechain children to the first message:
    the walk ``convert`` makes for its ``firstKeptEntryId``."""
    out: list[str] = []
    current = compaction
    while True:
        kids = [c for c in children.get(current.uuid, ()) if c.kind is not NodeKind.SIDECHAIN]
        if not kids:
            return out
        current = kids[0]
        out.append(current.uuid)
        if current.kind in MESSAGE_KINDS:
            return out


def _branches(path: list[Node], children: dict[str, list[Node]], on_path: set[str]) -> list[str]:
    """The branches leaving the path's first :data:`PATH_NODES` nodes, nearest first, each breadth
    first, within the canvas's bounds (as ``skeleton._branch_lines``)."""
    near = path[:PATH_NODES]
    taken = {n.uuid for n in near}
    out: list[str] = []
    total = len(near)
    for stem in near:
        for first in children.get(stem.uuid, ()):
            if total >= TOTAL_NODES:
                return out
            if first.uuid in taken:
                continue
            budget = min(BRANCH_NODES, TOTAL_NODES - total)
            queue, got = deque([first]), 0
            while queue and got < budget:
                node = queue.popleft()
                if node.uuid in taken:
                    continue
                taken.add(node.uuid)
                got += 1
                if node.uuid not in on_path:
                    out.append(node.uuid)
                queue.extend(c for c in children.get(node.uuid, ()) if c.uuid not in taken)
            total += got
    return out
