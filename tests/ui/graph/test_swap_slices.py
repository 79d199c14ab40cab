"""After the first picture of a big session nothing holds the event loop long (issue 28 item 1):
the whole graph's items are made a slice per turn under a time budget (a timer set meanwhile
fires before the swap ends), what would take long at once on the UI thread (the marks of every
node, the row index) comes made from the build's worker, no cyclic collection walks what the
worker makes, and the worker runs with a short switch interval. Structural, not timed: the
times are ``benchmarks/bench_gui.py --freeze`` figures."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QGraphicsItem

import desktop_app.ui.graph.overlay as overlay_module
import desktop_app.ui.graph.whole_graph as build_module
from desktop_app.present.lod import node_marks
from desktop_app.ui import gui_gc
from tests.ui.graph.test_neighbourhood_view import big_manager, make_view


def test_the_swap_yields_to_the_event_loop_and_brings_what_the_worker_made(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build_module, "_SWAP_BUDGET", 1e-9)  # a slice per clock reading: many turns
    on_ui_thread: list[int] = []
    real_marks = overlay_module.node_marks

    def counted_marks(graph: Any, name: Any = None) -> Any:
        if threading.current_thread() is threading.main_thread():
            on_ui_thread.append(len(graph))
        return real_marks(graph, name)

    monkeypatch.setattr(overlay_module, "node_marks", counted_marks)
    switch_interval = sys.getswitchinterval()
    manager = big_manager(tmp_path)
    view = make_view(qtbot)
    view.set_session(manager)
    qtbot.waitUntil(lambda: view._build_state == "running", timeout=10_000)
    assert gui_gc.collections_held()  # no collection walks what the worker makes ...
    assert sys.getswitchinterval() == pytest.approx(build_module._BUILD_SWITCH_INTERVAL)  # ... and it lets the GIL go often
    qtbot.waitUntil(lambda: view._build_state == "swapping", timeout=30_000)
    scene = view.graph_scene()
    old_items = len(scene.nodes)
    fired: list[tuple[bool, int]] = []
    QTimer.singleShot(0, lambda: fired.append((view.partial, len(scene.nodes))))
    qtbot.waitUntil(lambda: not view.partial, timeout=30_000)
    assert fired == [(True, old_items)]  # the timer ran between two slices, the old picture still up
    whole = len(view.graph())
    assert view._build.swap_turns > whole // 16 > 10  # nodes and edges, 16 items a slice
    # the new items were made visible but clipped to nothing, then let out (never hidden and shown)
    layer = next(iter(scene.nodes.values())).parentItem()
    assert layer is not None and layer.isVisible()
    assert not layer.flags() & QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape
    # made by the worker: the marks of every node (none of the whole graph's made here), the rows
    on_ui_thread.clear()
    marks = view.node_marks()
    assert [m.node for m in marks.ranked] == [m.node for m in node_marks(view.graph(), None).ranked]
    assert on_ui_thread == [] and len(marks.ranked) == whole
    assert scene._rows is not None and len(scene.rows.between(-1e9, 1e9)) == whole
    assert not gui_gc.collections_held() and sys.getswitchinterval() == pytest.approx(switch_interval)
    view.screen_labels()  # the labels lay out from the adopted marks
    assert on_ui_thread == []
