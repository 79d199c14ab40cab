"""Linear stretches as lines whose length shows their size (issue 10 item 1), without Qt: how many
rows a folded run spans, and that the tidy tree and the ``dot`` payload give it those rows."""

from __future__ import annotations

import json
from itertools import pairwise

from desktop_app.present.graph_model import build_view_graph
from desktop_app.present.layout import LayoutSpec, _payload, tidy_tree_layout
from desktop_app.present.lod import stretch_rows
from desktop_app.present.viewgraph import SegmentKey

from .builders import index_of, msg, other, synthetic_session

SPEC = LayoutSpec()


def test_rows_grow_with_the_run_and_an_entry_spans_one() -> None:
    assert [stretch_rows(n) for n in (0, 1, 2, 10, 100, 1_000, 100_000)] == [1, 1, 2, 3, 5, 7, 11]
    sizes = range(1, 5_000)
    assert all(stretch_rows(a) <= stretch_rows(b) for a, b in pairwise(sizes))


def test_a_folded_runs_child_sits_as_many_rows_below_as_the_run_spans() -> None:
    short = [msg("r", None, "user", "q")] + [msg(f"a{i}", "r" if i == 0 else f"a{i - 1}", "assistant", "x") for i in range(3)]
    long = [msg(f"b{i}", "r" if i == 0 else f"b{i - 1}", "assistant", "y") for i in range(120)]
    ends = [msg("end-a", "a2", "user", "end"), msg("end-b", "b119", "user", "end")]
    label = other("label", "l", "end-b", targetId="end-a", label="kept")  # a labelled entry is never folded
    entries = short + long + ends + [label]
    graph = build_view_graph(index_of(entries), "end-b")
    short_run, long_run = graph.node_of["a0"], graph.node_of["b0"]
    assert isinstance(short_run, SegmentKey) and isinstance(long_run, SegmentKey)
    positions = tidy_tree_layout(graph, SPEC)
    for run, child in ((short_run, "end-a"), (long_run, "end-b")):
        rows = (positions[child][1] - positions[run][1]) / SPEC.row
        assert rows == stretch_rows(graph.nodes[run].count)
    assert stretch_rows(120) > stretch_rows(2)  # the 120-entry stretch is drawn longer than the short one
    flat = tidy_tree_layout(graph, SPEC, stretch=False)  # the exported page's: every child one row down
    assert all(flat[child][1] - flat[run][1] == SPEC.row for run, child in ((short_run, "end-a"), (long_run, "end-b")))


def test_stretched_layouts_never_put_two_nodes_on_one_spot_or_on_a_stretch() -> None:
    entries = synthetic_session(4_000, branch_rate=0.04, seed=2)
    graph = build_view_graph(index_of(entries), entries[-1]["id"])
    assert any(graph.nodes[n].count > 10 for n in graph)
    positions = tidy_tree_layout(graph, SPEC)
    assert set(positions) == set(graph.nodes)
    cells = {(round(x / SPEC.column), round(y / SPEC.row)) for x, y in positions.values()}
    assert len(cells) == len(positions)  # one node per grid cell
    for node, (x, y) in positions.items():  # no node inside the rows a stretch runs through
        view = graph.nodes[node]
        if view.is_segment:
            for k in range(1, stretch_rows(view.count)):
                assert (round(x / SPEC.column), round(y / SPEC.row) + k) not in cells


def test_the_dot_payload_gives_a_runs_edge_its_rows() -> None:
    entries = [msg("r", None, "user", "q")] + [msg(f"a{i}", "r" if i == 0 else f"a{i - 1}", "assistant", "x") for i in range(30)]
    entries.append(msg("end", "a29", "user", "end"))
    graph = build_view_graph(index_of(entries), "end")
    nodes, data = _payload(graph, SPEC)
    edges = json.loads(data)["edges"]
    run = nodes.index(graph.node_of["a0"])
    assert [e[2] for e in edges if e[0] == run] == [stretch_rows(30)]
    assert all(e[2] == 1 for e in edges if e[0] != run)
