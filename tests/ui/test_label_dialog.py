"""Label… (node menu and toolbar, F2) asks without blocking: a window-modal dialog opened with
``open()``, so asyncio work and timers go on while it is open; OK appends one label entry, Cancel
nothing (issue 9)."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox

from desktop_app.agent.startup import SAMPLE_SESSION
from desktop_app.ui.dialogs import LabelDialog
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import pump
from tests.ui.test_steering import CASCAIS_A, _click, _menu_by_keyboard, _open, wait_until


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    path = tmp_path / "sample.jsonl"
    shutil.copyfile(SAMPLE_SESSION, path)
    return path


RESCUED: list[str] = []
"""Titles of blocking dialogs the guard had to close (old code); empty when nothing blocked."""


@pytest.fixture
def window(sample: Path) -> Iterator[MainWindow]:
    opened = _open(sample)
    RESCUED.clear()

    def close_blocking_dialog() -> None:
        """Old code blocked in QInputDialog's own event loop: close it so the test fails, not hangs."""
        modal = QApplication.activeModalWidget()
        if isinstance(modal, QDialog) and not isinstance(modal, LabelDialog):
            RESCUED.append(modal.windowTitle())
            modal.reject()

    guard = QTimer()
    guard.setInterval(2000)
    guard.timeout.connect(close_blocking_dialog)
    guard.start()
    yield opened
    guard.stop()
    opened.close()
    pump(50)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _label_from_menu(window: MainWindow) -> LabelDialog:
    menu = _menu_by_keyboard(window, CASCAIS_A, shift_f10=True)
    QTest.keyClick(menu, "l")  # &Label…
    assert wait_until(lambda: window.findChild(LabelDialog, "labelDialog") is not None)
    assert RESCUED == []  # the menu action returned without a nested event loop
    dialog = window.findChild(LabelDialog, "labelDialog")
    assert isinstance(dialog, LabelDialog)
    assert dialog.isVisible() and dialog.windowModality() == Qt.WindowModality.WindowModal
    return dialog


def test_label_from_the_menu_appends_one_label_entry_and_asyncio_runs_meanwhile(window: MainWindow, sample: Path) -> None:
    before = _lines(sample)
    ticks: list[int] = []

    async def ticker() -> None:
        while True:
            ticks.append(len(ticks))
            await asyncio.sleep(0.01)

    dialog = _label_from_menu(window)
    task = asyncio.ensure_future(ticker())
    try:
        assert wait_until(lambda: len(ticks) >= 3)  # the agent's loop keeps running under the open dialog
    finally:
        task.cancel()
        pump(20)
    assert dialog.field.text() == (window.session.get_label(CASCAIS_A) or "")
    dialog.field.setText("Cascais option")
    QTest.keyClick(dialog.field, Qt.Key.Key_Return)
    after = _lines(sample)
    assert after[: len(before)] == before and len(after) == len(before) + 1
    added = after[-1]
    assert (added["type"], added["targetId"], added["label"]) == ("label", CASCAIS_A, "Cascais option")
    assert window.session.get_label(CASCAIS_A) == "Cascais option"


def test_cancelling_the_label_writes_nothing(window: MainWindow, sample: Path) -> None:
    before = sample.read_bytes()
    dialog = _label_from_menu(window)
    dialog.field.setText("never written")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    pump(50)
    assert sample.read_bytes() == before
    assert window.session.get_label(CASCAIS_A) is None
    assert window.findChild(LabelDialog, "labelDialog") is None or not dialog.isVisible()


def test_the_toolbars_label_uses_the_same_question(window: MainWindow, sample: Path) -> None:
    _click(window, CASCAIS_A)
    before = len(_lines(sample))
    window.label_selected()  # F2 / the toolbar's Label…: returns at once
    assert RESCUED == []
    dialog = window.findChild(LabelDialog, "labelDialog")
    assert isinstance(dialog, LabelDialog) and dialog.isVisible()
    dialog.field.setText("")  # empty clears it (an entry without a label is still appended, as pi does)
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    after = _lines(sample)
    assert len(after) == before + 1 and after[-1]["type"] == "label" and after[-1]["targetId"] == CASCAIS_A
