"""Which paths and navigation pairs ``arbor inspect`` audits, chosen as pi's conformance harness does.

The expected documents only list some compaction targets and branch-summary pairs, each with a ``why``;
reproducing the same choice (order and tie-breaks included) lets Arbor's document be compared with
pi's key by key. The rules, as read off the corpus:

* compaction: the open leaf, then up to four other leaves ranked by compactions on their path
  (descending), then path length (descending), then file order; then the last compaction entry in the
  file if not already chosen (a path ending at a compaction, where ``prepareCompaction`` refuses).
* branch summary, in this order, at most eight pairs: open leaf → the first two ranked leaves whose
  own branch (below the common ancestor) holds a compaction; the first two ranked leaves → open leaf;
  open leaf → its ancestor at half its path length (and back); open leaf → the first other root;
  no old leaf → open leaf; open leaf → itself; then open leaf → each ranked leaf not used yet.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.session.entries import Entry
from desktop_app.session.tree import SessionIndex

from .branch_entries import collect_entries_for_branch_summary

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
    """A navigation to audit: from ``old_leaf_id`` (``None`` = no leaf) to ``target_id``."""

    old_leaf_id: str | None
    target_id: str
    why: str


def _compactions(path: list[Entry]) -> int:
    return sum(1 for entry in path if entry.get("type") == "compaction")


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
    last_compaction = next((e for e in reversed(index.entries) if e.get("type") == "compaction"), None)
    if last_compaction is not None:
        last_id = last_compaction.get("id")
        if isinstance(last_id, str) and all(t.target != last_id for t in targets):
            targets.append(Target(last_id, WHY_ENDS_AT_COMPACTION))
    return targets


def _branch_has_compaction(index: SessionIndex, leaf: str, open_leaf: str) -> bool:
    """Does ``leaf``'s own part of the tree (below its common ancestor with the open leaf) compact?"""
    own = collect_entries_for_branch_summary(index, leaf, open_leaf).entries
    return any(entry.get("type") == "compaction" for entry in own)


def _other_root(index: SessionIndex, path: list[Entry]) -> str | None:
    own_root = path[0].get("id") if path else None
    for node in index.get_tree():
        root_id = node.entry.get("id")
        if root_id != own_root and isinstance(root_id, str) and root_id:  # the harness skips a falsy id
            return root_id
    return None


def branch_summary_pairs(index: SessionIndex, leaves: list[str], open_leaf: str | None) -> list[Pair]:
    if not isinstance(open_leaf, str):  # no leaf, or an id that is not a string: the harness skips it
        return []
    ranked = rank_leaves(index, leaves, open_leaf)
    pairs: list[Pair] = []
    across = [leaf for leaf in ranked if _branch_has_compaction(index, leaf, open_leaf)][:2]
    pairs += [Pair(open_leaf, leaf, "open leaf -> leaf across compaction(s)") for leaf in across]
    pairs += [Pair(leaf, open_leaf, "leaf -> open leaf") for leaf in ranked[:2]]
    path = index.get_branch(open_leaf)
    if path:
        ancestor = path[len(path) // 2].get("id")
        if isinstance(ancestor, str) and ancestor != open_leaf:
            pairs.append(Pair(open_leaf, ancestor, "open leaf -> own ancestor"))
            pairs.append(Pair(ancestor, open_leaf, "ancestor -> descendant (nothing to summarize)"))
    other_root = _other_root(index, path)
    if other_root is not None:
        pairs.append(Pair(open_leaf, other_root, "different root (no common ancestor)"))
    pairs.append(Pair(None, open_leaf, "no old leaf"))
    pairs.append(Pair(open_leaf, open_leaf, "same entry"))
    used = {p.old_leaf_id for p in pairs} | {p.target_id for p in pairs}
    pairs += [Pair(open_leaf, leaf, "open leaf -> leaf") for leaf in ranked if leaf not in used]
    return pairs[:MAX_BRANCH_PAIRS]
