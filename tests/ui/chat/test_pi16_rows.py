"""pi 1.6.0 rows in the chat panel: system cards (collapsed summary, click expands) and rows a
context edit omitted or replaced, on a real pi 1.6.0 session (pytest-qt)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt

from desktop_app.present.chat_feed import EDIT_MARK, SYSTEM_MARK, ChatFeed
from desktop_app.present.pi16_words import system_text
from desktop_app.session import SessionManager
from desktop_app.ui.chat import ChatPanel, ChatRole

CASES16 = Path(__file__).resolve().parents[2] / "fixtures" / "conformance16" / "cases"


@pytest.fixture
def panel(qtbot: Any) -> ChatPanel:
    widget = ChatPanel()
    qtbot.addWidget(widget)
    widget.resize(700, 900)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _session(tmp_path: Path, case: str, leaf: str | None = None) -> SessionManager:
    shutil.copy(CASES16 / f"{case}.jsonl", tmp_path / f"{case}.jsonl")
    session = SessionManager.open(tmp_path / f"{case}.jsonl", fsync=False)
    if leaf is not None:
        session.branch(leaf)
    return session


def _show(panel: ChatPanel, session: SessionManager) -> None:
    for update in ChatFeed(session).bind(session):  # the window's path: the feed's rows
        panel.apply(update)


def _text(panel: ChatPanel, row: int) -> str:
    return panel.delegate.document(panel.model, row).toPlainText()


def test_system_card_shows_its_summary_collapsed_and_expands_on_click(
    panel: ChatPanel, qtbot: Any, tmp_path: Path
) -> None:
    session = _session(tmp_path, "pi16-1618")
    _show(panel, session)
    model = panel.model
    rows = [r for r in range(model.rowCount()) if model.data(model.index(r), ChatRole.Kind) == "system"]
    assert len(rows) == 2
    first, change = rows
    prompt = model.message(first)
    rules = prompt["sections"]["rules"]
    index = model.index(first)
    assert model.data(index, ChatRole.Collapsed) is True
    collapsed = _text(panel, first)
    assert "System prompt" in collapsed and "tools added: read, bash, edit, write, grep, find, ls" in collapsed
    assert rules.splitlines()[0] not in collapsed  # the text itself waits for a click
    assert "System prompt changed" in _text(panel, change) and "tools removed: find" in _text(panel, change)

    panel.view.scrollTo(index)
    rect = panel.view.visualRect(index)
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.center().x(), rect.center().y()))
    assert model.data(index, ChatRole.Collapsed) is False
    expanded = _text(panel, first)
    assert rules.splitlines()[0] in expanded and "<rules>" in expanded
    assert "• read" in expanded  # the tool declarations
    assert panel.view.visualRect(index).height() > rect.height()
    assert model.data(index, ChatRole.Text) == system_text(prompt)


def test_edited_rows_say_what_the_edit_did(panel: ChatPanel, tmp_path: Path) -> None:
    session = _session(tmp_path, "pi16-1611", "3dbbb034")
    _show(panel, session)
    model = panel.model
    states = {}
    for row in range(model.rowCount()):
        mark = model.message(row).get(EDIT_MARK)
        if mark is not None:
            states[mark["state"]] = row
    assert set(states) == {"omitted", "replaced"}
    omitted = _text(panel, states["omitted"])
    assert omitted.startswith("⊘ Omitted by context edit") and "no longer receives" in omitted
    replaced_row = states["replaced"]
    replaced = _text(panel, replaced_row)
    mark = model.message(replaced_row)[EDIT_MARK]
    assert replaced.startswith(f"✎ Replaced by context edit {mark['editId']}")
    new_text = model.message(replaced_row)["content"][0]["text"]
    assert " ".join(new_text.split())[:40] in " ".join(replaced.split())
    # The checkpoint replayed at the compaction comes first, as the model reads it.
    assert model.message(0)[SYSTEM_MARK]["checkpoint"] is True
