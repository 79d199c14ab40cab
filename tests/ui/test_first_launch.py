"""First launch (issue 22 item 3): ``arbor`` with no file in a fresh home opens the sample quietly.

No dialog comes before or over the window (the sample's working folder, ``/home/you/trips``, does
not exist here, which used to open a folder picker at once); the sample is on the canvas and in the
chat. A missing working folder is explained in the chat only when a tool call needs it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QMessageBox

from desktop_app.agent.startup import SAMPLE_CWD
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window


def visible_dialogs() -> list[str]:
    return [
        f"{type(w).__name__}: {w.windowTitle()}"
        for w in QApplication.topLevelWidgets()
        if isinstance(w, QDialog | QFileDialog | QMessageBox) and w.isVisible()
    ]


@pytest.fixture
def fresh_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ARBOR_HOME", str(tmp_path / "arbor"))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)


@pytest.mark.asyncio
async def test_first_launch_shows_the_sample_with_no_dialog(fresh_home: None, qtbot: Any) -> None:
    window = open_window(None, size=(1400, 900))
    qtbot.addWidget(window)
    assert not Path(SAMPLE_CWD).is_dir()  # the case that used to ask for a folder at once
    await asyncio.sleep(0.3)  # whatever the window would do once it is up has had its turn
    assert visible_dialogs() == []
    assert window.agent.view.get_session_name() == "Lisbon trip (sample)"
    entries = window.agent.view.get_entries()
    assert len(entries) >= 10
    assert window.graph.layout_kind != "none"
    ids = [str(e["id"]) for e in entries if e.get("type") == "message"]
    on_canvas = [i for i in ids if window.graph.node_center(i) is not None]
    assert len(on_canvas) >= 5
    assert window.chat.model.rowCount() >= 5
    assert not window.folder_banner.isVisible()  # nothing needs the folder yet
    window.close()


async def _send(window: MainWindow, text: str) -> None:
    before = len(window.agent.view.get_entries())
    window.chat.send_requested.emit(text)
    for _ in range(500):
        await asyncio.sleep(0.01)
        if len(window.agent.view.get_entries()) > before and not window.agent.busy and not window._tasks:
            return


@pytest.mark.asyncio
async def test_a_tool_call_in_a_missing_folder_is_explained_inline(fresh_home: None, qtbot: Any) -> None:
    window = open_window(None, size=(1400, 900))
    qtbot.addWidget(window)
    await _send(window, "hello")
    assert not window.folder_banner.isVisible()  # a reply needs no folder
    assert "does not exist" not in window.statusBar().currentMessage()  # nor a word about it
    await _send(window, "read notes.txt")
    assert visible_dialogs() == []  # a banner, not a dialog
    banner = window.folder_banner
    assert banner.isVisible() and SAMPLE_CWD in banner.text()
    assert "Choose folder…" in [b.text() for b in banner.buttons()]
    window.close()
