"""The find bar in the real window: "2 of 4", Enter / Shift+Enter / F3, a hit inside a fold opens
it, Esc clears the search although the window binds Esc to Stop (issue 9.8)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from desktop_app.compaction.tokens import estimate_context_tokens
from desktop_app.present.search import find_text
from desktop_app.present.viewgraph import SegmentKey
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump
from tests.ui.conformance_cases import FIXTURES


@pytest.fixture
def window(tmp_path: Path) -> Iterator[MainWindow]:
    path = tmp_path / "session.jsonl"
    shutil.copyfile(FIXTURES / "gen-0031.jsonl", path)
    opened = open_window(path, size=(1400, 900))
    opened.graph.set_use_dot(False)
    if opened.folder_dialog is not None:  # the case's cwd does not exist here: keep the old folder
        opened.folder_dialog.reject()
        pump(20)
    opened.activateWindow()
    assert QTest.qWaitForWindowActive(opened)  # shortcuts (Ctrl+F, F3) go to the active window
    yield opened
    opened.close()
    pump(50)


def _type(window: MainWindow, text: str) -> None:
    field = window.find_bar.field
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert field.hasFocus()
    QTest.keyClicks(field, text)


def test_count_next_previous_and_f3(window: MainWindow) -> None:
    graph = window.graph
    _type(window, "compaction")
    hits = graph.search_hits()
    total = len(hits)
    assert total >= 3
    status = window.find_bar.status
    assert status.text() == f"{total} matches"
    field = window.find_bar.field
    QTest.keyClick(field, Qt.Key.Key_Return)
    assert status.text() == f"1 of {total}"  # the count stays after Enter
    assert graph.selected_entry() == hits[0]
    QTest.keyClick(field, Qt.Key.Key_Return)
    assert status.text() == f"2 of {total}" and graph.selected_entry() == hits[1]
    QTest.keyClick(field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert status.text() == f"1 of {total}"
    QTest.keyClick(field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert status.text() == f"{total} of {total}"  # wraps
    graph.setFocus()
    QTest.keyClick(graph, Qt.Key.Key_F3)
    assert status.text() == f"1 of {total}"
    QTest.keyClick(graph, Qt.Key.Key_F3, Qt.KeyboardModifier.ShiftModifier)
    assert status.text() == f"{total} of {total}"
    QTest.keyClicks(field, "zzzz-nothing")
    assert status.text() == "No matches"


def test_a_hit_inside_a_fold_opens_it(window: MainWindow) -> None:
    graph = window.graph
    model = graph.model
    assert model is not None
    segment = next(n for n in model.graph if isinstance(n, SegmentKey))
    inner = model.graph.nodes[segment].ids[-1]
    entry = window.session.get_entry(inner)
    assert entry is not None
    words = [w for w in find_text(entry).split() if len(w) > 6 and w.isalpha()]
    assert words
    _type(window, " ".join(words[:3]))
    hits = graph.search_hits()
    assert inner in hits
    for _ in range(len(hits)):
        if graph.next_match() == inner:
            break
    assert graph.selected_entry() == inner
    assert model.graph.node_of.get(inner) == inner  # its own node now: the fold opened
    point = graph.node_center(inner)
    assert point is not None and graph.viewport().rect().contains(point)


def test_escape_in_the_find_bar_clears_it_even_with_stop_on_esc(window: MainWindow) -> None:
    graph = window.graph
    stopped: list[bool] = []
    window.agent.abort = lambda *a, **k: stopped.append(True)  # type: ignore[method-assign]
    _type(window, "compaction")
    assert graph.matches()
    QTest.keyClick(window.find_bar.field, Qt.Key.Key_Escape)
    assert window.find_bar.field.text() == ""
    assert graph.matches() == [] and window.find_bar.status.text() == ""
    assert graph.hasFocus()
    _type(window, "compaction")
    graph.setFocus()
    QTest.keyClick(graph, Qt.Key.Key_Escape)  # on the canvas too
    assert graph.matches() == []
    assert stopped == []


def test_the_outline_jumps_to_the_node(window: MainWindow) -> None:
    panel = window.outline
    panel.refresh()
    graph = window.graph
    panel.filter.setCurrentText("Compactions")
    assert panel.list.model().rowCount() >= 3 and all(i.role == "compaction" for i in panel.items)
    panel.filter.setCurrentText("Everything")
    leaves = [i for i, item in enumerate(panel.items) if item.role == "leaf"]
    assert leaves
    row = leaves[-1]
    target = panel.items[row].entry_id
    index = panel.list.model().index(row, 0)
    panel.list.scrollTo(index)
    rect = panel.list.visualRect(index)
    QTest.mouseClick(panel.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert graph.selected_entry() == target
    point = graph.node_center(target)
    assert point is not None and graph.viewport().rect().contains(point)


@pytest.mark.parametrize("case", ["gen-0031", "gen-0004", "before-compaction", "gen-0013"])
def test_the_context_lens_totals_are_pis_estimate(case: str, tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copyfile(FIXTURES / f"{case}.jsonl", path)
    opened = open_window(path, size=(1400, 900))
    try:
        if opened.folder_dialog is not None:
            opened.folder_dialog.reject()
        opened.sidebar.show_lens()
        pump(50)
        lens_panel = opened.lens
        session = opened.session
        messages = session.build_session_context(session.leaf_id).messages
        expected = estimate_context_tokens(messages).tokens
        assert lens_panel.lens.total == expected
        assert f"{round(expected):,} tokens" in lens_panel.total.text()
        assert lens_panel.table.topLevelItemCount() == len(messages)
        # the heat strip covers the context's entries on the graph
        assert opened.graph._heat.tokens == lens_panel.lens.by_entry() and opened.graph._heat.tokens
        # a selected entry: its own context
        branch = session.get_branch()
        anchor = opened.graph.graph().anchor
        middle = next(
            e["id"] for e in branch[len(branch) // 2 :] if e.get("type") == "message" and anchor.get(e["id"]) == e["id"]
        )
        assert opened.graph.reveal(middle)
        opened.graph.select(middle, notify=True)
        assert lens_panel.lens.entry_id == middle
        assert lens_panel.lens.total == estimate_context_tokens(session.build_session_context(middle).messages).tokens
        assert lens_panel.leaf_button.isEnabled()
        lens_panel.leaf_button.click()
        assert lens_panel.lens.entry_id == session.leaf_id
        opened.sidebar.setCurrentIndex(0)
        assert opened.graph._heat.tokens is None
    finally:
        opened.close()
        pump(50)
