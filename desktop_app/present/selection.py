"""The selected node and what selecting it implies: a compaction's audit unfolds what it needs.

Selecting a compaction shows its audit (the summarized band, the kept band, the cut line). Folded
segments lying across a band edge are unfolded so the bands are exact, and folded back when the
audit goes away: they were opened for the audit, not by the user. If the user selects an entry
inside such a run, it was worth opening: it stays open. :class:`Selection` is that state machine;
a view applies the :class:`SelectionChange` it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from .folding import straddling_segments
from .graph_model import ViewGraphModel
from .text import NodeKind
from .viewgraph import Node

__all__ = ["AuditLike", "Selection", "SelectionChange"]


class AuditLike(Protocol):
    """What the selection needs of a compaction audit: the two bands, as entry ids."""

    @property
    def summarized_ids(self) -> Sequence[str]: ...

    @property
    def kept_ids(self) -> Sequence[str]: ...


A = TypeVar("A", bound=AuditLike)


@dataclass(frozen=True)
class SelectionChange(Generic[A]):
    """The outcome of a selection: what to highlight, the audit to show, whether folds changed."""

    node: Node | None
    entry_id: str | None  #: ``None`` for no selection
    kind: str | None  #: the node's kind (``segment`` for a folded run)
    audit: A | None  #: the compaction audit to show (``None``: clear any)
    audit_changed: bool  #: the audit shown changes (set, replaced or cleared)
    nodes_changed: bool  #: folds changed the set of nodes: the canvas lays out again
    graph_changed: bool  #: the model's graph was rebuilt: the canvas re-reads it


class Selection(Generic[A]):
    """The selected node of a :class:`ViewGraphModel`, and the folds its audit opened."""

    def __init__(self, audit_of: Callable[[str], A]) -> None:
        self._audit_of = audit_of
        self.node: Node | None = None
        self.audit: A | None = None
        self.auto_expanded: set[str] = set()  #: runs unfolded only for the current audit

    def reset(self) -> None:
        """Forget everything (another session)."""
        self.node = None
        self.audit = None
        self.auto_expanded = set()

    def entry(self, model: ViewGraphModel) -> str | None:
        """The selected entry (a segment's first entry for a folded run)."""
        return model.graph.entry_of(self.node)

    def follow(self, model: ViewGraphModel, entry_id: str | None) -> None:
        """After a rebuild: keep the selection on ``entry_id``'s node (its segment or anchor)."""
        self.node = model.node_for_entry(entry_id) if entry_id else None

    def drop_if_gone(self, model: ViewGraphModel) -> None:
        if self.node is not None and self.node not in model.graph:
            self.node = None

    def select(self, model: ViewGraphModel, node: Node | None) -> SelectionChange[A]:
        """Select ``node`` (``None`` clears); unfold or fold back for a compaction's audit."""
        graph = model.graph
        self.node = node if node is not None and node in graph else None
        view = graph.nodes[self.node] if self.node is not None else None
        kind = view.kind if view is not None else None
        entry_id = view.entry_id if view is not None else None
        compaction = entry_id if kind == NodeKind.COMPACTION else None
        if compaction is None and self.audit is None:
            return SelectionChange(self.node, entry_id, kind, None, False, False, False)

        before_nodes = graph.nodes.keys() | set()
        audit = self._audit_of(compaction) if compaction is not None else None
        if entry_id is not None and graph.run_of.get(entry_id) in self.auto_expanded:
            self.auto_expanded = set()  # the user went into an unfolded run: it stays open
        expanded = set(model.expanded) - self.auto_expanded
        self.auto_expanded = set()
        if audit is not None:
            # Straddling is judged on the graph without this audit's folds opened.
            if expanded != model.expanded:
                model.set_expanded(expanded)
            self.auto_expanded = straddling_segments(model.graph, audit.summarized_ids, audit.kept_ids) - expanded
            expanded |= self.auto_expanded
        model.set_expanded(expanded)
        graph_changed = model.graph is not graph
        nodes_changed = model.graph.nodes.keys() != before_nodes
        if self.node is not None and self.node not in model.graph:
            self.node = model.node_for_entry(entry_id)
        audit_changed = audit is not self.audit
        self.audit = audit
        return SelectionChange(self.node, entry_id, kind, audit, audit_changed, nodes_changed, graph_changed)
