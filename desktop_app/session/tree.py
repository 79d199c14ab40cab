"""The index over a session's entries: ids, children, labels, name, paths (pi-spec §3.3, §3.5).

Built once on open and updated one entry at a time on append, so an append costs the same at 100
entries as at 100,000; that includes the tree of :meth:`SessionIndex.get_tree`, whose nodes are kept
sorted as entries arrive instead of being rebuilt on every call (pi rebuilds it each time). That tree
is made on the first :meth:`SessionIndex.get_tree` call, not on open: the window never asks for it,
and at 100,000 entries its nodes take ~20 MB (issue 10, peak memory). Files
that defeat incremental upkeep (duplicate ids, unparseable timestamps) fall back to pi's full
rebuild. Paths are walked with a visited set: pi loops forever on a parentId cycle, Arbor stops at
the repeated node and reports it (DESIGN.md §2).
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass, field
from typing import Any

from .entries import Entry, entry_time_ms
from .jsjson import UNDEFINED as JS_UNDEFINED
from .jsjson import js_trim


class _Opaque:
    """Stands for an id that is not a string (a list, say): equal only to itself, as in a JS Map."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unusable id>"


_opaque_ids: dict[int, tuple[Any, _Opaque]] = {}
_TRUE_KEY = ("boolean", True)
_FALSE_KEY = ("boolean", False)


def key_of(value: Any) -> Any:
    """An id usable as a dict key: itself when hashable, else an object standing for that very value.

    Such an id (a list, say) is equal only to itself, as a key in a JS ``Map``: it never matches
    another entry's ``parentId`` even if that holds an equal list.
    """
    if value.__class__ is bool:  # True == 1 in Python, but a JS Map tells true from 1
        return _TRUE_KEY if value else _FALSE_KEY
    try:
        hash(value)
    except TypeError:
        known = _opaque_ids.get(id(value))
        if known is None or known[0] is not value:
            known = _opaque_ids[id(value)] = (value, _Opaque())
        return known[1]
    return value


# JavaScript's ``undefined``: the id (or parentId) of an entry that has no such key. Distinct from
# ``null``: pi's ``getTree`` finds an entry without ``parentId`` a child of the entry without ``id``
# (``Map.get(undefined)``), while ``null`` makes a root.
UNDEFINED = JS_UNDEFINED


def id_key(entry: Entry) -> Any:
    """The key of ``entry.id`` (:data:`UNDEFINED` when the entry has no ``id``)."""
    return key_of(entry["id"]) if "id" in entry else UNDEFINED


def parent_key(entry: Entry) -> Any:
    """The key of ``entry.parentId`` (:data:`UNDEFINED` when the entry has no ``parentId``)."""
    return key_of(entry["parentId"]) if "parentId" in entry else UNDEFINED


#: Root → entry paths :meth:`SessionIndex.path_to` keeps (the active path, the one before, ...).
_PATHS_KEPT = 4
#: How far up a walk looks for the end of a kept path before walking to the root.
_PATH_JOIN_STEPS = 64

#: Stands for a compaction's first kept entry that has no usable id: no entry matches it.
_NOT_AN_ID = object()


@dataclass(slots=True, eq=False)
class TreeNode:
    """One node of :meth:`SessionIndex.get_tree` (pi's ``SessionTreeNode``). Read-only for callers."""

    entry: Entry
    children: list[TreeNode] = field(default_factory=list)
    label: str | None = None
    label_timestamp: str | None = None
    sort_key: int = 0  # Date.parse(entry.timestamp): children are kept in this order


