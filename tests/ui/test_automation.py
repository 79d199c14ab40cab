"""The real window driven through the automation surface (DESIGN.md §7.1) with QTest input on the
graph's viewport: click selects, double-click switches branch, the leaf pin dragged onto a node
switches branch, a user message's text lands in the composer."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from desktop_app.present.viewgraph import SegmentKey
from desktop_app.settings import Settings
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump
from tests.ui.conformance_cases import FIXTURES


@pytest.fixture
def window(tmp_path: Path) -> Iterator[MainWindow]:
    Settings.load().save_value(("branchSummary", "skipPrompt"), True)  # no summary question dialog
    path = tmp_path / "session.jsonl"
    shutil.copyfile(FIXTURES / "gen-0004.jsonl", path)
    opened = open_window(path, size=(1400, 900))
    opened.graph.set_use_dot(False)
    yield opened
    opened.close()
    pump(50)


def _entry_off_path(window: MainWindow, role: str) -> str:
    """An entry of ``role`` that is not the leaf (the first one on the active path)."""
    view = window.session
    return next(
        e["id"]
        for e in view.get_branch()
        if e.get("type") == "message" and e["message"].get("role") == role and e["id"] != view.leaf_id
    )


def _center(window: MainWindow, entry_id: str) -> QPoint:
    assert window.graph.reveal(entry_id)
    point = window.graph.node_center(entry_id)
    assert point is not None
    return point


def test_open_window_shows_the_file_with_its_first_layout(window: MainWindow) -> None:
    assert window.isVisible() and window.graph.layout_kind in ("tidy", "dot")
    assert window.session.session_file is not None and window.session.session_file.endswith("session.jsonl")
    assert window.agent.view is window.session
    assert window.graph.pin_center() is not None
    assert window.chat.composer_text() == ""


def test_a_click_on_a_node_selects_its_entry(window: MainWindow) -> None:
    target = _entry_off_path(window, "assistant")
    QTest.mouseClick(window.graph.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _center(window, target))
    assert window.graph.selected_entry() == target


def test_a_double_click_on_an_assistant_moves_the_leaf_there(window: MainWindow) -> None:
    target = _entry_off_path(window, "assistant")
    point = _center(window, target)
    QTest.mouseDClick(window.graph.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    for _ in range(50):
        pump(20)
        if window.session.leaf_id == target:
            break
    assert window.session.leaf_id == target
    assert window.graph.node_center(target) == window.graph.pin_center()  # the pin followed


def test_a_double_click_on_a_user_message_puts_its_text_in_the_composer(window: MainWindow) -> None:
    target = _entry_off_path(window, "user")
    entry = window.session.get_entry(target)
    assert entry is not None
    content = entry["message"]["content"]
    text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content if b.get("type") == "text")
    QTest.mouseDClick(
        window.graph.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _center(window, target)
    )
    for _ in range(50):
        pump(20)
        if window.chat.composer_text():
            break
    assert window.chat.composer_text() == text
    assert window.session.leaf_id == entry["parentId"]  # pi: the leaf goes to the user message's parent


def test_dragging_the_leaf_pin_onto_a_node_switches_branch(window: MainWindow) -> None:
    target = _entry_off_path(window, "assistant")
    target_point = _center(window, target)
    pin = window.graph.pin_center()
    assert pin is not None and pin != target_point
    viewport = window.graph.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pin)
    QTest.mouseMove(viewport, target_point)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, target_point)
    for _ in range(50):
        pump(20)
        if window.session.leaf_id == target:
            break
    assert window.session.leaf_id == target


def test_keys_on_the_canvas_walk_pi_list_unfold_and_switch_branch(window: MainWindow) -> None:
    viewport = window.graph.viewport()
    graph = window.graph.graph()
    leaf = graph.entry_of(graph.leaf_node)  # the leaf, or its nearest entry the filter shows
    pin = window.graph.pin_center()
    assert pin is not None
    QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pin)
    assert window.graph.selected_entry() == leaf
    QTest.keyClick(viewport, Qt.Key.Key_Up)  # the node above the leaf in pi's list: a folded run here
    segment = window.graph.selected_node()
    assert isinstance(segment, SegmentKey)
    QTest.keyClick(viewport, Qt.Key.Key_Down)
    assert window.graph.selected_entry() == leaf
    QTest.keyClick(viewport, Qt.Key.Key_Up)
    QTest.keyClick(viewport, Qt.Key.Key_Return)  # Enter on a fold unfolds it, its first entry selected
    assert segment not in window.graph.graph() and window.graph.selected_entry() == segment.first_id
    QTest.keyClick(viewport, Qt.Key.Key_Return)  # Enter on an entry switches branch there
    entry = window.session.get_entry(segment.first_id)
    assert entry is not None
    expected = entry["parentId"] if entry["message"]["role"] == "user" else segment.first_id
    for _ in range(50):
        pump(20)
        if window.session.leaf_id == expected:
            break
    assert window.session.leaf_id == expected
