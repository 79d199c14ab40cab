"""Issue 26 in the real window, driven as a person would, on a copy of a session pi 1.6.0 wrote (six
compactions): right-click → Hide (struck through, the context lacks it) → Show again; Edit text with the
token change shown → saved (badge) → Undo; Summarize up to here → the cut moved with the keys (the bands
follow) → Generate → the summary edited → Compact (that summary, that cut); Continue without this
compaction (a new branch, the leaf moved); the edit items disabled with the reason under pi 0.73.1.
A cut the session moved away from is refused in words. Nothing is ever rewritten: the file before each step is a prefix of the file after it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMenu

from desktop_app.agent.context_hand import NO_EDITS_IN_0_73_1
from desktop_app.present.context_actions import ContextAction, cut_choices_of, edit_token_change
from desktop_app.present.context_words import token_change_words
from desktop_app.session.entries import message_text
from desktop_app.settings import Settings
from desktop_app.ui.context_hand import CONTEXT_MNEMONICS
from desktop_app.ui.graph.cut_drag import cut_line_of
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.manual_compaction import ManualCompactionDialog
from desktop_app.ui.testing import edit_marks, open_window, pump
from tests.agent.context_flow import CHOSEN_CUT, HIDDEN_TOOL_RESULT, REPLACED_USER, SOURCE
from tests.ui.driving import pump_until


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "pi16-1606.jsonl"
    shutil.copyfile(SOURCE, path)
    return path


def _open(path: Path, pi_version: str = "1.6.0") -> MainWindow:
    Settings.load().save_value(("piVersion",), pi_version)
    window = open_window(path, size=(1400, 900))
    window.graph.set_use_dot(False)
    window.graph.set_folding(False)
    pump(50)
    return window


@pytest.fixture
def window(session: Path) -> Iterator[MainWindow]:
    opened = _open(session)
    yield opened
    opened.close()
    pump(50)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _right_click(window: MainWindow, entry_id: str) -> QMenu:
    """A right click on the node (offscreen QTest sends no ContextMenu event: the one Qt would)."""
    assert window.graph.reveal(entry_id)
    point = window.graph.node_center(entry_id)
    assert point is not None
    viewport = window.graph.viewport()
    QTest.mouseClick(viewport, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, point)
    QApplication.sendEvent(viewport, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point, viewport.mapToGlobal(point)))
    menu = window.steering.node_menu
    assert menu is not None and menu.isVisible()
    return menu


def _choose(window: MainWindow, entry_id: str, action: ContextAction) -> None:
    """Right-click the node and press the item's underlined letter."""
    menu = _right_click(window, entry_id)
    item = next(a for a in menu.actions() if a.data() is action)
    assert item.isEnabled(), item.toolTip()
    letter = CONTEXT_MNEMONICS[action].split("&")[1][0]
    QTest.keyClick(menu, letter.lower())
    pump(30)


def _context_text(window: MainWindow) -> str:
    return "\n".join(message_text(m.get("content"), "\n") for m in window.session.build_session_context().messages)


def _tool_text(window: MainWindow, entry_id: str) -> str:
    entry = window.session.get_entry(entry_id)
    assert entry is not None
    return message_text(entry["message"]["content"], "\n")


