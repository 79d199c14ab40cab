"""A big session's whole graph is built a few milliseconds per event-loop turn on the UI thread
(issue 28: a worker thread's build held the GIL and froze the window). Built in slices, it must
be exactly what the one-go build makes: the model (nodes, links, anchors, folds, and the state
the streaming appends use), the tidy positions, the marks and the rows, on the conformance
cases. Slices here are as small as they get: a pace that is always due yields at every check."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop_app.present.graph_build import Built, build_whole_graph
from desktop_app.present.graph_model import ViewGraphModel, _path_steps, _skeleton
from desktop_app.present.layout import LayoutSpec, RowIndex, tidy_tree_layout
from desktop_app.present.lod import node_marks
from desktop_app.present.pacing import UNPACED, Pace, finish
from desktop_app.session import SessionManager
from tests.present.builders import index_of, msg, synthetic_session
from tests.ui.conformance_cases import CASES, open_copy

SPEC = LayoutSpec()
#: Every edge case and a third of the generated ones (each costs milliseconds; the two big real
#: sessions' opening would cost a third of a second and adds no shape the generated ones lack).
SHAPES = [c for c in CASES if c.startswith("edge-")] + [c for c in CASES if c.startswith("gen-")][::3]


def _in_slices(steps: Any, pace: Pace) -> tuple[Built, int]:
    """Run ``steps`` to the end, one ``next`` per slice as the canvas does: what it built and how
    many slices it took."""
    slices = 0
    while True:
        pace.begin()
        try:
            next(steps)
        except StopIteration as end:
            return end.value, slices
        slices += 1


def _model_state(model: ViewGraphModel) -> dict[str, Any]:
    graph, sk = model.graph, model._skel
    assert sk is not None and model._tool_calls is not None
    return {
        "nodes": list(graph.nodes.items()),  # in order: the pre-order every view reads
        "parent": graph.parent,
        "children": graph.children,
        "roots": graph.roots,
        "leaf": (graph.leaf_id, graph.leaf_node),
        "node_of": list(graph.node_of.items()),
        "anchor": list(graph.anchor.items()),
        "runs": graph.runs,
        "run_of": graph.run_of,
        "links": (graph.summary_links, graph.edit_links, graph.broken_edges),
        "skeleton": (sk.children, sk.roots, sk.cut, sk.plain, sk.systems),
        "tool_calls": model._tool_calls,
        "edited": model._edited,
        "cache": model._cache,
    }


def _same_as_at_once(session_index: Any, leaf: str | None, mode: str, name: str | None) -> int:
    pace = Pace(0.0)
    built, slices = _in_slices(build_whole_graph(session_index, leaf, mode, True, (), SPEC, name, pace), pace)
    model = ViewGraphModel(session_index, leaf, mode, True)
    positions = tidy_tree_layout(model.graph, SPEC)
    assert _model_state(built.model) == _model_state(model)
    assert list(built.positions.items()) == list(positions.items())
    marks = node_marks(model.graph, name)
    assert [(m.node, m.rank, m.role, m.text) for m in built.marks[0].ranked] == [
        (m.node, m.rank, m.role, m.text) for m in marks.ranked
    ]
    assert built.marks[1] == name
    everything = (-1e12, 1e12)
    assert built.rows.between(*everything) == RowIndex(positions, SPEC).between(*everything)
    if positions:
        xs, ys = [x for x, _ in positions.values()], [y for _, y in positions.values()]
        assert built.extent == (min(xs), min(ys), max(xs), max(ys))
    else:
        assert built.extent is None
    return slices


def test_the_graph_built_in_slices_is_the_one_built_at_once_on_the_conformance_cases(tmp_path: Path) -> None:
    sliced = 0
    for case in SHAPES:  # one test, not one per case: each case costs milliseconds
        session = open_copy(case, tmp_path)
        for mode in ("default", "all"):
            sliced += _same_as_at_once(session.index, session.leaf_id, mode, session.get_session_name())
    assert sliced > len(SHAPES)  # it did stop between slices, on the bigger cases many times


def test_a_branching_session_built_in_slices_keeps_every_fold_and_the_selection_of_its_leaf() -> None:
    entries = synthetic_session(800, branch_rate=0.05, seed=11)
    index = index_of(entries)
    leaves = [e["id"] for e in entries if not index.get_children(e["id"])]
    for leaf in (entries[-1]["id"], leaves[len(leaves) // 2], None):
        assert _same_as_at_once(index, leaf, "default", "named") > 40


def test_the_leafs_path_walked_in_slices_is_the_skeletons_even_where_an_entry_is_its_own_parent(
    open_case: Callable[[str], SessionManager],
) -> None:
    looped = [
        msg("a", None, "user", "root"),
        msg("b", "a", "assistant", "reply"),
        {**msg("c", "b", "user", "names itself"), "parentId": "c"},
        msg("d", "c", "assistant", "below it"),
    ]
    cycle = [msg("x", "z", "user", "x"), msg("y", "x", "assistant", "y"), msg("z", "y", "user", "z")]
    indexes = [index_of(looped), index_of(cycle), index_of(synthetic_session(500, seed=3))]
    indexes += [open_case(case).index for case in CASES if case.startswith("edge-")]
    always = Pace(0.0)
    always.begin()  # due from now on: a slice at every check
    never = Pace(3600.0)
    never.begin()  # the same walk in one slice (unpaced, it is ``sk.path`` itself)
    for index in indexes:
        sk = _skeleton(index)
        for leaf in [*list(index.by_id)[-3:], None]:
            if not isinstance(leaf, str | None):
                continue
            expected = set(sk.path(index, leaf, remember=False))
            assert finish(_path_steps(sk, index, leaf, always)) == expected
            assert finish(_path_steps(sk, index, leaf, never)) == expected


def test_an_unpaced_build_runs_in_one_go() -> None:
    index = index_of(synthetic_session(300, seed=2))
    _, slices = _in_slices(build_whole_graph(index, None, "default", True, (), SPEC, None, UNPACED), UNPACED)
    assert slices == 0


def test_every_pass_over_the_entries_gives_the_event_loop_back() -> None:
    """Every loop over entries or nodes checks the pace: with a budget of nothing, each check ends
    a slice, and each of the build's passes over the 3,000 entries is cut into many (a loop that
    forgot to check would run whole in one slice, at 100,000 entries for tens of milliseconds)."""
    index = index_of(synthetic_session(3_000, branch_rate=0.02, seed=4))
    checks = [0]

    class Counting(Pace):
        def due(self) -> bool:
            checks[0] += 1
            return super().due()

    pace = Counting(0.0)
    _, slices = _in_slices(build_whole_graph(index, index.last_id, "default", True, (), SPEC, None, pace), pace)
    assert checks[0] == slices
    # skeleton, tool calls, edit targets (twice), the visible walk, the leaf's path, folds ...
    assert slices >= 6 * len(index.by_id) // 64
