"""What Arbor sends to the model for summaries, and what it does with the answers (pi-spec §5.8, §5.9).

A recording provider captures every request: system prompt, the exact user text (conversation block,
previous summary, prompt, additional focus), ``max_tokens`` and the reasoning option. These are pi
0.73.1's requests (every call passes that profile); pi 1.6.0's are in test_summarize_requests_16.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from desktop_app.compaction.branch_entries import collect_entries_for_branch_summary
from desktop_app.compaction.branch_summary import BRANCH_SUMMARY_MAX_TOKENS, generate_branch_summary
from desktop_app.compaction.prepare import prepare_compaction
from desktop_app.compaction.prompts import (
    BRANCH_SUMMARY_PREAMBLE,
    BRANCH_SUMMARY_PROMPT,
    SUMMARIZATION_PROMPT,
    SUMMARIZATION_SYSTEM_PROMPT,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
)
from desktop_app.compaction.summarize import SummarizationError, compact, generate_summary
from desktop_app.compaction.tokens import CompactionSettings
from desktop_app.llm.protocol import ModelInfo
from desktop_app.llm.testing import RecordingProvider, Reply
from desktop_app.session.profile import PI_0_73_1 as OLD

from .builders import assistant, chain, msg, sized, tool_call, tool_result, user

pytestmark = pytest.mark.asyncio

SPLIT = "\n\n---\n\n**Turn Context (split turn):**\n\n"
PLAIN_MODEL = ModelInfo(id="plain", provider="test", api="test-api", reasoning=False)


def conversation(*parts: str) -> str:
    return "<conversation>\n" + "\n\n".join(parts) + "\n</conversation>\n\n"


def _path() -> list[dict[str, Any]]:
    """[u1 a1 u2 a2 C1(firstKept=u2) u3 a3 u4 a4], each message 1000 estimated tokens."""
    return chain(
        msg("u1", user(sized("u1", 1000))),
        msg("a1", assistant(sized("a1", 1000), tool_calls=[tool_call("read", path="old.ts")])),
        msg("u2", user(sized("u2", 1000))),
        msg("a2", assistant(sized("a2", 1000), tool_calls=[tool_call("write", path="new.ts")])),
        (
            "C1",
            "compaction",
            {
                "summary": "S1",
                "firstKeptEntryId": "u2",
                "tokensBefore": 4000,
                "details": {"readFiles": ["seed.ts"]},
            },
        ),
        msg("u3", user(sized("u3", 1000))),
        msg("a3", assistant(sized("a3", 1000))),
        msg("u4", user(sized("u4", 1000))),
        msg("a4", assistant(sized("a4", 1000), usage_total=5000)),
    )


# ----------------------------------------------------------------------------------- compaction


async def test_first_time_summary_request() -> None:
    provider = RecordingProvider(["## Goal\nfix it"])
    messages = [
        user("fix the bug in src/a.ts"),
        assistant("done", tool_calls=[tool_call("edit", path="src/a.ts")]),
    ]
    text = await generate_summary(messages, provider, 16384, thinking_level="low", profile=OLD)
    assert text == "## Goal\nfix it"
    (request,) = provider.requests
    assert request.system_prompt == SUMMARIZATION_SYSTEM_PROMPT
    assert provider.user_texts() == [
        conversation(
            "[User]: fix the bug in src/a.ts",
            "[Assistant]: done",
            '[Assistant tool calls]: edit(path="src/a.ts")',
        )
        + SUMMARIZATION_PROMPT
    ]
    assert request.max_tokens == 13107  # floor(0.8 × 16384)
    assert request.reasoning == "low"  # the session's level, for a reasoning model
    assert request.tools is None
    assert [m["role"] for m in request.messages] == ["user"]


@pytest.mark.parametrize(
    ("model", "level", "expected"),
    [(None, "off", None), (None, None, None), (None, "xhigh", "xhigh"), (PLAIN_MODEL, "high", None)],
)
async def test_reasoning_option_only_for_reasoning_models(
    model: ModelInfo | None, level: str | None, expected: str | None
) -> None:
    provider = RecordingProvider(["s"]) if model is None else RecordingProvider(["s"], model=model)
    await generate_summary([user("q")], provider, 16384, thinking_level=level, profile=OLD)
    assert provider.requests[0].reasoning == expected


async def test_update_summary_request_with_previous_summary_and_focus() -> None:
    provider = RecordingProvider(["updated"])
    await generate_summary(
        [user("next step")],
        provider,
        10000,
        custom_instructions="keep the API notes",
        previous_summary="## Goal\nold goal",
        profile=OLD,
    )
    assert provider.user_texts() == [
        conversation("[User]: next step")
        + "<previous-summary>\n## Goal\nold goal\n</previous-summary>\n\n"
        + UPDATE_SUMMARIZATION_PROMPT
        + "\n\nAdditional focus: keep the API notes"
    ]
    assert provider.requests[0].max_tokens == 8000


async def test_compact_plain_cut_appends_file_lists() -> None:
    path = _path()
    prep = prepare_compaction(path, CompactionSettings(keep_recent_tokens=1500), profile=OLD)
    assert prep is not None and not prep.is_split_turn
    provider = RecordingProvider(["SUMMARY"])
    progress: list[int] = []
    result = await compact(prep, provider, custom_instructions="focus", on_progress=progress.append, profile=OLD)
    assert len(provider.requests) == 1
    text = provider.user_texts()[0]
    assert text.startswith("<conversation>\n[User]: " + sized("u2", 1000) + "\n\n[Assistant]: ")
    assert (
        "\n</conversation>\n\n<previous-summary>\nS1\n</previous-summary>\n\n" + UPDATE_SUMMARIZATION_PROMPT
        in text
    )
    assert text.endswith("\n\nAdditional focus: focus")
    assert result.summary == (
        "SUMMARY\n\n<read-files>\nseed.ts\n</read-files>\n\n<modified-files>\nnew.ts\n</modified-files>"
    )
    assert result.first_kept_entry_id == "u4"
    assert result.tokens_before == 5000
    assert result.details == {"readFiles": ["seed.ts"], "modifiedFiles": ["new.ts"]}
    assert progress and progress[-1] == len("SUMMARY") and progress == sorted(progress)


async def test_compact_split_turn_runs_both_calls_concurrently() -> None:
    prep = prepare_compaction(_path(), CompactionSettings(keep_recent_tokens=2500, reserve_tokens=16384), profile=OLD)
    assert prep is not None and prep.is_split_turn
    gate = asyncio.Event()
    history = Reply("HISTORY", gate=gate, pause_after_chunks=0)
    prefix = Reply("PREFIX", gate=gate, pause_after_chunks=0)
    provider = RecordingProvider([history, prefix])
    task = asyncio.create_task(compact(prep, provider, thinking_level="medium", profile=OLD))
    await asyncio.wait_for(asyncio.gather(history.started.wait(), prefix.started.wait()), 5)
    assert len(provider.requests) == 2  # both requests are in flight before either answers
    gate.set()
    result = await task

    history_request, prefix_request = provider.requests
    assert history_request.max_tokens == 13107 and prefix_request.max_tokens == 8192  # 0.8 and 0.5 × reserve
    assert history_request.reasoning == prefix_request.reasoning == "medium"
    assert prefix_request.system_prompt == SUMMARIZATION_SYSTEM_PROMPT
    history_text, prefix_text = provider.user_texts()
    assert history_text.endswith("</previous-summary>\n\n" + UPDATE_SUMMARIZATION_PROMPT)
    assert prefix_text == conversation("[User]: " + sized("u3", 1000)) + TURN_PREFIX_SUMMARIZATION_PROMPT
    assert result.summary.startswith("HISTORY" + SPLIT + "PREFIX\n\n<read-files>")
    assert result.first_kept_entry_id == "a3"


async def test_split_turn_without_history_uses_no_prior_history_and_drops_previous_summary() -> None:
    prep = prepare_compaction(_path(), CompactionSettings(keep_recent_tokens=4500), profile=OLD)
    assert prep is not None and prep.is_split_turn and not prep.messages_to_summarize
    provider = RecordingProvider(["PREFIX"])
    result = await compact(prep, provider, profile=OLD)
    assert len(provider.requests) == 1  # only the turn prefix is summarized
    assert "previous-summary" not in provider.user_texts()[0]
    assert result.summary.startswith("No prior history." + SPLIT + "PREFIX")
    assert "S1" not in result.summary  # pi's residual issue, kept: only the file lists survive
    assert "seed.ts" in result.summary


async def test_summary_errors_raise_and_cancel_the_sibling_call() -> None:
    with pytest.raises(SummarizationError, match="^Summarization failed: boom$"):
        await generate_summary(
            [user("q")], RecordingProvider([Reply(stop_reason="error", error_message="boom")]), 100,
            profile=OLD,
        )
    with pytest.raises(SummarizationError, match="^Summarization failed: Unknown error$"):
        await generate_summary([user("q")], RecordingProvider([Reply(stop_reason="error")]), 100, profile=OLD)

    prep = prepare_compaction(_path(), CompactionSettings(keep_recent_tokens=2500), profile=OLD)
    assert prep is not None
    gate = asyncio.Event()
    provider = RecordingProvider(
        [Reply("HISTORY", gate=gate, pause_after_chunks=0), Reply(stop_reason="error", error_message="bad")]
    )
    with pytest.raises(SummarizationError, match="^Turn prefix summarization failed: bad$"):
        await compact(prep, provider, profile=OLD)
    assert provider.cancelled == 1  # the history call was not left running


# ----------------------------------------------------------------------------------- branch summaries


def _branch_entries() -> list[dict[str, Any]]:
    return chain(
        msg("u1", user("try approach A")),
        msg(
            "a1",
            assistant(
                "reading", tool_calls=[tool_call("read", path="a.ts"), tool_call("edit", "2", path="b.ts")]
            ),
        ),
        msg("t1", tool_result("file contents")),
        ("bs", "branch_summary", {"fromId": "x", "summary": "earlier", "details": {"readFiles": ["z.ts"]}}),
        ("k", "compaction", {"summary": "older summary", "firstKeptEntryId": "u1", "tokensBefore": 9}),
        msg("a2", assistant("approach A works")),
    )


async def test_branch_summary_request_and_result() -> None:
    provider = RecordingProvider(["## Goal\nA"])
    result = await generate_branch_summary(_branch_entries(), provider, profile=OLD)
    (request,) = provider.requests
    assert request.system_prompt == SUMMARIZATION_SYSTEM_PROMPT
    assert request.max_tokens == BRANCH_SUMMARY_MAX_TOKENS == 2048
    assert request.reasoning is None  # branch summaries never pass a thinking level
    assert provider.user_texts() == [
        conversation(
            "[User]: try approach A",
            "[Assistant]: reading",
            '[Assistant tool calls]: read(path="a.ts"); edit(path="b.ts")',
            "[User]: The following is a summary of a branch that this conversation came back from:\n\n"
            "<summary>\nearlier</summary>",
            "[User]: The conversation history before this point was compacted into the following summary:\n\n"
            "<summary>\nolder summary\n</summary>",
            "[Assistant]: approach A works",
        )
        + BRANCH_SUMMARY_PROMPT
    ]  # the tool result is left out of branch summaries
    assert result.summary == (
        BRANCH_SUMMARY_PREAMBLE
        + "## Goal\nA\n\n<read-files>\na.ts\nz.ts\n</read-files>\n\n<modified-files>\nb.ts\n</modified-files>"
    )
    assert result.details() == {"readFiles": ["a.ts", "z.ts"], "modifiedFiles": ["b.ts"]}


async def test_branch_summary_instructions_appended_or_replacing() -> None:
    provider = RecordingProvider(["x", "y"])
    await generate_branch_summary(_branch_entries(), provider, custom_instructions="only the tests", profile=OLD)
    await generate_branch_summary(
        _branch_entries(), provider, custom_instructions="Just list files.", replace_instructions=True,
        profile=OLD,
    )
    appended, replaced = provider.user_texts()
    assert appended.endswith(
        "</conversation>\n\n" + BRANCH_SUMMARY_PROMPT + "\n\nAdditional focus: only the tests"
    )
    assert replaced.endswith("</conversation>\n\nJust list files.")


async def test_branch_summary_budget_is_window_minus_reserve_newest_first() -> None:
    small = ModelInfo(id="small", provider="test", api="test-api", context_window=16384 + 10)
    provider = RecordingProvider(["s"], model=small)
    entries = chain(msg("u1", user("x" * 400)), msg("a1", assistant("y" * 20)), msg("u2", user("z" * 16)))
    await generate_branch_summary(entries, provider, profile=OLD)
    # budget 10 tokens: u2 (4) + a1 (5) fit, u1 (100) does not
    assert provider.user_texts()[0].startswith(
        conversation("[Assistant]: " + "y" * 20, "[User]: " + "z" * 16)
    )


async def test_branch_summary_no_content_aborted_and_error() -> None:
    provider = RecordingProvider([], default=None)
    only_tools = chain(msg("t", tool_result("r")), ("m", "model_change", {"provider": "p", "modelId": "m"}))
    result = await generate_branch_summary(only_tools, provider, profile=OLD)
    assert result.summary == "No content to summarize" and provider.requests == []
    assert result.details() == {"readFiles": [], "modifiedFiles": []}

    aborted = await generate_branch_summary(
        _branch_entries(), RecordingProvider([Reply(stop_reason="aborted")]),
        profile=OLD,
    )
    assert aborted.aborted and aborted.summary is None
    failed = await generate_branch_summary(
        _branch_entries(), RecordingProvider([Reply(stop_reason="error", error_message="429 overloaded")]),
        profile=OLD,
    )
    assert failed.error == "429 overloaded"
    failed = await generate_branch_summary(_branch_entries(), RecordingProvider([Reply(stop_reason="error")]), profile=OLD)
    assert failed.error == "Summarization failed"


async def test_collect_entries_for_branch_summary_with_manager(tmp_path: Path) -> None:
    from desktop_app.session.manager import SessionManager

    manager = SessionManager.create(str(tmp_path), tmp_path)
    root = manager.append_message(user("root"))
    manager.append_message(assistant("r"))
    a = manager.append_message(user("branch A"))
    manager.branch(root)
    b = manager.append_message(user("branch B"))
    collected = collect_entries_for_branch_summary(manager, b, a)
    assert [e["id"] for e in collected.entries] == [b] and collected.common_ancestor_id == root
    assert collect_entries_for_branch_summary(manager, None, a).entries == []
    assert collect_entries_for_branch_summary(manager, root, b).entries == []  # to a descendant: nothing
    manager.close()
