"""The Sessions panel in the real window: lists Arbor's and pi's sessions by folder, searches all text,
opens on click, renames with one session_info entry, moves to the trash after a question, never lists
on the UI thread; the window title, recent sessions, geometry and splitter sizes."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtTest import QTest

from desktop_app.session.paths import arbor_sessions_root, pi_sessions_root
from desktop_app.settings import Settings
from desktop_app.ui.app import build_window
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.sessions_panel import SessionsPanel
from desktop_app.ui.testing import open_window
from tests.present.test_sessions import make_session


def wait_listed(panel: SessionsPanel, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while panel.listing_pending and time.monotonic() < deadline:
        QCoreApplication.processEvents()
        time.sleep(0.005)
    QCoreApplication.processEvents()
    assert not panel.listing_pending, "the listing never arrived"


def relist(panel: SessionsPanel) -> None:
    panel.refresh()
    wait_listed(panel)


@pytest.fixture
def sessions() -> dict[str, Path]:
    return {
        "trip": make_session(arbor_sessions_root(), "/home/ann/trips", ["plan Lisbon", "day two"], name="Lisbon"),
        "parser": make_session(pi_sessions_root(), "/home/ann/code", ["fix the parser"],
                               tool_text="grep found quokka_token in lexer.py"),
        "other": make_session(pi_sessions_root(), "/home/ann/code", ["write the docs"]),
    }


def window_on(path: Path, qtbot: Any) -> MainWindow:
    window = open_window(path, size=(1300, 800))
    qtbot.addWidget(window)
    wait_listed(window.shell.panel)
    return window


def test_lists_both_roots_with_names_and_counts(sessions: dict[str, Path], qtbot: Any) -> None:
    window = window_on(sessions["trip"], qtbot)
    panel = window.shell.panel
    rows = {row.path: row for row in panel.rows()}
    assert set(rows) == {str(p) for p in sessions.values()}
    assert (rows[str(sessions["trip"])].title, rows[str(sessions["trip"])].message_count) == ("Lisbon", 4)
    assert (rows[str(sessions["parser"])].title, rows[str(sessions["parser"])].message_count) == ("fix the parser", 3)
    assert rows[str(sessions["parser"])].source == "pi"
    assert rows[str(sessions["trip"])].current
    tops = [panel.tree.topLevelItem(i).text(0) for i in range(panel.tree.topLevelItemCount())]  # type: ignore[union-attr]
    assert sorted(tops) == ["code  (2)", "trips  (1)"]
    assert window.windowTitle() == "Lisbon — Arbor"


def test_search_finds_a_word_only_inside_a_tool_result(sessions: dict[str, Path], qtbot: Any) -> None:
    window = window_on(sessions["trip"], qtbot)
    panel = window.shell.panel
    QTest.keyClicks(panel.search, "quokka_token")
    deadline = time.monotonic() + 5
    while [r.path for r in panel.rows()] != [str(sessions["parser"])] and time.monotonic() < deadline:
        QCoreApplication.processEvents()
        time.sleep(0.01)
    assert [r.path for r in panel.rows()] == [str(sessions["parser"])]
    assert "matching" in panel.status.text()


def test_a_click_opens_the_session(sessions: dict[str, Path], qtbot: Any) -> None:
    window = window_on(sessions["trip"], qtbot)
    panel = window.shell.panel
    item = next(
        panel.tree.topLevelItem(i).child(j)  # type: ignore[union-attr]
        for i in range(panel.tree.topLevelItemCount())
        for j in range(panel.tree.topLevelItem(i).childCount())  # type: ignore[union-attr]
        if panel.tree.topLevelItem(i).child(j).data(0, Qt.ItemDataRole.UserRole) == str(sessions["other"])  # type: ignore[union-attr]
    )
    rect = panel.tree.visualItemRect(item)
    QTest.mouseClick(panel.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.agent.view.session_file == str(sessions["other"])
    assert window.windowTitle() == "write the docs — Arbor"
    assert window.shell.recent_paths()[0] == str(sessions["other"])


def test_rename_appends_one_session_info_entry(sessions: dict[str, Path], qtbot: Any) -> None:
    window = window_on(sessions["trip"], qtbot)
    panel = window.shell.panel
    target = sessions["parser"]  # not the open session: renamed through the agent all the same
    before = target.read_text().splitlines()
    panel.ask_text = lambda _title, _label, _current: "Parser work"
    assert panel.rename(str(target))
    after = target.read_text().splitlines()
    assert after[: len(before)] == before and len(after) == len(before) + 1
    added = json.loads(after[-1])
    assert (added["type"], added["name"]) == ("session_info", "Parser work")
    wait_listed(panel)
    assert next(r for r in panel.rows() if r.path == str(target)).title == "Parser work"
    # the open session: its title follows at once
    panel.ask_text = lambda _title, _label, _current: "Lisbon in May"
    assert panel.rename(str(sessions["trip"]))
    assert window.windowTitle() == "Lisbon in May — Arbor"
    assert json.loads(sessions["trip"].read_text().splitlines()[-1])["name"] == "Lisbon in May"


def test_rename_cancelled_writes_nothing(sessions: dict[str, Path], qtbot: Any) -> None:
    window = window_on(sessions["trip"], qtbot)
    before = sessions["other"].read_bytes()
    window.shell.panel.ask_text = lambda *_a: None
    assert not window.shell.panel.rename(str(sessions["other"]))
    assert sessions["other"].read_bytes() == before


def test_delete_asks_then_moves_to_the_trash(sessions: dict[str, Path], qtbot: Any, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    window = window_on(sessions["trip"], qtbot)
    panel = window.shell.panel
    questions: list[str] = []
    panel.confirm = lambda _title, text: questions.append(text) or False
    assert not panel.delete(str(sessions["other"]))
    assert sessions["other"].exists() and len(questions) == 1
    panel.confirm = lambda _title, _text: True
    content = sessions["other"].read_bytes()
    assert panel.delete(str(sessions["other"]))
    assert not sessions["other"].exists()
    trashed = tmp_path / "xdg" / "Trash" / "files" / sessions["other"].name
    assert trashed.read_bytes() == content
    assert (tmp_path / "xdg" / "Trash" / "info" / f"{sessions['other'].name}.trashinfo").is_file()
    wait_listed(panel)
    assert str(sessions["other"]) not in {r.path for r in panel.rows()}


def test_deleting_the_open_session_lets_go_of_it_first(sessions: dict[str, Path], qtbot: Any, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    window = window_on(sessions["trip"], qtbot)
    window.shell.panel.confirm = lambda _title, _text: True
    assert window.shell.panel.delete(str(sessions["trip"]))
    assert not sessions["trip"].exists()
    assert window.agent.view.session_file != str(sessions["trip"])
    assert window.windowTitle() == "New session — Arbor"


def test_new_asks_for_the_working_folder(sessions: dict[str, Path], qtbot: Any, tmp_path: Path) -> None:
    window = window_on(sessions["trip"], qtbot)
    folder = tmp_path / "project"
    folder.mkdir()
    asked: list[str] = []
    window.shell.panel.ask_folder = lambda start: asked.append(start) or str(folder)
    assert window.shell.panel.new_session()
    assert asked == ["/home/ann/trips"]
    assert window.agent.view.cwd == str(folder)
    assert window.agent.view.get_entries() == []


def test_listing_runs_off_the_ui_thread(sessions: dict[str, Path], qtbot: Any) -> None:
    window = window_on(sessions["trip"], qtbot)
    panel = window.shell.panel
    threads: list[threading.Thread] = []
    release = threading.Event()
    original = panel.sources.list

    def slow_list(query: str = "") -> Any:
        threads.append(threading.current_thread())
        release.wait(10)  # a listing that takes as long as we like
        return original(query)

    panel.sources.list = slow_list  # type: ignore[method-assign]
    panel.refresh()
    # refresh returned while the listing is still blocked: the UI thread is free
    QCoreApplication.processEvents()
    assert panel.listing_pending
    release.set()
    wait_listed(panel)
    assert threads and all(t is not threading.main_thread() for t in threads)


def test_geometry_splitters_and_panel_state_are_restored(sessions: dict[str, Path], qtbot: Any) -> None:
    window = window_on(sessions["trip"], qtbot)
    window.resize(701, 502)  # small: restoreGeometry keeps a window on the (800x600 offscreen) screen
    QCoreApplication.processEvents()
    left = (window.size().width(), window.size().height())  # at least the window's minimum width
    window.shell.splitter.setSizes([150, 300, 200])
    sizes = window.shell.splitter.sizes()
    window.close()

    again = build_window(str(sessions["trip"]), Settings.load())  # as `arbor FILE`, no size given
    qtbot.addWidget(again)
    again.show()
    QCoreApplication.processEvents()
    # Restored, not the default size. Within a few pixels: at this minimum size the side column's
    # wrapped legend can settle 2 px taller once the restored splitter sizes are applied.
    assert again.size().width() == left[0] and abs(again.size().height() - left[1]) <= 4
    assert left != (1500, 950)
    assert again.shell.splitter.sizes() == sizes
    assert again.shell.panel.isVisible()
    assert again.shell.toggle_panel.shortcut().toString() == "Ctrl+Shift+E"
    again.shell.toggle_panel.trigger()
    assert not again.shell.panel.isVisible()
    again.close()

    third = build_window(str(sessions["trip"]), Settings.load())
    qtbot.addWidget(third)
    third.show()
    assert not third.shell.panel.isVisible() and not third.shell.toggle_panel.isChecked()
    third.shell.toggle_panel.trigger()
    assert third.shell.panel.isVisible()


def test_f2_and_delete_on_the_list_act_on_the_selected_session(sessions: dict[str, Path], qtbot: Any, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    window = window_on(sessions["trip"], qtbot)
    panel = window.shell.panel
    window.activateWindow()
    for i in range(panel.tree.topLevelItemCount()):
        top = panel.tree.topLevelItem(i)
        assert top is not None
        for j in range(top.childCount()):
            child = top.child(j)
            if child is not None and child.data(0, Qt.ItemDataRole.UserRole) == str(sessions["other"]):
                panel.tree.setCurrentItem(child)
    panel.tree.setFocus()
    asked: list[str] = []
    panel.ask_text = lambda _t, _l, _c: asked.append("rename") or None
    labelled: list[str] = []
    monkeypatch.setattr(window, "label_selected", lambda: labelled.append("label"))
    QTest.keyClick(panel.tree, Qt.Key.Key_F2)
    assert asked == ["rename"] and labelled == []
    panel.confirm = lambda _t, _x: True
    QTest.keyClick(panel.tree, Qt.Key.Key_Delete)
    assert not sessions["other"].exists()


def test_a_narrow_window_collapses_the_panel_before_the_graph_and_the_toggle_brings_it_back(
        sessions: dict[str, Path], qtbot: Any) -> None:
    window = window_on(sessions["trip"], qtbot)
    shell = window.shell
    assert shell.panel_shown() and shell.splitter.sizes()[0] > 100
    window.resize(900, 600)
    deadline = time.monotonic() + 2
    while shell.splitter.sizes()[0] and time.monotonic() < deadline:
        QCoreApplication.processEvents()
    assert shell.splitter.sizes()[0] == 0 and not shell.panel_shown()
    assert window.graph.width() > shell.splitter.sizes()[0]
    window.resize(1500, 900)
    QCoreApplication.processEvents()
    shell.toggle_panel.trigger()  # "show": it was collapsed, so it comes back with width
    assert shell.panel_shown() and shell.toggle_panel.isChecked()
    shell.toggle_panel.trigger()
    assert not shell.panel_shown() and not shell.toggle_panel.isChecked()
