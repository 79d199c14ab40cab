"""A big session opens on the leaf's neighbourhood, then the whole graph (built a slice per
event-loop turn) replaces it without moving the leaf off screen (issue 10 item 8). Structural, not timed: the
times are benchmark figures (``benchmarks/bench_gui.py``)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect

from desktop_app.present.graph_model import build_view_graph
from desktop_app.present.neighbourhood import NeighbourhoodLimits
from desktop_app.present.viewgraph import SegmentKey
from desktop_app.session import SessionManager
from desktop_app.ui.graph import GraphView
from tests.present.builders import synthetic_session

LIMITS = NeighbourhoodLimits(path=80, branch=10, total=300)


def big_manager(tmp_path: Path, count: int = 3_000) -> SessionManager:
    manager = SessionManager.in_memory(str(tmp_path))
    for entry in synthetic_session(count, branch_rate=0.03, seed=5):
        manager._index.add(entry)
    manager._leaf_id = manager._index.last_id
    return manager


def make_view(qtbot: Any, **options: Any) -> GraphView:
    view = GraphView(use_dot=False, neighbourhood_min_entries=1_000, neighbourhood_limits=LIMITS, **options)
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    return view


def on_screen(view: GraphView) -> QRect:
    return view.viewport().rect()


def far_folded_leaf(manager: SessionManager, view: GraphView) -> str:
    """A leaf folded into a run of the whole graph: moving there reshapes the folds (a new picture)."""
    graph, index = view.graph(), manager.index
    return str(
        next(
            e["id"]
            for e in index.entries
            if not index.get_children(e["id"]) and isinstance(graph.node_of.get(e["id"]), SegmentKey)
        )
    )


def test_the_leaf_first_then_the_whole_graph_with_the_leaf_kept_in_place(qtbot: Any, tmp_path: Path) -> None:
    manager = big_manager(tmp_path)
    leaf = manager.leaf_id
    whole = build_view_graph(manager.index, leaf)
    view = make_view(qtbot)
    view.set_session(manager)
    first = view.graph()
    assert view.partial and view.layout_busy
    assert first.leaf_node == leaf and 0 < len(first) < len(whole) / 3
    assert len(view.graph_scene().nodes) == len(first)  # only the neighbourhood's items exist
    pin = view.pin_center()
    assert pin is not None and on_screen(view).contains(pin)
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    assert set(view.graph().nodes) == set(whole.nodes)  # the complete graph, as built on the UI thread
    assert len(view.graph_scene().nodes) == len(whole)
    assert view.graph().leaf_node == leaf and not view.layout_busy
    after = view.pin_center()
    assert after is not None and on_screen(view).contains(after)
    assert (after - pin).manhattanLength() <= 4  # the leaf did not move on screen


def test_a_selected_node_keeps_its_place_when_the_whole_graph_arrives(qtbot: Any, tmp_path: Path) -> None:
    manager = big_manager(tmp_path)
    view = make_view(qtbot)
    view.set_session(manager)
    path = manager.get_branch()
    target = str(path[-6]["id"])
    view.select(target, center=True)
    node = view.selected_node()
    assert node is not None
    before = view.mapFromScene(*view.graph_scene().positions[node])
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    assert view.selected_entry() == view.graph().entry_of(view.model.node_for_entry(target))  # type: ignore[union-attr]
    now = view.mapFromScene(*view.graph_scene().positions[view.selected_node()])  # type: ignore[index]
    assert on_screen(view).contains(now) and (now - before).manhattanLength() <= 4


def test_entries_appended_while_the_whole_graph_is_built_are_in_it(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import desktop_app.ui.graph.whole_graph as build_module

    monkeypatch.setattr(build_module, "_BUILD_BUDGET", 1e-9)  # a slice per check: hundreds of turns
    builds: list[int] = []
    real_build = build_module.build_whole_graph

    def counted_build(index: Any, *args: Any) -> Any:
        builds.append(len(index.by_id))
        return real_build(index, *args)

    monkeypatch.setattr(build_module, "build_whole_graph", counted_build)
    manager = big_manager(tmp_path)
    view = make_view(qtbot)
    view.set_session(manager)
    qtbot.waitUntil(lambda: view._build_state == "running", timeout=10_000)
    late = manager.append_message({"role": "user", "content": "written while the graph was built", "timestamp": 1})
    assert view.partial  # the build goes on between the session's events ...
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    assert builds == [3_000, 3_001]  # ... and starts again with the entry in
    assert view.graph().leaf_node == late and late in view.graph_scene().nodes


def test_small_sessions_are_built_at_once(qtbot: Any, tmp_path: Path) -> None:
    manager = big_manager(tmp_path, count=600)
    view = make_view(qtbot)
    view.set_session(manager)
    assert not view.partial and len(view.graph()) == len(build_view_graph(manager.index, manager.leaf_id))


def test_a_far_branch_switch_shows_the_new_leafs_neighbourhood_then_the_whole_graph(
    qtbot: Any, tmp_path: Path
) -> None:
    manager = big_manager(tmp_path)
    view = make_view(qtbot)
    view.set_session(manager)
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    graph = view.graph()
    index = manager.index
    far = far_folded_leaf(manager, view)
    manager.branch(far)
    assert view.partial and view.graph().leaf_node == far
    assert len(view.graph()) < len(graph) / 3
    pin = view.pin_center()
    assert pin is not None and on_screen(view).contains(pin)
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    assert set(view.graph().nodes) == set(build_view_graph(index, far).nodes)
    after = view.pin_center()
    # on screen; it may shift when the whole graph's edge stops the scroll (this leaf is near the root)
    assert after is not None and on_screen(view).contains(after)


def test_the_whole_graph_a_far_switch_replaces_is_freed_off_the_ui_thread(qtbot: Any, tmp_path: Path) -> None:
    # Freeing a whole graph model (its 100,000-entry anchors, nodes and texts) took ~20 ms of a far
    # switch at 100k; it is dropped by a worker thread a moment later instead.
    import weakref

    manager = big_manager(tmp_path)
    view = make_view(qtbot)
    view.set_session(manager)
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    freed_on: list[int] = []
    weakref.finalize(view._model, lambda: freed_on.append(threading.get_ident()))
    far = far_folded_leaf(manager, view)
    manager.branch(far)
    assert view.partial and freed_on == []  # not freed inside the switch
    qtbot.waitUntil(lambda: bool(freed_on), timeout=10_000)
    assert freed_on[0] != threading.get_ident()


def test_the_whole_graph_build_waits_until_the_replaced_picture_is_deleted(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The deletion and the build each take a slice per turn: side by side they would take turns
    # (after a far switch at 100k). The build starts once the old items are gone (~0.1 s).
    from desktop_app.ui.graph import whole_graph as build_module

    started: list[bool] = []
    real_build = build_module.build_whole_graph

    def recording_build(*args: Any) -> Any:
        started.append(view.graph_scene().discarding)
        return real_build(*args)

    manager = big_manager(tmp_path, count=8_000)
    view = make_view(qtbot)
    view.set_session(manager)
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    monkeypatch.setattr(build_module, "build_whole_graph", recording_build)
    manager.branch(far_folded_leaf(manager, view))
    assert view.partial and view.graph_scene().discarding  # thousands of items to delete
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    assert started == [False]


def test_a_near_branch_switch_between_standing_nodes_restyles_in_place(qtbot: Any, tmp_path: Path) -> None:
    manager = big_manager(tmp_path)
    view = make_view(qtbot)
    view.set_session(manager)
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    graph = view.graph()
    standing = next(
        n for n in reversed(list(graph.nodes)) if isinstance(n, str) and n != graph.leaf_node and graph.nodes[n].kind == "user"
    )
    items = view.graph_scene().nodes[standing]
    manager.branch(standing)
    assert not view.partial and view.graph().leaf_node == standing
    assert view.graph_scene().nodes[standing] is items  # the same items: no rebuild, no new picture


def test_a_big_replaced_picture_is_hidden_at_once_and_deleted_in_slices(qtbot: Any, tmp_path: Path) -> None:
    manager = big_manager(tmp_path)
    view = GraphView(use_dot=False, neighbourhood_min_entries=None, folding=False, filter_mode="all")
    qtbot.addWidget(view)
    view.show()
    view.set_session(manager)
    scene = view.graph_scene()
    before = len(scene.items())
    assert before > 3_000
    view.set_session(None)  # a small picture replaces it
    assert scene.discarding
    assert sum(1 for item in scene.items() if item.isVisible()) < 20  # the old items are hidden at once
    qtbot.waitUntil(lambda: not scene.discarding, timeout=10_000)
    assert len(scene.items()) < 20


def test_work_asked_to_wait_for_the_picture_runs_after_the_first_paint(qtbot: Any, tmp_path: Path) -> None:
    """The window's meter and sibling arrows wait for the neighbourhood's paint (they walk the whole
    path); the whole graph's build starts only then too."""
    manager = big_manager(tmp_path)
    view = make_view(qtbot)
    painted: list[bool] = []
    real_paint = view.paintEvent

    def paint(event: Any) -> None:
        real_paint(event)
        painted.append(True)

    view.paintEvent = paint  # type: ignore[method-assign]
    view.set_session(manager)
    ran: list[bool] = []
    view.after_picture(lambda: ran.append(bool(painted)))
    assert ran == [] and view._build_state == "waiting"  # nothing before the picture
    qtbot.waitUntil(lambda: bool(ran), timeout=10_000)
    assert ran == [True]  # it ran, and after a paint
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    later: list[int] = []
    view.after_picture(lambda: later.append(1))  # no picture pending: on the next turn
    assert later == []
    qtbot.waitUntil(lambda: later == [1], timeout=5_000)


