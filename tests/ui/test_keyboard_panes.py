"""Keyboard between the panes (issue 22 item 12): Tab goes toolbar → side column → canvas → chat →
composer; F6 / Shift+F6 cycle the panes; hidden widgets never take focus."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from desktop_app.agent.startup import SAMPLE_SESSION
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump

ORDER = ["toolbar", "side", "canvas", "chat", "composer"]


@pytest.fixture
def window(tmp_path: Path) -> Iterator[MainWindow]:
    path = tmp_path / "sample.jsonl"
    shutil.copyfile(SAMPLE_SESSION, path)
    opened = open_window(path, size=(1400, 900))
    opened.activateWindow()
    pump(50)
    yield opened
    opened.close()
    pump(50)


def _pane(window: MainWindow) -> str | None:
    index = window.panes.current()
    return window.panes.panes[index].name if index is not None else None


def _tab_walk(window: MainWindow, presses: int = 40) -> list[str]:
    window.search_box.setFocus(Qt.FocusReason.OtherFocusReason)
    pump(10)
    seen: list[str] = []
    for _ in range(presses):
        focused = QApplication.focusWidget()
        assert focused is not None and focused.isVisible(), focused  # never a hidden widget
        pane = _pane(window)
        if pane is not None and (not seen or seen[-1] != pane):
            seen.append(pane)
        if pane == "composer":
            break
        QTest.keyClick(focused, Qt.Key.Key_Tab)
        pump(5)
    return seen


@pytest.mark.parametrize("tab", ["Sessions", "Outline"])
def test_tab_walks_the_panes_in_reading_order(window: MainWindow, tab: str) -> None:
    side = window.sidebar
    side.setCurrentIndex([side.tabText(i) for i in range(side.count())].index(tab))
    assert _tab_walk(window) == ORDER


def test_f6_and_shift_f6_cycle_the_panes(window: MainWindow) -> None:
    window.search_box.setFocus(Qt.FocusReason.OtherFocusReason)
    pump(10)
    visited = []
    for _ in range(len(ORDER)):
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_F6)
        pump(5)
        visited.append(_pane(window))
    assert visited == ORDER[1:] + ORDER[:1]
    backwards = []
    for _ in range(len(ORDER)):
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_F6, Qt.KeyboardModifier.ShiftModifier)
        pump(5)
        backwards.append(_pane(window))
    assert backwards == list(reversed(ORDER))


def test_f6_skips_a_pane_collapsed_to_no_width(window: MainWindow) -> None:
    sizes = window.shell.splitter.sizes()
    window.shell.splitter.setSizes([0, sizes[0] + sizes[1], sizes[2]])  # the side column collapsed
    pump(20)
    window.search_box.setFocus(Qt.FocusReason.OtherFocusReason)
    QTest.keyClick(window.search_box, Qt.Key.Key_F6)
    pump(5)
    assert _pane(window) == "canvas"
