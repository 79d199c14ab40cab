"""The hover preview with the session's facts: a compaction's audit figures, a fold's size."""

from __future__ import annotations

from collections.abc import Callable

from desktop_app.present.graph_model import ViewGraphModel
from desktop_app.present.node_preview import node_preview
from desktop_app.present.viewgraph import SegmentKey
from desktop_app.session import SessionManager


def test_a_compaction_says_what_it_summarized_and_kept_and_a_fold_its_size(
    open_case: Callable[[str], SessionManager],
) -> None:
    manager = open_case("gen-0004")
    graph = ViewGraphModel(manager.index, manager.leaf_id, "default", True).graph
    compaction = next(n for n, shown in graph.nodes.items() if shown.kind == "compaction")
    text = node_preview(graph, compaction, manager)
    assert "summarized" in text and "kept" in text and str(compaction) in text
    segment = next(n for n in graph if isinstance(n, SegmentKey))
    assert "entries folded" in node_preview(graph, segment, manager)
    assert node_preview(graph, "not-a-node", manager) == ""
