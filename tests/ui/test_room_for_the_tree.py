"""Room for the tree (issue 22 item 13): one tabbed side column, the canvas and the chat wide enough."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump


@pytest.fixture(params=[(1600, 1000), (1280, 800)])
def window(request: pytest.FixtureRequest) -> Iterator[MainWindow]:
    opened = open_window(None, size=request.param)
    pump(50)
    yield opened
    opened.close()
    pump(50)


def test_the_canvas_gets_45_percent_and_the_chat_30(window: MainWindow) -> None:
    total = window.width()
    assert window.graph.width() >= 0.45 * total
    assert window.chat.width() >= 0.30 * total


def test_sessions_outline_and_context_share_one_tabbed_column(window: MainWindow) -> None:
    side = window.sidebar
    tabs = [side.tabText(i) for i in range(side.count())]
    assert tabs == ["Sessions", "Outline", "Context"]
    assert window.shell.splitter.count() == 3  # side column, canvas, chat: no fourth column
    window.shell.toggle_panel.trigger()  # Ctrl+Shift+E puts the list away: the outline shows in its place
    assert side.currentWidget() is window.outline and not window.shell.panel_shown()
    window.shell.toggle_panel.trigger()
    assert side.currentWidget() is window.shell.panel and window.shell.panel_shown()
    side.setCurrentWidget(window.lens)  # a click on a tab is the toggle too
    assert not window.shell.toggle_panel.isChecked()
