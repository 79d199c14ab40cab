"""The view graph: the session tree as the canvas shows it. Pure Python + networkx, no Qt.

``build_view_graph`` turns a :class:`SessionIndex` into a ``networkx.DiGraph`` whose nodes are entry
ids (or :class:`SegmentKey` for a folded linear run) and whose edges point from parent to child.
Three things shape it, in this order:

1. **The tree** (``parentId``), with children in pi's order (timestamp, oldest first). Cycles, which
   pi would loop on, are broken at the repeated node and listed in ``graph.graph["broken_edges"]``.
2. **The filter** (pi's ``/tree`` modes, pi-spec §6.2). Hidden entries are skipped and their
   descendants hang from their nearest visible ancestor, exactly as in pi's list.
3. **Folding**: a maximal chain of visible entries with one child each becomes one segment node
   (count + first line). Branch points, compactions, branch summaries, labelled entries and the
   leaf are never folded, so everything a user navigates by stays on screen.

:class:`ViewGraphModel` keeps one such graph up to date: an append to the leaf (the streaming case)
changes it by one node without a rebuild; anything that can reshape folds or filters rebuilds it,
which is O(n) and cheap next to a layout.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from desktop_app.session.entries import Entry
from desktop_app.session.tree import SessionIndex, TreeNode, sort_by_timestamp

from .text import ToolCalls, entry_kind, entry_text, has_text_content, summary_headline, tool_calls_of

__all__ = [
    "FILTER_MODES",
    "GraphDelta",
    "Node",
    "SegmentKey",
    "ViewGraphModel",
    "build_view_graph",
    "is_visible",
    "node_for_entry",
    "pi_visible",
]

#: pi's ``/tree`` filter modes, in pi's Ctrl+O cycle order.
FILTER_MODES: tuple[str, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")

_SETTINGS_TYPES = frozenset({"label", "custom", "model_change", "thinking_level_change", "session_info"})
_NEVER_FOLD_KINDS = frozenset({"compaction", "branch_summary"})


@dataclass(frozen=True, order=True)
class SegmentKey:
    """The node of a folded run, named by the run's first entry (stable while the run grows)."""

    first_id: str

    def __str__(self) -> str:
        return f"segment:{self.first_id}"


Node = str | SegmentKey


# ----------------------------------------------------------------------------------- visibility


def _hidden_by_assistant_rule(entry: Entry, leaf_id: str | None) -> bool:
    """pi hides an assistant without text unless it stopped abnormally or is the current leaf."""
    if entry.get("type") != "message" or entry.get("id") == leaf_id:
        return False
    message = entry.get("message")
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return False
    stop = message.get("stopReason")
    abnormal = bool(stop) and stop not in ("stop", "toolUse")
    return not has_text_content(message.get("content")) and not abnormal


def pi_visible(entry: Entry, mode: str, leaf_id: str | None, labels: Mapping[str, str]) -> bool:
    """Exactly pi 0.73.1's ``/tree`` rule for ``mode`` (pi-spec §6.2), the assistant rule included."""
    if _hidden_by_assistant_rule(entry, leaf_id):
        return False
    entry_type = entry.get("type")
    if mode == "user-only":
        message = entry.get("message")
        return entry_type == "message" and isinstance(message, dict) and message.get("role") == "user"
    if mode == "labeled-only":
        return entry.get("id") in labels
    if mode == "all":
        return True
    if entry_type in _SETTINGS_TYPES:
        return False
    if mode == "no-tools":
        message = entry.get("message")
        return not (
            entry_type == "message" and isinstance(message, dict) and message.get("role") == "toolResult"
        )
    return True  # "default" (and any unknown mode, as pi's switch falls through to default)


def is_visible(entry: Entry, mode: str, leaf_id: str | None, labels: Mapping[str, str]) -> bool:
    """The graph's rule: pi's, except that ``all`` shows every entry.

    pi's list hides text-less assistants even in ``all`` because they would read "(no content)";
    on a canvas that exists to show the tree as it is, ``all`` means all, and the tool calls such an
    assistant made are its text (see :func:`entry_text`).
    """
    if mode == "all":
        return True
    return pi_visible(entry, mode, leaf_id, labels)


