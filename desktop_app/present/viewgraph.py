"""The view graph: the session tree as a canvas shows it, as typed frozen dataclasses.

A :class:`ViewGraph` is a forest of :class:`ViewNode` keyed by :data:`Node` (an entry id, or a
:class:`SegmentKey` for a folded run), with parent/children maps in pi's order and the lookups a
view needs (which node shows an entry, the leaf's node, foldable runs, summary links). Everything a
view reads is a named, typed field; nothing is looked up by string key.

Fields are never reassigned (frozen). For speed, :class:`~.graph_model.ViewGraphModel`'s
incremental paths (a turn streaming in, a branch switch) update a graph's containers in place and
hand out a :func:`dataclasses.replace` copy sharing them, so only the newest graph of a model is
meaningful: views keep the model's current graph, not an older one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, TypeAlias

from .text import NodeKind

__all__ = ["Node", "SegmentKey", "ViewGraph", "ViewNode"]


class SegmentKey(NamedTuple):
    """The node of a folded run, named by the run's first entry (stable while the run grows).

    A named tuple, not a dataclass: nodes are dictionary keys everywhere (positions, marks,
    items), and a dataclass's hash is a Python call each time (a third of an update of 10,000
    node marks); a tuple's is C's."""

    first_id: str

    def __str__(self) -> str:
        return f"segment:{self.first_id}"


Node: TypeAlias = str | SegmentKey

_SEGMENT = NodeKind.SEGMENT  # a global is read faster than an enum member (Python 3.11): asked per node


@dataclass(frozen=True, slots=True)
class ViewNode:
    """What one node shows: an entry, or a folded run of entries (``kind`` :attr:`NodeKind.SEGMENT`)."""

    kind: str  #: a :class:`~.text.NodeKind`: the entry's (``user``, ``assistant``, ``compaction``, ...) or ``segment``
    text: str  #: pi's one-line text of the entry (a segment: of its first entry)
    ids: tuple[str, ...]  #: the entries the node stands for, in path order
    label: str | None = None
    on_active_path: bool = False
    is_leaf: bool = False
    #: a segment's entry kinds with their counts, in first-seen order
    kinds: tuple[tuple[str, int], ...] = ()

    @property
    def entry_id(self) -> str:
        """The entry a click on the node means (a segment: its first entry)."""
        return self.ids[0]

    @property
    def count(self) -> int:
        return len(self.ids)

    @property
    def is_segment(self) -> bool:
        return self.kind == _SEGMENT


@dataclass(frozen=True, eq=False)
class ViewGraph:
    """One view of a session tree (see the module docstring)."""

    nodes: dict[Node, ViewNode]  #: in pre-order of the filtered tree
    parent: dict[Node, Node]  #: a node's parent node (roots have none)
    children: dict[Node, list[Node]]  #: children in pi's order (timestamp, oldest first)
    roots: list[Node]
    leaf_id: str | None = None
    leaf_node: Node | None = None  #: the node that stands for the leaf (it or its nearest visible ancestor)
    filter_mode: str = "default"
    folding: bool = True
    expanded: frozenset[str] = frozenset()  #: first ids of runs the user unfolded
    node_of: dict[str, Node] = field(default_factory=dict)  #: visible entry → its node
    anchor: dict[str, str | None] = field(default_factory=dict)  #: entry → itself or nearest visible ancestor
    runs: dict[str, tuple[str, ...]] = field(default_factory=dict)  #: every foldable run, by first id
    run_of: dict[str, str] = field(default_factory=dict)  #: entry → first id of its run
    summary_links: list[tuple[Node, Node]] = field(default_factory=list)  #: branch summary → abandoned leaf
    edit_links: list[tuple[Node, Node]] = field(default_factory=list)  #: context edit → the entry it edits
    broken_edges: list[tuple[str, str]] = field(default_factory=list)  #: parentId cycles cut here

    @classmethod
    def from_edges(cls, edges: Iterable[tuple[Node, Node]], nodes: Iterable[Node] = ()) -> ViewGraph:
        """A plain forest (every node a one-entry ``unknown``) from parent→child edges: for layouts
        of arbitrary trees. A second parent of a node is ignored."""
        graph = cls(nodes={}, parent={}, children={}, roots=[])
        for node in nodes:
            graph._touch(node)
        for a, b in edges:
            graph._touch(a)
            graph._touch(b)
            if b not in graph.parent and a != b:
                graph.parent[b] = a
                graph.children[a].append(b)
        graph.roots.extend(n for n in graph.nodes if n not in graph.parent)
        return graph

    def _touch(self, node: Node) -> None:
        if node not in self.nodes:
            self.nodes[node] = ViewNode("unknown", str(node), (str(node),))
            self.children[node] = []

    def __contains__(self, node: object) -> bool:
        return node in self.nodes

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def __getitem__(self, node: Node) -> ViewNode:
        return self.nodes[node]

    def children_of(self, node: Node) -> Sequence[Node]:
        return self.children.get(node, ())

    def parent_of(self, node: Node) -> Node | None:
        return self.parent.get(node)

    def edges(self) -> list[tuple[Node, Node]]:
        """Every parent→child edge, parents in node order."""
        return [(a, b) for a in self.nodes for b in self.children.get(a, ())]

    def edges_of(self, node: Node) -> list[tuple[Node, Node]]:
        """The in-edge and out-edges of ``node``."""
        up = self.parent.get(node)
        return ([(up, node)] if up is not None else []) + [(node, b) for b in self.children.get(node, ())]

    def node_for_entry(self, entry_id: str | None) -> Node | None:
        """The node that stands for ``entry_id``: itself, its segment, or its nearest visible ancestor."""
        if entry_id is None:
            return None
        anchor = self.anchor.get(entry_id)
        return self.node_of.get(anchor) if anchor is not None else None

    def entry_of(self, node: Node | None) -> str | None:
        """The entry a node means (a segment's first entry); ``None`` for no node or one not here."""
        view = self.nodes.get(node) if node is not None else None
        return view.entry_id if view is not None else None