def test_a_hidden_canvas_does_not_keep_the_work_waiting(qtbot: Any, tmp_path: Path) -> None:
    manager = big_manager(tmp_path)
    view = GraphView(use_dot=False, neighbourhood_min_entries=1_000, neighbourhood_limits=LIMITS)
    qtbot.addWidget(view)  # never shown: never painted
    view.set_session(manager)
    ran: list[int] = []
    view.after_picture(lambda: ran.append(1))
    qtbot.waitUntil(lambda: ran == [1], timeout=10_000)
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)


def test_a_new_session_releases_the_old_pictures_waiting_work(qtbot: Any, tmp_path: Path) -> None:
    view = make_view(qtbot)
    view.set_session(big_manager(tmp_path))
    ran: list[int] = []
    view.after_picture(lambda: ran.append(1))
    view.set_session(big_manager(tmp_path, count=600))  # small: no picture to wait for
    qtbot.waitUntil(lambda: ran == [1], timeout=5_000)


def test_the_loaded_session_is_put_out_of_the_cyclic_gcs_sight_when_shown(qtbot: Any, tmp_path: Path) -> None:
    """With automatic collection off (the app's, ``gui_gc.py``), ``SessionManager.open`` freezes
    nothing; the view freezes the session it is given at once, before the whole graph is built, so
    a full collection meanwhile does not walk the loaded entries."""
    import gc

    manager = big_manager(tmp_path)
    entry = manager.index.by_id[manager.leaf_id]
    assert gc.is_tracked(entry) and id(entry) in {id(o) for o in gc.get_objects()}
    view = make_view(qtbot)
    view.set_session(manager)
    assert view.partial  # the whole graph is not in yet
    assert id(entry) not in {id(o) for o in gc.get_objects()}


