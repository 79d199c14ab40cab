"""Tool results in the chat: an edit's diff (``details.diff``) and bash output in collapsible rows."""

from __future__ import annotations

from typing import Any

from desktop_app.present.chat_render import render_message
from desktop_app.present.chat_theme import LIGHT
from desktop_app.ui.markdown import markdown_parts


def _result(name: str, text: str, details: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "toolResult", "toolCallId": "c1", "toolName": name,
                               "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 1}
    if details is not None:
        message["details"] = details
    return message


DIFF = " 1 x = 1\n-2 y = 2\n+2 y = 3\n+3 z = 4"


def test_an_edit_result_shows_its_diff_when_expanded_and_counts_when_collapsed() -> None:
    message = _result("edit", "Successfully replaced 1 block(s) in a.py.", {"diff": DIFF, "firstChangedLine": 2})
    collapsed = render_message(message, LIGHT, markdown=markdown_parts)
    assert "+2 −1" in collapsed and "y = 3" not in collapsed
    expanded = render_message(message, LIGHT, frozenset({0}), markdown=markdown_parts)
    assert "Successfully replaced" in expanded
    assert "y = 3" in expanded and "z = 4" in expanded and "y = 2" in expanded


def test_a_result_without_a_diff_has_no_counts() -> None:
    message = _result("bash", "hi\nthere")
    collapsed = render_message(message, LIGHT, markdown=markdown_parts)
    assert "−" not in collapsed and "2 lines" in collapsed
    assert "there" in render_message(message, LIGHT, frozenset({0}), markdown=markdown_parts)


def test_odd_details_do_not_break_the_row() -> None:
    for details in ({"diff": 3}, ["diff"], {"diff": ""}):
        html = render_message(_result("edit", "ok", details), LIGHT, frozenset({0}), markdown=markdown_parts)
        assert "ok" in html and "−" not in html
