"""Issue 25 in the window, with real input: the files follow the tree.

The session (tests/checkpointed.py) has real checkpoints in the store under ``$ARBOR_HOME``; a
double-click on turn one's reply moves the leaf there, and the strip over the chat offers the
restore with the right count; Restore, Keep, the remembered choice, a file edited by hand, the
badges on the canvas and the diff views are each checked through the widgets a person uses.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMenu

from desktop_app.present.file_changes import RestoreChoice
from desktop_app.present.node_menu import MenuAction
from desktop_app.settings import Settings
from desktop_app.ui import restore_offer
from desktop_app.ui.graph.change_badges import badges_of
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump
from desktop_app.ui.window_args import window_args
from desktop_app.workspace import store
from desktop_app.workspace.checkpoints import CHECKPOINT_TYPE, Phase, checkpoint_of
from tests.checkpointed import EXTRA, V1, V3, Checkpointed, build_checkpointed
from tests.ui.driving import pump_until


@pytest.fixture
def made(tmp_path: Path) -> Checkpointed:
    Settings.load().save_value(("branchSummary", "skipPrompt"), True)  # no summary question: straight to the move
    return build_checkpointed(tmp_path)


@pytest.fixture
def window(made: Checkpointed) -> Iterator[MainWindow]:
    opened = open_window(made.path, size=(1600, 1000))
    opened.graph.set_use_dot(False)
    yield opened
    for view in list(opened.files.diff_views):
        view.close()
    opened.close()
    pump(50)


def _center(window: MainWindow, entry_id: str) -> QPoint:
    assert window.graph.reveal(entry_id)
    point = window.graph.node_center(entry_id)
    assert point is not None
    return point


def _double_click(window: MainWindow, entry_id: str) -> None:
    QTest.mouseDClick(window.graph.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                      _center(window, entry_id))
    assert pump_until(lambda: window.session.leaf_id == entry_id, 10)


def _offered(window: MainWindow) -> bool:
    return pump_until(lambda: window.files.bar.isVisible(), 10)


def _files(made: Checkpointed) -> tuple[str, bool]:
    return (made.folder / "notes.md").read_text(), (made.folder / "extra.txt").exists()


def _restore_and_back(window: MainWindow, made: Checkpointed) -> None:
    _double_click(window, made.replies[0])
    assert _offered(window)
    bar = window.files.bar
    assert bar.restore_button.text() == "&Restore files to this point (2 files)"
    assert "extra.txt" in bar.label.text() and "notes.md" in bar.label.text()
    QTest.mouseClick(bar.restore_button, Qt.MouseButton.LeftButton)
    assert pump_until(lambda: _files(made) == (V1, False) and not window.files.restoring, 10)
    assert not bar.isVisible()
    assert window.session.leaf_id == made.replies[0]  # the restore does not move the leaf
    # undo the move (Ctrl+Z): the folder can follow back to turn three
    window.steering.undo_action.trigger()
    assert _offered(window)
    assert bar.restore_button.text() == "&Restore files to this point (2 files)"
    QTest.mouseClick(bar.restore_button, Qt.MouseButton.LeftButton)
    assert pump_until(lambda: _files(made) == (V3, True) and not window.files.restoring, 10)
    assert (made.folder / "extra.txt").read_text() == EXTRA


def _keep_and_remember(window: MainWindow, made: Checkpointed) -> None:
    _double_click(window, made.replies[0])
    assert _offered(window)
    bar = window.files.bar
    QTest.mouseClick(bar.remember, Qt.MouseButton.LeftButton)
    QTest.mouseClick(bar.keep_button, Qt.MouseButton.LeftButton)
    pump(20)
    assert _files(made) == (V3, True) and not bar.isVisible()
    assert window.files.choice() is RestoreChoice.KEEP
    assert window.ui_state is not None and window.ui_state.files_choice(str(made.path)) == "keep"
    _double_click(window, made.replies[1])
    pump(150)
    assert not bar.isVisible() and _files(made) == (V3, True)
    # "restore" remembered: the next move restores without asking
    window.files.set_choice(RestoreChoice.RESTORE)
    _double_click(window, made.replies[0])
    assert pump_until(lambda: _files(made) == (V1, False) and not window.files.restoring, 10)
    assert not bar.isVisible()


ASK_AGAIN = "As&k again about restoring files"


def _ask_again_item(window: MainWindow, entry_id: str) -> tuple[QMenu, bool, str]:
    """The node menu of ``entry_id`` and its "Ask again about restoring files": enabled, tooltip."""
    menu = window.steering.open_menu(entry_id, window.graph.viewport().mapToGlobal(_center(window, entry_id)))
    assert menu is not None
    [item] = [a for a in menu.actions() if a.text() == ASK_AGAIN]
    return menu, item.isEnabled(), item.toolTip()


def _ask_again(window: MainWindow, made: Checkpointed) -> None:
    """A remembered answer ("restore") is forgotten from the node menu (its mnemonic K): moves ask again."""
    assert window.files.choice() is RestoreChoice.RESTORE
    menu, enabled, tip = _ask_again_item(window, made.replies[1])
    assert enabled and "restored without asking" in tip
    QTest.keyClick(menu, Qt.Key.Key_K)
    assert pump_until(lambda: window.files.choice() is RestoreChoice.ASK, 5)
    assert window.ui_state is not None and window.ui_state.files_choice(str(made.path)) is None
    _double_click(window, made.replies[2])
    assert _offered(window)  # asked, not restored
    assert _files(made) == (V1, False)
    menu, enabled, tip = _ask_again_item(window, made.replies[1])
    assert not enabled and "no answer is remembered" in tip
    menu.close()


def _hand_edit_named(window: MainWindow, made: Checkpointed) -> None:
    (made.folder / "notes.md").write_text("my own edit\n")
    _double_click(window, made.replies[0])
    assert _offered(window)
    bar = window.files.bar
    QTest.mouseClick(bar.restore_button, Qt.MouseButton.LeftButton)
    pump(20)
    assert bar.isVisible() and bar.confirming
    assert "notes.md" in bar.label.text() and "by hand" in bar.label.text()
    assert bar.restore_button.text() == "&Overwrite and restore"
    assert (made.folder / "notes.md").read_text() == "my own edit\n"  # nothing written yet
    QTest.mouseClick(bar.restore_button, Qt.MouseButton.LeftButton)
    assert pump_until(lambda: _files(made) == (V1, False) and not window.files.restoring, 10)


def _badges(window: MainWindow, made: Checkpointed) -> None:
    for reply in made.replies:
        window.graph.reveal(reply)
    window.graph.fit_all()
    window.graph.viewport().repaint()
    placed = {window.graph.graph_scene().graph.entry_of(p.node): p.badge.text for p in badges_of(window.graph).placed}
    r1, r2, r3 = made.replies
    shown = {e: t for e, t in placed.items() if e in (r1, r2, r3)}
    assert shown == {r1: "1 file +3 \u22120", r2: "1 file +1 \u22121", r3: "2 files +2 \u22121"}
    for p in badges_of(window.graph).placed:
        assert window.graph.viewport().rect().intersects(p.rect)


def _show_changes(window: MainWindow, made: Checkpointed) -> None:
    _double_click(window, made.replies[0])
    assert _offered(window)
    QTest.mouseClick(window.files.bar.changes_button, Qt.MouseButton.LeftButton)
    assert pump_until(lambda: bool(window.files.diff_views), 10)
    view = window.files.diff_views[-1]
    assert view.file_paths() == ["extra.txt", "notes.md"]
    lines = view.text.toPlainText().splitlines()
    assert "-v3" in lines and "+v1" in lines and "-x" in lines
    assert _files(made) == (V3, True)  # looking changes nothing
    view.close()
    pump(20)
    # the node menu on turn two's reply: Show changes = that turn's diff
    menu = window.steering.open_menu(made.replies[1], window.graph.viewport().mapToGlobal(_center(window, made.replies[1])))
    assert menu is not None
    action = next(a for a in menu.actions() if a.data() is MenuAction.SHOW_CHANGES)
    assert action.isEnabled()
    action.trigger()
    assert pump_until(lambda: bool(window.files.diff_views), 10)
    view = window.files.diff_views[-1]
    assert view.file_paths() == ["notes.md"]
    assert {"-v1", "+v2"} <= set(view.text.toPlainText().splitlines())


def _reader_and_clone(window: MainWindow, made: Checkpointed) -> None:
    QTest.mouseClick(window.graph.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     _center(window, made.replies[1]))
    reader = window.steering.reader
    assert pump_until(lambda: reader.entry_id() == made.replies[1], 5)
    assert reader.changes_button.isVisibleTo(reader) and "M notes.md  +1 \u22121" in reader.text()
    assert pump_until(lambda: reader.changes_button.height() > 0, 5)  # the reader opened under the chat
    QTest.mouseClick(reader.changes_button, Qt.MouseButton.LeftButton)
    assert pump_until(lambda: bool(window.files.diff_views), 10)
    assert window.files.diff_views[-1].file_paths() == ["notes.md"]
    window.files.diff_views[-1].close()
    # Clone up to turn one's reply, here: the new session's leaf is there, the folder is turn three's
    old = window.session.session_file
    assert window.fork_entry(made.replies[0], "at", new_window=False)
    assert window.session.session_file != old and window.session.leaf_id == made.replies[0]
    assert _offered(window)
    assert window.files.bar.restore_button.text() == "&Restore files to this point (2 files)"


def test_the_compaction_audit_lists_the_files_changed_in_its_range(made: Checkpointed) -> None:
    from desktop_app.session import SessionManager

    manager = SessionManager.open(made.path, fsync=False)
    compaction = manager.append_compaction("summary", made.users[2], 1234)
    manager.close()
    opened = open_window(made.path, size=(1600, 1000))
    try:
        opened.graph.set_use_dot(False)
        QTest.mouseClick(opened.graph.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         _center(opened, compaction))
        changed = opened.audit_panel.changed
        assert pump_until(lambda: changed.count() > 0, 5)
        assert [changed.item(i).text() for i in range(changed.count())] == ["A notes.md  +4 \u22121"]
    finally:
        opened.close()
        pump(50)


def _failed_restore(window: MainWindow, made: Checkpointed, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write fails half-way (the disk full at notes.md, after extra.txt was removed): the files
    are put back, and the chat says so in the engine's words."""
    from desktop_app.workspace import store

    real = store.write_file
    writes: list[str] = []

    def full_disk_once(path: str, data: bytes) -> None:
        writes.append(path)
        if len(writes) == 1:
            raise OSError(28, "No space left on device", path)
        real(path, data)  # putting the files back works

    with monkeypatch.context() as patch:  # only this patch is undone after (ARBOR_HOME stays)
        patch.setattr(store, "write_file", full_disk_once)
        _double_click(window, made.replies[0])
        assert _offered(window)
        QTest.mouseClick(window.files.bar.restore_button, Qt.MouseButton.LeftButton)
        assert pump_until(lambda: bool(window.chat.error_banner.text()) and not window.files.restoring, 10)
    assert window.chat.error_banner.text() == (
        "The restore stopped part-way: Restoring stopped at notes.md (No space left on device); "
        "the files it had changed were put back as they were.")
    assert _files(made) == (V3, True) and (made.folder / "extra.txt").read_text() == EXTRA
    assert not window.files.bar.isVisible()


