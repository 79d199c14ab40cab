"""Compaction applied to a ``SessionManager``: prepare, summarize, then (and only then) append.

The write comes last on purpose: a summary that is cancelled or fails leaves the file exactly as it
was (pi-spec §7 items 8 and 16). This is the sequence ``AgentSession.compact`` runs; it is here so the
agent, tests and tools share one implementation.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from desktop_app.llm.protocol import ProgressCallback, Provider
from desktop_app.session.entries import Entry
from desktop_app.session.kinds import EntryKind, kind_of
from desktop_app.session.manager import SessionManager

from .file_ops import compute_file_lists
from .prepare import CompactionPreparation, prepare_compaction
from .summarize import CompactionResult, compact
from .tokens import DEFAULT_COMPACTION_SETTINGS, CompactionSettings

__all__ = [
    "NothingToCompactError",
    "CompactionOutcome",
    "compact_session",
    "prepare_session",
    "summarize_session",
    "user_summary_result",
]


class NothingToCompactError(RuntimeError):
    """pi's refusals: "Already compacted" or "Nothing to compact (session too small)"."""


@dataclass
class CompactionOutcome:
    """The appended entry's id and the payload it holds."""

    entry_id: str
    result: CompactionResult


def user_summary_result(preparation: CompactionPreparation, summary: str) -> CompactionResult:
    """The payload of a compaction whose summary the user wrote: stored verbatim, no model call, no usage.

    Every other field is pi's for the same cut: ``firstKeptEntryId``, ``tokensBefore`` and
    ``details.readFiles``/``modifiedFiles`` (the files of what is summarized, and the previous
    compaction's). No file-list tags are appended: the text is the user's (a summary generated first
    and then edited already holds them).
    """
    if not preparation.first_kept_entry_id:
        raise NothingToCompactError("Nothing to compact (session too small)")
    lists = compute_file_lists(preparation.file_ops)
    return CompactionResult(
        summary=summary,
        first_kept_entry_id=preparation.first_kept_entry_id,
        tokens_before=preparation.tokens_before,
        details={"readFiles": lists.read_files, "modifiedFiles": lists.modified_files},
    )


async def prepare_session(
    manager: SessionManager,
    settings: CompactionSettings = DEFAULT_COMPACTION_SETTINGS,
    first_kept_entry_id: str | None = None,
) -> CompactionPreparation:
    """Plan a compaction of the current branch (off the window's thread); pi's refusals as
    :class:`NothingToCompactError`, a chosen cut that is none as ``InvalidCutError`` (a ``ValueError``)."""
    leaf = manager.leaf_id
    profile = manager.profile

    def prepare() -> tuple[list[Entry], CompactionPreparation | None]:
        # On a worker thread: estimating and cutting is ~25 ms at 100,000 entries, a freeze of the
        # window if run on its thread. Only the end of the branch the compaction reads is walked
        # (from the previous compaction's first kept entry): the whole 72,000-entry branch was ~60 ms
        # more, and a worker running Python that long slows every Qt call of the window's thread,
        # which waits for the GIL after each. The preparation is the whole branch's, but for the
        # indices it holds (they count from the walk's start; only audits read them).
        path = manager.get_context_branch(leaf) if leaf is not None else []
        return path, prepare_compaction(path, settings, profile, first_kept_entry_id=first_kept_entry_id)

    path, preparation = await asyncio.to_thread(prepare)
    if preparation is None:
        last = path[-1] if path else None
        if last is not None and kind_of(last) is EntryKind.COMPACTION:
            raise NothingToCompactError("Already compacted")
        raise NothingToCompactError("Nothing to compact (session too small)")
    return preparation


async def summarize_session(
    manager: SessionManager,
    provider: Provider,
    *,
    settings: CompactionSettings = DEFAULT_COMPACTION_SETTINGS,
    custom_instructions: str | None = None,
    thinking_level: str | None = None,
    on_progress: ProgressCallback | None = None,
    summary: str | None = None,
    first_kept_entry_id: str | None = None,
) -> CompactionResult:
    """The compaction the current branch would get, nothing written: the model's summary, or
    ``summary`` as the user wrote it (no model call); the cut is pi's or ``first_kept_entry_id``."""
    preparation = await prepare_session(manager, settings, first_kept_entry_id)
    if summary is not None:
        return user_summary_result(preparation, summary)
    return await compact(
        preparation,
        provider,
        custom_instructions=custom_instructions,
        thinking_level=thinking_level,
        on_progress=on_progress,
        profile=manager.profile,
    )


async def compact_session(
    manager: SessionManager,
    provider: Provider,
    *,
    settings: CompactionSettings = DEFAULT_COMPACTION_SETTINGS,
    custom_instructions: str | None = None,
    thinking_level: str | None = None,
    on_progress: ProgressCallback | None = None,
    summary: str | None = None,
    first_kept_entry_id: str | None = None,
) -> CompactionOutcome:
    """Compact the current branch and append the compaction entry (it becomes the leaf), with the rules
    of the session's pi-version profile (:func:`summarize_session`, then the write)."""
    result = await summarize_session(
        manager,
        provider,
        settings=settings,
        custom_instructions=custom_instructions,
        thinking_level=thinking_level,
        on_progress=on_progress,
        summary=summary,
        first_kept_entry_id=first_kept_entry_id,
    )
    with manager.background_sync():  # the fsync off the UI thread, where compactions land
        entry_id = manager.append_compaction(
            result.summary, result.first_kept_entry_id, result.tokens_before, result.details, False, result.usage
        )
    return CompactionOutcome(entry_id, result)
