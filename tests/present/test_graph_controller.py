"""What an input on the canvas means (no Qt): keys as pi's /tree, clicks, double-clicks, the pin drag."""

from __future__ import annotations

from desktop_app.present.graph_controller import (
    PAGE,
    Activate,
    ClearSearch,
    Collapse,
    Expand,
    GraphController,
    Key,
    MoveLeaf,
    Select,
    Zoom,
)
from desktop_app.present.graph_model import ViewGraphModel
from desktop_app.present.navigation import visible_order
from desktop_app.present.viewgraph import SegmentKey
from tests.present.builders import index_of, msg

# u1 ─ a1 ─ u2 ─ a2 ─ u3 ─ a3 (leaf)
#              └─ b2 ─ u4 ─ a4
ENTRIES = [
    msg("u1", None, "user", "one"),
    msg("a1", "u1", "assistant", "one back"),
    msg("u2", "a1", "user", "two"),
    msg("a2", "u2", "assistant", "two back"),
    msg("u3", "a2", "user", "three"),
    msg("a3", "u3", "assistant", "three back"),
    msg("b2", "u2", "assistant", "other two back"),
    msg("u4", "b2", "user", "four"),
    msg("a4", "u4", "assistant", "four back"),
]


def _model(folding: bool = False) -> ViewGraphModel:
    return ViewGraphModel(index_of(ENTRIES), "a3", "default", folding=folding)


def test_up_down_walk_pi_list_with_wraparound() -> None:
    graph = _model().graph
    order = visible_order(graph)
    assert order == ["u1", "a1", "u2", "a2", "u3", "a3", "b2", "u4", "a4"]  # active branch first
    control = GraphController()
    assert control.key(graph, order, None, Key.UP) == Select("u3", center=True)  # from the leaf
    assert control.key(graph, order, "a4", Key.DOWN) == Select("u1", center=True)  # wraps
    assert control.key(graph, order, "u1", Key.UP) == Select("a4", center=True)
    assert control.key(graph, order, "u1", Key.PAGE_DOWN) == Select(order[min(PAGE, len(order) - 1)], center=True)
    assert control.key(graph, order, "u4", Key.HOME) == Select("u1", center=True)
    assert control.key(graph, order, "u1", Key.END) == Select("a4", center=True)


def test_left_right_jump_between_branch_segments() -> None:
    graph = _model().graph
    order = visible_order(graph)
    control = GraphController()
    assert control.key(graph, order, "a4", Key.LEFT) == Select("b2", center=True)  # own segment start
    assert control.key(graph, order, "b2", Key.LEFT) == Select("u1", center=True)  # the one above
    assert control.key(graph, order, "u1", Key.RIGHT) == Select("a2", center=True)  # next branch point
    assert control.key(graph, order, "a2", Key.RIGHT) == Select("a3", center=True)  # or the branch end


def test_enter_and_double_click_activate_entries_and_unfold_segments() -> None:
    model = _model(folding=True)
    graph = model.graph
    order = visible_order(graph)
    control = GraphController()
    segment = next(n for n in graph if isinstance(n, SegmentKey))
    assert control.key(graph, order, segment, Key.ENTER) == Expand(segment)
    assert control.double_click(graph, segment) == Expand(segment)
    assert control.key(graph, order, segment, Key.RIGHT) == Expand(segment)
    assert control.double_click(graph, "u2") == Activate("u2")  # a branch point: never folded
    assert control.key(graph, order, None, Key.ENTER) == Activate("a3")  # nothing selected: the leaf
    assert control.double_click(graph, None) is None


def test_left_folds_back_a_run_the_user_unfolded() -> None:
    model = _model(folding=True)
    segment = next(n for n in model.graph if isinstance(n, SegmentKey))
    model.expand(segment)
    graph = model.graph
    inside = graph.runs[segment.first_id][-1]
    assert GraphController().key(graph, visible_order(graph), inside, Key.LEFT) == Collapse(inside)


def test_zoom_and_escape() -> None:
    graph = _model().graph
    order = visible_order(graph)
    control = GraphController()
    assert control.key(graph, order, None, Key.ZOOM_IN) == Zoom(1.25)
    assert control.key(graph, order, None, Key.ZOOM_OUT) == Zoom(0.8)
    assert control.key(graph, order, None, Key.ESCAPE, searching=True) == ClearSearch()
    assert control.key(graph, order, None, Key.ESCAPE, searching=False) is None  # not ours


def test_dragging_the_leaf_pin_onto_an_entry_moves_the_leaf() -> None:
    graph = _model().graph
    control = GraphController()
    assert control.press(graph, "a3") == Select("a3")  # the leaf's node: the pin is picked up
    assert control.dragging_pin
    assert control.release(graph, "a4") == MoveLeaf("a4")
    assert not control.dragging_pin
    assert control.press(graph, "u2") == Select("u2")  # not the pin: a plain selection
    assert not control.dragging_pin and control.release(graph, "a4") is None
    control.press(graph, "a3")
    assert control.release(graph, "a3") is None  # dropped where it was
    control.press(graph, "a3")
    assert control.release(graph, None) is None  # dropped on the empty canvas
    assert control.press(graph, None) is None
