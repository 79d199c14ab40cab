"""Files Arbor writes are files pi reads the same way (pi-spec §2): shapes, key order, bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop_app.inspection import build_report
from desktop_app.session import SessionManager
from desktop_app.session.entries import parse_session_text
from desktop_app.session.jsjson import js_stringify

from .helpers import assistant, tool_result, user

# pi-spec §2.2 and §2.4: keys in pi's write order; optional keys may be absent but never reordered.
KEY_ORDER: dict[str, list[str]] = {
    "session": ["type", "version", "id", "timestamp", "cwd", "parentSession"],
    "message": ["type", "id", "parentId", "timestamp", "message"],
    "thinking_level_change": ["type", "id", "parentId", "timestamp", "thinkingLevel"],
    "model_change": ["type", "id", "parentId", "timestamp", "provider", "modelId"],
    "compaction": ["type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore", "details", "fromHook"],
    "branch_summary": ["type", "id", "parentId", "timestamp", "fromId", "summary", "details", "fromHook"],
    "custom": ["type", "customType", "data", "id", "parentId", "timestamp"],
    "custom_message": ["type", "customType", "content", "display", "details", "id", "parentId", "timestamp"],
    "label": ["type", "id", "parentId", "timestamp", "targetId", "label"],
    "session_info": ["type", "id", "parentId", "timestamp", "name"],
}
REQUIRED = {"id", "parentId", "timestamp", "type"}


def _write_every_kind(directory: Path) -> SessionManager:
    m = SessionManager.create("/home/ü/project", directory)
    m.append_model_change("anthropic", "claude-sonnet-4-5")
    m.append_thinking_level_change("medium")
    first = m.append_message(user("Grüße — 😀 \u2028 done?"))
    call = {"type": "toolCall", "id": "toolu_1", "name": "read", "arguments": {"path": "a.py", "limit": 1.0, "2": "x"}}
    a = assistant("reading")
    a["content"].append(call)
    m.append_message(a)
    m.append_message(tool_result("toolu_1", "print(1)"))
    m.append_message({"role": "bashExecution", "command": "ls", "output": "", "exitCode": 0, "cancelled": False,
                      "truncated": False, "timestamp": 1})
    m.append_custom_entry("ext-state", {"n": 1})
    m.append_custom_entry("ext-nodata")
    m.append_custom_message_entry("ext", [{"type": "text", "text": "hidden"}], False)
    m.append_label_change(first, "start")
    m.append_label_change(first, None)
    m.append_session_info("Arbor test")
    m.append_compaction("summary", first, 1234.0, {"readFiles": ["a.py"], "modifiedFiles": []}, False)
    m.branch(first)
    m.branch_with_summary(first, "branch summary", {"readFiles": [], "modifiedFiles": []}, False)
    m.append_message(assistant("after"))
    return m


def test_every_line_has_pis_shape_and_key_order(tmp_path: Path) -> None:
    m = _write_every_kind(tmp_path)
    raw = Path(m.session_file or "").read_text(encoding="utf-8")
    assert raw.endswith("\n") and "\r" not in raw
    seen: set[str] = set()
    for n, line in enumerate(raw[:-1].split("\n")):
        obj: dict[str, Any] = json.loads(line)
        kind = obj["type"]
        seen.add(kind)
        order = KEY_ORDER[kind]
        keys = list(obj)
        assert keys == [k for k in order if k in obj], (kind, keys)
        if n == 0:
            assert kind == "session" and obj["version"] == 3
        else:
            assert REQUIRED <= set(obj), kind
        assert line == js_stringify(obj)  # compact JSON exactly as JSON.stringify prints it
    assert seen == set(KEY_ORDER)
    assert "Grüße — 😀 \u2028 done?" in raw  # non-ASCII raw, U+2028 raw
    assert '"limit":1}' in raw and '{"2":"x","path"' in raw  # JS numbers, integer-like keys first
    assert '"tokensBefore":1234,' in raw


def test_arbor_written_file_passes_pis_reading_rules(tmp_path: Path) -> None:
    m = _write_every_kind(tmp_path)
    path = Path(m.session_file or "")
    before = path.read_bytes()
    report = build_report(path, sequential_ids_=True)
    assert path.read_bytes() == before  # inspect never writes
    assert report["parse"] == {
        "count": len(m.get_entries()) + 1,
        "header_found": True,
        "version_before": 3,
        "migration_applied": False,
        "same_as_open": True,
    }
    assert report["open"]["rewrote_file"] is False and report["open"]["leafId"] == m.get_entries()[-1]["id"]
    assert report["open"]["sessionName"] == "Arbor test"
    assert parse_session_text(before.decode()).malformed == []
    # the context pi would build at the leaf: summary of the branch, kept path, the last answer
    roles = [report["message_table"][i] for i in report["context_special"]["open_leaf"]["messages"]]
    assert len(roles) == 3
