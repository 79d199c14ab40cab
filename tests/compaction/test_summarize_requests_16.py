"""pi 1.6.0's summarizer requests and results (pi16-delta.md §5.8, §5.9), next to 0.73.1's.

A recording provider captures every request. 1.6.0 sends no ``max_tokens``, writes the turn prefix as
``# Conversation … # Instructions`` with its rewritten prompt (custom instructions appended), runs a
split turn's two calls one after the other, keeps the previous summary when nothing new is summarized,
rejects a cut-off summary, and returns the summarizer's usage.
"""

from __future__ import annotations

import pytest

from desktop_app.compaction.branch_summary import generate_branch_summary
from desktop_app.compaction.prepare import prepare_compaction
from desktop_app.compaction.prompts import SUMMARIZATION_SYSTEM_PROMPT, TURN_PREFIX_PROMPT_1_6
from desktop_app.compaction.summarize import SummarizationError, compact, generate_summary
from desktop_app.compaction.tokens import CompactionSettings
from desktop_app.llm.testing import RecordingProvider, Reply
from desktop_app.session.profile import PI_0_73_1 as OLD
from desktop_app.session.profile import PI_1_6_0 as NEW

from .builders import assistant, sized, user
from .test_summarize_requests import SPLIT, _branch_entries, _path

pytestmark = pytest.mark.asyncio


async def test_summary_request_has_no_cap_no_thinking_and_says_ai_assistant() -> None:
    provider = RecordingProvider(["## Goal\nx", "## Goal\nx"])
    messages = [user("fix it"), assistant("done", thinking="secret plan")]
    await generate_summary(messages, provider, 16384, profile=NEW)
    await generate_summary(messages, provider, 16384, profile=OLD)
    new, old = provider.requests
    assert (new.max_tokens, old.max_tokens) == (None, 13107)
    assert old.system_prompt == SUMMARIZATION_SYSTEM_PROMPT
    assert new.system_prompt == SUMMARIZATION_SYSTEM_PROMPT.replace("an AI coding assistant", "an AI assistant")
    new_text, old_text = provider.user_texts()
    assert "secret plan" in old_text and "secret plan" not in new_text


async def test_split_turn_keeps_the_previous_summary_and_uses_the_new_prefix_prompt() -> None:
    prep = prepare_compaction(_path(), CompactionSettings(keep_recent_tokens=4500), NEW)
    assert prep is not None and prep.is_split_turn and prep.messages_to_summarize == []
    provider = RecordingProvider(["PREFIX"])
    result = await compact(prep, provider, custom_instructions="mind the tests", profile=NEW)
    (request,) = provider.requests  # nothing new before the turn: the previous summary is kept as is
    assert provider.user_texts() == [
        "# Conversation\n[User]: " + sized("u2", 1000) + "\n\n# Instructions\n" + TURN_PREFIX_PROMPT_1_6
        + "\n\nAdditional focus: mind the tests"
    ]
    assert request.max_tokens is None
    assert result.summary.startswith("S1" + SPLIT + "PREFIX")
    assert result.usage is not None and result.usage["input"] == 100  # the one call's usage


async def test_two_calls_add_up_their_usage() -> None:
    prep = prepare_compaction(_path(), CompactionSettings(keep_recent_tokens=2500), NEW)
    assert prep is not None and prep.is_split_turn and prep.messages_to_summarize
    provider = RecordingProvider(["HISTORY", "PREFIX"])
    result = await compact(prep, provider, profile=NEW)
    assert len(provider.requests) == 2 and result.summary.startswith("HISTORY" + SPLIT + "PREFIX")
    assert result.usage is not None and result.usage["input"] == 200
    old = await compact(prep, RecordingProvider(["HISTORY", "PREFIX"]), profile=OLD)
    assert old.usage is None  # pi 0.73.1 does not record it


async def test_a_cut_off_or_tool_calling_summary_is_a_failure_in_1_6_0() -> None:
    cut_off = Reply("half a summ", stop_reason="length")
    with pytest.raises(SummarizationError, match="^Summarization failed: generation hit the token cap"):
        await generate_summary([user("q")], RecordingProvider([cut_off]), 100, profile=NEW)
    assert await generate_summary([user("q")], RecordingProvider([cut_off]), 100, profile=OLD) == "half a summ"
    branch = await generate_branch_summary(
        _branch_entries(), RecordingProvider([Reply("half", stop_reason="length")]), profile=NEW
    )
    assert branch.summary is None and branch.error is not None and "token cap" in branch.error


async def test_branch_summary_honours_the_thinking_level_and_returns_usage() -> None:
    provider = RecordingProvider(["explored", "explored"])
    new = await generate_branch_summary(_branch_entries(), provider, profile=NEW, thinking_level="high")
    old = await generate_branch_summary(_branch_entries(), provider, profile=OLD, thinking_level="high")
    new_request, old_request = provider.requests
    assert (new_request.reasoning, new_request.max_tokens) == ("high", None)
    assert (old_request.reasoning, old_request.max_tokens) == (None, 2048)
    assert new.usage is not None and old.usage is None
