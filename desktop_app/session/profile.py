"""Which pi's answers the engine gives: a small frozen strategy passed explicitly, never a global.

Session files carry no pi version (both 0.73.1 and 1.6.0 write version 3), yet pi 1.6.0 answers some
questions about the very same file differently (``shared/pi16-delta.md`` §6): token estimates, cut
points and turn starts, ``prepareCompaction``, the summarizer's transcript and prompts, branch-summary
budgets, and a few things it writes. So the choice is a setting (``piVersion``), and every function whose
answer differs takes a :class:`PiProfile`. Each difference is one named flag, so code reads as the rule
it follows ("does a user image weigh anything?") rather than as a version comparison, and tests can run
both profiles side by side.

The reader is one for both versions (it loads every file either pi loads), but what the context is made
of differs on files pi 1.6.0 wrote: pi 0.73.1 ignores ``context_edit`` entries and a compaction's
``systemMessage``, keeps ``system`` messages as ordinary messages and drops them in ``convertToLlm``. A
person who runs pi 0.73.1 on such a file sees what that pi would send (``context_projection``,
``llm_keeps_system``). On a file 0.73.1 wrote both readings agree. Where a file's text ends is read as each
version reads it (:attr:`PiProfile.trims_file_text`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PI_0_73_1", "PI_1_6_0", "PROFILES", "DEFAULT_PI_VERSION", "PiProfile", "profile_for"]


@dataclass(frozen=True)
class PiProfile:
    """The rules of one pi version where the same file gets different answers."""

    version: str
    user_image_chars: int
    """What a ``user`` image block weighs in ``estimateTokens`` (0 in 0.73.1, 4800 in 1.6.0)."""
    count_system_messages: bool
    """``estimateTokens`` of a ``system`` message: 0 (unknown role) or its text, sections and tools."""
    empty_content_for_null: bool
    """The context gives a message whose ``content`` is null or missing ``[]`` (``""`` for system)."""
    context_projection: bool
    """The context is 1.6.0's projection (pi16-delta.md §4.1): ``context_edit`` entries apply, the newest
    compaction replays its ``systemMessage`` before its summary, and its kept range leaves ``system``
    messages out. pi 0.73.1 knows none of this: edits and checkpoints add nothing and a ``system``
    message is a message like any other, kept range included."""
    llm_keeps_system: bool
    """``convertToLlm`` passes ``system`` messages through (1.6.0); 0.73.1 drops the role it does not know."""
    skip_zero_usage: bool
    """``getAssistantUsage`` ignores a usage whose context tokens are ``<= 0`` or NaN."""
    projected_compaction: bool
    """``prepareCompaction`` works on the context projection (boundary after the newest compaction,
    edited messages, ``tokensBefore`` that ignores stale usage, cut rules of 1.6.0)."""
    nothing_to_summarize_is_none: bool
    """``prepareCompaction`` returns nothing when both message lists are empty (0.73.1: empty lists)."""
    cut_rules_1_6: bool
    """Raw ``findCutPoint``/``findTurnStartIndex`` as 1.6.0: every entry's tokens count, summaries and
    custom messages are turn starts, a cut on a turn start is no split, empty summaries are no cut."""
    serialize_thinking: bool
    """``serializeConversation`` writes ``[Assistant thinking]`` parts (gone in 1.6.0)."""
    branch_entries_projected: bool
    """``prepareBranchEntries`` applies context edits and includes system messages (1.6.0)."""
    nested_call_file_ops: bool
    """Tool results' ``nestedCalls`` (codemode) count as file operations in compaction file lists."""
    turn_prefix_markdown: bool
    """The turn-prefix request is ``# Conversation … # Instructions`` with 1.6.0's rewritten prompt."""
    summarizer_says_coding: bool
    """The summarization system prompt says "AI coding assistant" (0.73.1) or "AI assistant" (1.6.0)."""
    branch_from_old_leaf: bool
    """A branch summary's ``fromId`` is the abandoned leaf (1.6.0), not the entry branched from."""
    collapse_name_newlines: bool
    """``appendSessionInfo`` turns runs of CR/LF into one space before trimming."""
    compaction_self_first_kept: bool
    """A compaction that keeps nothing stores its own id as ``firstKeptEntryId``."""
    record_system_prompt: bool
    """The system prompt and tool set are recorded as ``system`` messages when they change, and a
    compaction stores the replayed prompt as ``systemMessage``."""
    response_fields_first: bool
    """An assistant message's ``responseId``/``responseModel`` are written after ``model`` (1.6.0);
    0.73.1 added them after ``timestamp``."""
    null_lines_skipped: bool
    """pi skips a ``null`` line when it opens a file (1.6.0); 0.73.1 throws. Arbor always skips it;
    only ``arbor inspect`` reports 0.73.1's failure, as that pi would."""
    trims_file_text: bool
    """pi's loader trims the whole text before splitting it into lines (0.73.1), so JavaScript whitespace
    after the last line's JSON (U+00A0, U+2028, a BOM) is ignored; 1.6.0 reads line by line and that line
    fails. Whitespace before the header is ignored under both (1.6.0 refuses the file; Arbor stays lenient)."""
    one_content_reader: bool
    """``estimateTokens`` reads user, custom, tool-result and system content with one reader that
    throws on content that is neither a string nor iterable (1.6.0: ``content is not iterable``);
    0.73.1 weighs such a user content 0 (``null`` and missing included)."""


PI_0_73_1 = PiProfile(
    version="0.73.1",
    user_image_chars=0,
    count_system_messages=False,
    empty_content_for_null=False,
    context_projection=False,
    llm_keeps_system=False,
    skip_zero_usage=False,
    projected_compaction=False,
    nothing_to_summarize_is_none=False,
    cut_rules_1_6=False,
    serialize_thinking=True,
    branch_entries_projected=False,
    nested_call_file_ops=False,
    turn_prefix_markdown=False,
    summarizer_says_coding=True,
    branch_from_old_leaf=False,
    collapse_name_newlines=False,
    compaction_self_first_kept=False,
    record_system_prompt=False,
    response_fields_first=False,
    null_lines_skipped=False,
    trims_file_text=True,
    one_content_reader=False,
)

PI_1_6_0 = PiProfile(
    version="1.6.0",
    user_image_chars=4800,
    count_system_messages=True,
    empty_content_for_null=True,
    context_projection=True,
    llm_keeps_system=True,
    skip_zero_usage=True,
    projected_compaction=True,
    nothing_to_summarize_is_none=True,
    cut_rules_1_6=True,
    serialize_thinking=False,
    branch_entries_projected=True,
    nested_call_file_ops=True,
    turn_prefix_markdown=True,
    summarizer_says_coding=False,
    branch_from_old_leaf=True,
    collapse_name_newlines=True,
    compaction_self_first_kept=True,
    record_system_prompt=True,
    response_fields_first=True,
    null_lines_skipped=True,
    trims_file_text=False,
    one_content_reader=True,
)

PROFILES: dict[str, PiProfile] = {p.version: p for p in (PI_0_73_1, PI_1_6_0)}
DEFAULT_PI_VERSION = "1.6.0"
"""The pi people use today; the ``piVersion`` setting's default."""


def profile_for(version: str) -> PiProfile:
    """The profile of ``version`` (``"0.73.1"`` or ``"1.6.0"``); ``ValueError`` names the choices."""
    try:
        return PROFILES[version]
    except KeyError:
        raise ValueError(f"unknown pi version {version!r}; choose one of {', '.join(PROFILES)}") from None
