"""A day in the life, driven from plain synchronous code as an outside check would: the real window
(``open_window``), the real SDK against the fake Anthropic server, keys typed into the composer with
``QTest`` and the event loop run by ``pump`` between looks (DESIGN.md §7.1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from desktop_app.ui.app import SAMPLE_SESSION
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump
from tests.fakes import anthropic_server as fa

from .driving import finish_turn, pump_until, sample_at, send, talk_to

LINES = 40


def reply_text(turn: int) -> str:
    return "\n".join(f"Turn {turn}, line {i}: the quick brown fox jumps over the lazy dog." for i in range(LINES))


@pytest.fixture
def window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: fa.FakeAnthropicServer) -> Iterator[MainWindow]:
    settings = talk_to(server, monkeypatch)
    settings.save_value(("compaction", "enabled"), False)
    settings.save_value(("branchSummary", "skipPrompt"), True)  # no summary question on Edit & branch
    path = sample_at(tmp_path / SAMPLE_SESSION.name, tmp_path)  # a folder that exists: no folder banner
    opened = open_window(path, size=(1200, 800))
    opened.graph.set_use_dot(False)
    yield opened
    opened.close()
    pump(50)






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


def user_entries(window: MainWindow, text: str) -> list[dict]:
    return [
        e for e in window.session.get_entries()
        if e.get("type") == "message" and e["message"]["role"] == "user"
        and "".join(b.get("text", "") for b in e["message"]["content"]) == text
    ]


def replies_under(window: MainWindow, entry_id: str) -> list[dict]:
    return [c for c in window.session.get_children(entry_id) if c.get("type") == "message" and c["message"]["role"] == "assistant"]




def reply_text_of(entry: dict) -> str:
    return "".join(b.get("text", "") for b in entry["message"]["content"] if b.get("type") == "text")


def test_esc_before_the_first_token_then_retry_on_the_user_card_answers_that_message(
    window: MainWindow, server: fa.FakeAnthropicServer
) -> None:
    server.enqueue(fa.stall_before_headers())
    send(window, "Are you there?")
    assert pump_until(lambda: len(server.message_requests()) == 1)  # asked; no token will come
    QTest.keyClick(window.chat.composer, Qt.Key.Key_Escape)
    assert pump_until(lambda: not window.agent.busy)
    pump(30)
    [user] = user_entries(window, "Are you there?")
    assert window.chat.card_actions(user["id"])[0] == "Retry"
    assert "Edit & branch" in window.chat.card_actions(user["id"])
    server.enqueue(fa.text("Yes, here."))
    window.chat.trigger(user["id"], "Retry")
    finish_turn(window)
    assert len(user_entries(window, "Are you there?")) == 1  # no second user entry
    answered = [r for r in replies_under(window, user["id"]) if r["message"].get("stopReason") == "stop"]
    assert [reply_text_of(r) for r in answered] == ["Yes, here."]
    assert window.session.leaf_id == answered[0]["id"]
    assert window.chat.card_actions(answered[0]["id"]) == ["Regenerate", "Copy"]
    assert "Retry" not in window.chat.card_actions(user["id"])  # answered now


def test_a_stopped_reply_with_partial_text_offers_retry_and_a_click_on_it_asks_again(
    window: MainWindow, server: fa.FakeAnthropicServer
) -> None:
    server.enqueue(fa.stall_mid_stream("The answer begins"))
    send(window, "Tell me more")
    assert pump_until(lambda: "The answer begins" in window.chat.model.index(window.chat.model.rowCount() - 1).data())
    QTest.keyClick(window.chat.composer, Qt.Key.Key_Escape)
    assert pump_until(lambda: not window.agent.busy)
    pump(30)
    [user] = user_entries(window, "Tell me more")
    [aborted] = replies_under(window, user["id"])
    assert aborted["message"]["stopReason"] == "aborted"
    assert window.chat.card_actions(aborted["id"]) == ["Retry", "Copy"]
    server.enqueue(fa.text("The whole answer."))
    chat = window.chat
    row = chat.row_of(aborted["id"])
    assert row is not None
    index = chat.model.index(row)
    chat.view.scrollTo(index)
    pump(30)
    [(action, where)] = [p for p in chat.delegate.hits.action_rects(chat.model, row, chat.view.visualRect(index)) if p[0].value == "Retry"]
    QTest.mouseClick(chat.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, where.center())
    finish_turn(window)
    texts = sorted(reply_text_of(r) for r in replies_under(window, user["id"]))
    assert texts == ["The answer begins", "The whole answer."]  # a sibling of the stopped one
    assert len(user_entries(window, "Tell me more")) == 1


def test_regenerate_clears_the_text_edit_and_branch_left_in_the_composer(
    window: MainWindow, server: fa.FakeAnthropicServer
) -> None:
    server.enqueue(fa.text("First answer."))
    send(window, "A question")
    finish_turn(window)
    [user] = user_entries(window, "A question")
    [answer] = replies_under(window, user["id"])
    window.chat.trigger(user["id"], "Edit & branch")
    assert pump_until(lambda: window.chat.composer_text() == "A question")
    assert window.session.leaf_id == user["parentId"]
    window.agent.restore_leaf(answer["id"])  # back to the answer (as the graph would), the text left over
    pump(30)
    server.enqueue(fa.text("Second answer."))
    window.chat.trigger(answer["id"], "Regenerate")
    finish_turn(window)
    assert window.chat.composer_text() == ""
    assert sorted(reply_text_of(r) for r in replies_under(window, user["id"])) == ["First answer.", "Second answer."]


def test_text_the_user_typed_survives_a_regenerate(window: MainWindow, server: fa.FakeAnthropicServer) -> None:
    server.enqueue(fa.text("First answer."))
    send(window, "Another question")
    finish_turn(window)
    [user] = user_entries(window, "Another question")
    [answer] = replies_under(window, user["id"])
    QTest.keyClicks(window.chat.composer, "my next thought")
    server.enqueue(fa.text("Again."))
    window.chat.trigger(answer["id"], "Regenerate")
    finish_turn(window)
    assert window.chat.composer_text() == "my next thought"
