"""The chat shows exactly ``build_session_context(leaf).messages`` (minus hidden custom messages).

Run on every conformance case, for the open leaf and for other leaves and interior entries, through
the real ``ChatPanel``. Kinds and texts are compared row by row against an independent reading of
the messages, and each row must hold the very message object the context holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from desktop_app.present.chat_render import render_message
from desktop_app.present.chat_theme import DARK, LIGHT
from desktop_app.session import SessionManager, build_session_context
from desktop_app.ui.chat import ChatPanel, ChatRole
from desktop_app.ui.markdown import markdown_parts

from .conftest import CASES

MAX_LEAVES = 6


def _shown(message: Any) -> bool:
    """pi-spec §4.5: custom messages are shown only when ``display`` is true."""
    return not (isinstance(message, dict) and message.get("role") == "custom" and not message.get("display"))


def _kind(message: Any) -> str:
    known = {
        "user",
        "assistant",
        "toolResult",
        "bashExecution",
        "custom",
        "branchSummary",
        "compactionSummary",
    }
    role = message.get("role") if isinstance(message, dict) else None
    return role if role in known else "unknown"


def _text(message: dict[str, Any]) -> str:
    """What a row's text must be, written out again here rather than imported."""
    role = message.get("role")
    if role in ("compactionSummary", "branchSummary"):
        return message.get("summary") or ""
    if role == "bashExecution":
        output = message.get("output") or ""
        return f"$ {message.get('command')}" + (f"\n{output}" if output else "")
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"
    )


def _leaves_to_check(manager: SessionManager) -> list[str | None]:
    index = manager.index
    leaves: list[str | None] = [manager.leaf_id]
    leaves += [leaf for leaf in index.leaves() if leaf != manager.leaf_id][:MAX_LEAVES]
    entries = index.entries
    if entries:  # a couple of interior entries: the chat of a node in the middle of a branch
        leaves += [entries[len(entries) // 3].get("id"), entries[len(entries) // 2].get("id")]
    return leaves


def _assert_rows_match(panel: ChatPanel, messages: list[Any], where: str) -> None:
    shown = [m for m in messages if _shown(m)]
    model = panel.model
    assert model.rowCount() == len(shown), where
    assert panel.hidden_count == len(messages) - len(shown), where
    for row, message in enumerate(shown):
        index = model.index(row)
        assert model.data(index, ChatRole.Message) is message, f"{where} row {row}"
        kind = model.data(index, ChatRole.Kind)
        assert kind == _kind(message), f"{where} row {row}"
        if kind != "unknown":
            assert model.data(index, ChatRole.Text) == _text(message), f"{where} row {row} ({kind})"


@pytest.mark.parametrize("case", CASES)
def test_chat_rows_equal_context_for_every_leaf(
    case: str, qtbot: Any, open_case: Callable[[str], SessionManager]
) -> None:
    manager = open_case(case)
    panel = ChatPanel()
    qtbot.addWidget(panel)
    panel.resize(600, 800)
    entries = manager.index.entries
    for leaf in _leaves_to_check(manager):
        context = build_session_context(entries, leaf, manager.index)
        panel.set_context(context.messages)
        _assert_rows_match(panel, context.messages, f"{case} @ {leaf}")
    # Back to the open leaf: rebinding leaves nothing behind from the other leaves.
    context = manager.build_session_context()
    panel.set_context(context.messages)
    _assert_rows_match(panel, context.messages, f"{case} @ open leaf")


def test_hidden_custom_messages_are_counted_not_shown(qtbot: Any) -> None:
    from .conftest import every_kind

    messages = every_kind()
    panel = ChatPanel()
    qtbot.addWidget(panel)
    panel.set_context(messages)
    kinds = [panel.model.data(panel.model.index(r), ChatRole.Kind) for r in range(panel.model.rowCount())]
    assert panel.hidden_count == 1
    assert "secret" not in [panel.model.message(r).get("customType") for r in range(panel.model.rowCount())]
    assert kinds.count("custom") == 1


@pytest.mark.parametrize("case", CASES)
def test_every_message_renders_collapsed_and_expanded(
    case: str, open_case: Callable[[str], SessionManager]
) -> None:
    """Odd data in real files (numbers for text, NULs, unknown blocks) never breaks rendering."""
    manager = open_case(case)
    seen: set[int] = set()
    everything = frozenset(range(64))
    for leaf in manager.index.leaves()[:MAX_LEAVES] or [None]:
        for message in build_session_context(manager.index.entries, leaf, manager.index).messages:
            if id(message) in seen:
                continue
            seen.add(id(message))
            for theme, expanded in ((LIGHT, frozenset()), (DARK, everything)):
                html = render_message(message, theme, expanded, markdown=markdown_parts)
                assert isinstance(html, str) and html
                assert "<img" not in html.lower()
