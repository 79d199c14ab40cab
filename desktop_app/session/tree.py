"""The index over a session's entries: ids, children, labels, name, paths (pi-spec §3.3, §3.5).

Built once on open and updated one entry at a time on append, so an append costs the same at 100
entries as at 100,000. Paths are walked with a visited set: pi loops forever on a parentId cycle,
Arbor stops at the repeated node and reports it (DESIGN.md §2).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from .entries import Entry, parse_date_ms
from .jsjson import js_trim


@dataclass
class TreeNode:
    """One node of :meth:`SessionIndex.get_tree` (pi's ``SessionTreeNode``)."""

    entry: Entry
    children: list[TreeNode] = field(default_factory=list)
    label: str | None = None
    label_timestamp: str | None = None


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
    _children: dict[Any, list[Entry]] = field(default_factory=dict)
    cycles: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, entries: list[Entry]) -> SessionIndex:
        index = cls()
        for entry in entries:
            index.add(entry)
        return index

    def add(self, entry: Entry) -> None:
        """Index one non-header entry appended at the end of the file."""
        self.entries.append(entry)
        entry_id = entry.get("id")
        self.by_id[entry_id] = entry
        self.last_id = entry_id
        self._children.setdefault(entry.get("parentId"), []).append(entry)
        entry_type = entry.get("type")
        if entry_type == "label":
            target = entry.get("targetId")
            label = entry.get("label")
            if label:
                self.labels[target] = label
                self.label_timestamps[target] = entry.get("timestamp")
            else:
                self.labels.pop(target, None)
                self.label_timestamps.pop(target, None)
        elif entry_type == "session_info":
            name = entry.get("name")
            trimmed = js_trim(name) if isinstance(name, str) else ""
            self.session_name = trimmed or None

    # ----------------------------------------------------------------------------------- queries

    def get_children(self, parent_id: str | None) -> list[Entry]:
        """Entries whose ``parentId`` is ``parent_id``, in file order."""
        return list(self._children.get(parent_id, ()))

    def get_branch(self, from_id: str | None) -> list[Entry]:
        """Root → ``from_id`` along ``parentId``; stops at a missing parent or a repeated node."""
        if from_id is None:
            return []
        return self.path_to(self.by_id.get(from_id))

    def path_to(self, entry: Entry | None) -> list[Entry]:
        """Root → ``entry``: the entry itself, then its ancestors looked up by id."""
        by_id = self.by_id
        path: list[Entry] = []
        seen: set[int] = set()
        while entry is not None:
            marker = id(entry)
            if marker in seen:
                self.cycles.append(str(entry.get("id")))
                break
            seen.add(marker)
            path.append(entry)
            parent = entry.get("parentId")
            entry = by_id.get(parent) if parent is not None else None
        path.reverse()
        return path

    def get_tree(self) -> list[TreeNode]:
        """Roots (file order) with children sorted by timestamp, oldest first (stable)."""
        nodes: dict[Any, TreeNode] = {}
        for entry in self.entries:
            entry_id = entry.get("id")
            nodes[entry_id] = TreeNode(
                entry, [], self.labels.get(entry_id), self.label_timestamps.get(entry_id)
            )
        roots: list[TreeNode] = []
        for entry in self.entries:
            entry_id = entry.get("id")
            node = nodes[entry_id]
            parent_id = entry.get("parentId")
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
            entry_id = entry.get("id")
            if entry_id in seen:
                continue
            seen.add(entry_id)
            if not self._children.get(entry_id):
                out.append(entry_id)
        return out


def _cmp_ms(a: int | None, b: int | None) -> int:
    # JS: a comparator returning NaN counts as 0 ("equal"), so an invalid date never moves.
    if a is None or b is None:
        return 0
    return (a > b) - (a < b)


def sort_by_timestamp(nodes: list[TreeNode]) -> list[TreeNode]:
    """``children.sort((a, b) => Date.parse(a.ts) - Date.parse(b.ts))``, stable, JS NaN semantics."""
    keys = [parse_date_ms(node.entry.get("timestamp")) for node in nodes]
    if all(k is not None for k in keys):
        known: list[int] = [k for k in keys if k is not None]
        order = sorted(range(len(nodes)), key=known.__getitem__)
    else:
        def compare(i: int, j: int) -> int:
            return _cmp_ms(keys[i], keys[j])

        order = sorted(range(len(nodes)), key=functools.cmp_to_key(compare))
    return [nodes[i] for i in order]
