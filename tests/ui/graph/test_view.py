"""GraphView offscreen: rendering, incremental appends, audits, search, keys, filters (pytest-qt)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt, QTimer
from PySide6.QtGui import QColor, QImage, QKeyEvent
from PySide6.QtWidgets import QApplication

from desktop_app.compaction.audit import CompactionAudit, audit_compaction
from desktop_app.present.search import find_text
from desktop_app.present.viewgraph import SegmentKey
from desktop_app.session import SessionManager
from desktop_app.ui.graph import CompactionAuditPanel, GraphView
from tests.present.builders import synthetic_session

from .conftest import CASES

OpenCase = Callable[[str], SessionManager]
SCREENSHOT = "/tmp/arbor-graph.png"


def make_view(qtbot: Any, manager: SessionManager | None = None, **options: Any) -> GraphView:
    options.setdefault("use_dot", False)
    view = GraphView(**options)
    qtbot.addWidget(view)
    view.resize(1400, 900)
    view.show()
    if manager is not None:
        view.set_session(manager)
    return view


def wait_for_dot(qtbot: Any, view: GraphView, action: Callable[[], None], timeout: int = 60_000) -> None:
    with qtbot.waitSignal(view.layout_applied, timeout=timeout, check_params_cb=lambda kind: kind == "dot"):
        action()


def key(
    view: GraphView, code: Qt.Key, modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier
) -> None:
    view.keyPressEvent(QKeyEvent(QEvent.Type.KeyPress, code, modifiers))


def colourful_pixels(image: QImage, background: QColor) -> tuple[int, int]:
    """(pixels unlike the background, distinct saturated colours) on a sampling grid."""
    differing = 0
    saturated: set[tuple[int, int, int]] = set()
    for y in range(0, image.height(), 3):
        for x in range(0, image.width(), 3):
            color = image.pixelColor(x, y)
            if (
                abs(color.red() - background.red())
                + abs(color.green() - background.green())
                + abs(color.blue() - background.blue())
                > 30
            ):
                differing += 1
            if color.hsvSaturation() > 120 and color.value() > 80:
                saturated.add((color.red() // 32, color.green() // 32, color.blue() // 32))
    return differing, len(saturated)


# --------------------------------------------------------------------------- rendering


def test_renders_a_conformance_case_offscreen(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0004")
    view = make_view(qtbot, use_dot=True)
    wait_for_dot(qtbot, view, lambda: view.set_session(manager))
    assert view.layout_kind == "dot"
    view.fit_all()
    QApplication.processEvents()
    image = view.grab().toImage()
    image.save(SCREENSHOT)
    assert image.width() == 1400 and image.height() == 900
    differing, colours = colourful_pixels(image, view.graph_scene().graph_style.background)
    assert differing > 2_000, "the canvas is blank"
    assert colours >= 4, "node kinds should show in several colours"
    scene = view.graph_scene()
    assert set(scene.nodes) == set(view.graph().nodes)
    assert len(scene.edges) == len(view.graph().edges())


@pytest.mark.parametrize("case", CASES)
def test_every_case_builds_items(case: str, qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case(case)
    view = make_view(qtbot, manager)
    graph = view.graph()
    scene = view.graph_scene()
    assert set(scene.nodes) == set(graph.nodes) == set(scene.positions)
    assert set(scene.edges) == set(graph.edges())
    if manager.leaf_id is not None and len(graph):
        leaf_node = graph.leaf_node
        assert leaf_node is None or scene.nodes[leaf_node].pinned
    view.shutdown()


def test_scene_uses_no_index_and_cached_nodes(qtbot: Any, open_case: OpenCase) -> None:
    from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene

    view = make_view(qtbot, open_case("gen-0003"))
    scene = view.graph_scene()
    assert scene.itemIndexMethod() == QGraphicsScene.ItemIndexMethod.NoIndex
    item = next(iter(scene.nodes.values()))
    assert item.cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache


def test_minimap_shows_the_graph_and_the_viewport(qtbot: Any, open_case: OpenCase) -> None:
    view = make_view(qtbot, open_case("gen-0004"))
    minimap = view._minimap.widget
    assert minimap.isVisible() and minimap._image is not None
    assert not minimap._image.isNull()
    view.resetTransform()
    view.center_on_leaf()
    assert not minimap._viewport.isEmpty()
    before = view.visible_scene_rect().center()
    minimap._navigate(QPointF(0, 0))
    assert view.visible_scene_rect().center() != before


# --------------------------------------------------------------------------- live updates


def test_append_adds_one_node_and_moves_nothing(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0004")
    view = make_view(qtbot, use_dot=True)
    wait_for_dot(qtbot, view, lambda: view.set_session(manager))
    before = view.positions()
    old_leaf_node = view.graph().leaf_node
    with qtbot.waitSignal(view.layout_applied, timeout=5_000) as signal:
        new_id = manager.append_message(
            {"role": "user", "content": [{"type": "text", "text": "and one more thing"}], "timestamp": 1}
        )
    assert signal.args == ["incremental"]
    after = view.positions()
    assert set(after) == set(before) | {new_id}
    assert {n: after[n] for n in before} == before, "no other node moved"
    x, y = after[new_id]
    px, py = before[old_leaf_node]
    assert (x, y) == (px, py + view.graph_scene().graph_style.spec.row)
    scene = view.graph_scene()
    assert scene.nodes[new_id].pinned and not scene.nodes[old_leaf_node].pinned
    assert (old_leaf_node, new_id) in scene.edges
    assert not view.layout_busy  # no relayout was started


def test_streamed_turn_in_default_filter(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0009")
    view = make_view(qtbot, manager)
    user = manager.append_message(
        {"role": "user", "content": [{"type": "text", "text": "read it"}], "timestamp": 1}
    )
    call = {"type": "toolCall", "id": "call-1", "name": "read", "arguments": {"path": "src/app.py"}}
    assistant = manager.append_message(
        {
            "role": "assistant",
            "content": [call],
            "api": "a",
            "provider": "p",
            "model": "m",
            "stopReason": "toolUse",
            "timestamp": 2,
        }
    )
    assert assistant in view.graph()  # the leaf is always shown
    result = manager.append_message(
        {
            "role": "toolResult",
            "toolCallId": "call-1",
            "toolName": "read",
            "content": [{"type": "text", "text": "x"}],
            "isError": False,
            "timestamp": 3,
        }
    )
    graph = view.graph()
    assert assistant not in graph and assistant not in view.graph_scene().nodes  # pi hides it now
    assert graph.parent_of(result) == user
    assert graph.nodes[result].text == "[read: src/app.py]"
    # the hidden reply's edges went with it, found from the graph (not by a scan of every edge),
    # and the edges drawn are exactly the graph's
    scene = view.graph_scene()
    assert not any(assistant in key for key in scene.edges)
    assert set(scene.edges) == {(a, b) for a, b in graph.edges() if a in scene.nodes and b in scene.nodes}


def test_branch_switch_moves_the_pin_without_relayout(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0006")
    view = make_view(qtbot, manager, filter_mode="all", folding=False)
    before = view.positions()
    graph = view.graph()
    other_leaf = next(n for n in graph if not graph.children_of(n) and n != manager.leaf_id)
    manager.branch(other_leaf)
    scene = view.graph_scene()
    assert scene.nodes[other_leaf].pinned
    assert view.positions() == before
    path = {e["id"] for e in manager.get_branch()}
    for node, attrs in view.graph().nodes.items():
        assert attrs.on_active_path == (node in path)


def test_external_append_and_replace(qtbot: Any, open_case: OpenCase) -> None:
    """Another program (pi) appends to the file, then rewrites it: the canvas follows both."""
    import json
    import os

    manager = open_case("gen-0009")
    view = make_view(qtbot, manager, filter_mode="all", folding=False)
    path = manager.session_file
    assert path is not None
    leaf = manager.leaf_id
    line = {
        "type": "message",
        "id": "ext00001",
        "parentId": leaf,
        "timestamp": "2030-01-01T00:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "from pi"}], "timestamp": 1},
    }
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")
    before = view.positions()
    manager.poll_external_changes()
    assert "ext00001" in view.graph() and view.graph().leaf_node == "ext00001"
    assert {n: view.positions()[n] for n in before} == before

    lines = open(path, encoding="utf-8").read().splitlines(keepends=True)
    replacement = path + ".new"
    with open(replacement, "w", encoding="utf-8") as fh:
        fh.writelines(lines[:6])  # header + 5 entries, as a rewrite by another program
    os.replace(replacement, path)
    with qtbot.waitSignal(view.layout_applied, timeout=5_000):
        manager.poll_external_changes()
    assert len(view.graph()) == 5
    assert set(view.graph_scene().nodes) == set(view.graph().nodes)


# --------------------------------------------------------------------------- compaction audit


@pytest.mark.parametrize("folding", [False, True])
@pytest.mark.parametrize("case", ["gen-0004", "gen-0013", "gen-0031", "edge-compaction-refs"])
def test_selecting_a_compaction_draws_its_audit(
    case: str, folding: bool, qtbot: Any, open_case: OpenCase
) -> None:
    manager = open_case(case)
    view = make_view(qtbot, manager, filter_mode="all", folding=folding)
    compactions = [i for i, e in manager.index.by_id.items() if e.get("type") == "compaction"]
    for cid in compactions:
        with qtbot.waitSignal(view.compaction_selected, timeout=2_000) as signal:
            view.select(cid)
        audit = signal.args[0]
        assert isinstance(audit, CompactionAudit) and audit == audit_compaction(manager.index, cid)
        summarized, kept = view.audit_bands()
        graph = view.graph()
        summarized_ids = [i for n in summarized for i in graph.nodes[n].ids]
        kept_ids = [i for n in kept for i in graph.nodes[n].ids]
        assert summarized_ids == list(audit.summarized_ids), (
            "the dimmed band is exactly the summarized entries"
        )
        assert kept_ids == list(audit.kept_ids), "the outlined band is exactly the kept tail"
        bands = view.graph_scene().bands
        assert bands is not None and bands.items  # band shapes + cut line are in the scene
    with qtbot.waitSignal(view.compaction_selected, timeout=2_000) as signal:
        view.select(manager.get_branch()[0]["id"])
    assert signal.args == [None] and view.audit_bands() == ([], [])


def test_audit_panel_shows_the_compaction(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0004")
    view = make_view(qtbot, manager)
    panel = CompactionAuditPanel()
    qtbot.addWidget(panel)
    view.compaction_selected.connect(panel.set_audit)
    cid = next(i for i, e in manager.index.by_id.items() if e.get("type") == "compaction")
    view.select(cid)
    audit = panel.audit()
    assert audit is not None and audit.compaction_id == cid
    text = panel.text()
    assert panel.summary_markdown() and audit.summary.startswith(panel.summary_markdown()[:200])
    assert "Goal" in text and "## Goal" not in text  # rendered as markdown, not shown as source
    assert f"{audit.tokens_before:,.0f}" in text
    for path in audit.read_files + audit.modified_files:
        assert path in text
    assert ("yes" if audit.is_split_turn else "no") in text
    assert audit.made_by in text
    view.select(None)
    assert panel.audit() is None


def test_branch_summary_dashed_edge(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0009")
    abandoned = manager.leaf_id
    target = manager.get_branch()[2]["id"]
    view = make_view(qtbot, manager, filter_mode="all")
    summary_id = manager.branch_with_summary(
        target,
        "The user explored a different conversation branch before "
        "returning here.\nSummary of that exploration:\n\n## Goal\nTry X",
    )
    scene = view.graph_scene()
    assert len(scene.links) == 1
    assert scene.links[0].pen().style() == Qt.PenStyle.DashLine
    assert view.graph().summary_links == [(summary_id, view.model.node_for_entry(abandoned))]
    assert view.graph().nodes[summary_id].text == "Try X"
    infos: list[Any] = []
    view.branch_summary_selected.connect(infos.append)
    view.select(summary_id)
    assert infos and infos[0].abandoned_leaf_id == abandoned
    assert "abandoned branch" in view.preview_text(summary_id)


# --------------------------------------------------------------------------- search and keys


def test_search_highlights_and_jumps(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0004")
    view = make_view(qtbot, manager, filter_mode="all", folding=False)
    count = view.search("Compaction")
    graph = view.graph()
    compactions = {n for n, a in graph.nodes.items() if a.kind == "compaction"}
    expected = [
        n
        for n in view.visible_order()  # all of an entry's text, in pi's list order
        if "compaction" in find_text(manager.index.by_id[n], manager.get_label(n)).lower()
    ]
    assert compactions <= set(expected) and count == len(expected) and view.matches() == expected
    scene = view.graph_scene()
    assert all(scene.nodes[n].match == 1 for n in expected)
    assert view.search("compaction tokens") >= 0  # every word must match
    assert set(view.matches()) <= set(expected)
    count = view.search("COMPACTION 18K")  # "[compaction: 18k tokens]" is only display text, not searchable
    assert count == len([n for n in expected if "18k" in find_text(manager.index.by_id[n]).lower()])
    count = view.search("compaction")
    compactions = set(expected)
    seen = []
    with qtbot.waitSignal(view.node_selected, timeout=1_000):
        seen.append(view.next_match())
    for _ in range(count):
        seen.append(view.next_match())
    assert seen[0] == seen[-1] and set(seen) == set(compactions)  # wraps around
    assert scene.nodes[seen[-1]].match == 2 and view.selected_entry() == seen[-1]
    assert view.visible_scene_rect().contains(QPointF(*view.positions()[seen[-1]]))
    assert view.search("zzz-no-such-text qq") == 0 and view.next_match() is None
    view.clear_search()
    assert all(item.match == 0 for item in scene.nodes.values())


def test_keys_mirror_pi_tree(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0006")
    view = make_view(qtbot, manager, filter_mode="default", folding=True)
    graph = view.graph()
    order = view.visible_order()
    view.select(manager.leaf_id)
    start = view.selected_node()
    position = order.index(start)
    key(view, Qt.Key.Key_Down)
    assert view.selected_node() == order[(position + 1) % len(order)]
    key(view, Qt.Key.Key_Up)
    key(view, Qt.Key.Key_Up)
    assert view.selected_node() == order[(position - 1) % len(order)]
    view.select_node(order[0])
    key(view, Qt.Key.Key_Up)  # wraps
    assert view.selected_node() == order[-1]

    activated: list[str] = []
    view.node_activated.connect(activated.append)
    view.select(manager.leaf_id)
    key(view, Qt.Key.Key_Return)
    assert activated == [str(graph.nodes[view.selected_node()].ids[0])]

    segment = next(n for n in graph if isinstance(n, SegmentKey))
    ids = graph.nodes[segment].ids
    view.select_node(segment)
    key(view, Qt.Key.Key_Right)  # unfold
    assert segment not in view.graph() and view.selected_node() == ids[0]
    key(view, Qt.Key.Key_Left)  # fold back
    assert segment in view.graph() and view.selected_node() == segment


def test_right_and_left_jump_between_branch_segments(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0006")
    view = make_view(qtbot, manager, filter_mode="all", folding=False)
    graph = view.graph()
    root = graph.roots[0]
    view.select_node(root)
    key(view, Qt.Key.Key_Right)
    target = view.selected_node()
    parent = graph.parent_of(target)
    assert not graph.children_of(target) or (parent is not None and len(graph.children_of(parent)) > 1)
    key(view, Qt.Key.Key_Left)
    start = view.selected_node()
    parent = graph.parent_of(start)
    assert parent is None or len(graph.children_of(parent)) > 1


def test_filters_and_folding_keep_the_selection(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0004")
    view = make_view(qtbot, manager, filter_mode="all", folding=False)
    user = next(e["id"] for e in manager.get_branch() if e.get("message", {}).get("role") == "user")
    view.select(user)
    sizes = {}
    for mode in ("default", "no-tools", "user-only", "all", "labeled-only"):
        view.set_filter(mode)
        sizes[mode] = len(view.graph())
        assert set(view.graph_scene().nodes) == set(view.graph().nodes)
        if mode != "labeled-only":
            assert view.selected_entry() == user
        else:  # pi: the selection moves to the nearest visible ancestor, if any
            selected = view.selected_entry()
            assert selected is None or selected in {e["id"] for e in manager.get_branch(user)}
    view.set_filter("all")
    assert sizes["user-only"] < sizes["no-tools"] < sizes["default"] < sizes["all"]
    assert view.cycle_filter() == "default" and view.cycle_filter(-1) == "all"
    view.set_folding(True)
    folded = len(view.graph())
    view.set_folding(False)
    assert folded < len(view.graph())


def test_zoom_fit_and_centre_on_leaf(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0015")
    view = make_view(qtbot, manager, folding=False, filter_mode="all")
    view.fit_all()
    assert view.visible_scene_rect().contains(view.graph_scene().itemsBoundingRect().center())
    zoom = view.zoom()
    view.zoom_by(2.0)
    assert view.zoom() == pytest.approx(zoom * 2.0)
    view.zoom_by(1e-6)
    assert view.zoom() == pytest.approx(0.005)
    assert view.graph_scene().overview  # far out: drawn by the overview layer
    view.resetTransform()
    view.center_on_leaf()
    leaf = view.graph().leaf_node
    assert view.visible_scene_rect().contains(QPointF(*view.positions()[leaf]))


def test_hover_preview_describes_the_node(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0004")
    view = make_view(qtbot, manager)
    graph = view.graph()
    segment = next(n for n in graph if isinstance(n, SegmentKey))
    assert "entries folded" in view.preview_text(segment)
    cid = next(n for n, a in graph.nodes.items() if a.kind == "compaction")
    text = view.preview_text(cid)
    assert "summarized" in text and "kept" in text and cid in text


# --------------------------------------------------------------------------- big sessions


def test_view_stays_responsive_while_dot_lays_out_a_big_tree(qtbot: Any, tmp_path: Any) -> None:
    """Structural, not timed: the event loop keeps turning while ``dot`` runs in a child process.

    A 10 ms heartbeat counts event-loop turns between the tidy tree going on screen and dot's
    positions arriving; if the layout ran on the UI thread (or held the GIL) no beat could land in
    between. The stall length itself is a benchmark figure (``benchmarks/bench_gui.py``).
    """
    manager = SessionManager.in_memory(str(tmp_path))
    for entry in synthetic_session(1_500):  # about a second of dot's work: many beats (5,000: the same, slower)
        manager._index.add(entry)
    manager._leaf_id = manager._index.last_id
    view = make_view(qtbot, use_dot=True, dot_node_limit=None, folding=False, filter_mode="all")
    beats_while_busy: list[bool] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: beats_while_busy.append(view.layout_busy))
    view.set_session(manager)  # builds 1,500 items (5,000 and more: measured by the benchmark)
    assert len(view.graph()) == 1_500 and view.layout_kind == "tidy"
    QApplication.processEvents()
    assert view.layout_kind == "tidy" and view.layout_busy, "dot must still be running"
    qtbot.waitUntil(lambda: view.layout_worker_pid is not None or not view.layout_busy, timeout=10_000)
    assert view.layout_worker_pid not in (None, os.getpid()), "dot runs in a child process"
    timer.start()
    with qtbot.waitSignal(view.layout_applied, timeout=120_000, check_params_cb=lambda kind: kind == "dot"):
        pass
    timer.stop()
    assert view.layout_kind == "dot"
    assert sum(beats_while_busy) >= 5, "the event loop must keep turning while dot lays out"


def test_audit_unfolds_only_for_the_audit(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0004")
    view = make_view(qtbot, manager, filter_mode="all", folding=True)
    folded = set(view.graph().nodes)
    cid = next(i for i, e in manager.index.by_id.items() if e.get("type") == "compaction")
    view.select(cid)
    assert set(view.graph().nodes) != folded  # segments across the band edges were opened
    view.select(None)
    assert set(view.graph().nodes) == folded  # and folded back when the audit went away
    view.select(cid)
    summarized, _ = view.audit_bands()
    inside = next(
        n for n in summarized if not isinstance(n, SegmentKey) and view.model.graph.run_of.get(n)
    )
    view.select(inside)  # the user looks into an opened run: it stays open
    assert inside in view.graph() and view.selected_node() == inside


def test_appends_grow_the_scene_rect_rarely_and_fit_shows_the_graph_exactly(
    qtbot: Any, open_case: OpenCase
) -> None:
    """While a reply streams the scene rect grows only when the graph leaves it (by a few rows at
    once), always holding the graph; the measured extent kept through appends equals a fresh
    measure of the positions, and Fit frames the graph itself, not the slack."""
    manager = open_case("gen-0004")
    view = make_view(qtbot, manager)
    scene = view.graph_scene()
    changes: list[Any] = []
    scene.sceneRectChanged.connect(changes.append)
    for i in range(24):
        manager.append_message({"role": "user" if i % 2 else "assistant", "content": f"step {i}", "timestamp": 1})
        assert scene.sceneRect().contains(scene.content_rect())
    assert 0 < len(changes) <= 24 // 4
    kept = scene._measured_extent()
    scene._extent = None
    assert scene._measured_extent() == kept  # the widened extent is the true one
    xs = [x for x, _ in scene.positions.values()]
    ys = [y for _, y in scene.positions.values()]
    assert kept == (min(xs), min(ys), max(xs), max(ys))
    content = scene.content_rect()
    assert scene.sceneRect().bottom() > content.bottom()  # there is slack below the graph...
    view.fit_all()
    centre = view.mapFromScene(content.center())
    middle = view.viewport().rect().center()
    assert abs(centre.x() - middle.x()) <= 2 and abs(centre.y() - middle.y()) <= 2  # ...and Fit ignores it
