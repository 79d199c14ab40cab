"""A day in the life (issue 22 item 15): the loop a person runs for hours, driven through the
automation surface (DESIGN.md §7.1) from plain synchronous code, against the fake Anthropic server.

Launch, ask, watch it stream, approve a tool, Stop early and Retry, preview a compaction (with a focus)
and run it, drag the leaf pin with a branch summary, fork, open the fork from the sessions list, flip a
sibling, label, find, undo, switch the theme — asserting at every step what a person sees: the leaf in
view and clear of the minimap, the cards and their actions, the list, the texts.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from desktop_app.tools.approval import ApprovalDecision
from desktop_app.ui.app import SAMPLE_SESSION
from desktop_app.ui.dialogs import LabelDialog
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump
from desktop_app.ui.theme import apply_theme
from tests.fakes import anthropic_server as fa

from .driving import finish_turn, pump_until, sample_at, send, talk_to

REPLY = "\n".join(f"Line {i}: the quick brown fox jumps over the lazy dog." for i in range(40))
SUMMARY = "## Goal\nPlan a trip to Lisbon.\n\n## Progress\n### Done\n- [x] Days one and two."


@pytest.fixture
def window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: fa.FakeAnthropicServer) -> Iterator[MainWindow]:
    settings = talk_to(server, monkeypatch)
    settings.save_value(("compaction", "enabled"), False)  # compactions only when the person asks
    settings.save_value(("compaction", "keepRecentTokens"), 300)  # a small session has something to compact
    settings.save_value(("branchSummary", "skipPrompt"), False)  # pi's question on a pin drag
    work = tmp_path / "trips"
    work.mkdir()
    outside = tmp_path / "Downloads"
    outside.mkdir()
    path = sample_at(outside / SAMPLE_SESSION.name, work)  # opened from a file outside the sessions folder
    opened = open_window(path, size=(1600, 1000))
    opened.graph.set_use_dot(False)
    yield opened
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, MainWindow) and widget is not opened:
            widget.close()
    opened.close()
    apply_theme("light")
    pump(50)








def leaf_in_view(window: MainWindow) -> bool:
    pin = window.graph.pin_center()
    return pin is not None and window.graph.viewport().rect().contains(pin) and not window.graph.minimap_rect().contains(pin)


def leaf(window: MainWindow) -> dict[str, Any]:
    entry = window.session.get_entry(window.session.leaf_id or "")
    assert entry is not None
    return entry


def text_of(entry: dict[str, Any]) -> str:
    content = entry["message"]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content if b.get("type") == "text")


def users(window: MainWindow, text: str) -> list[dict[str, Any]]:
    return [
        e for e in window.session.get_entries()
        if e.get("type") == "message" and e["message"]["role"] == "user" and text_of(e) == text
    ]


def click_node(window: MainWindow, entry_id: str) -> None:
    assert pump_until(lambda: not window.graph.layout_busy and window.graph.reveal(entry_id))
    point = window.graph.node_center(entry_id)
    assert point is not None
    QTest.mouseClick(window.graph.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    pump(30)


def drag_pin_to(window: MainWindow, entry_id: str) -> None:
    assert pump_until(lambda: not window.graph.layout_busy and window.graph.reveal(entry_id)), entry_id
    target = window.graph.node_center(entry_id)
    pin = window.graph.pin_center()
    assert target is not None and pin is not None and pin != target
    viewport = window.graph.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pin)
    QTest.mouseMove(viewport, QPoint((pin.x() + target.x()) // 2, (pin.y() + target.y()) // 2))
    QTest.mouseMove(viewport, target)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, target)


def test_a_day_in_the_life(window: MainWindow, server: fa.FakeAnthropicServer, tmp_path: Path) -> None:  # noqa: PLR0915
    steps: list[str] = []

    def step(name: str) -> None:
        steps.append(name)

    # -- launch ---------------------------------------------------------------------------------------
    step("launch: the sample on the canvas and in the chat, the leaf in view")
    assert len(window.session.get_entries()) >= 10 and window.chat.composer_text() == ""
    assert pump_until(lambda: leaf_in_view(window))

    # -- ask and watch it stream -------------------------------------------------------------------------
    step("send: the user's message is saved before the reply comes")
    gate = threading.Event()
    server.enqueue(fa.gated_text(REPLY, gate))
    send(window, "Plan day three, please")
    assert pump_until(lambda: len(users(window, "Plan day three, please")) == 1)
    step("stream: part of the reply is on screen while it streams")
    assert pump_until(lambda: len(server.message_requests()) == 1)
    gate.set()
    finish_turn(window)
    reply = leaf(window)
    assert reply["message"]["role"] == "assistant" and text_of(reply) == REPLY
    step("reply: the leaf in view, clear of the minimap; the card offers Regenerate and Copy")
    assert pump_until(lambda: leaf_in_view(window))
    assert window.chat.card_actions(reply["id"]) == ["Regenerate", "Copy"]

    # -- a tool call, approved --------------------------------------------------------------------------
    step("tool approval: a write asks first, and nothing is written before the answer")
    server.enqueue(
        fa.tool_use("write", {"path": "plan.md", "content": "Day three: Sintra\n"}),
        fa.text("Saved the plan to plan.md."),
    )
    send(window, "Write the plan to plan.md")
    assert pump_until(lambda: window.chat.approval.card is not None)
    assert not (tmp_path / "trips" / "plan.md").exists()
    QTest.keyClick(window.chat.approval.button(ApprovalDecision.ALLOW_ONCE), Qt.Key.Key_Space)
    finish_turn(window)
    step("tool result: the file is written, the tool result saved, the final reply is the leaf, in view")
    assert (tmp_path / "trips" / "plan.md").read_text() == "Day three: Sintra\n"
    results = [e for e in window.session.get_branch() if e.get("type") == "message" and e["message"]["role"] == "toolResult"]
    assert results and results[-1]["message"]["toolName"] == "write" and not results[-1]["message"].get("isError")
    assert text_of(leaf(window)) == "Saved the plan to plan.md."
    assert pump_until(lambda: leaf_in_view(window))

    # -- Stop before the first token, then Retry ------------------------------------------------------------
    step("early Stop: Esc before the first token leaves the user's card with Retry")
    server.enqueue(fa.stall_before_headers())
    send(window, "Are you still there?")
    assert pump_until(lambda: len(server.message_requests()) == 4)
    QTest.keyClick(window.chat.composer, Qt.Key.Key_Escape)
    assert pump_until(lambda: not window.agent.busy)
    pump(60)
    [asked] = users(window, "Are you still there?")
    assert window.chat.card_actions(asked["id"])[0] == "Retry"
    step("Retry: the same message answered, no second user entry, the answer in view")
    server.enqueue(fa.text("Yes, still here."))
    window.chat.trigger(asked["id"], "Retry")
    finish_turn(window)
    assert len(users(window, "Are you still there?")) == 1
    assert text_of(leaf(window)) == "Yes, still here." and leaf(window)["parentId"] == asked["id"]
    assert pump_until(lambda: leaf_in_view(window))

    step("Regenerate: the reply's card answers again, as a sibling of the first answer")
    first_answer = leaf(window)
    server.enqueue(fa.text("Yes, I am here."))
    window.chat.trigger(first_answer["id"], "Regenerate")
    finish_turn(window)
    assert text_of(leaf(window)) == "Yes, I am here." and leaf(window)["parentId"] == asked["id"]
    assert pump_until(lambda: leaf_in_view(window))

    # -- a sibling flip ---------------------------------------------------------------------------------------------------
    step("sibling flip: the chat's arrows switch at once, no dialog, and offer a summary bar")
    assert pump_until(lambda: any(a.isVisible() and (a.next.isEnabled() or a.previous.isEnabled()) for a in window.chat.sibling_arrows))
    arrows = next(a for a in window.chat.sibling_arrows if a.isVisible() and (a.next.isEnabled() or a.previous.isEnabled()))
    leaf_before = window.session.leaf_id
    QTest.mouseClick(arrows.next if arrows.next.isEnabled() else arrows.previous, Qt.MouseButton.LeftButton)
    assert pump_until(lambda: window.session.leaf_id != leaf_before)
    assert window.steering.summary_question is None and QApplication.activeModalWidget() is None
    assert pump_until(lambda: leaf_in_view(window))

    step("undo: Ctrl+Z takes the leaf back to where it was before the flip")
    before_undo = window.session.leaf_id
    assert pump_until(lambda: window.steering.undo_action.isEnabled())  # Edit → Undo is offered
    window.steering.undo()
    assert pump_until(lambda: window.session.leaf_id != before_undo)
    assert window.session.leaf_id == leaf_before  # back where the flip started
    assert pump_until(lambda: leaf_in_view(window))
    step("redo: Ctrl+Shift+Z goes forward again")
    window.steering.redo()
    assert pump_until(lambda: window.session.leaf_id == before_undo)

    # -- a compaction: preview, focus, run ---------------------------------------------------------------------
    step("compaction preview: a dry run on the graph, nothing written")
    before = len(window.session.get_entries())
    dialog = window.steering.compact()
    assert dialog is not None and dialog.compact_button.isEnabled()
    words = " | ".join(text for text, _rect in window.graph.audit_captions())
    assert "summarized" in words and "kept" in words
    assert len(window.session.get_entries()) == before
    step("compaction edit: a focus for the summary")
    dialog.focus_edit.setPlainText("the Sintra day")
    server.enqueue(*[fa.text(SUMMARY)] * (2 if dialog.preview.is_split_turn else 1))  # a split turn: its prefix too
    step("compaction run: the compaction is the leaf, in view; the meter never says '?'")
    dialog.compact_button.click()
    assert pump_until(lambda: window.steering.compaction_dialog is None and not window.agent.busy)
    pump(100)
    assert leaf(window)["type"] == "compaction" and leaf(window)["summary"].startswith("## Goal")
    assert any("the Sintra day" in r.non_auth_text() for r in server.message_requests()[-2:])
    assert pump_until(lambda: leaf_in_view(window))
    assert "?" not in window.status.meter.text()
    step("audit: a click on the compaction shows its summary rendered, once, in the reader's place")
    compaction_id = window.session.leaf_id or ""
    click_node(window, compaction_id)
    assert window.steering.reader.detail_shown()
    assert "Goal" in window.audit_panel.text() and "## Goal" not in window.audit_panel.text()

    # -- the pin dragged with a summary ----------------------------------------------------------------------------
    step("pin drag: pi's question, with what would be summarized")
    target = reply["id"]  # the first streamed reply: the tool call, the retry and the compaction are left
    drag_pin_to(window, target)
    assert pump_until(lambda: window.steering.summary_question is not None)
    step("summarize: a branch summary is written at the target and the leaf is in view")
    server.enqueue(fa.text("## Goal\nThe abandoned branch planned day three."))
    window.steering.summary_question.choose("summarize")  # type: ignore[union-attr]
    assert pump_until(lambda: leaf(window)["type"] == "branch_summary" and not window.agent.busy)
    assert leaf(window)["parentId"] == target
    assert pump_until(lambda: leaf_in_view(window))

    # -- fork, and open the fork from the list -------------------------------------------------------------------------
    step("fork: a user message forked lands in the sessions folder and is listed, selected")
    [day_three] = users(window, "Plan day three, please")
    source = window.session.session_file
    assert window.fork_entry(day_three["id"], "before", new_window=False)
    assert pump_until(lambda: window.session.session_file != source, 5)
    forked = window.session.session_file or ""
    assert pump_until(lambda: forked in window.sessions.listed_paths(), 5)
    assert Path(forked).is_relative_to(Path(os.environ["ARBOR_HOME"]) / "sessions")  # not next to the source
    step("fork: the forked message is back in the composer to edit")
    assert window.chat.composer_text() == "Plan day three, please"
    step("open from the list: a click on the original session opens it")
    window.chat.composer.clear()
    window.shell.set_panel_visible(True)
    window.open_path(source or "")
    assert pump_until(lambda: window.session.session_file == source)
    window.sessions.select_session(forked)
    assert pump_until(lambda: window.sessions.selected_path() == forked)
    item = window.sessions.tree.currentItem()
    assert item is not None
    rect = window.sessions.tree.visualItemRect(item)
    QTest.mouseClick(window.sessions.tree.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    assert pump_until(lambda: window.session.session_file == forked)
    step("back: the original opens again from the list, where it was left")
    window.open_path(source or "")
    assert pump_until(lambda: window.session.session_file == source)
    assert pump_until(lambda: leaf_in_view(window))

    # -- label and find -------------------------------------------------------------------------------------------------
    step("label: F2 on the selected node, typed, Enter; the label entry is written")
    leaf_now = window.session.leaf_id or ""
    window.graph.select(leaf_now, center=True, notify=True)
    pump(20)
    window.label_selected()
    assert pump_until(lambda: window.findChild(LabelDialog, "labelDialog") is not None)
    label = window.findChild(LabelDialog, "labelDialog")
    assert isinstance(label, LabelDialog)
    label.field.setText("day-in-the-life")
    QTest.keyClick(label.field, Qt.Key.Key_Return)
    assert pump_until(lambda: window.session.get_label(leaf_now) == "day-in-the-life")
    step("find: Ctrl+F, the label typed, Enter: '1 of N' and the match selected")
    field = window.find_bar.field
    field.setFocus()
    QTest.keyClicks(field, "day-in-the-life")
    QTest.keyClick(field, Qt.Key.Key_Return)
    assert pump_until(lambda: "of" in window.find_bar.status.text())
    assert window.find_bar.status.text().startswith("1 of")
    # -- the theme -------------------------------------------------------------------------------------------------------------
    step("theme: Settings → Colours dark; the window and the chat turn dark, the leaf still in view")
    settings = window.shell.open_settings()
    settings.theme.setCurrentIndex(settings.theme.findData("dark"))
    settings.accept()
    pump(50)
    assert window.chat.theme().dark and window.palette().window().color().lightness() < 100
    assert pump_until(lambda: leaf_in_view(window))

    step("again: one more question on the branch, answered and in view")
    server.enqueue(fa.text("Day four: Cascais."))
    send(window, "And day four?")
    finish_turn(window)
    assert text_of(leaf(window)) == "Day four: Cascais." and pump_until(lambda: leaf_in_view(window))
    errors = [e for e in window.session.get_entries() if e.get("type") == "message" and e["message"].get("stopReason") == "error"]
    assert errors == []
    assert len(steps) >= 25, steps
