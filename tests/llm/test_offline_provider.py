"""The offline model: deterministic chat replies and extractive summaries in pi's structured format."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from desktop_app.compaction.branch_entries import collect_entries_for_branch_summary
from desktop_app.compaction.branch_summary import generate_branch_summary
from desktop_app.compaction.prepare import prepare_compaction
from desktop_app.compaction.prompts import BRANCH_SUMMARY_PREAMBLE, SUMMARIZATION_SYSTEM_PROMPT
from desktop_app.compaction.summarize import compact, generate_summary, generate_turn_prefix_summary
from desktop_app.compaction.tokens import CompactionSettings
from desktop_app.llm.offline import OfflineProvider
from desktop_app.llm.offline_summary import OFFLINE_SUMMARY_NOTICE, SECTION_HEADINGS
from desktop_app.llm.protocol import (
    Done,
    LLMRequest,
    Purpose,
    TextDelta,
    complete,
    message_text,
    user_text_message,
)
from desktop_app.session.manager import SessionManager

pytestmark = pytest.mark.asyncio

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"


def _user(text: str) -> dict[str, object]:
    return {"role": "user", "content": text, "timestamp": 1}


def _assistant(text: str, calls: list[dict[str, object]] | None = None) -> dict[str, object]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}, *(calls or [])],
        "api": "a",
        "provider": "p",
        "model": "m",
        "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2, "cost": {}},
        "stopReason": "stop",
        "timestamp": 2,
    }


CONVERSATION = [
    _user("Add a /health endpoint to src/server.ts. It must return JSON and we should not add dependencies."),
    _assistant(
        "I'll read the server first.",
        [{"type": "toolCall", "id": "1", "name": "read", "arguments": {"path": "src/server.ts"}}],
    ),
    {
        "role": "toolResult",
        "toolCallId": "1",
        "toolName": "read",
        "content": [{"type": "text", "text": "import express from 'express'"}],
        "isError": False,
        "timestamp": 3,
    },
    _assistant(
        "We'll use the existing router instead of a new app.",
        [{"type": "toolCall", "id": "2", "name": "bash", "arguments": {"command": "npm test"}}],
    ),
    {
        "role": "toolResult",
        "toolCallId": "2",
        "toolName": "bash",
        "content": [{"type": "text", "text": "Error: test failed in tests/health.test.ts"}],
        "isError": True,
        "timestamp": 4,
    },
    _user("Fix the failing test, and prefer small commits."),
]


async def test_chat_turn_describes_what_it_received() -> None:
    provider = OfflineProvider(chunk_chars=5)
    request = LLMRequest(system_prompt="You are helpful.", messages=[_user("x" * 40), _user("What is 2+2?")])
    deltas = [event async for event in provider.stream(request)]
    texts = [e.text for e in deltas if isinstance(e, TextDelta)]
    assert len(texts) > 5 and all(len(t) <= 5 for t in texts)  # streamed in small deltas
    final = deltas[-1]
    assert isinstance(final, Done)
    text = message_text(final.message)
    assert text == "".join(texts)
    assert text.startswith("(Offline model")
    assert "2 messages" in text and "about 13 tokens" in text  # 10 + 3 by pi's chars/4 estimate
    assert text.endswith("> What is 2+2?")
    assert final.message["provider"] == "arbor" and final.message["stopReason"] == "stop"
    assert final.message["usage"]["output"] > 0


async def test_offline_summary_is_deterministic_and_has_every_heading() -> None:
    provider = OfflineProvider()
    first = await generate_summary(CONVERSATION, provider, 16384)
    second = await generate_summary(CONVERSATION, OfflineProvider(chunk_chars=3), 16384)
    assert first == second
    lines = first.splitlines()
    assert lines[0] == OFFLINE_SUMMARY_NOTICE
    positions = [lines.index(heading) for heading in SECTION_HEADINGS]
    assert positions == sorted(positions)  # all nine headings, in pi's order
    section = dict(zip(SECTION_HEADINGS, positions, strict=True))

    def body(heading: str) -> str:
        start = section[heading] + 1
        later = [p for p in positions if p > section[heading]]
        return "\n".join(lines[start : later[0] if later else len(lines)])

    assert "Add a /health endpoint to src/server.ts" in body("## Goal")
    assert "It must return JSON" in body("## Constraints & Preferences")
    assert "prefer small commits" in body("## Constraints & Preferences")
    assert "read `src/server.ts`" in body("### Done") and "bash: `npm test`" in body("### Done")
    assert "Error: test failed" in body("### Blocked")
    assert "instead of a new app" in body("## Key Decisions")
    assert "Fix the failing test" in body("## Next Steps")
    assert "src/server.ts" in body("## Critical Context") and "tests/health.test.ts" in body(
        "## Critical Context"
    )


async def test_update_keeps_the_previous_summary_items() -> None:
    provider = OfflineProvider()
    previous = await generate_summary(CONVERSATION[:3], provider, 16384)
    updated = await generate_summary(CONVERSATION[3:], provider, 16384, previous_summary=previous)
    assert "Add a /health endpoint" in updated  # the old goal survives the update
    assert "read `src/server.ts`" in updated and "bash: `npm test`" in updated
    assert updated.count(OFFLINE_SUMMARY_NOTICE) == 1
    for heading in SECTION_HEADINGS:
        assert heading in updated.splitlines()


async def test_turn_prefix_and_length_limit() -> None:
    text = await generate_turn_prefix_summary(CONVERSATION[:3], OfflineProvider(), 16384)
    assert text.splitlines()[:4] == [
        OFFLINE_SUMMARY_NOTICE,
        "",
        "## Original Request",
        CONVERSATION[0]["content"],
    ]
    assert "## Early Progress" in text and "## Context for Suffix" in text
    request = LLMRequest(
        system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
        messages=[user_text_message("<conversation>\n\n</conversation>\n\n")],
        purpose=Purpose.COMPACTION,
    )
    request.max_tokens = 5
    message = await complete(OfflineProvider(), request)
    assert message["stopReason"] == "length" and len(message_text(message)) == 20


async def test_offline_compaction_and_branch_summary_on_a_real_session(tmp_path: Path) -> None:
    copy = tmp_path / "gen-0004.jsonl"
    shutil.copyfile(FIXTURES / "gen-0004.jsonl", copy)
    manager = SessionManager.open(copy)
    prep = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=2000))
    assert prep is not None and prep.is_split_turn
    first = await compact(prep, OfflineProvider())
    again = await compact(prep, OfflineProvider(chunk_chars=100))
    assert first.summary == again.summary
    assert first.summary.startswith(OFFLINE_SUMMARY_NOTICE)
    assert "\n\n---\n\n**Turn Context (split turn):**\n\n" + OFFLINE_SUMMARY_NOTICE in first.summary
    assert first.summary.endswith("</modified-files>")

    leaves = manager.index.leaves()
    other = next(leaf for leaf in leaves if leaf != manager.leaf_id)
    entries = collect_entries_for_branch_summary(manager, manager.leaf_id, other).entries
    result = await generate_branch_summary(entries, OfflineProvider())
    assert result.summary is not None and result.summary.startswith(
        BRANCH_SUMMARY_PREAMBLE + OFFLINE_SUMMARY_NOTICE
    )
    manager.close()


async def test_the_offline_model_answers_by_purpose_not_by_prompt_text() -> None:
    text = "<conversation>\n[User]: hi\n</conversation>\n\nSummarize this."
    chat = LLMRequest(system_prompt=SUMMARIZATION_SYSTEM_PROMPT, messages=[user_text_message(text)])
    summary = LLMRequest(
        system_prompt="anything", messages=[user_text_message(text)], purpose=Purpose.COMPACTION
    )
    assert "I received 1 message" in message_text(await complete(OfflineProvider(), chat))
    assert message_text(await complete(OfflineProvider(), summary)).startswith(OFFLINE_SUMMARY_NOTICE)


async def test_a_cancelled_offline_stream_ends_with_its_partial_reply_as_aborted() -> None:
    provider = OfflineProvider(chunk_chars=4, delay=0.02)
    request = LLMRequest(system_prompt=None, messages=[_user("tell me everything")])
    streaming = asyncio.Event()
    task = asyncio.create_task(complete(provider, request, lambda _chars: streaming.set()))
    await asyncio.wait_for(streaming.wait(), 10)
    task.cancel()
    message = await task
    assert message["stopReason"] == "aborted" and message["errorMessage"] == "Request was aborted"
    assert message_text(message) and len(message_text(message)) % 4 == 0  # whole deltas received so far


TOOLS = [{"name": name, "description": "d", "parameters": {"type": "object"}} for name in ("read", "bash", "write", "ls")]
ALL_TOOLS = [
    {"name": name, "description": "d", "parameters": {"type": "object"}}
    for name in ("read", "bash", "edit", "write", "grep", "find", "ls")
]


@pytest.mark.parametrize(
    ("text", "name", "arguments"),
    [
        ("read src/app.py", "read", {"path": "src/app.py"}),
        ("ls", "ls", {}),
        ("ls src", "ls", {"path": "src"}),
        ("bash echo hi && ls", "bash", {"command": "echo hi && ls"}),
        ("write notes/a.md\nline one\nline two", "write", {"path": "notes/a.md", "content": "line one\nline two"}),
        ("grep  foo bar \nmore", "grep", {"pattern": "foo bar"}),
        ("find *.py", "find", {"pattern": "*.py"}),
        ("bash\nls\npwd ", "bash", {"command": "ls\npwd"}),
    ],
)
async def test_a_tool_command_makes_the_offline_model_call_that_tool(
    text: str, name: str, arguments: dict[str, object]
) -> None:
    request = LLMRequest(system_prompt=None, messages=[_user("hi"), _user(text)], tools=ALL_TOOLS)
    message = await complete(OfflineProvider(chunk_chars=3), request)
    assert message["stopReason"] == "toolUse"
    call = message["content"][-1]
    assert call == {"type": "toolCall", "id": "offline_call_0002", "name": name, "arguments": arguments}
    again = await complete(OfflineProvider(chunk_chars=50), request)
    assert again["content"] == message["content"]  # deterministic, whatever the chunking


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        ("read src/app.py", None),  # no tools offered (tools disabled)
        ("grep foo", TOOLS),  # a tool that is not offered
        ("read", TOOLS),  # no path
        ("reading is fun", TOOLS),  # not the command word
        ("Please read src/app.py", TOOLS),  # not at the start
        ("edit a.py", ALL_TOOLS),  # edit has no command form
        ("write\ncontent", ALL_TOOLS),  # no path on the first line
        ("find", ALL_TOOLS),  # no pattern
    ],
)
async def test_other_messages_get_the_usual_reply(text: str, tools: list[dict[str, object]] | None) -> None:
    request = LLMRequest(system_prompt=None, messages=[_user(text)], tools=tools)
    message = await complete(OfflineProvider(), request)
    assert message["stopReason"] == "stop" and "I received 1 message" in message_text(message)


async def test_after_the_results_the_offline_model_describes_them() -> None:
    call = {"type": "toolCall", "id": "offline_call_0001", "name": "read", "arguments": {"path": "a.txt"}}
    long_text = "\n".join(f"row {i}" for i in range(1, 26))
    messages = [
        _user("read a.txt"),
        {**_assistant("Offline model: calling the read tool.", [call]), "stopReason": "toolUse"},
        {"role": "toolResult", "toolCallId": "offline_call_0001", "toolName": "read",
         "content": [{"type": "text", "text": long_text}], "isError": False, "timestamp": 3},
    ]
    message = await complete(OfflineProvider(), LLMRequest(system_prompt=None, messages=messages, tools=TOOLS))
    text = message_text(message)
    assert message["stopReason"] == "stop"
    assert text.startswith("(Offline model")
    assert f"received.)\n\nThe read tool returned (25 lines, {len(long_text)} characters):\n\n> row 1\n" in text
    assert "> row 20\n> … (5 more lines)" in text and "row 21" not in text
    failed = [*messages[:2], {**messages[2], "content": [{"type": "text", "text": "ENOENT"}], "isError": True}]
    assert "The read tool failed (1 line, 6 characters):\n\n> ENOENT" in message_text(
        await complete(OfflineProvider(), LLMRequest(system_prompt=None, messages=failed, tools=TOOLS))
    )