def test_the_whole_graph_is_put_out_of_the_cyclic_gcs_sight_once_in(qtbot: Any, tmp_path: Path) -> None:
    """Once the whole graph's items are in, what the window built is frozen (``gc.freeze``), so a
    full collection while a reply streams does not walk it (85 ms at 100,000 entries)."""
    import gc

    manager = big_manager(tmp_path)
    view = make_view(qtbot)
    gc.collect()
    before = gc.get_freeze_count()
    view.set_session(manager)
    assert view.partial
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    model = view.model
    assert model is not None
    assert gc.get_freeze_count() > before
    tracked = {id(o) for o in gc.get_objects()}  # frozen objects are in no generation
    assert id(model) not in tracked and id(model.graph.nodes) not in tracked


def test_a_far_switch_after_a_pan_brings_the_new_leaf_into_view_clear_of_the_minimap(
    qtbot: Any, tmp_path: Path
) -> None:
    """Issue 22 item 1: after a far switch from outside the canvas the new leaf was 375 px above the
    viewport. A leaf move follows again, through the neighbourhood and the whole graph's swap."""
    from PySide6.QtWidgets import QAbstractSlider

    manager = big_manager(tmp_path)
    view = make_view(qtbot)
    view.set_session(manager)
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    for _ in range(3):  # the user pages the scroll bar away from the leaf
        view.verticalScrollBar().triggerAction(QAbstractSlider.SliderAction.SliderPageStepSub)
    assert not view.following
    manager.branch(far_folded_leaf(manager, view))
    for check in ("neighbourhood", "whole graph"):
        if check == "whole graph":
            qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
        pin = view.pin_center()
        assert view.following, check
        assert pin is not None and on_screen(view).contains(pin), check
        assert not view.minimap_rect().contains(pin), check
