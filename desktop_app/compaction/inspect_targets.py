"""Which paths and navigation pairs ``arbor inspect`` audits, chosen as pi's conformance harness does.

The expected documents only list some compaction targets and branch-summary pairs, each with a ``why``;
reproducing the same choice (order and tie-breaks included) lets Arbor's document be compared with
pi's key by key. The rules, as read off the corpus:

* compaction: the open leaf, then up to four other leaves ranked by compactions on their path
  (descending), then path length (descending), then file order; then the last compaction entry in the
  file if not already chosen (a path ending at a compaction, where ``prepareCompaction`` refuses).
* branch summary, in this order, at most eight pairs, a pair already listed skipped: open leaf → the
  first two ranked leaves whose path holds a compaction whose id is not on the open leaf's path; the
  first two ranked leaves → open leaf; when the open path is longer than two, open leaf → its entry
  at half the path length (and back); open leaf → the first root whose id is not on the open path,
  if that id is truthy; no old leaf → open leaf; open leaf → itself; then open leaf → the other
  ranked leaves. Ids met on the way are taken as they are (numbers, ``null``, objects), as pi's
  harness takes them, and compared as JavaScript compares them (``===``, a ``Set``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from desktop_app.session.entries import Entry
from desktop_app.session.kinds import EntryKind, kind_of
from desktop_app.session.tree import SessionIndex, key_of

__all__ = ["Target", "Pair", "rank_leaves", "compaction_targets", "branch_summary_pairs"]

MAX_COMPACTION_LEAVES = 5
MAX_BRANCH_PAIRS = 8
WHY_OPEN_LEAF = "open leaf"
WHY_LEAF = "leaf"
WHY_ENDS_AT_COMPACTION = "path ending at a compaction (prepareCompaction -> undefined)"


@dataclass(frozen=True)
class Target:
    """A path to audit: the id it ends at, and why it was chosen."""

    target: str
    why: str


@dataclass(frozen=True)
class Pair:
    """A navigation to audit: from ``old_leaf_id`` (``None`` = no leaf) to ``target_id`` (any JSON
    value pi's harness takes as an id, as pi takes it)."""

    old_leaf_id: Any
    target_id: Any
    why: str


def _compactions(path: list[Entry]) -> int:
    return sum(1 for entry in path if kind_of(entry) is EntryKind.COMPACTION)


def rank_leaves(index: SessionIndex, leaves: list[str], open_leaf: str | None) -> list[str]:
    """Leaves other than the open one: most compactions on the path, then longest path, then file order."""
    scored: list[tuple[int, int, int, str]] = []
    for position, leaf in enumerate(leaves):
        if leaf == open_leaf:
            continue
        path = index.get_branch(leaf)
        scored.append((-_compactions(path), -len(path), position, leaf))
    scored.sort()
    return [leaf for *_, leaf in scored]


def compaction_targets(index: SessionIndex, leaves: list[str], open_leaf: str | None) -> list[Target]:
    targets: list[Target] = []
    if isinstance(open_leaf, str):  # the harness audits string ids only
        targets.append(Target(open_leaf, WHY_OPEN_LEAF))
    for leaf in rank_leaves(index, leaves, open_leaf)[: MAX_COMPACTION_LEAVES - len(targets)]:
        targets.append(Target(leaf, WHY_LEAF))
    last_compaction = next((e for e in reversed(index.entries) if kind_of(e) is EntryKind.COMPACTION), None)
    if last_compaction is not None:
        last_id = last_compaction.get("id")
        if isinstance(last_id, str) and all(t.target != last_id for t in targets):
            targets.append(Target(last_id, WHY_ENDS_AT_COMPACTION))
    return targets


def _js_truthy_id(value: Any) -> bool:
    """JavaScript truthiness of an id (``""``, ``0``, ``null``, ``false`` are falsy)."""
    return value is not None and value is not False and value != "" and not (
        isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0
    )


def _same(a: Any, b: Any) -> bool:
    """``a === b`` for JSON values: primitives by value (``true`` is not ``1``), objects by identity."""
    return key_of(a) == key_of(b) if a is not None and b is not None else a is b


def branch_summary_pairs(index: SessionIndex, leaves: list[str], open_leaf: str | None) -> list[Pair]:
    """The harness's navigation pairs, rule by rule; ids on the way (the ancestor half-way up, another
    root) are taken as they are, numbers and objects included, as pi takes them."""
    if not isinstance(open_leaf, str):  # no leaf, or an id that is not a string: the harness skips it
        return []
    ranked = rank_leaves(index, leaves, open_leaf)
    pairs: list[Pair] = []

    def add(old: Any, target: Any, why: str) -> None:
        if len(pairs) >= MAX_BRANCH_PAIRS:
            return
        if any(_same(p.old_leaf_id, old) and _same(p.target_id, target) for p in pairs):
            return
        pairs.append(Pair(old, target, why))

    open_path = index.get_branch(open_leaf)
    on_open_path = {key_of(entry.get("id")) for entry in open_path}

    def crosses(leaf: str) -> bool:
        return any(
            kind_of(e) is EntryKind.COMPACTION and key_of(e.get("id")) not in on_open_path for e in index.get_branch(leaf)
        )

    for leaf in [leaf for leaf in ranked if crosses(leaf)][:2]:
        add(open_leaf, leaf, "open leaf -> leaf across compaction(s)")
    for leaf in ranked[:2]:
        add(leaf, open_leaf, "leaf -> open leaf")
    if len(open_path) > 2:
        ancestor = open_path[len(open_path) // 2].get("id")
        add(open_leaf, ancestor, "open leaf -> own ancestor")
        add(ancestor, open_leaf, "ancestor -> descendant (nothing to summarize)")
    other_root = next(
        (node.entry.get("id") for node in index.get_tree() if key_of(node.entry.get("id")) not in on_open_path), None
    )
    if _js_truthy_id(other_root):  # the first root off the open path, if its id is truthy
        add(open_leaf, other_root, "different root (no common ancestor)")
    add(None, open_leaf, "no old leaf")
    add(open_leaf, open_leaf, "same entry")
    for leaf in ranked[2:]:
        add(open_leaf, leaf, "open leaf -> leaf")
    return pairs
