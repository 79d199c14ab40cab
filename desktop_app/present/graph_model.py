"""Building the view graph (:mod:`.viewgraph`) of a session and keeping it current. No Qt.

``build_view_graph`` turns a :class:`SessionIndex` into a :class:`ViewGraph` whose nodes are entry
ids (or :class:`SegmentKey` for a folded linear run) and whose edges point from parent to child.
Three things shape it, in this order:

1. **The tree** (``parentId``), with children in pi's order (timestamp, oldest first). Cycles, which
   pi would loop on, are broken at the repeated node and listed in ``ViewGraph.broken_edges``.
2. **The filter** (pi's ``/tree`` modes, pi-spec §6.2, :mod:`.filters`). Hidden entries are skipped and their
   descendants hang from their nearest visible ancestor, exactly as in pi's list.
3. **Folding** (:mod:`.folding`): a maximal chain of visible entries with one child each becomes one segment node
   (count + first line). Branch points, compactions, branch summaries, labelled entries and the
   leaf are never folded, so everything a user navigates by stays on screen; nor are pi 1.6.0's
   system messages, context edits and the entries they edit (``ViewGraph.edit_links`` joins each
   edit to its target).

:class:`ViewGraphModel` keeps one such graph up to date: an append to the leaf (the streaming case)
changes it by one node without a rebuild; anything that can reshape folds or filters rebuilds it,
which is O(n) and cheap next to a layout.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, assert_never

from desktop_app.session import (
    EntryAppended,
    ExternalAppend,
    LeafMoved,
    Reloaded,
    SessionEvent,
    SessionFailed,
)
from desktop_app.session.entries import Entry
from desktop_app.session.kinds import EntryKind, Role, entry_role, kind_of
from desktop_app.session.tree import SessionIndex, TreeNode, sort_by_timestamp
from desktop_app.tools.display import shown_text

from .filters import check_mode, is_visible
from .folding import NEVER_FOLD_KINDS, foldable_runs_steps
from .pacing import CHECK, UNPACED, Pace, Steps, finish
from .pi16_words import edit_text, system_summary
from .text import NodeKind, ToolCalls, entry_kind, entry_text, summary_headline, tool_calls_of
from .viewgraph import Node, SegmentKey, ViewGraph, ViewNode

__all__ = ["GraphDelta", "ViewGraphModel", "build_view_graph", "build_view_graph_steps"]

#: Kinds that stay on screen although folding could hide them: what the model was told (system
#: messages) and what was cut out of or rewritten in its context (context edits and their targets).
_KEEP_KINDS = NEVER_FOLD_KINDS | {NodeKind.SYSTEM, NodeKind.CONTEXT_EDIT}

# Compared once per entry of the file: a global is read faster than an enum member (Python 3.11).
_SYSTEM, _CONTEXT_EDIT, _BRANCH_SUMMARY = Role.SYSTEM, EntryKind.CONTEXT_EDIT, EntryKind.BRANCH_SUMMARY

# ----------------------------------------------------------------------------------- skeleton


@dataclass
class _Skeleton:
    """The raw tree over distinct ids: parent, ordered children, roots, broken cycle edges."""

    #: the index's entries by id, read for parents (:meth:`parent_of`): a map of its own from every
    #: id to its parent was ~4 MB at 100,000 entries
    by_id: Mapping[Any, Entry] = field(default_factory=dict)
    #: ids whose ``parentId`` closed a cycle: roots here (see :func:`_break_cycles`)
    cut: set[str] = field(default_factory=set)
    #: every entry's ``parentId`` is a string or absent (:meth:`path` may take the index's path)
    plain: bool = True
    #: parent id → its children in pi's order: the child's id itself when it is the only one (most
    #: are; a list each was ~8 MB at 100,000 entries), else a list. Read with :meth:`kids`.
    children: dict[str, str | list[str]] = field(default_factory=dict)
    roots: list[str] = field(default_factory=list)
    broken_edges: list[tuple[str, str]] = field(default_factory=list)
    #: Ids of pi 1.6.0 ``system`` messages: most sessions have none or a few, so whether one lies
    #: above a new one is answered without walking a 70,000-entry path to the root.
    systems: set[str] = field(default_factory=set)

    def parent_of(self, entry_id: str) -> str | None:
        """The id of ``entry_id``'s parent in the tree: its ``parentId`` when that names another
        entry with a string id (else, and for a cut cycle, it is a root)."""
        if entry_id in self.cut:
            return None
        entry = self.by_id.get(entry_id)
        parent = entry.get("parentId") if entry is not None else None
        if isinstance(parent, str) and parent and parent != entry_id and parent in self.by_id:
            return parent
        return None

    def path(self, index: SessionIndex, leaf_id: str | None, *, remember: bool = True) -> list[str]:
        """The ids of ``leaf_id`` and its ancestors along :meth:`parent_of`, in no promised order.

        When no cycle was cut and every ``parentId`` is a string or absent (:attr:`plain`), that is
        the index's own path: its kept paths make it a copy (the chat and the meter asked for the
        same path), where a walk of 72,000 parents here took ~20 ms at 100,000 entries.
        ``remember``: as :meth:`SessionIndex.get_branch` (``False`` on a worker thread).
        """
        if leaf_id is None:
            return []
        if self.plain and not self.cut:
            branch = index.get_branch(leaf_id, remember=remember)
            if branch and branch[-1].get("id") == leaf_id:
                return [entry["id"] for entry in branch]
        out: list[str] = []
        node: str | None = leaf_id
        while node is not None:
            out.append(node)
            node = self.parent_of(node)
        return out

    def kids(self, entry_id: str) -> Sequence[str]:
        got = self.children.get(entry_id)
        if got is None:
            return ()
        return (got,) if isinstance(got, str) else got

    def add_child(self, parent: str, child: str) -> None:
        """``child`` after the children ``parent`` has."""
        got = self.children.get(parent)
        if got is None:
            self.children[parent] = child
        elif isinstance(got, str):
            self.children[parent] = [got, child]
        else:
            got.append(child)

    def remove_child(self, parent: str, child: str) -> None:
        got = self.children.get(parent)
        if got == child:
            del self.children[parent]
        elif isinstance(got, list):
            got.remove(child)
            if len(got) == 1:
                self.children[parent] = got[0]


def _ordered(ids: list[str], by_id: Mapping[str, Entry]) -> list[str]:
    """pi's child order: timestamp, oldest first, stable; JS NaN semantics via ``sort_by_timestamp``."""
    if len(ids) < 2:
        return ids
    nodes = [TreeNode(by_id[i]) for i in ids]
    key_of_node = {id(node): key for node, key in zip(nodes, ids, strict=True)}
    return [key_of_node[id(node)] for node in sort_by_timestamp(nodes)]


