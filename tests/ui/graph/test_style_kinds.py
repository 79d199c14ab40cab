"""Which node kinds the canvas draws dashed and which it tints more strongly (issue 24 item 1 moved
these rules from strings to ``session.kinds``: the same kinds must come out)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QColor

from desktop_app.ui.graph.style import SHAPES, GraphStyle, _mix


@pytest.mark.parametrize("dark", [False, True])
def test_bookkeeping_kinds_are_dashed_and_conversation_kinds_are_not(qtbot: Any, dark: bool) -> None:
    style = GraphStyle(dark=dark)
    dashed = {kind for kind, kind_style in style.kinds.items() if kind_style.dashed}
    assert dashed == {"custom", "label", "session_info", "unknown", "segment", "context_edit", "usage"}
    assert set(style.kinds) == set(SHAPES)
    assert style.kind("no such kind") is style.kinds["unknown"]


def test_a_system_card_is_tinted_more_than_a_message_card(qtbot: Any) -> None:
    style = GraphStyle(dark=False)
    system = style.kinds["system"]
    as_a_message = _mix(QColor("#ffffff"), system.accent, 0.11)  # what "user" and "assistant" get
    assert system.shape == style.kinds["user"].shape == "card"
    assert system.fill.lightness() < as_a_message.lightness()
