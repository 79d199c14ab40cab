"""Compaction summaries: the model calls behind ``compact`` (pi-spec §5.8).

The requests are pi's to the character (prompt texts, tags, ``max_tokens`` as fractions of the reserve,
the thinking level only for reasoning models), because summary quality and size depend on them. All
calls are async and cancellable: cancelling the task that awaits them raises ``CancelledError`` before
anything is written, so a cancelled compaction leaves the session file untouched.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from desktop_app.llm.protocol import (
    LLMRequest,
    ProgressCallback,
    Provider,
    Purpose,
    cancellation_requested,
    complete,
    message_text,
    user_text_message,
)
from desktop_app.session.context import convert_to_llm
from desktop_app.session.entries import Message

from .file_ops import compute_file_lists, format_file_operations
from .prepare import CompactionPreparation
from .prompts import (
    ADDITIONAL_FOCUS,
    NO_PRIOR_HISTORY,
    SPLIT_TURN_SEPARATOR,
    SUMMARIZATION_PROMPT,
    SUMMARIZATION_SYSTEM_PROMPT,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
)
from .serialize import serialize_conversation

__all__ = [
    "SummarizationError",
    "CompactionResult",
    "conversation_block",
    "reasoning_option",
    "summary_request",
    "turn_prefix_request",
    "generate_summary",
    "generate_turn_prefix_summary",
    "compact",
]


class SummarizationError(RuntimeError):
    """The model answered with an error; nothing was written."""


@dataclass
class CompactionResult:
    """The payload of a compaction entry: ``summary``, ``firstKeptEntryId``, ``tokensBefore``, ``details``."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int | float
    details: dict[str, Any]


def conversation_block(messages: list[Message]) -> str:
    """``<conversation>`` tags around the serialized transcript (agent messages are converted first)."""
    return "<conversation>\n" + serialize_conversation(convert_to_llm(messages)) + "\n</conversation>\n\n"


def reasoning_option(provider: Provider, thinking_level: str | None) -> str | None:
    """The session's thinking level, for reasoning models only, and never ``"off"`` (0.73.1 rule)."""
    if provider.model.reasoning and thinking_level and thinking_level != "off":
        return thinking_level
    return None


def summary_request(
    messages: list[Message],
    provider: Provider,
    reserve_tokens: int,
    custom_instructions: str | None = None,
    previous_summary: str | None = None,
    thinking_level: str | None = None,
) -> LLMRequest:
    """The history-summary request: first-time or update prompt, ``max_tokens = floor(0.8 × reserve)``."""
    text = conversation_block(messages)
    if previous_summary:
        text += "<previous-summary>\n" + previous_summary + "\n</previous-summary>\n\n"
    text += UPDATE_SUMMARIZATION_PROMPT if previous_summary else SUMMARIZATION_PROMPT
    if custom_instructions:
        text += ADDITIONAL_FOCUS + custom_instructions
    return LLMRequest(
        system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
        messages=[user_text_message(text)],
        max_tokens=math.floor(0.8 * reserve_tokens),
        reasoning=reasoning_option(provider, thinking_level),
        purpose=Purpose.COMPACTION,
    )


def turn_prefix_request(
    messages: list[Message], provider: Provider, reserve_tokens: int, thinking_level: str | None = None
) -> LLMRequest:
    """The split-turn request: the turn's beginning only, ``max_tokens = floor(0.5 × reserve)``."""
    return LLMRequest(
        system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
        messages=[user_text_message(conversation_block(messages) + TURN_PREFIX_SUMMARIZATION_PROMPT)],
        max_tokens=math.floor(0.5 * reserve_tokens),
        reasoning=reasoning_option(provider, thinking_level),
        purpose=Purpose.TURN_PREFIX,
    )


async def _run(
    provider: Provider, request: LLMRequest, failure: str, on_progress: ProgressCallback | None
) -> str:
    response = await complete(provider, request, on_progress)
    if response.get("stopReason") == "aborted":
        if cancellation_requested():
            raise asyncio.CancelledError  # a stopped summary is a cancelled compaction: nothing is written
        raise SummarizationError(f"{failure}: {response.get('errorMessage') or 'aborted'}")
    if response.get("stopReason") == "error":
        raise SummarizationError(f"{failure}: {response.get('errorMessage') or 'Unknown error'}")
    return message_text(response, "\n")