def _skeleton(index: SessionIndex) -> _Skeleton:
    return finish(_skeleton_steps(index, UNPACED))


def _skeleton_steps(index: SessionIndex, pace: Pace) -> Steps[_Skeleton]:
    # The graph names nodes by their string ids. Entries pi keys by something else (no id, an empty or
    # a non-string id: hand-edited files) stay in the file and the context but get no node of their own.
    by_id = index.by_id
    sk = _Skeleton(by_id=by_id)
    named = 0
    for i, (entry_id, entry) in enumerate(by_id.items()):  # later duplicates win, first position kept (pi's Map)
        if not i & CHECK and pace.due():
            yield
        if not (isinstance(entry_id, str) and entry_id):
            continue
        named += 1
        raw = entry.get("parentId")
        if raw is not None and raw.__class__ is not str:
            sk.plain = False
        parent = sk.parent_of(entry_id)
        if parent is not None:
            sk.add_child(parent, entry_id)  # in file order here, pi's order below
        else:
            sk.roots.append(entry_id)
        if _is_system_entry(entry):
            sk.systems.add(entry_id)
    yield from _break_cycles(sk, named, pace)
    for i, kids in enumerate(sk.children.values()):
        if not i & CHECK and pace.due():
            yield
        if isinstance(kids, list):
            kids[:] = _ordered(kids, by_id)
    sk.roots = _ordered(sk.roots, by_id)
    return sk


def _break_cycles(sk: _Skeleton, named: int, pace: Pace) -> Steps[None]:
    """Make every id reachable from a root: cut each parentId cycle at the repeated node
    (``named``: how many entries have a string id, all of which must be reached)."""
    reached: set[str] = set()
    stack = list(sk.roots)
    i = 0
    while stack:
        i += 1
        if not i & CHECK and pace.due():
            yield
        node = stack.pop()
        reached.add(node)
        stack.extend(sk.kids(node))
    if len(reached) == named:
        return
    for start in sk.by_id:
        if start in reached or not (isinstance(start, str) and start):
            continue
        walk: dict[str, None] = {}
        node = start
        while node not in walk and node not in reached:
            walk[node] = None
            up = sk.parent_of(node)
            assert up is not None  # every unreached node has a parent, or it would be a root
            node = up
        if node in reached:  # hangs below a cycle broken earlier in this loop
            continue
        parent = sk.parent_of(node)  # ``node`` repeats: it becomes a root
        assert parent is not None
        sk.cut.add(node)
        sk.remove_child(parent, node)
        sk.roots.append(node)
        sk.broken_edges.append((parent, node))
        stack = [node]
        while stack:
            current = stack.pop()
            reached.add(current)
            stack.extend(sk.kids(current))


