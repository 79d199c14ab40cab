"""Layouts: the tidy tree's geometry, incremental placement, and dot in a killable child process."""

from __future__ import annotations

import asyncio
import math
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop_app.present import layout as layout_module
from desktop_app.present.graph_model import build_view_graph
from desktop_app.present.layout import (
    DotJob,
    Layouter,
    LayoutSpec,
    RowIndex,
    dot_layout_in_subprocess,
    place_new_node,
    tidy_tree_layout,
)
from desktop_app.present.viewgraph import ViewGraph
from desktop_app.session import SessionManager
from tests.present.builders import forest, index_of, path_forest, synthetic_session

from .conftest import CASES

OpenCase = Callable[[str], SessionManager]
SPEC = LayoutSpec()


def assert_tidy(graph: ViewGraph, positions: dict[Any, tuple[float, float]]) -> None:
    assert set(positions) == set(graph.nodes)
    assert len(set(positions.values())) == len(positions), "two nodes share a position"
    for a, b in graph.edges():
        assert positions[a][1] < positions[b][1], "a parent must sit above its child"
    rows: dict[float, list[float]] = {}
    for x, y in positions.values():
        rows.setdefault(y, []).append(x)
    for xs in rows.values():  # boxes on a row never overlap
        xs.sort()
        for left, right in zip(xs, xs[1:], strict=False):
            assert right - left >= SPEC.column - 1e-6


@pytest.mark.parametrize("case", CASES)
def test_tidy_tree_on_every_case(case: str, open_case: OpenCase) -> None:
    manager = open_case(case)
    for folding in (False, True):
        graph = build_view_graph(manager.index, manager.leaf_id, "all", folding=folding)
        assert_tidy(graph, tidy_tree_layout(graph, SPEC))


def test_tidy_tree_keeps_child_order_and_puts_parents_over_their_first_child() -> None:
    graph = forest(("r", "a"), ("r", "b"), ("r", "c"), ("b", "d"))
    positions = tidy_tree_layout(graph, SPEC)
    assert positions["a"][0] < positions["b"][0] < positions["c"][0]
    assert positions["r"][0] == pytest.approx(positions["a"][0])
    assert positions["d"][0] == pytest.approx(positions["b"][0])


def test_tidy_tree_is_iterative_and_linear() -> None:
    chain = path_forest([str(i) for i in range(30_000)])  # deeper than any recursion limit
    positions = tidy_tree_layout(chain, SPEC)
    assert positions["29999"][1] == pytest.approx(29_999 * SPEC.row)
    assert len({x for x, _ in positions.values()}) == 1
    entries = synthetic_session(20_000, branch_rate=0.05)
    graph = build_view_graph(index_of(entries), entries[-1]["id"], "all", folding=False)
    positions = tidy_tree_layout(graph, SPEC)
    assert_tidy(graph, positions)  # its speed is a benchmark figure (benchmarks/bench_gui.py)


def test_tidy_tree_packs_side_branches_into_few_columns() -> None:
    chain = [str(i) for i in range(200)]
    edges = list(zip(chain, chain[1:], strict=False))
    for i in range(0, 200, 20):  # short side branches all down a long chain
        edges += [(str(i), f"side{i}a"), (f"side{i}a", f"side{i}b")]
    graph = forest(*edges)
    positions = tidy_tree_layout(graph, SPEC)
    columns = {round(x / SPEC.column) for x, _ in positions.values()}
    assert len(columns) == 2  # the chain stays straight, the side branches share one column
    assert {x for n, (x, _) in positions.items() if not str(n).startswith("side")} == {0.0}


def test_place_new_node_goes_below_its_parent_and_moves_nothing() -> None:
    edges = [("r", "a"), ("a", "b"), ("r", "c")]
    positions = tidy_tree_layout(forest(*edges), SPEC)
    before = dict(positions)
    edges.append(("b", "new"))
    spot = place_new_node(positions, forest(*edges), "new", SPEC)
    assert spot == (positions["b"][0], positions["b"][1] + SPEC.row)
    assert positions == before
    edges.append(("r", "late"))  # a sibling: right of the others on its row, no overlap
    positions["new"] = spot
    spot = place_new_node(positions, forest(*edges), "late", SPEC)
    assert spot[1] == positions["a"][1]
    assert all(abs(spot[0] - x) >= SPEC.column - 1e-6 for n, (x, y) in positions.items() if y == spot[1])


def test_dot_job_lays_out_in_a_child_process(open_case: OpenCase) -> None:
    manager = open_case("gen-0004")
    graph = build_view_graph(manager.index, manager.leaf_id, "all", folding=True)
    result: dict[str, Any] = {}
    main_thread = threading.get_ident()

    def done(positions: Any, error: Any) -> None:
        result.update(positions=positions, error=error, thread=threading.get_ident())

    job = DotJob(graph, SPEC, done)
    assert job.wait(120), "dot did not finish"
    assert result["error"] is None and result["thread"] != main_thread
    assert job.pid is not None and job.pid != os.getpid()
    positions = result["positions"]
    assert set(positions) == set(graph.nodes)
    for a, b in graph.edges():
        assert positions[a][1] < positions[b][1]


