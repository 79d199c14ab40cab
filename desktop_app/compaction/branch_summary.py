"""Branch summaries: what the user explored on the branch they are leaving (pi-spec §5.9).

The collection and budgeting live in :mod:`branch_entries`; this module makes the model call. The
summary text that lands in the file is pi's preamble + the model's text + the file lists, so a pi
session reading an Arbor file sees exactly what pi would have written. Cancellation is asyncio's:
cancel the awaiting task and nothing is returned, so nothing is written.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
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
from desktop_app.session.entries import Entry
from desktop_app.session.profile import PI_1_6_0, PiProfile

from .branch_entries import (
    BranchEntries,
    BranchPreparation,
    collect_entries_for_branch_summary,
    prepare_branch_entries,
)
from .file_ops import compute_file_lists, format_file_operations
from .prompts import (
    ADDITIONAL_FOCUS,
    BRANCH_SUMMARY_PREAMBLE,
    BRANCH_SUMMARY_PROMPT,
    summarization_system_prompt,
)
from .serialize import serialize_conversation
from .summarize import reasoning_option, summary_failure

__all__ = [
    "BRANCH_SUMMARY_MAX_TOKENS",
    "DEFAULT_BRANCH_RESERVE_TOKENS",
    "NO_CONTENT_SUMMARY",
    "BranchEntries",
    "BranchPreparation",
    "BranchSummaryResult",
    "branch_summary_instructions",
    "branch_summary_request",
    "collect_entries_for_branch_summary",
    "prepare_branch_entries",
    "generate_branch_summary",
]

BRANCH_SUMMARY_MAX_TOKENS = 2048
DEFAULT_BRANCH_RESERVE_TOKENS = 16384
DEFAULT_CONTEXT_WINDOW = 128000
NO_CONTENT_SUMMARY = "No content to summarize"
NO_SUMMARY_GENERATED = "No summary generated"


@dataclass
class BranchSummaryResult:
    """``{summary, readFiles, modifiedFiles}``, or ``aborted``, or ``error`` (pi's result shape)."""

    summary: str | None = None
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)
    aborted: bool = False
    error: str | None = None
    usage: dict[str, Any] | None = None
    """The summarizer's usage (pi 1.6.0 records it in the entry)."""

    def details(self) -> dict[str, list[str]]:
        """What ``branch_summary.details`` records (``SessionManager`` adds ``abandonedLeafId``)."""
        return {"readFiles": list(self.read_files), "modifiedFiles": list(self.modified_files)}


def branch_summary_instructions(custom_instructions: str | None, replace_instructions: bool) -> str:
    """pi's prompt, pi's prompt + "Additional focus", or the user's text alone when it replaces it."""
    if replace_instructions and custom_instructions:
        return custom_instructions
    if custom_instructions:
        return BRANCH_SUMMARY_PROMPT + ADDITIONAL_FOCUS + custom_instructions
    return BRANCH_SUMMARY_PROMPT


def branch_summary_request(
    prep: BranchPreparation,
    instructions: str,
    profile: PiProfile = PI_1_6_0,
    reasoning: str | None = None,
) -> LLMRequest:
    """pi 0.73.1: fixed ``max_tokens`` 2048 and no reasoning option (it ignores the thinking level here);
    pi 1.6.0: no cap and the session's thinking level (``reasoning``)."""
    conversation = serialize_conversation(convert_to_llm(prep.messages, profile), profile)
    text = "<conversation>\n" + conversation + "\n</conversation>\n\n" + instructions
    strict = profile.turn_prefix_markdown
    return LLMRequest(
        system_prompt=summarization_system_prompt(profile.summarizer_says_coding),
        messages=[user_text_message(text)],
        max_tokens=None if strict else BRANCH_SUMMARY_MAX_TOKENS,
        reasoning=reasoning if strict else None,
        purpose=Purpose.BRANCH_SUMMARY,
    )


async def generate_branch_summary(
    entries: list[Entry],
    provider: Provider,
    *,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    reserve_tokens: int = DEFAULT_BRANCH_RESERVE_TOKENS,
    on_progress: ProgressCallback | None = None,
    profile: PiProfile = PI_1_6_0,
    thinking_level: str | None = None,
) -> BranchSummaryResult:
    """Summarize the abandoned ``entries`` within the model's window minus ``reserve_tokens``.

    With nothing to summarize (only settings, labels or tool results) the summary is pi's
    ``"No content to summarize"`` and no model is called. A model error or abort is returned in the
    result, not raised, as pi does; task cancellation raises ``CancelledError``.
    """
    budget = (provider.model.context_window or DEFAULT_CONTEXT_WINDOW) - reserve_tokens
    prep = prepare_branch_entries(entries, budget, profile)
    if not prep.messages:
        return BranchSummaryResult(summary=NO_CONTENT_SUMMARY)
    lists = compute_file_lists(prep.file_ops)
    request = branch_summary_request(
        prep,
        branch_summary_instructions(custom_instructions, replace_instructions),
        profile,
        reasoning_option(provider, thinking_level),
    )
    response = await complete(provider, request, on_progress)
    stop = response.get("stopReason")
    if stop == "aborted":
        if cancellation_requested():
            raise asyncio.CancelledError  # the caller was cancelled: it must not go on and write
        return BranchSummaryResult(aborted=True)
    if stop == "error":
        return BranchSummaryResult(error=response.get("errorMessage") or "Summarization failed")
    problem = summary_failure(response, "Branch summarization failed", strict=profile.turn_prefix_markdown)
    if problem is not None:
        return BranchSummaryResult(error=problem)
    summary = BRANCH_SUMMARY_PREAMBLE + message_text(response, "\n")
    summary += format_file_operations(lists.read_files, lists.modified_files)
    return BranchSummaryResult(
        summary=summary or NO_SUMMARY_GENERATED,
        read_files=lists.read_files,
        modified_files=lists.modified_files,
        usage=response.get("usage") if profile.turn_prefix_markdown else None,
    )