def _path_steps(sk: _Skeleton, index: SessionIndex, leaf: str | None, pace: Pace) -> Steps[set[str]]:
    """``set(sk.path(index, leaf))``, walked a slice at a time (~70,000 parents at 100,000
    entries: ~0.1-0.3 s at once on a loaded machine). The walk along :meth:`_Skeleton.parent_of`
    is :meth:`_Skeleton.path`'s own, and the index's path it reads when the session has only plain
    parents and no cut cycle is this one too, but where an entry names itself as its parent (the
    index then walks its careful way): that rare path is taken from :meth:`_Skeleton.path`.
    Unpaced, it is :meth:`_Skeleton.path` itself (the index's kept paths make that a copy)."""
    if pace.budget is None:
        return set(sk.path(index, leaf, remember=False))
    out: set[str] = set()
    by_id, parent_of = sk.by_id, sk.parent_of
    node = leaf
    while node is not None:
        if not len(out) & CHECK and pace.due():
            yield
        entry = by_id.get(node)
        if entry is not None and entry.get("parentId") == node:
            return set(sk.path(index, leaf, remember=False))
        if node in out:  # a cycle left uncut (cannot be: :func:`_break_cycles`): stop, never spin
            break
        out.add(node)
        node = parent_of(node)
    return out


def _until(walk: Iterable[str], stop: str | None) -> list[str]:
    """``walk``'s entries before ``stop``."""
    out: list[str] = []
    for entry_id in walk:
        if entry_id == stop:
            break
        out.append(entry_id)
    return out


# ----------------------------------------------------------------------------------- build


def _tool_call_map(entries: Iterable[Entry]) -> ToolCalls:
    return finish(_tool_call_map_steps(entries, UNPACED))


def _tool_call_map_steps(entries: Iterable[Entry], pace: Pace) -> Steps[ToolCalls]:
    calls: ToolCalls = {}
    for i, entry in enumerate(entries):
        if not i & CHECK and pace.due():
            yield
        for call in tool_calls_of(entry):
            calls[call["id"]] = call
    return calls


_Info = dict[str, tuple[NodeKind, str]]  # entry id → (kind, text): entries never change, so cache them


def _info(
    entry_id: str, by_id: Mapping[str, Entry], tool_calls: ToolCalls, cache: _Info, sk: _Skeleton
) -> tuple[NodeKind, str]:
    found = cache.get(entry_id)
    if found is None:
        entry = by_id[entry_id]
        kind = entry_kind(entry)
        if kind is NodeKind.BRANCH_SUMMARY:  # pi's line would start with the same preamble every time
            summary = entry.get("summary")
            text = summary_headline(summary) if isinstance(summary, str) else ""
        elif kind is NodeKind.SYSTEM:  # the prompt itself, or a change to it: only the path above can tell
            text = system_summary(entry["message"], whole=not _system_above(entry_id, sk))
        elif kind is NodeKind.CONTEXT_EDIT:
            target_id = entry.get("targetId")
            target = by_id.get(target_id) if isinstance(target_id, str) else None
            text = edit_text(entry, entry_text(target, tool_calls) if target is not None else None)
        else:
            text = entry_text(entry, tool_calls)
        found = cache[entry_id] = (kind, text)
    return found


def _is_system_entry(entry: Entry) -> bool:
    """A pi 1.6.0 ``system`` message."""
    return entry_role(entry) is _SYSTEM


def _system_above(entry_id: str, sk: _Skeleton) -> bool:
    """Whether a ``system`` message lies above ``entry_id`` (then it changes the prompt, else it is one)."""
    systems = sk.systems
    if not any(other != entry_id for other in systems):
        return False  # none elsewhere: no walk (the first prompt Arbor records in a pi 0.73.1 session)
    seen = {entry_id}
    node = sk.parent_of(entry_id)
    while node is not None and node not in seen:
        seen.add(node)
        if node in systems:
            return True
        node = sk.parent_of(node)
    return False


def _edit_targets(entries: Iterable[Entry], pace: Pace = UNPACED) -> Steps[dict[str, str]]:
    """Context edit id → the id of the entry it edits (pi 1.6.0's ``targetId``)."""
    out: dict[str, str] = {}
    for i, entry in enumerate(entries):
        if not i & CHECK and pace.due():
            yield
        if kind_of(entry) is _CONTEXT_EDIT:
            entry_id, target = entry.get("id"), entry.get("targetId")
            if isinstance(entry_id, str) and isinstance(target, str):
                out[entry_id] = target
    return out


