"""Driving the real window from plain synchronous code, as an outside check does (DESIGN.md §7.1):
the event loop run by ``pump`` between looks, keys typed into the composer with ``QTest``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import pump


def pump_until(done: Callable[[], Any], timeout_s: float = 20.0) -> bool:
    """Run the loop until ``done()`` holds (``False`` after ``timeout_s``)."""
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            return False
        pump(10)
    return True


def send(window: MainWindow, text: str) -> None:
    """Type ``text`` into the composer and press Enter, as a person does."""
    composer = window.chat.composer
    composer.setFocus()
    QTest.keyClicks(composer, text)
    QTest.keyClick(composer, Qt.Key.Key_Return)


def finish_turn(window: MainWindow) -> None:
    """Wait for a turn to start and end, then let the chat and the canvas take what was saved."""
    assert pump_until(lambda: window.agent.busy), "the turn never started"
    assert pump_until(lambda: not window.agent.busy), "the turn never ended"
    pump(60)