# ----------------------------------------------------------------------------------- skeleton


@dataclass
class _Skeleton:
    """The raw tree over distinct ids: parent, ordered children, roots, broken cycle edges."""

    parent: dict[str, str] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=dict)
    roots: list[str] = field(default_factory=list)
    broken_edges: list[tuple[str, str]] = field(default_factory=list)


def _ordered(ids: list[str], by_id: Mapping[str, Entry]) -> list[str]:
    """pi's child order: timestamp, oldest first, stable; JS NaN semantics via ``sort_by_timestamp``."""
    if len(ids) < 2:
        return ids
    return [str(n.entry.get("id")) for n in sort_by_timestamp([TreeNode(by_id[i]) for i in ids])]


def _skeleton(index: SessionIndex) -> _Skeleton:
    by_id = index.by_id
    sk = _Skeleton()
    raw_children: dict[str, list[str]] = {}
    for entry_id, entry in by_id.items():  # later duplicates win, first position kept (pi's Map)
        parent = entry.get("parentId")
        if isinstance(parent, str) and parent != entry_id and parent in by_id:
            sk.parent[entry_id] = parent
            raw_children.setdefault(parent, []).append(entry_id)
        else:
            sk.roots.append(entry_id)
    _break_cycles(sk, by_id, raw_children)
    for parent, kids in raw_children.items():
        sk.children[parent] = _ordered(kids, by_id)
    sk.roots = _ordered(sk.roots, by_id)
    return sk


def _break_cycles(sk: _Skeleton, by_id: Mapping[str, Entry], raw_children: dict[str, list[str]]) -> None:
    """Make every id reachable from a root: cut each parentId cycle at the repeated node."""
    reached: set[str] = set()
    stack = list(sk.roots)
    while stack:
        node = stack.pop()
        reached.add(node)
        stack.extend(raw_children.get(node, ()))
    if len(reached) == len(by_id):
        return
    for start in by_id:
        if start in reached:
            continue
        walk: dict[str, None] = {}
        node = start
        while node not in walk and node not in reached:
            walk[node] = None
            node = sk.parent[node]  # every unreached node has a parent, or it would be a root
        if node in reached:  # hangs below a cycle broken earlier in this loop
            continue
        parent = sk.parent.pop(node)  # ``node`` repeats: it becomes a root
        raw_children[parent].remove(node)
        sk.roots.append(node)
        sk.broken_edges.append((parent, node))
        stack = [node]
        while stack:
            current = stack.pop()
            reached.add(current)
            stack.extend(raw_children.get(current, ()))


# ----------------------------------------------------------------------------------- build


def _tool_call_map(entries: Iterable[Entry]) -> ToolCalls:
    calls: ToolCalls = {}
    for entry in entries:
        for call_id, name, arguments in tool_calls_of(entry):
            calls[call_id] = (name, arguments)
    return calls


_Info = dict[str, tuple[str, str]]  # entry id → (kind, text): entries never change, so cache them


def _info(entry_id: str, by_id: Mapping[str, Entry], tool_calls: ToolCalls, cache: _Info) -> tuple[str, str]:
    found = cache.get(entry_id)
    if found is None:
        entry = by_id[entry_id]
        kind = entry_kind(entry)
        if kind == "branch_summary":  # pi's line would start with the same preamble every time
            summary = entry.get("summary")
            text = summary_headline(summary) if isinstance(summary, str) else ""
        else:
            text = entry_text(entry, tool_calls)
        found = cache[entry_id] = (kind, text)
    return found


def _entry_attrs(
    entry_id: str, kind: str, text: str, label: str | None, on_path: bool, is_leaf: bool
) -> dict[str, Any]:
    return {
        "kind": kind,
        "text": text,
        "label": label,
        "on_active_path": on_path,
        "is_leaf": is_leaf,
        "ids": (entry_id,),
        "count": 1,
    }