def _kind(entry_id: str, by_id: Mapping[str, Entry], cache: _Info) -> NodeKind:
    """The entry's kind without computing its text: folding needs the kinds of all entries, the
    texts only of the entries that get a node of their own (a run's first)."""
    found = cache.get(entry_id)
    return found[0] if found is not None else entry_kind(by_id[entry_id])


def _entry_node(
    entry_id: str, kind: str, text: str, label: object, on_path: bool, is_leaf: bool
) -> ViewNode:
    # A label is kept as the file has it (pi does); one of another type (a list, say) is shown as
    # the chat shows it: Qt's text calls crash the process on a list (a segfault in the paint).
    if label is not None and not isinstance(label, str):
        label = shown_text(label)
    return ViewNode(kind, text, (entry_id,), label, on_path, is_leaf)


def _abandoned_leaf(entry: Entry) -> str | None:
    """``details.abandonedLeafId`` of an Arbor-made branch summary (pi's own summaries lack it)."""
    details = entry.get("details")
    if not isinstance(details, dict) or kind_of(entry) is not _BRANCH_SUMMARY:  # most have none
        return None
    target = details.get("abandonedLeafId")
    return target if isinstance(target, str) else None


@dataclass
class _Visible:
    """The filtered tree: each entry's anchor (itself, or its nearest visible ancestor), the visible
    entries' parents and children (``None`` holds the roots) and their pre-order."""

    anchor: dict[str, str | None] = field(default_factory=dict)
    parent: dict[str, str | None] = field(default_factory=dict)
    children: dict[str | None, list[str]] = field(default_factory=lambda: {None: []})
    order: list[str] = field(default_factory=list)


def _visible(
    sk: _Skeleton, index: SessionIndex, filter_mode: str, leaf: str | None, always: Collection[str], pace: Pace
) -> Steps[_Visible]:
    """Filter: a pre-order walk carrying the nearest visible ancestor, so that hidden entries'
    descendants hang from it (pi's list); visible children stay in order. Entries in ``always``
    are shown whatever the filter."""
    by_id, labels, show_all = index.by_id, index.labels, filter_mode == "all"
    out = _Visible()
    anchor, vparent, vchildren, order = out.anchor, out.parent, out.children, out.order
    stack: list[tuple[str, str | None]] = [(r, None) for r in reversed(sk.roots)]
    i = 0
    while stack:
        i += 1
        if not i & CHECK and pace.due():
            yield
        entry_id, carried = stack.pop()
        if show_all or entry_id in always or is_visible(by_id[entry_id], filter_mode, leaf, labels):
            anchor[entry_id] = entry_id
            vparent[entry_id] = carried
            vchildren[carried].append(entry_id)
            vchildren[entry_id] = []
            order.append(entry_id)
            carried = entry_id
        else:
            anchor[entry_id] = carried
        kids = sk.kids(entry_id)
        if kids:
            stack.extend((k, carried) for k in reversed(kids))
    return out


@dataclass
class _Folded:
    """The nodes of a filtered tree once runs are folded: every visible entry's node, the nodes
    with their parents and children, and the runs."""

    node_of: dict[str, Node]
    nodes: dict[Node, ViewNode]
    parent: dict[Node, Node]
    children: dict[Node, list[Node]]
    runs: dict[str, tuple[str, ...]]
    run_of: dict[str, str]


def _fold(
    visible: _Visible,
    can_fold: Mapping[str, bool],
    folding: bool,
    expanded: Collection[str],
    entry_node: Callable[[str], ViewNode],
    segment_node: Callable[[tuple[str, ...]], ViewNode],
    pace: Pace,
) -> Steps[_Folded]:
    """Fold (when ``folding``): each run of foldable nodes whose first id is not ``expanded`` becomes
    one segment node (``segment_node`` of its ids); every other visible entry gets its own (``entry_node``)."""
    runs, run_of = yield from foldable_runs_steps(visible.order, visible.parent, visible.children, can_fold, pace)
    out = _Folded({}, {}, {}, {}, runs, run_of)
    node_of, nodes, parent, children = out.node_of, out.nodes, out.parent, out.children
    for i, n in enumerate(visible.order):
        if not i & CHECK and pace.due():
            yield
        first = run_of.get(n) if folding else None
        if first is not None and first not in expanded:
            # one key per run, shared by its members (a key each was 78,000 tuples at 100k)
            key: Node = node_of[first] if n != first and first in node_of else SegmentKey(first)
            node_of[n] = key
            if n != first:
                continue
            nodes[key] = segment_node(runs[first])
        else:
            key = node_of[n] = n
            nodes[n] = entry_node(n)
        children[key] = []
        up = visible.parent[n]
        if up is not None:
            parent[key] = node_of[up]
            children[node_of[up]].append(key)
    return out


