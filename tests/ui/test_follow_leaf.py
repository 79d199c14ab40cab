"""The canvas follows the chat (issue 22 item 1): while following, every new entry is in view and
never under the minimap; a user's pan stops following until Ctrl+L or "Jump to leaf"; a leaf move
from anywhere brings the new leaf into view. Driven as a person would, against the fake Anthropic
server."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from desktop_app.session.entries import make_header
from desktop_app.settings import Settings
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump, release_loop
from tests.agent.test_agent_session import anthropic
from tests.fakes import (
    FakeAnthropicServer,
    fake_anthropic,  # noqa: F401  (the fixture)
)
from tests.fakes import anthropic_server as fa
from tests.present.builders import msg

HISTORY = 24  #: turns already in the session: its tree is taller than the canvas
SIDE = "y2"  #: the newest entry of a branch abandoned near the root


def history(path: Path, cwd: Path) -> None:
    """Every question after the first was asked once before and abandoned (so nothing folds: a
    branch point is never folded), the one near the root with an answer."""
    lines: list[dict[str, Any]] = [make_header("follow", str(cwd), "2025-01-01T00:00:00.000Z")]
    parent: str | None = None
    for i in range(HISTORY):
        if parent is not None:
            lines.append(msg(f"x{i}", parent, "user", f"an abandoned question {i}"))
            lines.append(msg(f"y{i}", f"x{i}", "assistant", f"its answer {i}"))
        lines.append(msg(f"u{i}", parent, "user", f"question {i}"))
        lines.append(msg(f"a{i}", f"u{i}", "assistant", f"answer {i}"))
        parent = f"a{i}"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def wait_until(condition: Callable[[], Any], timeout_ms: int = 8000) -> bool:
    deadline = time.monotonic() + timeout_ms / 1000
    while not condition() and time.monotonic() < deadline:
        pump(20)
    return bool(condition())


async def settle(window: MainWindow) -> None:
    while window._tasks:
        await asyncio.gather(*list(window._tasks), return_exceptions=True)
    for _ in range(400):  # the dot layout (a child process) and the minimap's placement
        await asyncio.sleep(0.01)
        if not window.graph.layout_busy:
            break
    await asyncio.sleep(0.05)


def leaf_in_view_and_clear(window: MainWindow) -> bool:
    pin = window.graph.pin_center()
    return (
        pin is not None
        and window.graph.viewport().rect().contains(pin)
        and not window.graph.minimap_rect().contains(pin)
    )


def describe(window: MainWindow) -> str:
    return f"pin {window.graph.pin_center()}, viewport {window.graph.viewport().rect()}, minimap {window.graph.minimap_rect()}"


@pytest.fixture
def window(tmp_path: Path) -> Iterator[MainWindow]:
    Settings.load().save_value(("branchSummary", "skipPrompt"), True)
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "README.md").write_text("# notes\n" + "a line\n" * 30)
    path = tmp_path / "follow.jsonl"
    history(path, tmp_path / "work")
    opened = open_window(path, size=(1600, 1000))
    release_loop()  # the async tests below run on pytest-asyncio's loop (the window's tasks follow it)
    yield opened
    opened.close()
    pump(50)


@pytest.mark.asyncio
async def test_five_turns_keep_the_leaf_in_view_and_clear_of_the_minimap(
    window: MainWindow, fake_anthropic: FakeAnthropicServer  # noqa: F811
) -> None:
    window.agent.set_model(anthropic(fake_anthropic.base_url))
    reply = "\n".join(f"Line {n} of a long answer." for n in range(40))
    for turn in range(5):
        fake_anthropic.enqueue(fa.tool_use("read", {"path": "README.md"}, tool_id=f"toolu_{turn:02d}"), fa.text(reply))
        window.chat.composer.setFocus()
        QTest.keyClicks(window.chat.composer, f"turn {turn}: read the notes")
        QTest.keyClick(window.chat.composer, Qt.Key.Key_Return)
        await settle(window)
        assert window.session.get_entries()[-1]["message"]["content"][0]["text"] == reply
        assert window.graph.following
        assert leaf_in_view_and_clear(window), f"after turn {turn}: {describe(window)}"
        assert window.graph.minimap_rect().isEmpty() or window.graph.minimap_widget().isVisible()


def _pan_away(window: MainWindow) -> None:
    """Drag the canvas by hand, from empty canvas, far enough to lose the leaf."""
    viewport = window.graph.viewport()
    # a spot of empty canvas on the left (a press on a node would select or carry it, not pan)
    x = next(x for x in range(12, viewport.width() // 2, 8) if window.graph.node_at(QPoint(x, viewport.height() // 2)) is None)
    start = QPoint(x, viewport.height() // 2)
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for step in range(1, 11):
        QTest.mouseMove(viewport, QPoint(x, start.y() + step * 60))
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(x, start.y() + 600))


def test_a_pan_stops_following_and_ctrl_l_or_the_button_resume_it(window: MainWindow) -> None:
    graph = window.graph
    assert graph.following and not graph.jump_button().isVisible()
    _pan_away(window)
    assert not graph.following
    assert graph.jump_button().isVisible()
    pin_before = graph.pin_center()
    window.agent.session.append_custom_entry("note", {"n": 1})  # a new entry while not following
    pump(50)
    assert graph.pin_center() == pin_before  # the view stayed where the user put it
    QTest.mouseClick(graph.jump_button(), Qt.MouseButton.LeftButton)
    assert graph.following and not graph.jump_button().isVisible()
    assert leaf_in_view_and_clear(window), describe(window)
    _pan_away(window)
    assert not graph.following and not leaf_in_view_and_clear(window)
    QTest.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert graph.following
    assert leaf_in_view_and_clear(window), describe(window)


def test_a_wheel_scroll_stops_following(window: MainWindow) -> None:
    graph = window.graph
    viewport = graph.viewport()
    event = QWheelEvent(
        QPointF(100, 100), QPointF(viewport.mapToGlobal(QPoint(100, 100))), QPoint(0, 0), QPoint(0, 240),
        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False,
    )
    QApplication.sendEvent(viewport, event)
    assert not graph.following


def test_a_far_switch_from_the_api_brings_the_leaf_into_view(window: MainWindow) -> None:
    graph = window.graph
    assert leaf_in_view_and_clear(window)
    assert window.agent.restore_leaf(SIDE)  # the API: window.agent / the session's branch
    assert wait_until(lambda: graph.pin_center() is not None and leaf_in_view_and_clear(window)), describe(window)
    _pan_away(window)
    window.session.branch(f"a{HISTORY - 1}")  # the session manager itself, after the user panned away
    assert wait_until(lambda: leaf_in_view_and_clear(window)), describe(window)
    assert graph.following


def test_a_far_switch_from_the_sibling_arrows_brings_the_leaf_into_view(window: MainWindow) -> None:
    window.chat.sibling_requested.emit(SIDE)  # what the arrows' ‹ emits
    assert wait_until(lambda: window.session.leaf_id == SIDE)
    assert wait_until(lambda: leaf_in_view_and_clear(window)), describe(window)


@pytest.mark.asyncio
async def test_a_regenerated_reply_comes_into_view_whole(
    window: MainWindow, fake_anthropic: FakeAnthropicServer  # noqa: F811
) -> None:
    """A regenerated reply is a sibling placed right of the old one: it was cut off at the edge."""
    window.agent.set_model(anthropic(fake_anthropic.base_url))
    fake_anthropic.enqueue(fa.text("the first answer"), fa.text("another answer"))
    window.chat.composer.setFocus()
    QTest.keyClicks(window.chat.composer, "a question")
    QTest.keyClick(window.chat.composer, Qt.Key.Key_Return)
    await settle(window)
    first = window.session.leaf_id
    assert first is not None
    _pan_away(window)
    assert not window.graph.following
    window.run_task(window.agent.regenerate(first), "Regenerating")
    await settle(window)
    graph = window.graph
    leaf = window.session.leaf_id
    assert leaf != first and window.session.get_entry(leaf)["parentId"] == window.session.get_entry(first)["parentId"]
    assert graph.following  # the user asked for it: a leaf move
    node = graph.graph().leaf_node
    assert node is not None
    box = graph.mapFromScene(graph.graph_scene().node_rect(node)).boundingRect()
    assert graph.viewport().rect().contains(box), (box, graph.viewport().rect())
    assert not graph.minimap_rect().intersects(box)


@pytest.mark.asyncio
async def test_a_branch_summary_written_far_away_comes_into_view(window: MainWindow) -> None:
    """Leaving with a summary appends the summary at the target (no leaf move before it)."""
    _pan_away(window)
    assert not window.graph.following
    window.run_task(window.agent.navigate_tree(SIDE, summarize=True), "Switching branch")
    await settle(window)
    leaf = window.session.get_entry(window.session.leaf_id or "")
    assert leaf is not None and leaf["type"] == "branch_summary" and leaf["parentId"] == SIDE
    assert window.graph.following
    assert leaf_in_view_and_clear(window), describe(window)
