"""The window on a big session (issue 28): the first picture from the leaf's lines, the whole file
parsed once it is painted, then shown as a session just bound, with the lines it skipped."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from desktop_app.session import SessionManager
from desktop_app.settings import Settings
from desktop_app.ui.app import build_window, finish_loading_in_background
from tests.session.test_deferred_open import _big_session


@pytest.mark.asyncio
async def test_the_window_shows_the_first_picture_then_the_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: Any
) -> None:
    monkeypatch.setattr(SessionManager, "DEFER_MIN_BYTES", 0)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    file = tmp_path / "big.jsonl"
    _big_session(file, turns=600, kept_turn=560, late_changes=True, broken_line_at=40)
    whole = SessionManager.open(file)

    window = build_window(str(file), Settings.load(), defer_load=True)
    qtbot.addWidget(window)
    manager = window.agent.session
    assert manager.loading
    first_nodes = len(window.graph.graph())
    assert len(manager.get_entries()) < len(whole.get_entries()) // 2
    assert not window.chat.error_banner.text()  # skipped lines are known once the whole file is read

    window.show()
    finish_loading_in_background(window, asyncio.get_running_loop())
    assert manager.loading  # nothing is parsed before the graph's first paint
    for _ in range(500):  # the paint, the parse on its thread, the install on this one
        if not manager.loading:
            break
        await asyncio.sleep(0.02)
    assert manager.get_entries() == whole.get_entries()
    assert window.agent.view.get_entries() == whole.get_entries()
    assert "41" in window.chat.error_banner.text()
    assert len(window.graph.graph()) > first_nodes
    window.close()


@pytest.mark.asyncio
async def test_beside_the_parse_no_collection_runs_and_the_gil_changes_hands_often(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: Any
) -> None:
    """Issue 28: while the whole file is parsed on its worker, the GUI thread's collector holds off
    (each collection walked the millions of objects the parse had made so far), the GIL changes
    hands every 0.2 ms, and the worker scans the parsed entries for checkpoints (the first paint
    after the install did, ~40 ms at 100,000 entries); all as before once it is installed."""
    import sys
    import threading

    from desktop_app.present import file_changes
    from desktop_app.ui import gui_gc

    monkeypatch.setattr(SessionManager, "DEFER_MIN_BYTES", 0)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    file = tmp_path / "big.jsonl"
    _big_session(file, turns=300)
    entries = len(SessionManager.open(file).get_entries())
    scanned: list[tuple[str, int]] = []
    real_scan = file_changes.has_checkpoints

    def scan(index: Any) -> bool:
        scanned.append((threading.current_thread().name, len(index.entries)))
        return real_scan(index)

    monkeypatch.setattr(file_changes, "has_checkpoints", scan)
    window = build_window(str(file), Settings.load(), defer_load=True)
    qtbot.addWidget(window)
    manager = window.agent.session
    switch = sys.getswitchinterval()
    beside: list[tuple[bool, float]] = []  # as the parse starts, and on its thread as it ends
    real_load = manager.load_in_background

    def load(on_done: Any = None, prepare: Any = None) -> None:
        def done() -> None:
            beside.append((gui_gc.collections_held(), sys.getswitchinterval()))
            if on_done is not None:
                on_done()

        if manager.loading:  # (the second of the two start-ups, the paint's and the timer's, finds it done)
            beside.append((gui_gc.collections_held(), sys.getswitchinterval()))
        real_load(done, prepare)

    monkeypatch.setattr(manager, "load_in_background", load)
    window.show()
    finish_loading_in_background(window, asyncio.get_running_loop())
    for _ in range(500):
        if not manager.loading:
            break
        await asyncio.sleep(0.02)
    assert not manager.loading
    assert ("arbor-open", entries) in scanned
    assert len(beside) >= 2 and all(held and interval == pytest.approx(0.0002) for held, interval in beside)
    assert sys.getswitchinterval() == pytest.approx(switch)
    qtbot.waitUntil(lambda: not window.graph.partial, timeout=30_000)
    assert not gui_gc.collections_held()
    window.close()


@pytest.mark.asyncio
async def test_a_big_transcript_shows_its_first_picture_then_the_whole_conversion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: Any
) -> None:
    """A Claude Code transcript takes the same path (issue 27 point 5): its first picture's entries,
    then the whole conversion installed once the graph has painted, read-only throughout."""
    from desktop_app.transcripts import first_picture, open_transcript
    from tests.transcripts.test_first_picture import _generated

    monkeypatch.setattr(SessionManager, "DEFER_MIN_BYTES", 0)
    monkeypatch.setattr(first_picture, "PATH_NODES", 12)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    file = _generated(tmp_path / "transcript.jsonl", turns=60)
    whole = open_transcript(file)

    window = build_window(str(file), Settings.load(), defer_load=True)
    qtbot.addWidget(window)
    manager = window.agent.session
    assert manager.loading and manager.read_only
    assert len(manager.get_entries()) < len(whole.get_entries()) // 2
    window.show()
    finish_loading_in_background(window, asyncio.get_running_loop())
    for _ in range(500):
        if not manager.loading:
            break
        await asyncio.sleep(0.02)
    assert window.agent.view.get_entries() == whole.get_entries()
    assert manager.read_only and window.agent.view.report.foreign == "Claude Code"
    window.close()


def test_a_parse_that_ends_after_the_window_closed_is_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: Any
) -> None:
    """The window closed while the whole file was parsed: the install that follows (queued on the
    loop by the worker) must not bind the session again to a shut-down window (a whole-graph build
    started during the app's exit)."""
    monkeypatch.setattr(SessionManager, "DEFER_MIN_BYTES", 0)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    file = tmp_path / "big.jsonl"
    _big_session(file, turns=300)
    window = build_window(str(file), Settings.load(), defer_load=True)
    qtbot.addWidget(window)
    manager = window.agent.session
    assert manager.loading
    window.show()
    window.close()
    bound: list[Any] = []
    monkeypatch.setattr(window.graph, "set_session", bound.append)
    window.install_full_session()  # what the worker's callback runs
    assert bound == [] and manager.loading
