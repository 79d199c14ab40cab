"""Drag to fork onto the sessions list (issue 9 Build 2): a node carried out of the graph and let go
over the sessions panel is forked (a user message: pi's /fork) or cloned (anything else: /clone up to
it) into a new session, which the window switches to and the list shows. The drag is the same one as
onto the toolbar's Fork: QTest mouse events on the graph's viewport (which holds the mouse grab while
a node is carried), let go over the panel."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from desktop_app.agent.startup import SAMPLE_SESSION
from desktop_app.session.paths import arbor_sessions_root
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import pump
from tests.ui.test_sessions_panel import wait_listed
from tests.ui.test_steering import CASCAIS_A, CASCAIS_Q, _open, _point, wait_until

FOLDER = "--home-you-trips--"


@pytest.fixture
def window() -> Iterator[MainWindow]:
    folder = arbor_sessions_root() / FOLDER
    folder.mkdir(parents=True)
    path = folder / "2026-01-01T00-00-00-000Z_sample.jsonl"
    shutil.copyfile(SAMPLE_SESSION, path)
    opened = _open(path)
    wait_listed(opened.shell.panel)
    yield opened
    opened.close()
    pump(50)


def _lines(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def _drag_onto_panel(window: MainWindow, entry_id: str) -> None:
    panel = window.shell.panel
    viewport = window.graph.viewport()
    start = _point(window, entry_id)
    drop = viewport.mapFromGlobal(panel.tree.viewport().mapToGlobal(panel.tree.viewport().rect().center()))
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, start + QPoint(30, 30))
    assert "Release to fork" not in panel.status.text()
    QTest.mouseMove(viewport, drop)
    assert "Release to fork" in panel.status.text()  # the panel lights up under the carried node
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, drop)
    assert "Release to fork" not in panel.status.text()


@pytest.mark.parametrize(("entry_id", "how"), [(CASCAIS_A, "clone"), (CASCAIS_Q, "fork")])
def test_a_node_dropped_on_the_sessions_list_forks_there(window: MainWindow, entry_id: str, how: str) -> None:
    source = str(window.session.session_file)
    original = _lines(source)
    source_text = Path(source).read_bytes()
    path_ids = [e["id"] for e in window.session.get_branch(entry_id) if e["type"] != "label"]
    _drag_onto_panel(window, entry_id)
    assert wait_until(lambda: window.session.session_file != source)  # the window switched to the new session
    new_file = str(window.session.session_file)
    assert Path(new_file).parent == Path(source).parent and Path(new_file).is_file()
    written = _lines(new_file)
    assert written[0]["type"] == "session" and written[0]["parentSession"] == source
    kept = [e["id"] for e in written[1:] if e["type"] != "label"]  # labels are re-created after the path
    active = [e["id"] for e in window.session.get_branch() if e["type"] != "label"]
    if how == "clone":  # anything but a user message: cloned up to and including it
        assert kept == active == path_ids
    else:  # a user message: forked before it, its text back in the composer
        assert kept == active == path_ids[:-1]
        user_text = next(e for e in original if e["id"] == entry_id)["message"]["content"]
        assert window.chat.composer_text() == (user_text if isinstance(user_text, str) else user_text[0]["text"])
    assert Path(source).read_bytes() == source_text  # the source session is untouched
    panel = window.shell.panel
    assert wait_until(lambda: any(r.path == new_file and r.current for r in panel.rows()))


def test_a_node_let_go_elsewhere_forks_nothing(window: MainWindow) -> None:
    source = window.session.session_file
    viewport = window.graph.viewport()
    start = _point(window, CASCAIS_A)
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, start + QPoint(30, 30))
    QTest.mouseMove(viewport, start + QPoint(60, 40))
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start + QPoint(60, 40))
    pump(50)
    assert window.session.session_file == source
    assert len(window.shell.panel.rows()) == 1


def test_a_hidden_sessions_panel_is_no_drop_target(window: MainWindow) -> None:
    panel = window.shell.panel
    centre = panel.tree.viewport().mapToGlobal(panel.tree.viewport().rect().center())
    assert window.fork_drop_target(centre) is panel
    window.shell.set_panel_visible(False)
    assert window.fork_drop_target(centre) is None


def _splitter_sizes(window: MainWindow) -> list[list[int]]:
    from PySide6.QtWidgets import QSplitter

    return [s.sizes() for s in window.findChildren(QSplitter) if s.isVisible()]


def test_the_panels_keep_their_widths_while_a_node_is_carried(window: MainWindow) -> None:
    """Issue 22 item 10: carrying a node over the sessions panel lit it up with a longer status
    line, and the left panels jumped wider under the mouse. Every splitter keeps its sizes through
    the whole drag (let go elsewhere: nothing is forked)."""
    window.resize(1280, 800)
    pump(50)
    panel = window.shell.panel
    viewport = window.graph.viewport()
    start = _point(window, CASCAIS_A)
    over = viewport.mapFromGlobal(panel.tree.viewport().mapToGlobal(panel.tree.viewport().rect().center()))
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    pump(20)  # the press selects the node (the reader opens beside the chat): sizes from here on
    narrowest = panel.minimumSizeHint().width()
    before = _splitter_sizes(window)
    assert before and any(len(sizes) > 1 for sizes in before)
    QTest.mouseMove(viewport, start + QPoint(30, 30))
    pump(20)
    assert _splitter_sizes(window) == before
    QTest.mouseMove(viewport, over)
    pump(20)
    assert "Release to fork" in panel.status.text()
    assert _splitter_sizes(window) == before  # lit up, not wider
    assert panel.minimumSizeHint().width() <= narrowest  # the hint wraps: it asks for no more width
    status = panel.status
    assert status.width() <= panel.width() and status.height() >= status.heightForWidth(status.width())  # all shown
    QTest.mouseMove(viewport, start + QPoint(60, 40))
    pump(20)
    assert _splitter_sizes(window) == before
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start + QPoint(60, 40))
    pump(20)
    assert _splitter_sizes(window) == before
