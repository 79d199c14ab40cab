"""The graph's links from branch summaries to the leaves they abandoned (the audit itself is tested in
``tests/compaction/test_audit.py``)."""

from __future__ import annotations

from collections.abc import Callable

from desktop_app.present.graph_model import build_view_graph
from desktop_app.session import SessionManager

OpenCase = Callable[[str], SessionManager]


def test_pi_branch_summaries_have_no_summary_links(open_case: OpenCase) -> None:
    manager = open_case("gen-0003")
    summaries = [i for i, e in manager.index.by_id.items() if e.get("type") == "branch_summary"]
    assert summaries
    graph = build_view_graph(manager.index, manager.leaf_id, "all", folding=False)
    assert graph.summary_links == []


def test_arbor_branch_summary_links_to_the_abandoned_leaf(open_case: OpenCase) -> None:
    manager = open_case("gen-0009")
    abandoned = manager.leaf_id
    target = manager.get_branch()[2]["id"]
    summary_id = manager.branch_with_summary(
        target, "explored something", {"readFiles": [], "modifiedFiles": []}
    )
    for folding in (False, True):
        graph = build_view_graph(manager.index, manager.leaf_id, "all", folding=folding)
        node_of = graph.node_of
        assert graph.summary_links == [(summary_id, node_of[abandoned])]
