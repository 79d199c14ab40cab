"""Folding: linear runs of the filtered tree become one segment node (count + first line).

Branch points, compactions, branch summaries, labelled entries and the leaf are never folded, so
everything a user navigates by stays on screen (DESIGN.md §7).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from .pacing import CHECK, UNPACED, Pace, Steps, finish
from .text import NodeKind
from .viewgraph import SegmentKey, ViewGraph

__all__ = ["NEVER_FOLD_KINDS", "foldable_runs", "foldable_runs_steps", "straddling_segments"]

NEVER_FOLD_KINDS = frozenset({NodeKind.COMPACTION, NodeKind.BRANCH_SUMMARY})


def foldable_runs(
    order: Sequence[str],
    parent: Mapping[str, str | None],
    children: Mapping[str | None, Sequence[str]],
    can_fold: Mapping[str, bool],
) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """Maximal chains of foldable entries, each of two or more, keyed by first id; and entry → run.

    ``order`` is the pre-order of the filtered tree, ``parent``/``children`` its visible links and
    ``can_fold`` whether an entry may be folded at all (one visible child at most, not a kind or
    entry that must stay on screen).
    """
    return finish(foldable_runs_steps(order, parent, children, can_fold, UNPACED))


def foldable_runs_steps(
    order: Sequence[str],
    parent: Mapping[str, str | None],
    children: Mapping[str | None, Sequence[str]],
    can_fold: Mapping[str, bool],
    pace: Pace,
) -> Steps[tuple[dict[str, tuple[str, ...]], dict[str, str]]]:
    """:func:`foldable_runs` a slice at a time (:mod:`.pacing`)."""
    runs: dict[str, tuple[str, ...]] = {}
    run_of: dict[str, str] = {}
    for i, n in enumerate(order):
        if not i & CHECK and pace.due():
            yield
        if not can_fold[n]:
            continue
        up = parent[n]
        if up is not None and can_fold[up]:
            continue  # not the start of its run
        run = [n]
        while children[run[-1]] and can_fold[children[run[-1]][0]]:
            run.append(children[run[-1]][0])
        if len(run) >= 2:
            runs[n] = tuple(run)
            for member in run:
                run_of[member] = n
    return runs, run_of


def straddling_segments(graph: ViewGraph, *bands: Collection[str]) -> set[str]:
    """First ids of folded segments that lie across an edge of any of ``bands`` (sets of entry ids).

    A compaction's audit unfolds exactly these so its bands are drawn entry by entry.
    """
    out: set[str] = set()
    band_sets = [set(band) for band in bands]
    for node, view in graph.nodes.items():
        if isinstance(node, SegmentKey):
            ids = set(view.ids)
            if any(0 < len(ids & band) < len(ids) for band in band_sets):
                out.add(node.first_id)
    return out
