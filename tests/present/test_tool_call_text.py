"""The texts that name tool calls read them from the entries' own ``toolCall`` blocks (pi's
``toolCallMap`` is kept as a map to those blocks, no tuple of its own per call)."""

from __future__ import annotations

from typing import Any

from desktop_app.present.graph_model import _tool_call_map
from desktop_app.present.text import entry_text, full_text, tool_calls_of


def _assistant_with_calls() -> dict[str, Any]:
    return {
        "type": "message",
        "id": "a1",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "src/app.py"}},
                {"type": "toolCall", "id": "c2", "name": "bash", "arguments": {"command": "ls -la"}},
                {"type": "toolCall", "id": 7, "name": "ignored", "arguments": {}},  # not a string id
            ],
        },
    }


def _result(call_id: str, tool: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": f"r-{call_id}",
        "parentId": "a1",
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "toolResult", "toolCallId": call_id, "toolName": tool, "content": []},
    }


def test_tool_calls_are_the_entries_own_blocks_and_name_the_results() -> None:
    assistant = _assistant_with_calls()
    blocks = assistant["message"]["content"]
    assert tool_calls_of(assistant) == [blocks[1], blocks[2]]
    assert tool_calls_of(assistant)[0] is blocks[1]
    calls = _tool_call_map([assistant])
    assert calls == {"c1": blocks[1], "c2": blocks[2]} and calls["c1"] is blocks[1]
    assert entry_text(_result("c1", "read"), calls) == "[read: src/app.py]"
    assert entry_text(_result("c2", "bash"), calls) == "[bash: ls -la]"
    assert entry_text(_result("c9", "grep"), calls) == "[grep]"  # its call is not in the file
    no_text = {**assistant, "message": {**assistant["message"], "content": blocks[1:]}}
    assert entry_text(no_text) == "→ read, bash"  # the call without a string id is no call
    assert full_text(assistant) == "Let me look.\n→ [read: src/app.py]\n→ [bash: ls -la]"