def test_hide_show_and_edit_text_with_the_token_change_then_undo(window: MainWindow, session: Path) -> None:
    start = session.read_text()
    hidden_text = _tool_text(window, HIDDEN_TOOL_RESULT)
    assert hidden_text[:60] in _context_text(window)
    base = edit_marks(window)  # pi's own edits in this file: two entries hidden
    assert HIDDEN_TOOL_RESULT not in base and REPLACED_USER not in base and set(base.values()) == {"hidden"}

    _choose(window, HIDDEN_TOOL_RESULT, ContextAction.HIDE)
    assert pump_until(lambda: edit_marks(window) == {**base, HIDDEN_TOOL_RESULT: "hidden"}, 5)
    assert hidden_text[:60] not in _context_text(window)  # the model no longer gets it
    window.sidebar.show_lens()
    window.lens.set_target(None)  # the context at the leaf: listed as omitted, not sent
    assert any(r.entry_id == HIDDEN_TOOL_RESULT and r.edit == "omitted" for r in window.lens.lens.rows)
    assert not window.lens.effect.isVisible()
    window.graph.select(HIDDEN_TOOL_RESULT, notify=True)  # selected: what the model got before, and now
    pump(50)
    assert window.lens.effect.isVisible() and "Hidden from the context" in window.lens.effect.text()
    assert _lines(session)[-1]["type"] == "context_edit" and session.read_text().startswith(start)

    _choose(window, HIDDEN_TOOL_RESULT, ContextAction.SHOW)
    assert pump_until(lambda: edit_marks(window) == base, 5)
    assert hidden_text[:60] in _context_text(window)

    _choose(window, REPLACED_USER, ContextAction.EDIT_TEXT)
    dialog = window.steering.context_hand.edit_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.original.toPlainText() == message_text(window.session.get_entry(REPLACED_USER)["message"]["content"], "\n\n")
    dialog.editor.selectAll()
    QTest.keyClicks(dialog.editor, "Only the parser, please.")
    change = edit_token_change(window.session, REPLACED_USER, "Only the parser, please.", window.agent.session.profile)
    assert change.delta != 0
    assert pump_until(lambda: dialog.change.text() == token_change_words(change), 3)  # shown before saving
    leaf_before = window.session.leaf_id
    QTest.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)
    assert pump_until(lambda: edit_marks(window) == {**base, REPLACED_USER: "edited"}, 5)
    assert "Only the parser, please." in _context_text(window)
    written = _lines(session)[-1]
    assert written["type"] == "context_edit" and written["targetId"] == REPLACED_USER

    before_undo = session.read_text()
    QTest.keyClick(window.graph.viewport(), Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # Undo: a leaf move
    assert pump_until(lambda: window.session.leaf_id == leaf_before and edit_marks(window) == base, 5)
    assert session.read_text() == before_undo  # nothing rewritten, nothing written


def _refused_in_words(window: MainWindow, session: Path) -> None:
    """A cut the session moved away from since the dialog opened: refused in words, the dialog stays."""
    start, leaf = session.read_text(), window.session.leaf_id
    _choose(window, CHOSEN_CUT, ContextAction.SUMMARIZE_UP_TO_HERE)
    dialog = window.steering.compaction_dialog
    assert isinstance(dialog, ManualCompactionDialog) and dialog.cut == CHOSEN_CUT
    path = [e["id"] for e in window.session.get_branch()]
    assert window.agent.restore_leaf(path[path.index(CHOSEN_CUT) - 1])  # the leaf moved above the cut meanwhile
    QTest.mouseClick(dialog.compact_button, Qt.MouseButton.LeftButton)
    assert pump_until(lambda: dialog.error.isVisible(), 5)
    assert CHOSEN_CUT in dialog.error.text() and "cannot be the first kept entry" in dialog.error.text()
    assert window.steering.compaction_dialog is dialog and dialog.compact_button.isVisible()  # still open
    assert session.read_text() == start
    dialog.cancel_button.click()
    assert pump_until(lambda: window.steering.compaction_dialog is None, 3)
    assert window.agent.restore_leaf(leaf)


def test_summarize_up_to_here_moved_cut_edited_summary_then_continue_without_it(window: MainWindow, session: Path) -> None:
    _refused_in_words(window, session)
    start = session.read_text()
    _choose(window, CHOSEN_CUT, ContextAction.SUMMARIZE_UP_TO_HERE)
    dialog = window.steering.compaction_dialog
    assert isinstance(dialog, ManualCompactionDialog) and dialog.cut == CHOSEN_CUT
    bands = window.graph.graph_scene().bands
    assert bands is not None and bands.audit.kept_ids[0] == CHOSEN_CUT  # the canvas shows that cut
    choices = [c.entry_id for c in cut_choices_of(window.session, window.agent.session.profile)]
    at = choices.index(CHOSEN_CUT)

    dialog.slider.setFocus()
    QTest.keyClick(dialog.slider, Qt.Key.Key_Right)  # the next valid cut: the bands follow
    assert dialog.cut == choices[at + 1]
    bands = window.graph.graph_scene().bands
    assert bands is not None and bands.audit.kept_ids[0] == choices[at + 1]
    assert choices[at + 1] in dialog.cut_label.text() and "tokens kept" in dialog.cut_label.text()
    QTest.keyClick(dialog.slider, Qt.Key.Key_Left)
    assert dialog.cut == CHOSEN_CUT

    # the cut line dragged on the canvas, down to a node further down the path, and back up
    drag = window.steering.context_hand.cut_drag
    assert drag is not None
    viewport = window.graph.viewport()
    further = next(c for c in choices[at + 2 :] if window.graph.node_center(c) is not None)  # a node on screen
    for target in (further, CHOSEN_CUT):
        grab, end = drag.line_point(), window.graph.node_center(target)
        assert grab is not None and end is not None
        QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, grab)
        QTest.mouseMove(viewport, QPoint(grab.x(), (grab.y() + end.y()) // 2))
        QTest.mouseMove(viewport, end - QPoint(0, 4))  # the node's top half: the cut goes above it
        QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end - QPoint(0, 4))
        assert dialog.cut == target and dialog.slider.value() == choices.index(target)
        bands = window.graph.graph_scene().bands
        assert bands is not None and bands.audit.kept_ids[0] == target
    assert window.graph.selected_entry() != further  # a drag, not a click on the node
    # a cut whose entry has no node of its own in this filter still draws its line (one to grab)
    unseen = next(c for c in choices[at:] if window.graph.graph_scene().graph.node_of.get(c) != c)
    assert dialog.set_cut(unseen) and cut_line_of(window.graph) is not None
    assert dialog.set_cut(CHOSEN_CUT)

    QTest.mouseClick(dialog.generate_button, Qt.MouseButton.LeftButton)
    assert pump_until(lambda: bool(dialog.summary_edit.toPlainText()), 10)
    assert session.read_text() == start  # generating writes nothing
    dialog.summary_edit.selectAll()
    QTest.keyClicks(dialog.summary_edit, "Written by hand: only the parser matters.")
    QTest.mouseClick(dialog.compact_button, Qt.MouseButton.LeftButton)
    assert pump_until(lambda: window.steering.compaction_dialog is None and not window.agent.busy, 10)
    compaction = _lines(session)[-1]
    assert compaction["type"] == "compaction"
    assert compaction["summary"] == "Written by hand: only the parser matters."
    assert compaction["firstKeptEntryId"] == CHOSEN_CUT
    assert session.read_text().startswith(start)

    pump(100)
    after_compaction = session.read_text()
    _choose(window, compaction["id"], ContextAction.CONTINUE_WITHOUT_COMPACTION)
    assert pump_until(lambda: window.session.leaf_id != compaction["id"], 5)
    path_ids = [e["id"] for e in window.session.get_branch()]
    assert compaction["id"] not in path_ids and compaction["parentId"] in path_ids  # a new branch beside it
    assert "only the parser matters" not in _context_text(window)
    assert session.read_text().startswith(after_compaction)  # the compacted branch stays


def test_under_pi_0_73_1_the_edit_items_are_disabled_with_the_reason(session: Path) -> None:
    window = _open(session, "0.73.1")
    try:
        menu = _right_click(window, REPLACED_USER)
        items = {a.data(): a for a in menu.actions() if isinstance(a.data(), ContextAction)}
        for action in (ContextAction.HIDE, ContextAction.EDIT_TEXT):
            assert not items[action].isEnabled() and items[action].toolTip() == NO_EDITS_IN_0_73_1
        assert items[ContextAction.SUMMARIZE_UP_TO_HERE].isEnabled()  # a plain compaction 0.73.1 reads
        menu.close()
    finally:
        window.close()
        pump(50)



def test_the_cut_stays_put_while_its_compaction_runs(qapp: QApplication) -> None:
    """While Compact runs, the slider, a canvas drag (``set_cut``) or another "Summarize up to here"
    must not move the cut or bring Generate and the summary back: the bands would show a cut other
    than the one being written, and a Generate then would turn the dialog back into its preview."""
    from desktop_app.compaction.tokens import CompactionSettings
    from desktop_app.present.compaction_preview import preview_compaction
    from desktop_app.session import SessionManager

    view = SessionManager.open_snapshot(SOURCE)
    settings = CompactionSettings()
    choices = cut_choices_of(view, view.profile)

    def preview_of(cut: str | None) -> Any:
        return preview_compaction(view, settings, view.profile, first_kept_entry_id=cut)

    dialog = ManualCompactionDialog(preview_of(None), choices, preview_of, cut=CHOSEN_CUT)
    moved: list[Any] = []
    dialog.cut_changed.connect(moved.append)
    QTest.mouseClick(dialog.compact_button, Qt.MouseButton.LeftButton)
    assert dialog.running
    at = [c.entry_id for c in choices].index(CHOSEN_CUT)
    assert not dialog.set_cut(choices[at + 1].entry_id)
    dialog.slider.setFocus()
    QTest.keyClick(dialog.slider, Qt.Key.Key_Right)
    assert not dialog.slider.isEnabled()
    assert dialog.cut == CHOSEN_CUT and moved == []
    assert not dialog.generate_button.isEnabled() and not dialog.summary_edit.isEnabled()
    assert not dialog.focus_edit.isEnabled() and not dialog.compact_button.isVisible()
    dialog.show_error("refused")  # the run ended in a refusal: the preview is back, the cut movable
    assert dialog.set_cut(choices[at + 1].entry_id) and dialog.cut == choices[at + 1].entry_id
    dialog.deleteLater()
