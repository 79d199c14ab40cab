"""Repeated strings of a parsed session are one object each, and entries stay exactly as parsed
(issue 10: peak memory of a 100,000-entry session)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson

from desktop_app.session import SessionManager
from desktop_app.session.entries import parse_session_lines, parse_session_text, serialize_line, share_strings

from .helpers import assistant, tool_result, user


def _line(entry: dict[str, Any]) -> bytes:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode()


def _session() -> list[dict[str, Any]]:
    reply = assistant("hi", model="claude-sonnet-4-5")
    reply["content"].append({"type": "toolCall", "id": "toolu_1", "name": "read", "arguments": {"path": "a"}})
    return [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p"},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2025-01-01T00:00:01.000Z", "message": user("q")},
        {"type": "message", "id": "b2", "parentId": "a1", "timestamp": "2025-01-01T00:00:02.000Z", "message": reply},
        {"type": "message", "id": "c3", "parentId": "b2", "timestamp": "2025-01-01T00:00:03.000Z",
         "message": tool_result("toolu_1", "text")},
        {"type": "message", "id": "d4", "parentId": "c3", "timestamp": "2025-01-01T00:00:04.000Z",
         "message": assistant("again", model="claude-sonnet-4-5")},
        {"type": "message", "id": "e5", "parentId": "a1", "timestamp": "2025-01-01T00:00:05.000Z", "message": user("r")},
    ]


def test_parsed_lines_share_repeated_strings() -> None:
    entries = _session()
    lines = [_line(e) for e in entries]
    parsed = parse_session_lines(lines).objects
    assert parsed == entries  # equal as dicts
    assert [list(p) for p in parsed] == [list(e) for e in entries]  # keys in the same order
    assert [serialize_line(p) for p in parsed] == [serialize_line(e) for e in entries]  # the same bytes
    a1, b2, c3, d4, e5 = parsed[1:]
    assert b2["parentId"] is a1["id"] and c3["parentId"] is b2["id"] and d4["parentId"] is c3["id"]
    assert a1["type"] is b2["type"] is e5["type"]
    assert b2["message"]["model"] is d4["message"]["model"]
    assert b2["message"]["api"] is d4["message"]["api"] and b2["message"]["stopReason"] is d4["message"]["stopReason"]
    assert b2["message"]["role"] is d4["message"]["role"]
    assert a1["message"]["content"][0]["type"] is d4["message"]["content"][0]["type"]
    assert b2["message"]["content"][1]["name"] is c3["message"]["toolName"]
    assert c3["message"]["toolCallId"] is b2["message"]["content"][1]["id"]  # the call's own id object
    # the stdlib path (text already decoded, as when following appends) shares them too
    again = parse_session_text("\n".join(line.decode() for line in lines)).objects
    assert again == entries and again[2]["parentId"] is again[1]["id"] and again[1]["type"] is again[2]["type"]


def test_share_strings_leaves_unusual_values_alone() -> None:
    odd: dict[str, Any] = {
        "type": 5,
        "id": ["x"],
        "parentId": ["x"],
        "message": {"role": None, "model": {"a": 1}, "content": "just text"},
    }
    copy = orjson.loads(orjson.dumps(odd))
    assert share_strings(copy, ["x"]) == ["x"]
    assert copy == odd and copy["parentId"] is not copy["id"]
    assert share_strings([1, 2], "x") is None
    assert share_strings("text", "x") is None
    blocks: dict[str, Any] = {"type": "message", "message": {"content": [1, "a", {"type": 2, "name": None}]}}
    assert share_strings(orjson.loads(orjson.dumps(blocks)), None) is None


def test_opened_entries_name_their_parent_with_the_parents_id_object(tmp_path: Path) -> None:
    entries = _session()
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(_line(e) + b"\n" for e in entries))
    manager = SessionManager.open(path, fsync=False)
    got = manager.get_entries()
    assert got == entries[1:]
    assert got[1]["parentId"] is got[0]["id"]
    assert got[4]["parentId"] == got[0]["id"]  # a branch: equal (not the previous line's id)
    assert path.read_bytes() == b"".join(_line(e) + b"\n" for e in entries)


def test_a_tool_result_shares_only_a_recent_calls_id() -> None:
    """Remembered call ids are bounded; a result whose call is long gone (or never was) keeps
    its own string, equal as before."""
    from desktop_app.session import entries as entries_module

    calls: dict[str, str] = {}
    call = orjson.loads(b'{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read"}]}}')
    share_strings(call, None, calls)
    result = orjson.loads(b'{"type":"message","id":"b","message":{"role":"toolResult","toolCallId":"t1"}}')
    share_strings(result, "a", calls)
    assert result["message"]["toolCallId"] is call["message"]["content"][0]["id"]
    stranger = orjson.loads(b'{"type":"message","id":"c","message":{"role":"toolResult","toolCallId":"t9"}}')
    share_strings(stranger, "b", calls)
    assert stranger["message"]["toolCallId"] == "t9"
    for i in range(entries_module._CALLS_KEPT + 5):
        share_strings({"message": {"content": [{"type": "toolCall", "id": f"x{i}"}]}}, None, calls)
    assert len(calls) <= entries_module._CALLS_KEPT