def _slow_restore_keeps_the_window_responsive(window: MainWindow, made: Checkpointed,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """From turn one (files as it left them) back to turn three, a file edited by hand on the way:
    the first file write waits until the test lets it go. Meanwhile the click has returned, the write
    waits on a thread that is not the UI thread, the UI thread's timers go on firing, and the strip
    says "Restoring 2 files…" with its buttons waiting; the result is what ``restore_to`` made on
    the UI thread before (the files, the leaf, one ``restore`` checkpoint under turn one)."""
    assert window.session.leaf_id == made.replies[0] and _files(made) == (V1, False)
    (made.folder / "notes.md").write_text("my own edit\n")
    _double_click(window, made.replies[2])
    assert _offered(window)
    bar = window.files.bar
    QTest.mouseClick(bar.restore_button, Qt.MouseButton.LeftButton)
    assert bar.confirming
    count = len(window.session.index.entries)
    real = store.write_file
    writers: list[threading.Thread] = []
    release = threading.Event()

    def held(path: str, data: bytes) -> None:
        writers.append(threading.current_thread())
        if len(writers) == 1:
            release.wait(10)  # on the UI thread this would hold the click (and the test) for 10 s
        real(path, data)

    ticks: list[float] = []
    heartbeat = QTimer(window)
    heartbeat.setInterval(10)
    heartbeat.timeout.connect(lambda: ticks.append(time.monotonic()))
    with monkeypatch.context() as patch:
        patch.setattr(store, "write_file", held)
        heartbeat.start()
        QTest.mouseClick(bar.restore_button, Qt.MouseButton.LeftButton)  # "Overwrite and restore"
        assert not release.is_set() and pump_until(lambda: bool(writers), 10)  # the first write waits
        assert writers[0] is not threading.main_thread()
        beats = len(ticks)
        assert pump_until(lambda: len(ticks) >= beats + 3, 5)  # the UI thread runs on meanwhile
        # the strip says what runs, and nothing in it can be clicked meanwhile
        assert bar.isVisible() and bar.label.text() == "Restoring 2 files\u2026" and bar.progress.isVisible()
        assert bar.restore_button.text() == "&Restore files to this point (2 files)"
        buttons = (bar.restore_button, bar.keep_button, bar.changes_button, bar.close_button)
        assert not any(b.isEnabled() for b in buttons) and not bar.remember.isVisible()
        QTest.mouseClick(bar.keep_button, Qt.MouseButton.LeftButton)  # disabled: no effect
        assert window.files.restoring and len(writers) == 1
        release.set()
        assert pump_until(lambda: not window.files.restoring, 10)
        heartbeat.stop()
    assert _files(made) == (V3, True) and not bar.isVisible() and bar.restore_button.isEnabled()
    assert window.session.leaf_id == made.replies[2]
    [recorded] = window.session.index.entries[count:]
    checkpoint = checkpoint_of(recorded)
    assert recorded.get("customType") == CHECKPOINT_TYPE and recorded.get("parentId") == made.replies[0]
    assert checkpoint is not None and checkpoint.phase is Phase.RESTORE
    assert [f.path for f in checkpoint.files] == ["notes.md"]
    assert window.statusBar().currentMessage().startswith("Restored 2 files to this point of the tree")


# One window per flow (opening one is most of a test's time): each flow checks several points in turn.


def test_restore_then_back_again_then_a_hand_edit_is_named_then_a_slow_restore(
    window: MainWindow, made: Checkpointed, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _restore_and_back(window, made)  # ends at turn three, files as turn three left them
    _hand_edit_named(window, made)  # ends at turn one, files as turn one left them
    _slow_restore_keeps_the_window_responsive(window, made, monkeypatch)


def test_keep_remember_ask_again_and_a_failed_restore(window: MainWindow, made: Checkpointed,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _failed_restore(window, made, monkeypatch)  # the leaf on turn one, the files still turn three's
    window.steering.undo_action.trigger()  # back to turn three: the folder matches it, nothing offered
    assert pump_until(lambda: window.session.leaf_id == made.replies[2], 5)
    window.chat.clear_error()
    _keep_and_remember(window, made)
    _ask_again(window, made)


def _no_comparison_while_checkpoints_are_off(window: MainWindow, made: Checkpointed,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``checkpoints.enabled`` setting off: a leaf move compares nothing and offers nothing (the
    folder differs from turn one's); on again, the next move compares (the setting is read live)."""
    compared: list[str] = []
    real = restore_offer.prepare_offer

    def spied(manager: Any, folder: str, target: str, *rest: Any) -> Any:
        compared.append(target)
        return real(manager, folder, target, *rest)

    monkeypatch.setattr(restore_offer, "prepare_offer", spied)
    settings = window.agent.settings.checkpoints
    settings.enabled = False
    try:
        _double_click(window, made.replies[0])
        pump(200)
        assert compared == [] and not window.files.bar.isVisible()
    finally:
        settings.enabled = True
    _double_click(window, made.replies[2])  # back where the folder is: compared, nothing to offer
    assert pump_until(lambda: compared == [made.replies[2]], 10)
    assert not window.files.bar.isVisible()


def test_badges_diffs_reader_and_clone(window: MainWindow, made: Checkpointed,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _no_comparison_while_checkpoints_are_off(window, made, monkeypatch)
    _badges(window, made)
    _show_changes(window, made)
    for view in list(window.files.diff_views):
        view.close()
    pump(20)
    _reader_and_clone(window, made)


def test_a_clone_in_a_new_window_offers_the_restore_there(
    window: MainWindow, made: Checkpointed, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from desktop_app.ui import forking

    started: list[list[str]] = []

    def start(_program: str, arguments: list[str]) -> tuple[bool, int]:
        started.append(arguments)
        return True, 4242

    monkeypatch.setattr(forking.QProcess, "startDetached", start)
    QTest.mouseClick(window.graph.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     _center(window, made.replies[0]))  # select turn one's reply
    assert pump_until(lambda: window.graph.selected_entry() == made.replies[0], 5)
    button = window.forks.toolbar_button(window.clone_action)
    assert button is not None and button.menu() is not None
    away = button.menu().actions()[1]
    assert away.text() == "Clone in a new window (Ctrl+click)"
    away.trigger()
    [arguments] = started
    assert arguments[:2] == ["-m", "desktop_app"]
    wanted = window_args(arguments[2:])  # what the new process's `arbor FILE --files-from ENTRY` reads
    assert wanted is not None and wanted.path is not None and wanted.files_from == made.replies[2]
    pump(100)
    assert window.session.session_file == str(made.path) and not window.files.bar.isVisible()  # this one stays
    other = open_window(wanted.path, files_from=wanted.files_from)
    try:
        assert other.session.leaf_id == made.replies[0]
        assert _offered(other)
        bar = other.files.bar
        assert bar.restore_button.text() == "&Restore files to this point (2 files)"
        assert bar.keep_button.isVisible() and bar.changes_button.isVisible() and bar.remember.isVisible()
        assert "extra.txt" in bar.label.text() and "notes.md" in bar.label.text()
        QTest.mouseClick(bar.restore_button, Qt.MouseButton.LeftButton)
        assert pump_until(lambda: _files(made) == (V1, False) and not other.files.restoring, 10)
        assert other.session.leaf_id == made.replies[0]
    finally:
        other.close()
        pump(50)
    _an_arrival_waits_for_the_whole_file(window, made, monkeypatch)


def _an_arrival_waits_for_the_whole_file(window: MainWindow, made: Checkpointed,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """``arbor FILE --files-from ENTRY`` opens a big file from its first picture (issue 28): binding
    the whole file dismisses what was shown, so the offer waits for it, then comes. (Here: the first
    window, its folder restored to turn one by the other.)"""
    from desktop_app.session import SessionManager

    loading = [True]
    monkeypatch.setattr(SessionManager, "loading", property(lambda _self: loading[0]))
    window.files.arrive(made.replies[2])
    pump(100)
    assert not window.files.bar.isVisible()
    loading[0] = False
    window.files.session_bound()  # what the window does once the whole file is installed
    assert _offered(window)
    assert window.files.bar.restore_button.text() == "&Restore files to this point (2 files)"


def test_the_new_window_is_told_the_leaf_on_its_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from desktop_app import cli
    from desktop_app.ui import app, forking

    started: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(forking.QProcess, "startDetached", lambda program, arguments: (started.append((program, arguments)) is None, 1))
    assert forking.launch_window("/s/new.jsonl", "abc123")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert forking.launch_window("/s/new.jsonl", "abc123")
    assert [arguments for _, arguments in started] == [
        ["-m", "desktop_app", "/s/new.jsonl", "--files-from", "abc123"], ["/s/new.jsonl", "--files-from", "abc123"]]
    opened: list[tuple[str | None, str | None]] = []

    def run_gui(path: str | None = None, *, files_from: str | None = None) -> int:
        opened.append((path, files_from))
        return 0

    monkeypatch.setattr(app, "run_gui", run_gui)
    assert cli.main(["/s/new.jsonl", "--files-from", "abc123"]) == 0
    assert cli.main(["/s/new.jsonl"]) == 0 and cli.main([]) == 0
    assert opened == [("/s/new.jsonl", "abc123"), ("/s/new.jsonl", None), (None, None)]
    for wrong in (["/s/a.jsonl", "/s/b.jsonl"], ["/s/a.jsonl", "--files-from"], ["/s/a.jsonl", "--files-from", "--x"]):
        with pytest.raises(SystemExit):
            cli.main(wrong)


