"""Compaction summaries: the model calls behind ``compact`` (pi-spec §5.8).

The requests are pi's to the character (prompt texts, tags, ``max_tokens`` as fractions of the reserve,
the thinking level only for reasoning models), because summary quality and size depend on them. All
calls are async and cancellable: cancelling the task that awaits them raises ``CancelledError`` before
anything is written, so a cancelled compaction leaves the session file untouched.
"""

from __future__ import annotations

import asyncio
import functools
import math
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass
from typing import Any

from desktop_app.llm.messages import combine_usage
from desktop_app.llm.model import TextPieces
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
from desktop_app.session.kinds import BlockKind, block_kind
from desktop_app.session.profile import PI_1_6_0, PiProfile

from .file_ops import compute_file_lists, format_file_operations
from .prepare import CompactionPreparation
from .prompts import (
    ADDITIONAL_FOCUS,
    NO_PRIOR_HISTORY,
    SPLIT_TURN_SEPARATOR,
    SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
    summarization_system_prompt,
    turn_prefix_text,
)
from .serialize import serialize_conversation, serialized_pieces

__all__ = [
    "SummarizationError",
    "CompactionResult",
    "conversation_block",
    "conversation_pieces",
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
    """The payload of a compaction entry: ``summary``, ``firstKeptEntryId``, ``tokensBefore``, ``details``,
    and (pi 1.6.0) the summarizer's ``usage``."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int | float
    details: dict[str, Any]
    usage: dict[str, Any] | None = None


def conversation_pieces(messages: list[Message], profile: PiProfile = PI_1_6_0) -> Iterator[str]:
    """:func:`conversation_block` in pieces (see :func:`~.serialize.serialized_pieces`)."""
    yield "<conversation>\n"
    yield from serialized_pieces(convert_to_llm(messages, profile), profile)
    yield "\n</conversation>\n\n"


def conversation_block(messages: list[Message], profile: PiProfile = PI_1_6_0) -> str:
    """``<conversation>`` tags around the serialized transcript (agent messages are converted first)."""
    return "".join(conversation_pieces(messages, profile))


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
    profile: PiProfile = PI_1_6_0,
) -> LLMRequest:
    """The history-summary request: first-time or update prompt, ``max_tokens = floor(0.8 × reserve)``
    (pi 1.6.0 sets no limit)."""
    # Made as the request is sent, piece by piece (mostly the session's own strings): the provider
    # encodes them into the request's bytes without the whole text ever existing (issue 28).
    pieces = functools.partial(_summary_pieces, messages, profile, previous_summary, custom_instructions)
    return LLMRequest(
        system_prompt=summarization_system_prompt(profile.summarizer_says_coding),
        messages=[],
        text_pieces=TextPieces(pieces),
        max_tokens=_limit(reserve_tokens, 0.8, profile),
        reasoning=reasoning_option(provider, thinking_level),
        purpose=Purpose.COMPACTION,
    )


def _summary_pieces(
    messages: list[Message], profile: PiProfile, previous_summary: str | None, custom_instructions: str | None
) -> Iterator[str]:
    """The history-summary request's text in pieces: the transcript, the previous summary, the prompt."""
    yield from conversation_pieces(messages, profile)
    if previous_summary:
        yield from ("<previous-summary>\n", previous_summary, "\n</previous-summary>\n\n")
    yield UPDATE_SUMMARIZATION_PROMPT if previous_summary else SUMMARIZATION_PROMPT
    if custom_instructions:
        yield from (ADDITIONAL_FOCUS, custom_instructions)


def _limit(reserve_tokens: int, share: float, profile: PiProfile) -> int | None:
    """0.73.1 caps a summary at a share of the reserve; 1.6.0 sets no cap (and fails on a cut-off one)."""
    return None if profile.turn_prefix_markdown else math.floor(share * reserve_tokens)


def turn_prefix_request(
    messages: list[Message],
    provider: Provider,
    reserve_tokens: int,
    thinking_level: str | None = None,
    profile: PiProfile = PI_1_6_0,
    custom_instructions: str | None = None,
) -> LLMRequest:
    """The split-turn request: the turn's beginning only, ``max_tokens = floor(0.5 × reserve)`` (0.73.1)
    or pi 1.6.0's layout, prompt and custom instructions without a cap."""
    conversation = serialize_conversation(convert_to_llm(messages, profile), profile)
    text = turn_prefix_text(conversation, profile.turn_prefix_markdown, custom_instructions)
    return LLMRequest(
        system_prompt=summarization_system_prompt(profile.summarizer_says_coding),
        messages=[user_text_message(text)],
        max_tokens=_limit(reserve_tokens, 0.5, profile),
        reasoning=reasoning_option(provider, thinking_level),
        purpose=Purpose.TURN_PREFIX,
    )


def summary_failure(response: Message, failure: str, strict: bool) -> str | None:
    """Why a summarizer's reply cannot be used, or ``None``. ``strict`` (pi 1.6.0): a reply cut off at
    the token cap or one that calls a tool is a failure too, not a short summary."""
    stop = response.get("stopReason")
    if stop == "aborted":
        return f"{failure}: {response.get('errorMessage') or 'aborted'}"
    if stop == "error":
        return f"{failure}: {response.get('errorMessage') or 'Unknown error'}"
    if strict and stop == "length":
        return f"{failure}: generation hit the token cap and the summary is incomplete"
    content = response.get("content")
    if strict and isinstance(content, list) and any(block_kind(b) is BlockKind.TOOL_CALL for b in content):
        return f"{failure}: the summarizer attempted to call a tool"
    return None


async def _run(
    provider: Provider,
    request: LLMRequest,
    failure: str,
    on_progress: ProgressCallback | None,
    profile: PiProfile = PI_1_6_0,
    usages: list[Any] | None = None,
) -> str:
    response = await complete(provider, request, on_progress)
    if response.get("stopReason") == "aborted" and cancellation_requested():
        raise asyncio.CancelledError  # a stopped summary is a cancelled compaction: nothing is written
    problem = summary_failure(response, failure, strict=profile.turn_prefix_markdown)
    if problem is not None:
        raise SummarizationError(problem)
    if usages is not None:
        usages.append(response.get("usage"))
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
    profile: PiProfile = PI_1_6_0,
    usages: list[Any] | None = None,
) -> str:
    """Summarize ``messages`` (updating ``previous_summary`` if given); the model's text blocks joined.

    The reply's usage is appended to ``usages`` when given."""
    request = summary_request(
        messages, provider, reserve_tokens, custom_instructions, previous_summary, thinking_level, profile
    )
    return await _run(provider, request, "Summarization failed", on_progress, profile, usages)


