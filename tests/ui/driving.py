"""Driving the real window from plain synchronous code, as an outside check does (DESIGN.md §7.1):
the event loop run by ``pump`` between looks, keys typed into the composer with ``QTest``."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from desktop_app.settings import Settings
from desktop_app.ui.app import SAMPLE_SESSION
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import pump
from tests.fakes import anthropic_server as fa


def talk_to(server: fa.FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Settings for a window that talks to ``server`` with the real SDK (a dummy key, its base URL)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy-key")
    settings = Settings.load()
    settings.save_value(("baseUrl",), server.base_url)
    return settings


def sample_at(path: Path, cwd: Path) -> Path:
    """The sample session written to ``path`` with ``cwd`` (a folder that exists) as its working folder."""
    lines = SAMPLE_SESSION.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["cwd"] = str(cwd)
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    return path


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


def compactions_in(path: str) -> list[str]:
    """The ids of the compactions in the session file at ``path``, in file order."""
    lines = (json.loads(line) for line in Path(path).read_text().splitlines() if line.strip())
    return [entry["id"] for entry in lines if entry.get("type") == "compaction"]
