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
    qtbot.waitUntil(lambda: not window.binding.pending)  # the chat and the panels, a turn or two later
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


def _deferred_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: Any) -> Any:
    monkeypatch.setattr(SessionManager, "DEFER_MIN_BYTES", 0)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    file = tmp_path / "big.jsonl"
    _big_session(file, turns=300, kept_turn=260, late_changes=True, broken_line_at=40)
    window = build_window(str(file), Settings.load(), defer_load=True)
    qtbot.addWidget(window)
    assert window.agent.session.loading
    return window


def test_the_whole_file_is_bound_over_three_turns_graph_chat_panels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: Any
) -> None:
    """Issue 28: installing the whole file was one event-loop turn of 35-83 ms at 100,000 entries
    (the neighbourhood again, the chat's context, the panels, then their paints). The graph is bound
    now, the chat's context on a later turn, the panels on another; in the end the window shows
    what a bind at once shows."""
    from PySide6.QtCore import QTimer

    window = _deferred_window(tmp_path, monkeypatch, qtbot)
    window.show()
    log: list[str] = []
    for owner, name in ((window.graph, "set_session"), (window.feed, "bind"), (window.chat, "set_context"),
                        (window.steering, "session_bound"), (window.files, "session_bound"),
                        (window.shell, "session_bound"), (window, "show_open_report")):
        real = getattr(owner, name)

        def logged(*args: Any, __real: Any = real, __name: str = f"{type(owner).__name__}.{name}") -> Any:
            log.append(__name)
            return __real(*args)

        monkeypatch.setattr(owner, name, logged)
    beat = QTimer(window)  # a mark in the log on every pass of the event loop
    beat.setInterval(0)
    beat.timeout.connect(lambda: log.append("|"))
    beat.start()
    window.install_full_session()
    assert not window.agent.session.loading and window.binding.pending
    assert window.binding.steps_done == ["graph"] and "ChatFeed.bind" not in log
    qtbot.waitUntil(lambda: not window.binding.pending)
    beat.stop()
    assert window.binding.steps_done == ["graph", "chat", "panels"]
    turns = [[call for call in turn.split(",") if call] for turn in ",".join(log).split("|")]
    turns = [turn for turn in turns if turn]
    assert turns == [
        ["GraphView.set_session"],
        ["ChatFeed.bind", "ChatPanel.set_context", "Steering.session_bound"],
        ["FilesFollow.session_bound", "MainWindow.show_open_report", "WindowShell.session_bound"],
    ]
    assert "41" in window.chat.error_banner.text()  # the skipped line, known once the whole file is read
    shown = [window.chat.model.rowCount(), len(window.graph.graph()), window.graph.graph().leaf_node]
    window.binding.bind()  # the same bind at once shows the same
    assert [window.chat.model.rowCount(), len(window.graph.graph()), window.graph.graph().leaf_node] == shown
    window.close()


def test_a_bind_or_a_close_during_the_install_drops_its_later_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: Any
) -> None:
    window = _deferred_window(tmp_path, monkeypatch, qtbot)
    window.install_full_session()
    assert window.binding.pending
    window.binding.bind()  # e.g. the agent switched sessions: every step at once, none left for later
    assert not window.binding.pending and window.binding.steps_done == ["graph", "chat", "panels"]
    window.install_full_session()  # nothing left to install: nothing bound
    assert not window.binding.pending
    window.binding.install_in_turns()
    assert window.binding.pending
    window.close()
    assert not window.binding.pending


def test_the_install_keeps_the_first_picture_on_screen_when_it_shows_the_whole_files_neighbourhood(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: Any
) -> None:
    """Issue 28: when the model on screen (the first picture: the neighbourhood of the first
    picture's lines, or all of them when they are too few for one) already shows the whole file's
    neighbourhood of the leaf (same entries, labels, leaf), it stays until the whole graph replaces
    it instead of a neighbourhood built again; one that differs (a label only the whole file has)
    is built again."""
    from desktop_app.present.graph_model import ViewGraphModel
    from desktop_app.ui import main_window
    from desktop_app.ui.graph.view import GraphView

    monkeypatch.setattr(SessionManager, "DEFER_MIN_BYTES", 0)
    file = tmp_path / "big.jsonl"
    _big_session(file, turns=300, kept_turn=260, late_changes=True, broken_line_at=40)
    first_lines = len(SessionManager.open(file, defer=True).index.by_id)
    shown: list[tuple[bool, bool, bool]] = []  # (first picture partial, kept, then as expected)
    for min_entries, relabel in ((first_lines + 1, False), (100, False), (100, True)):
        monkeypatch.setattr(main_window, "GraphView",
                            lambda parent, __n=min_entries: GraphView(parent, neighbourhood_min_entries=__n))
        window = _deferred_window(tmp_path, monkeypatch, qtbot)
        graph = window.graph
        first, first_partial = graph.model, graph.partial
        manager = window.agent.session
        leaf = manager.leaf_id
        if relabel:  # what the whole file holds differs on one entry of the neighbourhood
            real_finish = manager.finish_loading

            def finish(*, announce: bool = True, __real: Any = real_finish, __manager: Any = manager,
                       __leaf: Any = leaf) -> bool:
                done = __real(announce=announce)
                __manager.index.labels[__leaf] = "relabelled"
                return done

            monkeypatch.setattr(manager, "finish_loading", finish)
        window.install_full_session()
        assert graph.partial and graph.model is not None
        kept = graph.model is first
        if relabel:
            shown.append((first_partial, kept, graph.model.index.labels.get(leaf) == "relabelled"))
        elif first_partial:
            shown.append((first_partial, kept, True))
        else:  # the picture kept is replaced by the whole graph as a new neighbourhood would be
            qtbot.waitUntil(lambda: not graph.partial, timeout=30_000)  # noqa: B023 - waited for here
            view = window.agent.view
            whole = ViewGraphModel(view.index, view.leaf_id, graph.filter_mode(), graph.folding())
            shown.append((first_partial, kept, len(graph.graph()) == len(whole.graph)))
        window.close()
    assert shown == [(False, True, True), (True, True, True), (True, False, True)]