def test_superseded_dot_job_is_killed() -> None:
    entries = synthetic_session(3_000)
    graph = build_view_graph(index_of(entries), entries[-1]["id"], "all", folding=False)
    calls: list[Any] = []
    layouter = Layouter(SPEC, dot_node_limit=None)
    first = layouter.start_dot(graph, lambda p, e: calls.append(("first", e)))
    assert first is not None
    deadline = time.monotonic() + 10
    while first.pid is None and time.monotonic() < deadline:
        time.sleep(0.01)
    small = forest(("a", "b"))
    second = layouter.start_dot(small, lambda p, e: calls.append(("second", e)))
    assert first.cancelled and second is not None
    assert first.wait(10) and second.wait(60)
    assert first._proc is not None and first._proc.returncode is not None and first._proc.returncode < 0
    assert calls == [("second", None)]


def test_dot_limit_keeps_big_graphs_on_the_tidy_tree() -> None:
    graph = path_forest([str(i) for i in range(10)])
    assert Layouter(SPEC, dot_node_limit=5).start_dot(graph, lambda p, e: None) is None
    assert Layouter(SPEC, dot_node_limit=5).wants_dot(graph) is False
    assert layout_module.DOT_NODE_LIMIT == 2500


def _run(coro: Any, qapp: Any) -> Any:
    """Run ``coro`` on a qasync loop (the app's loop) and close it."""
    import qasync

    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()
        asyncio.set_event_loop(None)


