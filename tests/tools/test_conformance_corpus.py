"""The tools against the real pi sessions of the conformance corpus (tests/fixtures/conformance).

Those sessions were written by older pi releases on another machine, so their files cannot be
re-run; what they can check is that every real tool call passes Arbor's schemas (as pi accepted
them), and that a real truncated ``read`` cuts a file of the same shape at the same line and byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_app.tools import ToolContext, precheck, run_tool
from tests.tools.conftest import tool_call

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"
REAL = ("large-session.jsonl", "before-compaction.jsonl")
BUILT_IN = {"read", "write", "edit", "bash", "grep", "find", "ls"}


def _messages() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name in REAL:
        for line in (FIXTURES / name).read_text().splitlines():
            entry = json.loads(line)
            if isinstance(entry, dict) and isinstance(entry.get("message"), dict):
                out.append(entry["message"])
    return out


def test_every_real_tool_call_passes_the_schemas(project: Path) -> None:
    ctx = ToolContext(cwd=str(project))
    checked = 0
    refused: list[str] = []
    for message in _messages():
        if message.get("role") != "assistant":
            continue
        for block in message.get("content", []):
            if block.get("type") != "toolCall" or block.get("name") not in BUILT_IN:
                continue
            checked += 1
            failed = precheck(block, ctx)
            if failed is not None:
                refused.append(failed.text)
    assert checked > 800
    # One legacy edit in the corpus has oldText but no newText: not repairable, so the schema refuses it.
    assert len(refused) == 1
    assert refused[0].startswith(
        'Validation failed for tool "edit":\n  - edits: must have required properties edits'
    )


@pytest.mark.asyncio
async def test_a_real_truncated_read_cuts_at_the_same_line_and_byte(project: Path) -> None:
    recorded = next(
        m
        for m in _messages()
        if m.get("role") == "toolResult"
        and "truncation" in (m.get("details") or {})
        and m["toolName"] == "read"
    )
    trunc = recorded["details"]["truncation"]
    head: str = trunc["content"]
    rest_lines = trunc["totalLines"] - trunc["outputLines"]
    rest_bytes = trunc["totalBytes"] - trunc["outputBytes"] - 1  # minus the newline joining head and rest
    body = "x" * (rest_bytes - (rest_lines - 1) - (rest_lines - 1) * 20)
    rest = "\n".join([body, *["y" * 20] * (rest_lines - 1)])
    (project / "real.ts").write_text(head + "\n" + rest)
    result = await run_tool(tool_call("read", path="real.ts"), ToolContext(cwd=str(project)))
    assert result.details is not None
    ours = result.details["truncation"]
    assert {k: ours[k] for k in trunc} == trunc
    old_text = recorded["content"][0]["text"]
    assert result.text == old_text[:-1] + ".]"  # pi 0.73.1 ends the notice with a period; older pi did not
