"""Which actions a chat card offers (issue 22, item 2): every finished user and assistant card has
a way on — a stopped, failed or empty turn is retried from the chat itself."""

from __future__ import annotations

from typing import Any

from desktop_app.present.card_actions import CardAction, card_actions, has_action_line

R, G, C, E = CardAction.RETRY, CardAction.REGENERATE, CardAction.COPY, CardAction.EDIT_BRANCH


def user(text: str = "Hello?") -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def reply(text: str = "Hi.", stop: str = "stop") -> dict[str, Any]:
    content = [{"type": "text", "text": text}] if text else []
    return {"role": "assistant", "content": content, "stopReason": stop}


def test_a_fine_reply_offers_regenerate_and_copy() -> None:
    assert card_actions(reply()) == (G, C)


def test_a_stopped_failed_or_empty_reply_offers_retry() -> None:
    assert card_actions(reply("partial", "aborted")) == (R, C)  # the aborted card with partial text
    assert card_actions(reply("", "aborted")) == (R,)  # stopped before the first token: nothing to copy
    assert card_actions({**reply("", "error"), "errorMessage": "overloaded"}) == (R,)
    assert card_actions(reply("   ")) == (R,)  # came back empty


def test_a_reply_with_only_a_tool_call_is_not_empty() -> None:
    message = {"role": "assistant", "content": [{"type": "toolCall", "id": "t", "name": "read", "arguments": {}}], "stopReason": "toolUse"}
    assert card_actions(message) == (G,)


def test_an_unanswered_user_message_offers_retry_edit_and_copy() -> None:
    assert card_actions(user(), None) == (R, E, C)  # the last row: Stop came before any reply was saved
    assert card_actions(user(), reply("", "aborted")) == (R, E, C)
    assert card_actions(user(), reply("boom", "error")) == (R, E, C)


def test_an_answered_user_message_offers_edit_and_copy_only() -> None:
    assert card_actions(user(), reply()) == (E, C)


def test_a_user_message_being_answered_is_not_retried() -> None:
    assert card_actions(user(), None, reply_streaming=True) == (E, C)


def test_the_live_row_and_other_kinds_have_no_action_line() -> None:
    assert card_actions(reply(), streaming=True) == ()
    assert not has_action_line(reply(), streaming=True)
    for message in ({"role": "toolResult", "content": []}, {"role": "compactionSummary", "summary": "s"}, "odd"):
        assert card_actions(message) == () and not has_action_line(message)


def test_the_names_are_the_automation_surfaces() -> None:
    assert [a.value for a in CardAction] == ["Retry", "Regenerate", "Copy", "Edit & branch"]