def _summary_links(
    by_id: Mapping[str, Entry], visible: _Visible, node_of: Mapping[str, Node], pace: Pace
) -> Steps[list[tuple[Node, Node]]]:
    """Arbor's branch summaries → the node showing the leaf they abandoned."""
    links: list[tuple[Node, Node]] = []
    for i, n in enumerate(visible.order):
        if not i & CHECK and pace.due():
            yield
        target = _abandoned_leaf(by_id[n])
        target_anchor = visible.anchor.get(target) if target is not None else None
        if target_anchor is not None:
            links.append((node_of[n], node_of[target_anchor]))
    return links


def _edit_links(
    edit_targets: Mapping[str, str], anchor: Mapping[str, str | None], node_of: Mapping[str, Node]
) -> list[tuple[Node, Node]]:
    """Visible context edits → the node showing the entry they edit (when that is another node)."""
    links: list[tuple[Node, Node]] = []
    for edit_id, target in edit_targets.items():
        edit_anchor, target_anchor = anchor.get(edit_id), anchor.get(target)
        if edit_anchor == edit_id and target_anchor is not None and node_of[target_anchor] != node_of[edit_id]:
            links.append((node_of[edit_id], node_of[target_anchor]))
    return links


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
) -> ViewGraph:
    """The view graph of ``index`` seen from ``leaf_id`` (see the module docstring): the tree,
    filtered (:func:`_visible`), folded (:func:`_fold`) and linked (summaries and edits).

    ``expanded`` holds the first entry ids of runs the user unfolded; see :class:`ViewGraph` for
    what the result holds.
    """
    return finish(
        build_view_graph_steps(
            index, leaf_id, filter_mode, folding, expanded, UNPACED, _skel=_skel, _tool_calls=_tool_calls, _cache=_cache
        )
    )


def build_view_graph_steps(
    index: SessionIndex,
    leaf_id: str | None,
    filter_mode: str,
    folding: bool,
    expanded: frozenset[str],
    pace: Pace,
    *,
    _skel: _Skeleton | None = None,
    _tool_calls: ToolCalls | None = None,
    _cache: _Info | None = None,
) -> Steps[ViewGraph]:
    """:func:`build_view_graph` a slice at a time (:mod:`.pacing`): the same code, so the same graph."""
    by_id = index.by_id
    labels = index.labels
    sk = _skel if _skel is not None else (yield from _skeleton_steps(index, pace))
    tool_calls = _tool_calls if _tool_calls is not None else (yield from _tool_call_map_steps(by_id.values(), pace))
    cache: _Info = _cache if _cache is not None else {}
    leaf = leaf_id if leaf_id in by_id else None

    on_path = yield from _path_steps(sk, index, leaf, pace)

    # An entry a context edit omits or replaces stays visible whatever the filter (pi's assistant
    # rule would hide a reply that only called tools), so the edit's link lands on it.
    edit_targets = yield from _edit_targets(by_id.values(), pace)
    edited = set(edit_targets.values())

    visible = yield from _visible(sk, index, filter_mode, leaf, edited, pace)
    leaf_rep = visible.anchor.get(leaf) if leaf is not None else None

    # Foldable: one visible child at most, none of the never-fold kinds or entries.
    can_fold: dict[str, bool] = {}
    vchildren = visible.children
    for i, n in enumerate(visible.order):
        if not i & CHECK and pace.due():
            yield
        can_fold[n] = (
            len(vchildren[n]) <= 1
            and n != leaf_rep
            and n not in labels
            and n not in edited
            and _kind(n, by_id, cache) not in _KEEP_KINDS
        )

    def entry_node(n: str) -> ViewNode:
        kind, text = _info(n, by_id, tool_calls, cache, sk)
        return _entry_node(n, kind, text, labels.get(n), n in on_path, n == leaf)

    def segment_node(ids: tuple[str, ...]) -> ViewNode:
        kinds: dict[str, int] = {}
        for member in ids:
            kind = _kind(member, by_id, cache)
            kinds[kind] = kinds.get(kind, 0) + 1
        return ViewNode(
            NodeKind.SEGMENT,
            _info(ids[0], by_id, tool_calls, cache, sk)[1],
            ids,
            on_active_path=any(m in on_path for m in ids),
            kinds=tuple(kinds.items()),
        )

    folded = yield from _fold(visible, can_fold, folding, expanded, entry_node, segment_node, pace)
    node_of = folded.node_of
    summary_links = yield from _summary_links(by_id, visible, node_of, pace)
    return ViewGraph(
        nodes=folded.nodes,
        parent=folded.parent,
        children=folded.children,
        roots=[node_of[r] for r in visible.children[None]],
        leaf_id=leaf,
        leaf_node=node_of.get(leaf_rep) if leaf_rep is not None else None,
        filter_mode=filter_mode,
        folding=folding,
        expanded=frozenset(expanded),
        node_of=node_of,
        anchor=visible.anchor,
        runs=folded.runs,
        run_of=folded.run_of,
        summary_links=summary_links,
        edit_links=_edit_links(edit_targets, visible.anchor, node_of),
        broken_edges=list(sk.broken_edges),
    )