def _abandoned_leaf(entry: Entry) -> str | None:
    """``details.abandonedLeafId`` of an Arbor-made branch summary (pi's own summaries lack it)."""
    details = entry.get("details")
    if entry.get("type") != "branch_summary" or not isinstance(details, dict):
        return None
    target = details.get("abandonedLeafId")
    return target if isinstance(target, str) else None


def build_view_graph(
    index: SessionIndex,
    leaf_id: str | None,
    filter_mode: str = "default",
    folding: bool = True,
    expanded: frozenset[str] = frozenset(),
    *,
    _skel: _Skeleton | None = None,
    _tool_calls: ToolCalls | None = None,
    _cache: _Info | None = None,
) -> nx.DiGraph:
    """The view graph of ``index`` seen from ``leaf_id`` (see the module docstring).

    ``expanded`` holds the first entry ids of runs the user unfolded. Node attributes: ``kind``,
    ``text``, ``label``, ``on_active_path``, ``is_leaf``, ``ids`` (entries the node stands for, in
    path order) and ``count``. ``graph.graph`` carries the lookups views need: ``node_of`` (visible
    entry → node), ``anchor`` (entry → itself if visible, else its nearest visible ancestor),
    ``leaf_node`` (the node that stands for the leaf), ``roots``, ``runs`` (every foldable run,
    folded or expanded, by first id), ``run_of``, ``summary_links`` and ``broken_edges``.
    """
    by_id = index.by_id
    labels = index.labels
    sk = _skel if _skel is not None else _skeleton(index)
    tool_calls = _tool_calls if _tool_calls is not None else _tool_call_map(by_id.values())
    cache: _Info = _cache if _cache is not None else {}
    leaf = leaf_id if leaf_id in by_id else None
    show_all = filter_mode == "all"

    on_path: set[str] = set()
    node_id = leaf
    while node_id is not None:
        on_path.add(node_id)
        node_id = sk.parent.get(node_id)

    # Filter: pre-order walk carrying the nearest visible ancestor; visible children stay in order.
    anchor: dict[str, str | None] = {}
    vparent: dict[str, str | None] = {}
    vchildren: dict[str | None, list[str]] = {None: []}
    order: list[str] = []
    stack: list[tuple[str, str | None]] = [(r, None) for r in reversed(sk.roots)]
    while stack:
        entry_id, carried = stack.pop()
        if show_all or is_visible(by_id[entry_id], filter_mode, leaf, labels):
            anchor[entry_id] = entry_id
            vparent[entry_id] = carried
            vchildren[carried].append(entry_id)
            vchildren[entry_id] = []
            order.append(entry_id)
            carried = entry_id
        else:
            anchor[entry_id] = carried
        kids = sk.children.get(entry_id)
        if kids:
            stack.extend((k, carried) for k in reversed(kids))

    leaf_rep = anchor.get(leaf) if leaf is not None else None

    # Fold: runs of foldable nodes (one visible child at most, none of the never-fold kinds).
    can_fold = {
        n: len(vchildren[n]) <= 1
        and n != leaf_rep
        and n not in labels
        and _info(n, by_id, tool_calls, cache)[0] not in _NEVER_FOLD_KINDS
        for n in order
    }
    runs: dict[str, tuple[str, ...]] = {}
    run_of: dict[str, str] = {}
    for n in order:
        if not can_fold[n]:
            continue
        up = vparent[n]
        if up is not None and can_fold[up]:
            continue  # not the start of its run
        run = [n]
        while vchildren[run[-1]] and can_fold[vchildren[run[-1]][0]]:
            run.append(vchildren[run[-1]][0])
        if len(run) >= 2:
            runs[n] = tuple(run)
            for member in run:
                run_of[member] = n

    node_of: dict[str, Node] = {}
    node_list: list[tuple[Node, dict[str, Any]]] = []
    edge_list: list[tuple[Node, Node]] = []
    for n in order:
        first = run_of.get(n) if folding else None
        if first is not None and first not in expanded:
            key = SegmentKey(first)
            node_of[n] = key
            if n != first:
                continue
            ids = runs[first]
            kinds: dict[str, int] = {}
            for member in ids:
                kind = _info(member, by_id, tool_calls, cache)[0]
                kinds[kind] = kinds.get(kind, 0) + 1
            attrs: dict[str, Any] = {
                "kind": "segment",
                "text": _info(first, by_id, tool_calls, cache)[1],
                "label": None,
                "on_active_path": any(m in on_path for m in ids),
                "is_leaf": False,
                "ids": ids,
                "count": len(ids),
                "kinds": kinds,
            }
            node_list.append((key, attrs))
        else:
            node_of[n] = n
            kind, text = _info(n, by_id, tool_calls, cache)
            node_list.append((n, _entry_attrs(n, kind, text, labels.get(n), n in on_path, n == leaf)))
        up = vparent[n]
        if up is not None:
            edge_list.append((node_of[up], node_of[n]))
    graph = nx.DiGraph()
    graph.add_nodes_from(node_list)
    graph.add_edges_from(edge_list)

    links: list[tuple[Node, Node]] = []
    for n in order:
        target = _abandoned_leaf(by_id[n])
        target_anchor = anchor.get(target) if target is not None else None
        if target_anchor is not None:
            links.append((node_of[n], node_of[target_anchor]))

    graph.graph.update(
        filter_mode=filter_mode,
        folding=folding,
        expanded=frozenset(expanded),
        leaf_id=leaf,
        leaf_node=node_of.get(leaf_rep) if leaf_rep is not None else None,
        roots=[node_of[r] for r in vchildren[None]],
        node_of=node_of,
        anchor=anchor,
        runs=runs,
        run_of=run_of,
        summary_links=links,
        broken_edges=list(sk.broken_edges),
    )
    return graph


