"""After the first picture of a big session nothing holds the event loop long (issue 28 item 1):
the whole graph is built a slice per event-loop turn on the UI thread (no worker thread holds the
GIL while the window waits for it), its scene items are made a slice per turn under a time budget
(a timer set meanwhile fires before the build or the swap ends), what would take long at once on
the UI thread (the marks of every node, the row index) comes made by the build, and no cyclic
collection walks what the build makes. Structural, not timed: the times are
``benchmarks/bench_gui.py --freeze`` figures."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QGraphicsItem

import desktop_app.present.graph_model as graph_model
import desktop_app.ui.graph.overlay as overlay_module
import desktop_app.ui.graph.whole_graph as build_module
from desktop_app.present.lod import node_marks
from desktop_app.ui import gui_gc
from tests.ui.graph.test_neighbourhood_view import big_manager, make_view


def test_the_build_and_the_swap_yield_to_the_event_loop_and_bring_the_marks_and_rows(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build_module, "_SWAP_BUDGET", 1e-9)  # a slice per clock reading: many turns
    monkeypatch.setattr(build_module, "_BUILD_BUDGET", 1e-9)
    on_ui_thread: list[int] = []
    real_marks = overlay_module.node_marks

    def counted_marks(graph: Any, name: Any = None) -> Any:
        if threading.current_thread() is threading.main_thread():
            on_ui_thread.append(len(graph))
        return real_marks(graph, name)

    monkeypatch.setattr(overlay_module, "node_marks", counted_marks)
    filtered_on: set[str] = set()  # the threads the build's filter ran on (once per entry)
    real_visible = graph_model.is_visible

    def recorded_visible(*args: Any) -> bool:
        filtered_on.add(threading.current_thread().name)
        return real_visible(*args)

    monkeypatch.setattr(graph_model, "is_visible", recorded_visible)
    manager = big_manager(tmp_path)
    view = make_view(qtbot)
    scene = view.graph_scene()
    # The swap's first slice sets a timer that must fire before the swap ends. Set there, not once
    # the test sees "swapping": the whole swap (~30 turns) can start and end within one 10 ms poll
    # of waitUntil, which then never saw "swapping" (a 30 s timeout, ~1 run in 12 alone).
    swap_started: list[tuple[str, int]] = []  # the build's state and the old picture's items then
    fired: list[tuple[bool, int]] = []
    real_swap_step = view._build._swap_step

    def swap_step() -> None:
        if not swap_started:
            swap_started.append((view._build_state, len(scene.nodes)))
            QTimer.singleShot(0, lambda: fired.append((view.partial, len(scene.nodes))))
        real_swap_step()

    monkeypatch.setattr(view._build, "_swap_step", swap_step)
    view.set_session(manager)
    qtbot.waitUntil(lambda: view._build_state == "running", timeout=10_000)
    assert gui_gc.collections_held()  # no collection walks what the build makes
    building: list[str] = []
    QTimer.singleShot(0, lambda: building.append(view._build_state))
    qtbot.waitUntil(lambda: bool(swap_started), timeout=30_000)
    assert building == ["running"]  # the timer ran between two slices of the build
    assert view._build.build_turns > 3_000 // 64  # every pass over the entries cut up
    assert filtered_on == {threading.main_thread().name}  # no Python of the build on another thread
    [(state, old_items)] = swap_started
    assert state == "swapping"
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    assert fired == [(True, old_items)]  # the timer ran between two slices, the old picture still up
    whole = len(view.graph())
    assert view._build.swap_turns > whole // 16 > 10  # nodes and edges, 16 items a slice
    # the new items were made visible but clipped to nothing, then let out (never hidden and shown)
    layer = next(iter(scene.nodes.values())).parentItem()
    assert layer is not None and layer.isVisible()
    assert not layer.flags() & QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape
    # made by the build: the marks of every node (none of the whole graph's made after it), the rows
    on_ui_thread.clear()
    marks = view.node_marks()
    assert [m.node for m in marks.ranked] == [m.node for m in node_marks(view.graph(), None).ranked]
    assert on_ui_thread == [] and len(marks.ranked) == whole
    assert scene._rows is not None and len(scene.rows.between(-1e9, 1e9)) == whole
    assert not gui_gc.collections_held()
    view.screen_labels()  # the labels lay out from the adopted marks
    assert on_ui_thread == []