# ----------------------------------------------------------------------------------- model


@dataclass
class GraphDelta:
    """What changed in the view graph: views apply this instead of redrawing everything."""

    added: list[Node] = field(default_factory=list)
    removed: list[Node] = field(default_factory=list)
    changed: list[Node] = field(default_factory=list)
    rebuilt: bool = False
    structure_changed: bool = False
    #: entries' searchable texts may have changed (a label was added, the file reloaded)
    texts_changed: bool = False


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
        self._start(index, leaf_id, filter_mode, folding, expanded)
        self.rebuild()

    @classmethod
    def in_steps(
        cls,
        index: SessionIndex,
        leaf_id: str | None,
        filter_mode: str,
        folding: bool,
        expanded: Iterable[str],
        pace: Pace,
    ) -> Steps[ViewGraphModel]:
        """The model ``ViewGraphModel(...)`` makes, built a slice at a time (:mod:`.pacing`): a big
        session's whole graph on the UI thread between its events (issue 28)."""
        model = cls.__new__(cls)
        model._start(index, leaf_id, filter_mode, folding, expanded)
        yield from model._rebuild_steps(False, pace)
        return model

    def _start(
        self, index: SessionIndex, leaf_id: str | None, filter_mode: str, folding: bool, expanded: Iterable[str]
    ) -> None:
        self.index = index
        self.leaf_id = leaf_id
        self.filter_mode = check_mode(filter_mode)
        self.folding = folding
        self.expanded: set[str] = set(expanded)
        self._skel: _Skeleton | None = None
        self._tool_calls: ToolCalls | None = None
        self._cache: _Info = {}
        self._edited: set[str] = set()  #: entries a context edit targets (always shown)
        self.graph: ViewGraph = ViewGraph(nodes={}, parent={}, children={}, roots=[])

    # ------------------------------------------------------------------------------- rebuilds

    def rebuild(self, *, reindex: bool = False) -> GraphDelta:
        """Recompute the whole graph (O(n)); ``reindex`` also forgets the cached tree skeleton."""
        old = self.graph
        finish(self._rebuild_steps(reindex, UNPACED))
        same = old.nodes.keys() == self.graph.nodes.keys() and old.parent == self.graph.parent
        return GraphDelta(
            added=[n for n in self.graph if n not in old],
            removed=[n for n in old if n not in self.graph],
            changed=list(self.graph),
            rebuilt=True,
            structure_changed=not same,
        )

    def _rebuild_steps(self, reindex: bool, pace: Pace) -> Steps[None]:
        """The graph made again, a slice at a time (:mod:`.pacing`)."""
        if reindex or self._skel is None or self._tool_calls is None:
            self._skel = yield from _skeleton_steps(self.index, pace)
            self._tool_calls = yield from _tool_call_map_steps(self.index.by_id.values(), pace)
            self._cache = {}
        self._edited = set((yield from _edit_targets(self.index.by_id.values(), pace)).values())
        self.graph = yield from build_view_graph_steps(
            self.index,
            self.leaf_id,
            self.filter_mode,
            self.folding,
            frozenset(self.expanded),
            pace,
            _skel=self._skel,
            _tool_calls=self._tool_calls,
            _cache=self._cache,
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
        anchor, node_of = graph.anchor, graph.node_of
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
        old_only, new_only, meet = self._paths_apart(old_leaf, leaf_id)
        # The nodes on one of the two paths only: those of the entries below where they meet,
        # but for the node holding that entry (a run through it is on both paths).
        apart = {node_of[e] for e in (*old_only, *new_only) if e in node_of}
        if meet is not None:
            apart.discard(node_of.get(meet))
        on_new = set(new_only)
        delta = GraphDelta()
        nodes = graph.nodes
        for path_node in apart:
            view = nodes[path_node]
            nodes[path_node] = replace(view, on_active_path=any(i in on_new for i in view.ids))
            delta.changed.append(path_node)
        for flagged in (
            node_of.get(old_leaf) if old_leaf else None,
            node_of.get(leaf_id) if leaf_id else None,
        ):
            if flagged is not None and flagged in nodes:
                nodes[flagged] = replace(nodes[flagged], is_leaf=flagged == leaf_id)
                if flagged not in delta.changed:
                    delta.changed.append(flagged)
        old_leaf_node = graph.leaf_node
        new_leaf_node = node_of.get(rep) if rep is not None else None
        self.graph = replace(graph, leaf_id=leaf_id, leaf_node=new_leaf_node)
        for leaf_node in (old_leaf_node, new_leaf_node):
            if leaf_node is not None and leaf_node not in delta.changed:
                delta.changed.append(leaf_node)
        return delta

    def _paths_apart(self, old: str | None, new: str | None) -> tuple[list[str], list[str], str | None]:
        """The entries only on ``old``'s path, those only on ``new``'s (each leaf first), and the
        entry where the two paths meet (``None``: different roots). Both walk up a step at a
        time until one reaches the other's walk, so a switch to a nearby branch reads a few
        entries, not two 72,000-entry paths (~70 ms at 100,000 entries)."""
        assert self._skel is not None
        parent_of = self._skel.parent_of
        walks: tuple[dict[str, None], dict[str, None]] = ({}, {})  # old's, new's: each leaf first
        heads = [old, new]
        meet: str | None = None
        while meet is None and heads != [None, None]:
            for side in (0, 1):
                node = heads[side]
                if node is None:
                    continue
                if node in walks[1 - side]:
                    meet = node
                    break
                walks[side][node] = None
                up = parent_of(node)
                heads[side] = None if up in walks[side] else up  # a cycle left uncut (cannot be): stop
        return _until(walks[0], meet), _until(walks[1], meet), meet

    def set_filter(self, mode: str) -> GraphDelta:
        self.filter_mode = check_mode(mode)
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
        first = self.graph.run_of.get(entry_id)
        if first is None or first not in self.expanded:
            return GraphDelta()
        self.expanded.discard(first)
        return self.rebuild()

    def set_expanded(self, expanded: Iterable[str]) -> GraphDelta:
        """Exactly these runs unfolded (by first id); rebuilds only when that changes anything."""
        wanted = set(expanded)
        if wanted == self.expanded:
            return GraphDelta()
        self.expanded = wanted
        return self.rebuild()

    # ------------------------------------------------------------------------------- events

    def apply(self, event: SessionEvent, index: SessionIndex) -> GraphDelta:
        """Follow one session event; ``index`` is the session's index now (a reload replaces it)."""
        match event:
            case EntryAppended(entry=entry, leaf_id=leaf_id):
                return self.add_entries([entry], leaf_id)
            case ExternalAppend(entries=entries, leaf_id=leaf_id):
                return self.add_entries(entries, leaf_id)
            case LeafMoved(leaf_id=leaf_id):
                return self.set_leaf(leaf_id)
            case Reloaded(leaf_id=leaf_id):
                return replace(self.set_index(index, leaf_id), texts_changed=True)
            case SessionFailed():
                return GraphDelta()  # the tree did not change
            case _:
                assert_never(event)

    def add_entries(self, appended: Iterable[Entry], leaf_id: str | None) -> GraphDelta:
        """Entries appended (by this process or another writer) with ``leaf_id`` the leaf afterwards.

        Appends that end at the leaf go through :meth:`add_entry` (the fast path, one delta for
        all); entries appended elsewhere (another writer while we look at an older leaf) rebuild.
        """
        entries = [e for e in appended if isinstance(e, dict)]
        if not entries:
            return GraphDelta()
        labels = any(kind_of(e) is EntryKind.LABEL for e in entries)  # part of the target's search text
        if leaf_id != entries[-1].get("id"):
            self.leaf_id = leaf_id
            return replace(self.rebuild(reindex=True), texts_changed=labels)
        deltas = [self.add_entry(e) for e in entries]
        if any(d.rebuilt for d in deltas):
            return GraphDelta(changed=list(self.graph), rebuilt=True, structure_changed=True, texts_changed=labels)
        merged = GraphDelta(texts_changed=labels)
        for delta in deltas:
            merged.removed += [n for n in delta.removed if n not in merged.added]
            merged.added = [n for n in merged.added if n not in delta.removed] + delta.added
            merged.changed += [n for n in delta.changed if n not in merged.changed]
            merged.structure_changed |= delta.structure_changed
        return merged

    # ------------------------------------------------------------------------------- appends

    def add_entry(self, entry: Entry, leaf_id: str | None = None) -> GraphDelta:
        """Account for ``entry``, already added to the index; ``leaf_id`` is the leaf afterwards.

        The fast path covers the common case, an append to the current leaf; labels (which
        restyle other nodes), duplicate ids and appends elsewhere rebuild.
        """
        entry_id = entry.get("id")
        new_leaf = entry_id if leaf_id is None else leaf_id
        graph = self.graph
        anchor = graph.anchor
        old_leaf = self.leaf_id
        parent = entry.get("parentId")
        fast = (
            isinstance(entry_id, str)
            and entry_id not in anchor
            and new_leaf == entry_id
            and kind_of(entry) not in (EntryKind.LABEL, EntryKind.CONTEXT_EDIT)  # they restyle or link other nodes
            and self._skel is not None
            and self._tool_calls is not None
            and parent is not None
            and parent == old_leaf
            and old_leaf in anchor
            and not (old_leaf in graph and graph.children_of(old_leaf))
        )
        if not fast:
            self.leaf_id = new_leaf if isinstance(new_leaf, str) else None
            self._skel = None  # the tree itself changed: recompute it with the graph
            return self.rebuild()
        assert isinstance(entry_id, str) and isinstance(parent, str)
        assert self._skel is not None and self._tool_calls is not None
        self._skel.add_child(parent, entry_id)  # its parent is read from the entry itself
        if _is_system_entry(entry):
            self._skel.systems.add(entry_id)
        for call in tool_calls_of(entry):
            self._tool_calls[call["id"]] = call
        self.leaf_id = entry_id
        delta = GraphDelta()
        nodes, node_of = graph.nodes, graph.node_of
        labels = self.index.labels

        # The old leaf loses the "current leaf" exemption of pi's assistant rule.
        old_entry = self.index.by_id.get(parent)
        if old_entry is not None and parent in nodes:
            if parent in self._edited or is_visible(old_entry, self.filter_mode, entry_id, labels):
                nodes[parent] = replace(nodes[parent], is_leaf=False)
                delta.changed.append(parent)
            else:
                self._remove_leaf_node(parent)
                grandparent = self._skel.parent_of(parent)
                anchor[parent] = anchor.get(grandparent) if grandparent is not None else None
                delta.removed.append(parent)
                delta.structure_changed = True
        parent_anchor = anchor.get(parent)

        leaf_node: Node | None
        if is_visible(entry, self.filter_mode, entry_id, labels):
            kind, text = _info(entry_id, self.index.by_id, self._tool_calls, self._cache, self._skel)
            nodes[entry_id] = _entry_node(entry_id, kind, text, labels.get(entry_id), True, True)
            graph.children[entry_id] = []
            anchor[entry_id] = entry_id
            node_of[entry_id] = entry_id
            if parent_anchor is not None:
                up = node_of[parent_anchor]
                graph.parent[entry_id] = up
                graph.children[up].append(entry_id)
            else:
                graph.roots.append(entry_id)
            leaf_node = entry_id
            delta.added.append(entry_id)
            delta.structure_changed = True
            target = _abandoned_leaf(entry)
            target_anchor = anchor.get(target) if target is not None else None
            if target_anchor is not None:
                graph.summary_links.append((entry_id, node_of[target_anchor]))
        else:
            anchor[entry_id] = parent_anchor
            leaf_node = node_of.get(parent_anchor) if parent_anchor is not None else None
        self.graph = replace(graph, leaf_id=entry_id, leaf_node=leaf_node)
        if leaf_node is not None and leaf_node not in delta.changed and leaf_node not in delta.added:
            delta.changed.append(leaf_node)
        return delta

    def _remove_leaf_node(self, node: str) -> None:
        """Drop a childless entry node from the graph (the old leaf, hidden once it is not the leaf)."""
        graph = self.graph
        del graph.nodes[node]
        graph.children.pop(node, None)
        graph.node_of.pop(node, None)
        up = graph.parent.pop(node, None)
        if up is not None:
            graph.children[up].remove(node)
        elif node in graph.roots:
            graph.roots.remove(node)

    # ------------------------------------------------------------------------------- queries

    def node_for_entry(self, entry_id: str | None) -> Node | None:
        return self.graph.node_for_entry(entry_id)
