"""run_tool: lookup, validation, folder checks, path policy, abort, and the toolResult shape."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from desktop_app.session.entries import serialize_line
from desktop_app.tools import (
    ALL_TOOLS,
    APPROVAL_TOOLS,
    DEFAULT_TOOLS,
    READ_ONLY_TOOLS,
    PathPolicy,
    ToolContext,
    get_tool,
    needs_approval,
    run_tool,
    tool_definitions,
)
from desktop_app.tools.registry import TOOLS
from desktop_app.tools.results import ToolResult
from tests.tools.conftest import Runner, tool_call

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"
TOOL_RESULT_KEYS = ["role", "toolCallId", "toolName", "content", "details", "isError", "timestamp"]


def _real_tool_results() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for name in ("large-session.jsonl", "before-compaction.jsonl"):
        for line in (FIXTURES / name).read_text().splitlines():
            entry = json.loads(line)
            message = entry.get("message") if isinstance(entry, dict) else None
            if isinstance(message, dict) and message.get("role") == "toolResult":
                found.append(message)
    return found


def test_tool_sets() -> None:
    assert DEFAULT_TOOLS == ("read", "bash", "edit", "write")
    assert READ_ONLY_TOOLS == ("read", "grep", "find", "ls")
    assert set(ALL_TOOLS) == {"read", "write", "edit", "bash", "grep", "find", "ls"}
    assert APPROVAL_TOOLS == {"write", "edit", "bash"}
    for name, spec in TOOLS.items():
        assert spec.needs_approval == (name in APPROVAL_TOOLS) == needs_approval(name)
        assert get_tool(name) is spec
    assert get_tool("todo") is None and not needs_approval("todo")


def test_definitions_are_pis_schemas() -> None:
    (ls,) = tool_definitions(["ls"])
    assert list(ls) == ["name", "description", "parameters"]
    assert ls["parameters"] == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Directory to list (default: current directory)"},
            "limit": {"type": "number", "description": "Maximum number of entries to return (default: 500)"},
        },
    }
    (read,) = tool_definitions(["read"])
    assert read["parameters"]["required"] == ["path"]
    assert read["description"].endswith("When you need the full file, continue with offset until complete.")
    assert [d["name"] for d in tool_definitions(READ_ONLY_TOOLS)] == list(READ_ONLY_TOOLS)


@pytest.mark.asyncio
async def test_result_message_shape_and_key_order(project: Path, run: Runner) -> None:
    (project / "README.md").write_text("x")
    (project / "src").mkdir()
    call = tool_call("ls")
    result = await run_tool(call, ToolContext(cwd=str(project)))
    message = result.to_message()
    assert list(message) == ["role", "toolCallId", "toolName", "content", "isError", "timestamp"]
    assert message["toolCallId"] == call["id"] and message["toolName"] == "ls"
    assert message["content"] == [{"type": "text", "text": "README.md\nsrc/"}]
    assert isinstance(message["timestamp"], int) and message["isError"] is False
    failed = (await run("ls", path="missing")).to_message()
    assert list(failed) == TOOL_RESULT_KEYS and failed["details"] == {} and failed["isError"] is True


def test_key_order_matches_every_real_tool_result_in_the_corpus() -> None:
    real = _real_tool_results()
    assert len(real) > 700
    for message in real:
        expected = [k for k in TOOL_RESULT_KEYS if k in message]
        assert list(message) == expected
        rebuilt = ToolResult(
            tool_call_id=message["toolCallId"],
            tool_name=message["toolName"],
            content=message["content"],
            is_error=message["isError"],
            timestamp=message["timestamp"],
            details=message.get("details"),
        ).to_message()
        assert serialize_line(rebuilt) == serialize_line(message)


@pytest.mark.asyncio
async def test_unknown_and_inactive_tools(project: Path) -> None:
    result = await run_tool(tool_call("todo", x=1), ToolContext(cwd=str(project)))
    assert result.is_error and result.text == "Tool todo not found" and result.details == {}
    only_read = ToolContext(cwd=str(project), enabled=frozenset({"read"}))
    assert (await run_tool(tool_call("ls"), only_read)).text == "Tool ls not found"


@pytest.mark.asyncio
async def test_validation_messages(run: Runner) -> None:
    result = await run("read", limit="many")
    assert result.is_error
    assert result.text == (
        'Validation failed for tool "read":\n'
        "  - path: must have required properties path\n"
        "  - limit: must be number\n\n"
        "Received arguments:\n"
        '{\n  "limit": "many"\n}'
    )


@pytest.mark.asyncio
async def test_arguments_in_the_call_are_left_as_sent(project: Path) -> None:
    (project / "f").write_text("a\nb\nc")
    call = tool_call("read", path="f", offset="2")
    result = await run_tool(call, ToolContext(cwd=str(project)))
    assert result.text == "b\nc"
    assert call["arguments"] == {"path": "f", "offset": "2"}


@pytest.mark.asyncio
async def test_missing_working_folder_is_a_clear_error(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    result = await run_tool(tool_call("ls"), ToolContext(cwd=str(gone)))
    assert result.is_error
    assert result.text == f"Working directory does not exist: {gone}\nCannot run the ls tool."


@pytest.mark.asyncio
async def test_paths_outside_the_folder_are_refused_unless_allowed(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    os.symlink(outside, project / "sneaky")
    strict = ToolContext(cwd=str(project))
    for call in (
        tool_call("read", path=str(outside)),
        tool_call("read", path="../outside.txt"),
        tool_call("read", path="sneaky"),
        tool_call("ls", path=".."),
        tool_call("grep", pattern="secret", path=".."),
        tool_call("find", pattern="*", path=str(tmp_path)),
    ):
        result = await run_tool(call, strict)
        assert result.is_error, call
        assert result.text.startswith("Path is outside the working folder: ")
        assert f"(working folder: {project})" in result.text
    allowed_root = ToolContext(cwd=str(project), policy=PathPolicy(allowed_roots=(str(tmp_path),)))
    assert (await run_tool(tool_call("read", path="../outside.txt"), allowed_root)).text == "secret"
    anything = ToolContext(cwd=str(project), policy=PathPolicy(allow_outside=True))
    assert (await run_tool(tool_call("read", path=str(outside)), anything)).text == "secret"


@pytest.mark.asyncio
async def test_abort_stops_a_running_tool_with_operation_aborted(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = asyncio.Event()

    async def slow(args: dict[str, Any], ctx: ToolContext) -> Any:
        started.set()
        await asyncio.sleep(30)

    spec = TOOLS["ls"]
    monkeypatch.setitem(TOOLS, "ls", type(spec)(**{**spec.__dict__, "execute": slow}))
    ctx = ToolContext(cwd=str(project))
    task = asyncio.create_task(run_tool(tool_call("ls"), ctx))
    await started.wait()
    ctx.signal.abort()
    result = await task
    assert result.is_error and result.text == "Operation aborted" and result.details == {}
    again = await run_tool(tool_call("read", path="x"), ctx)  # already aborted: does not start
    assert again.text == "Operation aborted"