@dataclass
class SessionIndex:
    """Everything pi derives from the entry list, kept up to date incrementally."""

    entries: list[Entry] = field(default_factory=list)
    # Keys are ids as found in the file: normally strings, but a broken file may hold anything.
    by_id: dict[Any, Entry] = field(default_factory=dict)
    labels: dict[Any, str] = field(default_factory=dict)
    label_timestamps: dict[Any, Any] = field(default_factory=dict)
    session_name: str | None = None
    last_id: Any = None
    #: parent key → its one child (an entry), or a list of two or more, in file order
    _children: dict[Any, Entry | list[Entry]] = field(default_factory=dict)
    cycles: set[str] = field(default_factory=set)
    #: How many ``context_edit`` entries (pi 1.6.0) the file holds: with none, a view need not look
    #: for them along a 70,000-entry path on every branch switch.
    context_edits: int = 0
    #: Recent root → entry paths by ``id(entry)``, newest last (see :meth:`path_to`). Entries are
    #: only ever appended, so a path stays right until an entry arrives whose id some earlier entry
    #: already named as its parent (or an id seen before): then they are all forgotten.
    _paths: dict[int, list[Entry]] = field(default_factory=dict, repr=False)
    #: Whether :attr:`_nodes` and :attr:`_roots` exist: made by the first :meth:`get_tree`, then kept
    #: up to date by :meth:`add`.
    _tree_made: bool = False
    _nodes: dict[Any, TreeNode] = field(default_factory=dict)
    _roots: list[TreeNode] = field(default_factory=list)
    _waiting: dict[Any, list[TreeNode]] = field(default_factory=dict)  # children whose parent comes later
    _tree_exact: bool = True

    @classmethod
    def build(cls, entries: list[Entry]) -> SessionIndex:
        index = cls()
        for entry in entries:
            index.add(entry)
        return index

    def add(self, entry: Entry) -> None:
        """Index one non-header entry appended at the end of the file."""
        self.entries.append(entry)
        entry_id = id_key(entry)
        if self._paths and (entry_id in self.by_id or entry_id in self._children):
            self._paths.clear()  # a path that stopped at a missing parent (or went through a duplicate) changes
        self.by_id[entry_id] = entry
        self.last_id = entry.get("id")  # as in the file (manager.leaf_id)
        parent_id = parent_key(entry)
        # One child is the rule (a list for each would be ~13 MB at 100,000 entries): the entry itself,
        # a list from the second child on. Entries are dicts, so the two never mix up.
        known = self._children.get(parent_id)
        if known is None:
            self._children[parent_id] = entry
        elif isinstance(known, list):
            known.append(entry)
        else:
            self._children[parent_id] = [known, entry]
        if self._tree_made and self._tree_exact:
            self._add_node(entry, entry_id, parent_id)
        entry_type = entry.get("type")
        if entry_type == "context_edit":
            self.context_edits += 1
        else:
            self.note_bookkeeping(entry)

    def note_bookkeeping(self, entry: Entry) -> None:
        """What a ``label`` or ``session_info`` entry does to :attr:`labels` and :attr:`session_name`
        (nothing for other entries). :meth:`add` calls it; an index of part of a file (opening a big
        session, ``SessionManager.open(defer=True)``) replays every such line through it, in file order."""
        entry_type = entry.get("type")
        if entry_type == "label":
            target = key_of(entry["targetId"]) if "targetId" in entry else UNDEFINED
            label = entry.get("label")
            if label:
                self.labels[target] = label
                self.label_timestamps[target] = entry.get("timestamp")
            else:
                self.labels.pop(target, None)
                self.label_timestamps.pop(target, None)
            node = self._nodes.get(target) if self._tree_made else None
            if node is not None:
                node.label = self.labels.get(target)
                node.label_timestamp = self.label_timestamps.get(target)
        elif entry_type == "session_info":
            name = entry.get("name")
            trimmed = js_trim(name) if isinstance(name, str) else ""
            self.session_name = trimmed or None

    def _add_node(self, entry: Entry, entry_id: Any, parent_id: Any) -> None:
        key = entry_time_ms(entry)
        if key is None or entry_id in self._nodes:
            self._tree_exact = False  # JS's NaN ordering and duplicate ids: use pi's full rebuild
            return
        node = TreeNode(entry, [], self.labels.get(entry_id), self.label_timestamps.get(entry_id), key)
        self._nodes[entry_id] = node
        parent = self._nodes.get(parent_id) if parent_id is not None and parent_id != entry_id else None
        if parent is not None:
            _insert_sorted(parent.children, node)
        else:
            self._roots.append(node)
            if parent_id is not None and parent_id != entry_id:
                self._waiting.setdefault(parent_id, []).append(node)
        early = self._waiting.pop(entry_id, None)
        if early:  # children that appeared in the file before their parent
            moved = {id(n) for n in early}
            self._roots = [r for r in self._roots if id(r) not in moved]
            for child in early:
                _insert_sorted(node.children, child)

    # ----------------------------------------------------------------------------------- queries

    def get_children(self, parent_id: str | None) -> list[Entry]:
        """Entries whose ``parentId`` is ``parent_id``, in file order (a fresh list)."""
        known = self._children.get(parent_id)
        if known is None:
            return []
        return list(known) if isinstance(known, list) else [known]

    def get_branch(self, from_id: str | None, *, remember: bool = True) -> list[Entry]:
        """Root → ``from_id`` along ``parentId``; stops at a missing parent or a repeated node.

        As in pi, an id that JavaScript finds falsy (``""``, ``0``, ``null``) gives an empty path.
        ``remember``: see :meth:`path_to`.
        """
        if not from_id:
            return []
        return self.path_to(self.by_id.get(key_of(from_id)), remember=remember)

    def context_branch(self, from_id: str | None) -> list[Entry]:
        """The end of :meth:`get_branch` that the context at ``from_id`` is built from: from the
        newest compaction's first kept entry (an ancestor of that compaction, or the compaction
        itself when it keeps nothing) to ``from_id``; the whole branch when there is no compaction
        or its first kept entry is not above it.

        A compaction reads nothing before that point (pi-spec §4.1, §5.7; pi16-delta.md §4.1a), and
        this walk is a few hundred steps where the whole branch is ~70,000 at 100,000 entries. It
        only reads (a worker thread's walk: the kept paths are the event loop thread's).
        """
        if not from_id:
            return []
        entry = self.by_id.get(key_of(from_id))
        get, field = self.by_id.get, dict.get
        walked: list[Entry] = []
        first_kept: Any = None
        limit = len(self.entries)
        try:
            while entry is not None:
                walked.append(entry)
                if len(walked) > limit:  # a cycle: the careful walk of the whole branch
                    return self.path_to(self.by_id.get(key_of(from_id)), remember=False)
                if first_kept is None and field(entry, "type") == "compaction":
                    first_kept = field(entry, "firstKeptEntryId")
                    if not isinstance(first_kept, str):
                        first_kept = _NOT_AN_ID  # no id to stop at: the whole branch
                if first_kept is not None and field(entry, "id") == first_kept:
                    break
                parent = field(entry, "parentId")
                if parent is True:  # the index keys `true` apart from 1 (key_of): the careful walk
                    raise TypeError
                entry = get(parent) if parent else None  # pi stops at a falsy parentId ("" included)
        except TypeError:  # an id that cannot be a key
            return self.path_to(self.by_id.get(key_of(from_id)), remember=False)
        walked.reverse()
        return walked

    def path_to(self, entry: Entry | None, *, remember: bool = True) -> list[Entry]:
        """Root → ``entry``: the entry itself, then its ancestors looked up by id.

        A fresh list each call (callers may change it). At 100,000 entries a path is ~70,000 long
        and its walk ~40 ms, and one branch switch or append asks for the same path several times
        (chat, context meter, sibling arrows): the last :data:`_PATHS_KEPT` paths are kept, and a
        walk that meets one of their ends within :data:`_PATH_JOIN_STEPS` steps (an append: the
        old leaf is the new one's parent) continues it instead of walking to the root.

        ``remember=False`` reads the kept paths but never changes them: for a walk on a worker
        thread while the event loop's thread appends (the kept paths are that thread's).
        """
        if entry is None:
            return []
        paths = self._paths
        walked: list[Entry] = []
        step = entry
        for _ in range(_PATH_JOIN_STEPS):
            known = paths.get(id(step))
            if known is not None:
                path = known + walked[::-1] if walked else known
                break
            walked.append(step)
            parent = step.get("parentId")
            if parent is True:  # the index keys `true` apart from 1 (key_of)
                return self._careful_path_to(entry)
            try:
                step = self.by_id.get(parent) if parent else None  # type: ignore[assignment]
            except TypeError:  # an id that cannot be a key: the careful walk
                return self._careful_path_to(entry)
            if step is None:
                path = walked[::-1]
                break
        else:
            whole = self._walk(entry)
            if whole is None:
                return self._careful_path_to(entry)
            path = whole
        if len(path) > len(self.entries):  # longer than the session: a cycle
            return self._careful_path_to(entry)
        if not remember:
            return list(path) if path is known else path
        paths.pop(id(entry), None)
        paths[id(entry)] = path
        if len(paths) > _PATHS_KEPT:
            del paths[next(iter(paths))]
        return list(path)

    def _walk(self, entry: Entry | None) -> list[Entry] | None:
        """The plain walk to the root (``None``: a cycle or an id that cannot be a key)."""
        # A path longer than the session has entries can only be a cycle, and an id that cannot be
        # a key raises; both take the careful walk.
        get = self.by_id.get
        field = dict.get
        path: list[Entry] = []
        append = path.append
        limit = len(self.entries)
        try:
            while entry is not None:
                append(entry)
                parent = field(entry, "parentId")
                if parent is True:  # the index keys `true` apart from 1 (key_of)
                    raise TypeError
                entry = get(parent) if parent else None  # pi stops at a falsy parentId ("" included)
                if len(path) > limit:
                    raise OverflowError
        except (TypeError, OverflowError):
            return None
        path.reverse()
        return path

    def _careful_path_to(self, entry: Entry | None) -> list[Entry]:
        by_id = self.by_id
        path: list[Entry] = []
        seen: set[int] = set()
        while entry is not None:
            marker = id(entry)
            if marker in seen:
                self.cycles.add(str(entry.get("id")))
                break
            seen.add(marker)
            path.append(entry)
            parent = entry.get("parentId")
            entry = by_id.get(key_of(parent)) if parent else None
        path.reverse()
        return path

    def get_tree(self) -> list[TreeNode]:
        """Roots (file order) with children sorted by timestamp, oldest first (stable).

        The nodes are the index's own (kept up to date on every append): treat them as read-only.
        """
        if not self._tree_made:
            self._make_tree()
        if self._tree_exact:
            return list(self._roots)
        return self.build_tree()

    def _make_tree(self) -> None:
        """The incremental tree as :meth:`add` would have left it had it been kept from the start.

        A node takes its label when it is made and every later label entry updates it, so either
        way it ends with the current label: made now, it simply starts with that.
        """
        self._tree_made = True
        for entry in self.entries:
            if not self._tree_exact:  # a duplicate id or a timestamp JS cannot order: pi's full build
                break
            self._add_node(entry, id_key(entry), parent_key(entry))

    def build_tree(self) -> list[TreeNode]:
        """pi's ``getTree`` from scratch: the reference the incremental tree must always equal."""
        nodes: dict[Any, TreeNode] = {}
        for entry in self.entries:
            entry_id = id_key(entry)
            nodes[entry_id] = TreeNode(
                entry, [], self.labels.get(entry_id), self.label_timestamps.get(entry_id)
            )
        roots: list[TreeNode] = []
        for entry in self.entries:
            entry_id = id_key(entry)
            node = nodes[entry_id]
            parent_id = parent_key(entry)
            parent = nodes.get(parent_id) if parent_id is not None and parent_id != entry_id else None
            if parent is None:
                roots.append(node)
            else:
                parent.children.append(node)
        for node in nodes.values():
            if len(node.children) > 1:
                node.children = sort_by_timestamp(node.children)
        return roots

    def leaves(self) -> list[Any]:
        """Ids that are nobody's ``parentId``, in file order (each once)."""
        out: list[Any] = []
        seen: set[Any] = set()
        for entry in self.entries:
            entry_id = id_key(entry)
            if entry_id in seen:
                continue
            seen.add(entry_id)
            if entry_id not in self._children:
                out.append(entry.get("id"))
        return out


def _insert_sorted(children: list[TreeNode], node: TreeNode) -> None:
    """Keep ``children`` sorted by time; equal times keep file order (a stable sort's result)."""
    if not children or children[-1].sort_key <= node.sort_key:
        children.append(node)
    else:
        bisect.insort_right(children, node, key=lambda n: n.sort_key)


def _cmp_ms(a: int | None, b: int | None) -> int:
    # JS: a comparator returning NaN counts as 0 ("equal"), so an invalid date never moves.
    if a is None or b is None:
        return 0
    return (a > b) - (a < b)


def sort_by_timestamp(nodes: list[TreeNode]) -> list[TreeNode]:
    """``children.sort((a, b) => new Date(a.ts).getTime() - new Date(b.ts).getTime())``, stable, JS NaN semantics."""
    keys = [entry_time_ms(node.entry) for node in nodes]
    if all(k is not None for k in keys):
        known: list[int] = [k for k in keys if k is not None]
        order = sorted(range(len(nodes)), key=known.__getitem__)
    else:
        def compare(i: int, j: int) -> int:
            return _cmp_ms(keys[i], keys[j])

        order = sorted(range(len(nodes)), key=functools.cmp_to_key(compare))
    return [nodes[i] for i in order]
