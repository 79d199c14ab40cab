"""The outline's rows without Qt: landmarks in list order, filters, the entry a click reveals."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from desktop_app.present.graph_model import build_view_graph
from desktop_app.present.outline import OUTLINE_GROUPS, outline, outline_counts
from desktop_app.present.viewgraph import SegmentKey

from .builders import index_of, msg, other


def _entries() -> list[dict[str, object]]:
    return [
        msg("u1", None, "user", "plan"),
        msg("a1", "u1", "assistant", "ok"),
        msg("u2", "a1", "user", "more"),
        msg("a2", "u2", "assistant", "sure"),
        other("compaction", "c1", "a2", summary="s", firstKeptEntryId="u2", tokensBefore=42000),
        msg("u3", "c1", "user", "next"),
        msg("a3", "u3", "assistant", "done"),
        msg("x1", "a1", "user", "other way"),
        msg("x2", "x1", "assistant", "fine"),
        msg("x3", "x2", "user", "and"),
        other("label", "l1", "a3", targetId="u3", label="milestone"),
    ]


def test_landmarks_in_list_order_with_the_entry_to_reveal() -> None:
    graph = build_view_graph(index_of(_entries()), "a3")
    items = outline(graph, "Trip")
    assert [(i.role, i.entry_id) for i in items] == [
        ("root", "u1"),
        ("branch", "a1"),
        ("compaction", "c1"),
        ("label", "u3"),
        ("active-leaf", "a3"),
        ("leaf", "x3"),  # the folded run x1→x3 stands for its last entry: the leaf
    ]
    leaf = items[-1]
    assert isinstance(leaf.node, SegmentKey) and leaf.node.first_id == "x1"
    assert items[0].text == "◉ Trip"
    assert outline_counts(items) == "1 compaction · 1 branch point · 1 label · 2 leaves"


def test_filters() -> None:
    graph = build_view_graph(index_of(_entries()), "a3")
    assert [i.entry_id for i in outline(graph, roles=OUTLINE_GROUPS["Compactions"])] == ["c1"]
    assert [i.entry_id for i in outline(graph, roles=OUTLINE_GROUPS["Leaves"])] == ["a3", "x3"]
    assert [i.entry_id for i in outline(graph, roles=OUTLINE_GROUPS["Labels"])] == ["u3"]


def test_rows_follow_the_tree_order_on_a_big_session_and_after_appends() -> None:
    # outline() reads only the landmark marks and sorts them back into list order; the rows must
    # be the graph's nodes, in order, whose mark is a landmark — also with marks kept up to date
    # by update_marks while entries are appended.
    from desktop_app.present.graph_model import ViewGraphModel
    from desktop_app.present.lod import node_marks, update_marks

    from .builders import synthetic_session

    def expected(graph: object, marks: Mapping[Any, Any]) -> list[tuple[object, str]]:
        return [(n, marks[n].role) for n in graph.nodes if marks[n].is_landmark]  # type: ignore[attr-defined]

    entries = synthetic_session(3_000)
    index = index_of(entries)
    model = ViewGraphModel(index, entries[-1]["id"], "default", folding=True)
    marks = node_marks(model.graph, "Big")
    rows = [(i.node, i.role) for i in outline(model.graph, "Big", marks=marks)]
    assert len(rows) > 50 and rows == expected(model.graph, marks)
    cache: dict = {}  # type: ignore[type-arg]
    before = outline(model.graph, "Big", marks=marks, cache=cache)
    parent = entries[-1]["id"]
    for n in range(5):
        entry = msg(f"new{n}", parent, "user" if n % 2 == 0 else "assistant", f"turn {n}")
        old_leaf = model.graph.leaf_node
        index.add(entry)
        delta = model.add_entry(entry)
        graph = model.graph
        dirty = {*delta.added, *delta.changed, *(graph.parent_of(n) for n in delta.added), old_leaf, graph.leaf_node}
        marks = update_marks(graph, marks, {n for n in dirty if n is not None}, "Big")
        assert marks == node_marks(model.graph, "Big")
        rows = [(i.node, i.role) for i in outline(model.graph, "Big", marks=marks)]
        assert rows == expected(model.graph, marks)
        cached = outline(model.graph, "Big", marks=marks, cache=cache)
        assert cached == outline(model.graph, "Big", marks=marks)  # the same rows as made afresh
        old_rows = {id(row) for row in before}
        reused = sum(1 for row in cached if id(row) in old_rows)
        assert reused >= len(cached) - 5, (reused, len(cached))  # all but the rows near the leaf: last time's
        before = cached
        parent = entry["id"]
