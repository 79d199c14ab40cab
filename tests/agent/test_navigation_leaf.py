"""Where ``navigate_tree`` puts the leaf for each kind of target (the step split out of ``_navigate``)."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.agent.session import AgentSession


def _entry(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": "t", "parentId": "p", "timestamp": "2026-01-01T00:00:00.000Z", **fields}


def test_a_user_message_is_asked_again_from_its_parent() -> None:
    target = _entry("message", message={"role": "user", "content": [{"type": "text", "text": "again"}]})
    assert AgentSession._navigation_leaf(target, "t") == ("p", "again")


def test_a_custom_message_is_asked_again_from_its_parent() -> None:
    target = _entry("custom_message", customType="note", content="custom words", display=True)
    assert AgentSession._navigation_leaf(target, "t") == ("p", "custom words")


@pytest.mark.parametrize(
    "target",
    [
        _entry("message", message={"role": "assistant", "content": []}),
        _entry("compaction", summary="s", firstKeptEntryId="x", tokensBefore=1),
        _entry("message", message="not an object"),
        _entry("mystery"),
    ],
)
def test_any_other_entry_becomes_the_leaf(target: dict[str, Any]) -> None:
    assert AgentSession._navigation_leaf(target, "t") == ("t", None)