def test_failed_dot_falls_back_to_the_tidy_tree(
    qapp: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    broken = tmp_path / "broken_worker.py"
    broken.write_text("import sys\nsys.stderr.write('no graphviz here')\nsys.exit(3)\n")
    monkeypatch.setattr(layout_module, "_WORKER", broken)
    graph = forest(("a", "b"), ("a", "c"))
    layouter = Layouter(SPEC)
    positions = _run(layouter.layout(graph), qapp)
    assert layouter.last_kind == "tidy" and positions == tidy_tree_layout(graph, SPEC)

    async def direct() -> None:
        with pytest.raises(layout_module.LayoutError, match="no graphviz here"):
            await dot_layout_in_subprocess(graph, SPEC)

    _run(direct(), qapp)


_SLOW_ON_BIG_GRAPHS = """
import json, runpy, sys, io, time
data = sys.stdin.read()
if json.loads(data)["nodes"] > 100:
    time.sleep(120)
sys.stdin = io.StringIO(data)
runpy.run_path({worker!r}, run_name="__main__")
"""


def test_a_newer_async_layout_supersedes_the_older(
    qapp: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The older child must still be running when the newer request comes: a wrapper holds big
    # graphs (a real dot on 2,000 nodes can finish within any fixed sleep on a fast machine).
    slow = tmp_path / "slow_worker.py"
    slow.write_text(_SLOW_ON_BIG_GRAPHS.format(worker=str(layout_module._WORKER)))
    monkeypatch.setattr(layout_module, "WORKER_COMMAND", [sys.executable, str(slow)])
    entries = synthetic_session(2_000)
    big = build_view_graph(index_of(entries), entries[-1]["id"], "all", folding=False)
    small = forest(("a", "b"), ("a", "c"))
    layouter = Layouter(SPEC, dot_node_limit=None)

    async def both() -> tuple[Any, Any]:
        older = asyncio.ensure_future(layouter.layout(big))
        deadline = time.monotonic() + 10
        while layouter.worker_pid is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert layouter.busy
        newer = await layouter.layout(small)
        with pytest.raises(layout_module.LayoutSuperseded):
            await older
        return newer, layouter.last_kind

    newer, kind = _run(both(), qapp)
    assert set(newer) == {"a", "b", "c"} and kind == "dot"


#: Nodes dot lays out while the heartbeat counts (about a second of dot's work).
BIG = 1_500


def test_dot_layout_of_a_big_tree_never_stalls_the_event_loop(qapp: Any) -> None:
    """DESIGN.md §8: layout never blocks the UI. Structural, not timed: a 10 ms QTimer heartbeat
    keeps landing while the ``dot`` child (another process) works; the stall length is a
    benchmark figure (``benchmarks/bench_gui.py``)."""
    from PySide6.QtCore import QTimer

    entries = synthetic_session(BIG)  # dot works long enough for many beats (5,000 nodes: the same, slower)
    graph = build_view_graph(index_of(entries), entries[-1]["id"], "all", folding=False)
    assert len(graph) == BIG
    layouter = Layouter(SPEC, dot_node_limit=None, timeout=300)
    beats: list[tuple[bool, int | None]] = []

    async def measured() -> Any:
        timer = QTimer()
        timer.setInterval(10)
        timer.timeout.connect(lambda: beats.append((layouter.busy, layouter.worker_pid)))
        timer.start()
        positions = await layouter.layout(graph)
        timer.stop()
        return positions

    positions = _run(measured(), qapp)
    assert layouter.last_kind == "dot", "the dot child must have delivered"
    assert set(positions) == set(graph.nodes)
    busy = [pid for is_busy, pid in beats if is_busy]
    assert len(busy) >= 5, "the event loop must keep turning while dot lays out"
    pids = {pid for pid in busy if pid is not None}  # None only until the thread has spawned it
    assert len(pids) == 1 and os.getpid() not in pids, "dot runs in one child process"


def test_frozen_build_never_relaunches_itself_as_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    result: dict[str, Any] = {}
    job = DotJob(forest(("a", "b")), SPEC, lambda p, e: result.update(p=p, e=e))
    assert job.wait(10)
    assert result["p"] is None and "not available" in result["e"] and job.pid is None


def test_row_index_finds_exactly_the_nodes_of_a_row() -> None:
    """The bands are a shortcut: every node strictly inside the asked-for y range, none outside,
    at band edges and negative ys too; discarded nodes are gone."""
    positions = {f"n{i}": (float(i * 7 % 50), float(i * 13 % 97 - 40)) for i in range(300)}
    rows = RowIndex(positions, SPEC)
    for low, high in [(-40.0, -20.0), (-5.0, 5.0), (0.0, SPEC.row), (SPEC.row / 2, SPEC.row * 1.5), (30.0, 31.0)]:
        expected = sorted((n, x) for n, (x, y) in positions.items() if low < y < high)
        assert sorted(rows.between(low, high)) == expected
    rows.discard("n5", positions["n5"])
    assert "n5" not in {n for n, _ in rows.between(-1e9, 1e9)}
    del positions["n5"]
    # a range far taller than the nodes costs what its nodes cost (it used to walk every band)
    for low, high in [(-math.inf, math.inf), (-1e12, 1e12), (-math.inf, 0.0), (0.0, math.inf), (1e6, 1e12)]:
        assert sorted(rows.between(low, high)) == sorted((n, x) for n, (x, y) in positions.items() if low < y < high)
    emptied = [n for n, (_, y) in positions.items() if y == 5.0]
    assert emptied
    for node in emptied:  # emptying a band drops it
        rows.discard(node, positions.pop(node))
    assert rows.between(4.0, 6.0) == [] and sorted(rows.between(-1e9, 1e9)) == sorted(
        (n, x) for n, (x, y) in positions.items()
    )
    rows.add("back", (3.0, 5.0))
    assert rows.between(4.0, 6.0) == [("back", 3.0)]


def test_place_new_node_with_a_kept_row_index_matches_a_fresh_scan() -> None:
    """A caller keeping a :class:`RowIndex` beside its positions gets the spot a full scan gives,
    append after append, siblings and roots included."""
    edges = [("r", "a"), ("a", "b"), ("r", "c"), ("c", "d")]
    positions = dict(tidy_tree_layout(forest(*edges), SPEC))
    rows = RowIndex(positions, SPEC)
    for i, parent in enumerate(["b", "b", "d", "r", "new0", None, "new2", None]):
        node = f"new{i}"
        if parent is not None:
            edges.append((parent, node))
        graph = forest(*edges, *([] if parent is not None else [(node, f"{node}-kid")]))
        kept = place_new_node(positions, graph, node, SPEC, rows)
        assert kept == place_new_node(positions, graph, node, SPEC)
        assert all(
            abs(kept[0] - x) >= SPEC.column * 0.999 for n, (x, y) in positions.items() if abs(y - kept[1]) < SPEC.row / 2
        )
        positions[node] = kept
        rows.add(node, kept)


def test_row_index_nearest_reads_near_rows_and_scales_each_axis() -> None:
    from desktop_app.present.layout import RowIndex

    positions = {"top": (0.0, 0.0), "far-right": (5000.0, 1000.0), "below": (0.0, 3000.0), "mid": (100.0, 1100.0)}
    rows = RowIndex(positions)
    assert rows.nearest(0.0, 10.0) == "top"
    assert rows.nearest(4900.0, 1000.0) == "far-right"
    assert rows.nearest(0.0, 2500.0) == "below"  # widens until it finds one
    # distances across count a thousandth (a stretched minimap): the row decides
    assert rows.nearest(4000.0, 1000.0, sx=0.001, sy=1.0) == "far-right"
    assert rows.nearest(4000.0, 1090.0, sx=0.001, sy=1.0) == "mid"
    assert RowIndex({}).nearest(0.0, 0.0) is None


def test_row_index_counts_nodes_in_a_rectangle_up_to_a_cap() -> None:
    from desktop_app.present.layout import RowIndex

    rows = RowIndex({n: (float(n % 10) * 100, float(n // 10) * 100) for n in range(100)})
    assert rows.count_in(-1, -1, 250, 150, cap=99) == 3 * 2
    assert rows.count_in(-1, -1, 10_000, 10_000, cap=7) == 7
    assert rows.count_in(5000, 5000, 6000, 6000, cap=7) == 0