def node_for_entry(graph: nx.DiGraph, entry_id: str | None) -> Node | None:
    """The node that stands for ``entry_id``: itself, its segment, or its nearest visible ancestor."""
    if entry_id is None:
        return None
    anchor = graph.graph["anchor"].get(entry_id)
    return graph.graph["node_of"].get(anchor) if anchor is not None else None


# ----------------------------------------------------------------------------------- model


@dataclass
class GraphDelta:
    """What changed in the view graph: views apply this instead of redrawing everything."""

    added: list[Node] = field(default_factory=list)
    removed: list[Node] = field(default_factory=list)
    changed: list[Node] = field(default_factory=list)
    rebuilt: bool = False
    structure_changed: bool = False


class ViewGraphModel:
    """One session's view graph, kept current as entries arrive and the leaf moves.

    Appends to the leaf (a turn streaming in) take the fast path: one node added next to its
    parent, the old leaf's flags updated, nothing else touched. Folds are not recomputed then, so a
    finished run stays unfolded until the next rebuild (filter, fold or branch change) rather than
    collapsing under the user's eyes while they read it.
    """

    def __init__(
        self,
        index: SessionIndex,
        leaf_id: str | None,
        filter_mode: str = "default",
        folding: bool = True,
        expanded: Iterable[str] = (),
    ) -> None:
        if filter_mode not in FILTER_MODES:
            raise ValueError(f"unknown filter mode {filter_mode!r}")
        self.index = index
        self.leaf_id = leaf_id
        self.filter_mode = filter_mode
        self.folding = folding
        self.expanded: set[str] = set(expanded)
        self._skel: _Skeleton | None = None
        self._tool_calls: ToolCalls | None = None
        self._cache: _Info = {}
        self.graph: nx.DiGraph = nx.DiGraph()
        self.rebuild()

    # ------------------------------------------------------------------------------- rebuilds

    def rebuild(self, *, reindex: bool = False) -> GraphDelta:
        """Recompute the whole graph (O(n)); ``reindex`` also forgets the cached tree skeleton."""
        if reindex or self._skel is None or self._tool_calls is None:
            self._skel = _skeleton(self.index)
            self._tool_calls = _tool_call_map(self.index.by_id.values())
            self._cache = {}
        old = self.graph
        self.graph = build_view_graph(
            self.index,
            self.leaf_id,
            self.filter_mode,
            self.folding,
            frozenset(self.expanded),
            _skel=self._skel,
            _tool_calls=self._tool_calls,
            _cache=self._cache,
        )
        same = set(old.nodes) == set(self.graph.nodes) and set(old.edges) == set(self.graph.edges)
        return GraphDelta(
            added=[n for n in self.graph if n not in old],
            removed=[n for n in old if n not in self.graph],
            changed=list(self.graph.nodes),
            rebuilt=True,
            structure_changed=not same,
        )

    def set_index(self, index: SessionIndex, leaf_id: str | None) -> GraphDelta:
        """A reloaded session: new index, everything recomputed."""
        self.index = index
        self.leaf_id = leaf_id
        return self.rebuild(reindex=True)

    def set_leaf(self, leaf_id: str | None) -> GraphDelta:
        """Move the leaf. A branch switch between standing nodes only restyles the two paths.

        It rebuilds when the move changes what is visible (pi's assistant rule exempts the leaf)
        or the new leaf sits inside a folded segment (the leaf is never folded).
        """
        old_leaf = self.leaf_id
        if leaf_id == old_leaf:
            return GraphDelta()
        graph = self.graph
        anchor: dict[str, str | None] = graph.graph["anchor"]
        node_of: dict[str, Node] = graph.graph["node_of"]
        by_id = self.index.by_id
        labels = self.index.labels
        rep = anchor.get(leaf_id) if leaf_id is not None else None
        fast = (
            self._skel is not None
            and (leaf_id is None or leaf_id in anchor)
            and (rep is None or isinstance(node_of.get(rep), str))
            and all(
                is_visible(by_id[e], self.filter_mode, old_leaf, labels)
                == is_visible(by_id[e], self.filter_mode, leaf_id, labels)
                for e in (old_leaf, leaf_id)
                if e is not None and e in by_id
            )
        )
        self.leaf_id = leaf_id
        if not fast:
            return self.rebuild()
        assert self._skel is not None
        old_path = self._path_nodes(old_leaf)
        new_path = self._path_nodes(leaf_id)
        on_path_entries = set(self._path_entries(leaf_id))
        delta = GraphDelta()
        for node in old_path ^ new_path:
            attrs = graph.nodes[node]
            attrs["on_active_path"] = any(i in on_path_entries for i in attrs["ids"])
            delta.changed.append(node)
        for flagged in (
            node_of.get(old_leaf) if old_leaf else None,
            node_of.get(leaf_id) if leaf_id else None,
        ):
            if flagged is not None and flagged in graph:
                graph.nodes[flagged]["is_leaf"] = flagged == leaf_id
                if flagged not in delta.changed:
                    delta.changed.append(flagged)
        old_leaf_node = graph.graph["leaf_node"]
        graph.graph["leaf_id"] = leaf_id
        graph.graph["leaf_node"] = node_of.get(rep) if rep is not None else None
        for node in (old_leaf_node, graph.graph["leaf_node"]):
            if node is not None and node not in delta.changed:
                delta.changed.append(node)
        return delta

    def _path_entries(self, leaf_id: str | None) -> list[str]:
        assert self._skel is not None
        out: list[str] = []
        node = leaf_id
        while node is not None:
            out.append(node)
            node = self._skel.parent.get(node)
        return out

    def _path_nodes(self, leaf_id: str | None) -> set[Node]:
        """View nodes standing for the entries on the path to ``leaf_id``."""
        node_of: dict[str, Node] = self.graph.graph["node_of"]
        return {node_of[e] for e in self._path_entries(leaf_id) if e in node_of}

    def set_filter(self, mode: str) -> GraphDelta:
        if mode not in FILTER_MODES:
            raise ValueError(f"unknown filter mode {mode!r}")
        self.filter_mode = mode
        self.expanded.clear()  # pi: changing the filter resets all folds
        return self.rebuild()

    def set_folding(self, folding: bool) -> GraphDelta:
        self.folding = folding
        return self.rebuild()

    def expand(self, node: Node) -> GraphDelta:
        """Unfold a segment (by key or by its first entry id)."""
        first = node.first_id if isinstance(node, SegmentKey) else node
        self.expanded.add(first)
        return self.rebuild()

    def collapse(self, entry_id: str) -> GraphDelta:
        """Fold back the run ``entry_id`` belongs to; no-op (empty delta) if it is in none."""
        first = self.graph.graph["run_of"].get(entry_id)
        if first is None or first not in self.expanded:
            return GraphDelta()
        self.expanded.discard(first)
        return self.rebuild()

    # ------------------------------------------------------------------------------- appends

    def add_entry(self, entry: Entry, leaf_id: str | None = None) -> GraphDelta:
        """Account for ``entry``, already added to the index; ``leaf_id`` is the leaf afterwards.

        The fast path covers the common case, an append to the current leaf; labels (which
        restyle other nodes), duplicate ids and appends elsewhere rebuild.
        """
        entry_id = entry.get("id")
        new_leaf = entry_id if leaf_id is None else leaf_id
        graph = self.graph
        anchor: dict[str, str | None] = graph.graph["anchor"]
        old_leaf = self.leaf_id
        parent = entry.get("parentId")
        fast = (
            isinstance(entry_id, str)
            and entry_id not in anchor
            and new_leaf == entry_id
            and entry.get("type") != "label"
            and self._skel is not None
            and self._tool_calls is not None
            and parent is not None
            and parent == old_leaf
            and old_leaf in anchor
            and not (old_leaf in graph and graph.out_degree(old_leaf) > 0)
        )
        if not fast:
            self.leaf_id = new_leaf
            self._skel = None  # the tree itself changed: recompute it with the graph
            return self.rebuild()
        assert isinstance(entry_id, str) and isinstance(parent, str)
        assert self._skel is not None and self._tool_calls is not None
        self._skel.parent[entry_id] = parent
        self._skel.children.setdefault(parent, []).append(entry_id)
        for call_id, name, arguments in tool_calls_of(entry):
            self._tool_calls[call_id] = (name, arguments)
        self.leaf_id = entry_id
        delta = GraphDelta()
        node_of: dict[str, Node] = graph.graph["node_of"]
        labels = self.index.labels

        # The old leaf loses the "current leaf" exemption of pi's assistant rule.
        old_entry = self.index.by_id.get(parent)
        if old_entry is not None and parent in graph:
            if is_visible(old_entry, self.filter_mode, entry_id, labels):
                graph.nodes[parent]["is_leaf"] = False
                delta.changed.append(parent)
            else:
                graph.remove_node(parent)
                node_of.pop(parent, None)
                grandparent = self._skel.parent.get(parent)
                anchor[parent] = anchor.get(grandparent) if grandparent is not None else None
                if parent in graph.graph["roots"]:
                    graph.graph["roots"].remove(parent)
                delta.removed.append(parent)
                delta.structure_changed = True
        parent_anchor = anchor.get(parent)

        if is_visible(entry, self.filter_mode, entry_id, labels):
            kind, text = _info(entry_id, self.index.by_id, self._tool_calls, self._cache)
            graph.add_node(entry_id, **_entry_attrs(entry_id, kind, text, labels.get(entry_id), True, True))
            anchor[entry_id] = entry_id
            node_of[entry_id] = entry_id
            if parent_anchor is not None:
                graph.add_edge(node_of[parent_anchor], entry_id)
            else:
                graph.graph["roots"].append(entry_id)
            graph.graph["leaf_node"] = entry_id
            delta.added.append(entry_id)
            delta.structure_changed = True
            target = _abandoned_leaf(entry)
            if target is not None and anchor.get(target) is not None:
                graph.graph["summary_links"].append((entry_id, node_of[anchor[target]]))  # type: ignore[index]
        else:
            anchor[entry_id] = parent_anchor
            graph.graph["leaf_node"] = node_of.get(parent_anchor) if parent_anchor is not None else None
        graph.graph["leaf_id"] = entry_id
        leaf_node = graph.graph["leaf_node"]
        if leaf_node is not None and leaf_node not in delta.changed and leaf_node not in delta.added:
            delta.changed.append(leaf_node)
        return delta

    # ------------------------------------------------------------------------------- queries

    def node_for_entry(self, entry_id: str | None) -> Node | None:
        return node_for_entry(self.graph, entry_id)
