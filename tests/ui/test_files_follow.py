"""Issue 25 in the window, with real input: the files follow the tree.

The session (tests/checkpointed.py) has real checkpoints in the store under ``$ARBOR_HOME``; a
double-click on turn one's reply moves the leaf there, and the strip over the chat offers the
restore with the right count; Restore, Keep, the remembered choice, a file edited by hand, the
badges on the canvas and the diff views are each checked through the widgets a person uses.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from desktop_app.present.file_changes import RestoreChoice
from desktop_app.present.node_menu import MenuAction
from desktop_app.settings import Settings
from desktop_app.ui.graph.change_badges import badges_of
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump
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
    pump(20)
    assert _files(made) == (V1, False)
    assert not bar.isVisible()
    assert window.session.leaf_id == made.replies[0]  # the restore does not move the leaf
    # undo the move (Ctrl+Z): the folder can follow back to turn three
    window.steering.undo_action.trigger()
    assert _offered(window)
    assert bar.restore_button.text() == "&Restore files to this point (2 files)"
    QTest.mouseClick(bar.restore_button, Qt.MouseButton.LeftButton)
    pump(20)
    assert _files(made) == (V3, True) and (made.folder / "extra.txt").read_text() == EXTRA


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
    assert pump_until(lambda: _files(made) == (V1, False), 10)
    assert not bar.isVisible()


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
    pump(20)
    assert _files(made) == (V1, False)


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
    from desktop_app.ui import restore_offer
    from desktop_app.workspace.store import RestoreFailed

    def fail(*_args: object, **_kwargs: object) -> None:
        raise RestoreFailed("could not write notes.md (disk full); the files were put back as they were",
                            rolled_back=True, undo="0" * 40)

    with monkeypatch.context() as patch:  # only this patch is undone after (ARBOR_HOME stays)
        patch.setattr(restore_offer, "restore_to", fail)
        _double_click(window, made.replies[0])
        assert _offered(window)
        QTest.mouseClick(window.files.bar.restore_button, Qt.MouseButton.LeftButton)
        pump(20)
    assert window.chat.error_banner.text() == (
        "The restore stopped part-way: could not write notes.md (disk full); the files were put back as they were")
    assert _files(made) == (V3, True)


# One window per flow (opening one is most of a test's time): each flow checks several points in turn.


def test_restore_then_back_again_then_a_hand_edit_is_named(window: MainWindow, made: Checkpointed) -> None:
    _restore_and_back(window, made)  # ends at turn three, files as turn three left them
    _hand_edit_named(window, made)


def test_keep_remember_and_a_failed_restore(window: MainWindow, made: Checkpointed,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _failed_restore(window, made, monkeypatch)  # the leaf on turn one, the files still turn three's
    window.steering.undo_action.trigger()  # back to turn three: the folder matches it, nothing offered
    assert pump_until(lambda: window.session.leaf_id == made.replies[2], 5)
    window.chat.clear_error()
    _keep_and_remember(window, made)


def test_badges_diffs_reader_and_clone(window: MainWindow, made: Checkpointed) -> None:
    _badges(window, made)
    _show_changes(window, made)
    for view in list(window.files.diff_views):
        view.close()
    pump(20)
    _reader_and_clone(window, made)
