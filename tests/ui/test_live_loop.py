"""A day in the life, driven from plain synchronous code as an outside check would: the real window
(``open_window``), the real SDK against the fake Anthropic server, keys typed into the composer with
``QTest`` and the event loop run by ``pump`` between looks (DESIGN.md §7.1)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from desktop_app.settings import Settings
from desktop_app.ui.app import SAMPLE_SESSION
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump
from tests.fakes import anthropic_server as fa

LINES = 40


def reply_text(turn: int) -> str:
    return "\n".join(f"Turn {turn}, line {i}: the quick brown fox jumps over the lazy dog." for i in range(LINES))


@pytest.fixture
def server() -> Iterator[fa.FakeAnthropicServer]:
    fake = fa.FakeAnthropicServer().start()
    yield fake
    fake.stop()


@pytest.fixture
def window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: fa.FakeAnthropicServer) -> Iterator[MainWindow]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy-key")
    settings = Settings.load()
    settings.save_value(("baseUrl",), server.base_url)
    settings.save_value(("compaction", "enabled"), False)
    path = tmp_path / SAMPLE_SESSION.name
    lines = SAMPLE_SESSION.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["cwd"] = str(tmp_path)  # a folder that exists: no "choose a folder" dialog
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    opened = open_window(path, size=(1200, 800))
    opened.graph.set_use_dot(False)
    yield opened
    opened.close()
    pump(50)


def pump_until(done: Callable[[], bool], timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            return False
        pump(10)
    return True


def send(window: MainWindow, text: str) -> None:
    composer = window.chat.composer
    composer.setFocus()
    QTest.keyClicks(composer, text)
    QTest.keyClick(composer, Qt.Key.Key_Return)


def branch_messages(window: MainWindow) -> list[dict]:
    return [e["message"] for e in window.session.get_branch() if e.get("type") == "message"]


def test_five_replies_stream_across_pump_calls_with_no_error(window: MainWindow, server: fa.FakeAnthropicServer) -> None:
    for turn in range(5):
        server.enqueue(fa.text(reply_text(turn), chunk=24, delay=0.002))
        send(window, f"Question {turn}")
        assert pump_until(lambda: window.agent.busy), "the turn never started"
        assert pump_until(lambda: not window.agent.busy)
        last = branch_messages(window)[-1]
        assert last["role"] == "assistant", last
        assert last.get("stopReason") == "stop", last.get("errorMessage")
        assert "".join(b.get("text", "") for b in last["content"]) == reply_text(turn)
    errors = [m for m in branch_messages(window) if m.get("stopReason") in ("error", "aborted")]
    assert errors == []
    assert [m["role"] for m in branch_messages(window)][-10:] == ["user", "assistant"] * 5