async def generate_summary(
    messages: list[Message],
    provider: Provider,
    reserve_tokens: int,
    *,
    custom_instructions: str | None = None,
    previous_summary: str | None = None,
    thinking_level: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> str:
    """Summarize ``messages`` (updating ``previous_summary`` if given); the model's text blocks joined."""
    request = summary_request(
        messages, provider, reserve_tokens, custom_instructions, previous_summary, thinking_level
    )
    return await _run(provider, request, "Summarization failed", on_progress)


async def generate_turn_prefix_summary(
    messages: list[Message],
    provider: Provider,
    reserve_tokens: int,
    *,
    thinking_level: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> str:
    """Summarize the beginning of a turn whose end is kept verbatim."""
    request = turn_prefix_request(messages, provider, reserve_tokens, thinking_level)
    return await _run(provider, request, "Turn prefix summarization failed", on_progress)


class _Progress:
    """Adds up the characters of concurrent calls so the caller sees one growing number."""

    def __init__(self, callback: ProgressCallback | None) -> None:
        self.callback = callback
        self.parts: dict[str, int] = {}

    def part(self, name: str) -> ProgressCallback | None:
        if self.callback is None:
            return None

        def report(received: int) -> None:
            self.parts[name] = received
            assert self.callback is not None
            self.callback(sum(self.parts.values()))

        return report


async def _gather_or_cancel(*calls: Awaitable[str]) -> list[str]:
    """``asyncio.gather`` that cancels the sibling call when one fails (no orphaned requests)."""
    tasks = [asyncio.ensure_future(call) for call in calls]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def compact(
    preparation: CompactionPreparation,
    provider: Provider,
    *,
    custom_instructions: str | None = None,
    thinking_level: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> CompactionResult:
    """Summarize a prepared compaction and return the entry payload (nothing is written here).

    A split turn makes two calls at once (history and turn prefix) and joins them with pi's separator.
    With nothing complete before the cut, the history part is pi's literal ``"No prior history."``,
    which also drops the previous summary's text (pi's behaviour, kept for compatibility; its file
    lists survive through the file operations).
    """
    prep = preparation
    if not prep.first_kept_entry_id:
        raise SummarizationError("First kept entry has no id - the session may need migration")
    reserve = prep.settings.reserve_tokens
    progress = _Progress(on_progress)
    if prep.is_split_turn and prep.turn_prefix_messages:
        history: Awaitable[str]
        if prep.messages_to_summarize:
            history = generate_summary(
                prep.messages_to_summarize,
                provider,
                reserve,
                custom_instructions=custom_instructions,
                previous_summary=prep.previous_summary,
                thinking_level=thinking_level,
                on_progress=progress.part("history"),
            )
        else:
            history = _literal(NO_PRIOR_HISTORY)
        prefix = generate_turn_prefix_summary(
            prep.turn_prefix_messages,
            provider,
            reserve,
            thinking_level=thinking_level,
            on_progress=progress.part("prefix"),
        )
        history_text, prefix_text = await _gather_or_cancel(history, prefix)
        summary = history_text + SPLIT_TURN_SEPARATOR + prefix_text
    else:
        summary = await generate_summary(
            prep.messages_to_summarize,
            provider,
            reserve,
            custom_instructions=custom_instructions,
            previous_summary=prep.previous_summary,
            thinking_level=thinking_level,
            on_progress=progress.part("history"),
        )
    lists = compute_file_lists(prep.file_ops)
    summary += format_file_operations(lists.read_files, lists.modified_files)
    return CompactionResult(
        summary=summary,
        first_kept_entry_id=prep.first_kept_entry_id,
        tokens_before=prep.tokens_before,
        details={"readFiles": lists.read_files, "modifiedFiles": lists.modified_files},
    )


async def _literal(text: str) -> str:
    return text
