"""A tool round written through the real SessionManager reads back as pi's shapes, and inspect accepts it.

This is the persistence order the turn loop must follow (README): the assistant with its toolCall
blocks, then one toolResult per call in call order, then the next assistant.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_app.inspection import build_report
from desktop_app.session.context import convert_to_llm
from desktop_app.session.manager import SessionManager
from desktop_app.tools import APPROVAL_TOOLS, SessionApprovals, ToolContext, run_tool_calls
from tests.tools.conftest import tool_call

USAGE = {
    "input": 0,
    "output": 0,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 0,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def _assistant(content: list[dict[str, Any]], stop: str, ts: int) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": "faux",
        "provider": "faux",
        "model": "faux-1",
        "usage": USAGE,
        "stopReason": stop,
        "timestamp": ts,
    }


@pytest.mark.asyncio
async def test_tool_round_persists_in_pis_order_and_shapes(tmp_path: Path, project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text('def greet(name):\n    return "Hello, " + name\n')
    manager = SessionManager.create(str(project), tmp_path / "sessions", fsync=False)
    manager.append_message({"role": "user", "content": [{"type": "text", "text": "fix it"}], "timestamp": 1})
    calls = [
        tool_call("read", path="src/app.py"),
        tool_call(
            "edit", path="src/app.py", edits=[{"oldText": '"Hello, " + name', "newText": 'f"Hello, {name}!"'}]
        ),
        tool_call("write", path="notes/todo.md", content="- add tests\n"),
        tool_call("bash", command="ls missing-dir"),
    ]
    manager.append_message(_assistant([{"type": "text", "text": "Let me look."}, *calls], "toolUse", 2))
    results = await run_tool_calls(
        calls, ToolContext(cwd=str(project)), SessionApprovals(APPROVAL_TOOLS), None
    )
    for result in results:
        manager.append_message(result.to_message())
    manager.append_message(_assistant([{"type": "text", "text": "Done."}], "stop", 3))
    path = manager.session_file
    manager.close()
    assert path is not None

    lines = [json.loads(line) for line in Path(path).read_text().splitlines()]
    messages = [line["message"] for line in lines[1:]]
    roles = [m["role"] for m in messages]
    assert roles == ["user", "assistant", "toolResult", "toolResult", "toolResult", "toolResult", "assistant"]
    tool_results = messages[2:6]
    assert [m["toolCallId"] for m in tool_results] == [c["id"] for c in calls]
    for message in tool_results:
        expected = ["role", "toolCallId", "toolName", "content", "details", "isError", "timestamp"]
        assert list(message) == [k for k in expected if k in message]
    assert tool_results[0]["content"][0]["text"] == 'def greet(name):\n    return "Hello, " + name\n'
    assert tool_results[1]["details"]["firstChangedLine"] == 2
    assert tool_results[2]["content"][0]["text"] == "Successfully wrote 12 bytes to notes/todo.md"
    assert tool_results[3]["isError"] is True and tool_results[3]["details"] == {}
    assert messages[1]["content"][1:] == calls  # the model's arguments are stored as sent

    report = build_report(path)
    assert "error" not in report["open"]
    reopened = SessionManager.open(path)
    leaf_context = reopened.build_session_context()
    reopened.close()
    assert [m["role"] for m in leaf_context.messages] == roles
    llm = convert_to_llm(leaf_context.messages)
    assert not any(m.get("content") == [{"type": "text", "text": "No result provided"}] for m in llm)