async def generate_turn_prefix_summary(
    messages: list[Message],
    provider: Provider,
    reserve_tokens: int,
    *,
    thinking_level: str | None = None,
    on_progress: ProgressCallback | None = None,
    profile: PiProfile = PI_1_6_0,
    custom_instructions: str | None = None,
    usages: list[Any] | None = None,
) -> str:
    """Summarize the beginning of a turn whose end is kept verbatim."""
    request = turn_prefix_request(messages, provider, reserve_tokens, thinking_level, profile, custom_instructions)
    return await _run(provider, request, "Turn prefix summarization failed", on_progress, profile, usages)


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
    profile: PiProfile = PI_1_6_0,
) -> CompactionResult:
    """Summarize a prepared compaction and return the entry payload (nothing is written here).

    A split turn makes two calls (history and turn prefix) and joins them with pi's separator: at
    once in 0.73.1, one after the other in 1.6.0. With nothing complete before the cut, the history
    part is pi's literal ``"No prior history."`` in 0.73.1, which also drops the previous summary's
    text (its file lists survive through the file operations); pi 1.6.0 keeps the previous summary.
    pi 1.6.0 also records the summarizer's usage (both calls added up).
    """
    prep = preparation
    if not prep.first_kept_entry_id:
        raise SummarizationError("First kept entry has no id - the session may need migration")
    reserve = prep.settings.reserve_tokens
    progress = _Progress(on_progress)
    usages: list[Any] = []
    history_call = functools.partial(
        generate_summary,
        prep.messages_to_summarize,
        provider,
        reserve,
        custom_instructions=custom_instructions,
        previous_summary=prep.previous_summary,
        thinking_level=thinking_level,
        on_progress=progress.part("history"),
        profile=profile,
        usages=usages,
    )
    if prep.is_split_turn and prep.turn_prefix_messages:
        prefix_call = functools.partial(
            generate_turn_prefix_summary,
            prep.turn_prefix_messages,
            provider,
            reserve,
            thinking_level=thinking_level,
            on_progress=progress.part("prefix"),
            profile=profile,
            custom_instructions=custom_instructions if profile.turn_prefix_markdown else None,
            usages=usages,
        )
        if profile.turn_prefix_markdown:  # pi 1.6.0: one call after the other
            if prep.messages_to_summarize:
                history_text = await history_call()
            else:
                history_text = prep.previous_summary if prep.previous_summary is not None else NO_PRIOR_HISTORY
            prefix_text = await prefix_call()
        else:
            history = history_call() if prep.messages_to_summarize else _literal(NO_PRIOR_HISTORY)
            history_text, prefix_text = await _gather_or_cancel(history, prefix_call())
        summary = history_text + SPLIT_TURN_SEPARATOR + prefix_text
    else:
        summary = await history_call()
    lists = compute_file_lists(prep.file_ops)
    summary += format_file_operations(lists.read_files, lists.modified_files)
    return CompactionResult(
        summary=summary,
        first_kept_entry_id=prep.first_kept_entry_id,
        tokens_before=prep.tokens_before,
        details={"readFiles": lists.read_files, "modifiedFiles": lists.modified_files},
        usage=combine_usage(usages) if profile.turn_prefix_markdown else None,
    )


async def _literal(text: str) -> str:
    return text
