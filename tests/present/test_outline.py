"""The outline's rows without Qt: landmarks in list order, filters, the entry a click reveals."""

from __future__ import annotations

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
