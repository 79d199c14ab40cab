"""Export… in the window, by hand: a click on the toolbar button, the save dialog answered as a
person answers it, and the page written off the UI thread from the session on screen."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from desktop_app.ui.export_action import MARKDOWN_FILTER
from desktop_app.ui.testing import open_window, pump

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "dense-0006.jsonl"


def _wait_for(window: Any, done: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        pump(20)
    assert done(), window.statusBar().currentMessage()


def test_export_from_the_toolbar_writes_the_page_and_then_markdown(tmp_path: Path, qtbot: Any) -> None:
    session = tmp_path / "real.jsonl"
    shutil.copyfile(REAL, session)
    before = session.read_bytes()
    window = open_window(session, size=(1280, 800))
    qtbot.addWidget(window)
    window.graph.set_use_dot(False)
    exporter = window.exporter
    button = window.toolbar.widgetForAction(exporter.action)
    assert button is not None and button.isVisible()
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = exporter.dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.selectedFiles()[0].endswith("real.html")  # the session's name, as a web page
    page = tmp_path / "out" / "real.html"
    page.parent.mkdir()
    dialog.setDirectory(str(page.parent))
    dialog.selectFile(page.name)
    dialog.accept()
    _wait_for(window, lambda: exporter.last is not None)
    assert exporter.dialog is None and exporter.failure is None
    text = page.read_text()
    assert "<svg" in text and "Chat of the active path" in text and window.session.leaf_id is not None
    assert f'id="e-{window.session.leaf_id}"' in text  # exported at the leaf on screen
    assert "Exported to" in window.statusBar().currentMessage()

    QTest.mouseClick(button, Qt.MouseButton.LeftButton)  # again, as Markdown
    dialog = exporter.dialog
    assert dialog is not None
    dialog.selectNameFilter(MARKDOWN_FILTER)
    dialog.filterSelected.emit(MARKDOWN_FILTER)
    dialog.setDirectory(str(page.parent))
    dialog.selectFile("notes")
    first = exporter.last
    dialog.accept()
    _wait_for(window, lambda: exporter.last is not first)
    markdown = page.parent / "notes.md"
    assert markdown.read_text().startswith("# ") and exporter.last is not None and exporter.last.markdown_bytes > 0
    assert session.read_bytes() == before  # the session file is only read
    window.close()
    pump(50)


def test_an_unexpected_export_error_is_said_not_left_at_exporting(tmp_path: Path, qtbot: Any, monkeypatch: Any) -> None:
    """A bug in the export (any exception, not only a file that cannot be written) ends in words in
    the status bar; before, the bar said "Exporting to …" for ever and the error went nowhere."""
    from PySide6.QtWidgets import QMainWindow

    import desktop_app.export as export_package
    from desktop_app.session import SessionManager
    from desktop_app.ui.export_action import SessionExport
    from tests.export.test_page import _session

    window = QMainWindow()
    qtbot.addWidget(window)
    view = SessionManager.open_snapshot(_session(tmp_path))
    exporter = SessionExport(window, lambda: view)

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("a bug in the page")

    monkeypatch.setattr(export_package, "export_file", broken)
    pump(1)  # the app's Qt event loop is the running one, as in the window
    exporter.export_to(str(tmp_path / "p.html"))
    _wait_for(window, lambda: exporter.failure is not None, timeout=5.0)
    assert "a bug in the page" in (exporter.failure or "")
    assert "Could not export" in window.statusBar().currentMessage()
