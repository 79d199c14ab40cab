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

from .prepare import CompactionPreparation, prepare_compaction
from .summarize import CompactionResult, compact
from .tokens import DEFAULT_COMPACTION_SETTINGS, CompactionSettings

__all__ = ["NothingToCompactError", "CompactionOutcome", "compact_session"]


class NothingToCompactError(RuntimeError):
    """pi's refusals: "Already compacted" or "Nothing to compact (session too small)"."""


@dataclass
class CompactionOutcome:
    """The appended entry's id and the payload it holds."""

    entry_id: str
    result: CompactionResult


async def compact_session(
    manager: SessionManager,
    provider: Provider,
    *,
    settings: CompactionSettings = DEFAULT_COMPACTION_SETTINGS,
    custom_instructions: str | None = None,
    thinking_level: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> CompactionOutcome:
    """Compact the current branch and append the compaction entry (it becomes the leaf), with the rules
    of the session's pi-version profile."""
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
        return path, prepare_compaction(path, settings, profile)

    path, preparation = await asyncio.to_thread(prepare)
    if preparation is None:
        last = path[-1] if path else None
        if last is not None and kind_of(last) is EntryKind.COMPACTION:
            raise NothingToCompactError("Already compacted")
        raise NothingToCompactError("Nothing to compact (session too small)")
    result = await compact(
        preparation,
        provider,
        custom_instructions=custom_instructions,
        thinking_level=thinking_level,
        on_progress=on_progress,
        profile=profile,
    )
    with manager.background_sync():  # the fsync off the UI thread, where compactions land
        entry_id = manager.append_compaction(
            result.summary, result.first_kept_entry_id, result.tokens_before, result.details, False, result.usage
        )
    return CompactionOutcome(entry_id, result)
