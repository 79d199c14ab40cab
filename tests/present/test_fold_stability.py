"""Folding changes only the group touched: opening or closing one run leaves every other node
(its key, its entries, its count) exactly as it was, on every conformance case."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from desktop_app.present.graph_model import ViewGraphModel
from desktop_app.present.viewgraph import Node, SegmentKey, ViewNode
from desktop_app.session import SessionManager
from tests.ui.conformance_cases import CASES


def _others(nodes: dict[Node, ViewNode], run: tuple[str, ...]) -> dict[Node, tuple[str, ...]]:
    return {n: v.ids for n, v in nodes.items() if not set(v.ids) & set(run)}


@pytest.mark.parametrize("case", [c for c in CASES if c.startswith("gen-")][:12])
def test_unfolding_one_run_changes_no_other_node(case: str, open_case: Callable[[str], SessionManager]) -> None:
    session = open_case(case)
    model = ViewGraphModel(session.index, session.leaf_id)
    segments = [n for n in model.graph if isinstance(n, SegmentKey)]
    for segment in segments[:6]:
        before = dict(model.graph.nodes)
        run = before[segment].ids
        model.expand(segment)
        after = model.graph.nodes
        assert _others(after, run) == _others(before, run)
        assert all(entry in after for entry in run)  # each entry of the run is its own node now
        model.collapse(run[0])
        assert {n: v.ids for n, v in model.graph.nodes.items()} == {n: v.ids for n, v in before.items()}
