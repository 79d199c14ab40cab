"""What a compaction threw away and what it kept; what a branch summary stands for.

The rules are pi's, and they depend on the pi version (the session's :class:`PiProfile`):

* **pi 0.73.1** (pi-spec §4.1, §5.7): a compaction C on a path replaced the path entries from the
  previous compaction's kept boundary up to, but not including, ``C.firstKeptEntryId``; those are
  the *summarized* entries. The boundary is :func:`~desktop_app.compaction.prepare.compaction_boundaries`
  applied to the path as it was when C was made (root → the entry before C).
* **pi 1.6.0** (pi16-delta.md §5.7): ``prepareCompaction`` plans on the context projection at C
  (:func:`~desktop_app.session.context.context_entries`: the previous compaction, its kept range
  without system messages, everything after it), from just after the previous compaction, so the
  previous compaction itself is not summarized again. System messages are never summarized nor
  kept verbatim: the replayed prompt is stored on C as its ``systemMessage`` checkpoint, which the
  model reads first after C. A ``firstKeptEntryId`` equal to C's own id means "keep nothing".

Either way the audit walks the very entry list ``prepare_compaction`` indexes (the path, or the
projection's sources, as :func:`~desktop_app.present.compaction_preview.planned_ids` does), so it
cannot disagree with it. From ``firstKeptEntryId`` up to C the entries are *kept* verbatim. If
``firstKeptEntryId`` is not among them, pi keeps nothing, so everything since the boundary counts
as summarized.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from desktop_app.llm.offline_summary import OFFLINE_SUMMARY_NOTICE
from desktop_app.session.context import context_entries, is_system_entry
from desktop_app.session.entries import Entry, Message
from desktop_app.session.kinds import EntryKind, kind_of
from desktop_app.session.profile import PI_1_6_0, PiProfile
from desktop_app.session.tree import SessionIndex

from .prepare import compaction_boundaries

__all__ = [
    "SPLIT_TURN_MARKER",
    "BranchSummaryInfo",
    "CompactionAudit",
    "audit_compaction",
    "branch_summary_info",
]

#: The heading pi's ``compact`` writes when the cut fell inside a turn (pi-spec §5.8).
SPLIT_TURN_MARKER = "**Turn Context (split turn):**"
ABANDONED_UNKNOWN = "abandoned branch unknown"


@dataclass(frozen=True)
class CompactionAudit:
    """Everything the audit band and the side panel show for one compaction entry."""

    compaction_id: str
    summary: str
    tokens_before: int | float | None
    first_kept_entry_id: str | None
    #: ``firstKeptEntryId`` lies on the path before the compaction (else nothing was kept).
    first_kept_found: bool
    #: Entries the summary replaced, in path order (the dimmed band).
    summarized_ids: tuple[str, ...]
    #: Entries kept verbatim, ``firstKeptEntryId`` … the entry before the compaction (the outlined band).
    kept_ids: tuple[str, ...]
    #: The cut lies between these two entries (either may be ``None`` at the ends).
    cut_after_id: str | None
    cut_before_id: str | None
    previous_compaction_id: str | None
    read_files: tuple[str, ...]
    modified_files: tuple[str, ...]
    is_split_turn: bool
    #: ``True`` an extension made it, ``False`` pi's own /compact or auto-compaction, ``None`` unknown.
    from_hook: bool | None
    details: Any = None
    #: pi 1.6.0's checkpoint: the system prompt replayed at the compaction (``systemMessage``),
    #: which the model reads first after it; ``None`` when the entry has none.
    system_message: Message | None = None
    #: System-message entries of the range whose prompt now lives in the checkpoint (pi 1.6.0:
    #: neither summarized nor kept verbatim).
    checkpoint_ids: tuple[str, ...] = ()
    #: ``firstKeptEntryId`` is the compaction's own id: pi 1.6.0's "keep nothing".
    keeps_nothing: bool = False
    #: The entry records the summarizer's ``usage`` (pi 1.6.0 writes it; pi 0.73.1 never does).
    usage_recorded: bool = False

    @property
    def from_claude_code(self) -> bool:
        """Imported from a Claude Code transcript (``details.source``): a boundary of Claude Code's own
        ``/compact`` or auto-compact, which sends nothing from before it again (DESIGN.md §14)."""
        return isinstance(self.details, dict) and self.details.get("source") == "claude-code"

    @property
    def keeps_nothing_before(self) -> bool:
        """Nothing before the compaction is kept, on purpose (pi 1.6.0's own id, or Claude Code's way)."""
        return self.keeps_nothing or self.from_claude_code

    @property
    def made_by(self) -> str:
        """Who wrote the summary, as far as the entry tells: Claude Code (an imported transcript), an
        extension (``fromHook``), Arbor's offline summarizer (its summaries open with a notice), or the
        pi version whose fields the entry carries. Arbor with a real model writes what the chosen pi
        writes, so it reads as that pi."""
        if self.from_claude_code:
            return "Claude Code (imported transcript)"
        if self.from_hook is True:
            return "an extension (fromHook)"
        if self.summary.lstrip().startswith(OFFLINE_SUMMARY_NOTICE):
            return "Arbor (offline summary)"
        if self.usage_recorded or self.system_message is not None or self.keeps_nothing:
            return "pi 1.6.0"
        if self.from_hook is False:
            return "pi 0.73.1"
        return "pi 0.73.1 or earlier"

    @property
    def made_by_why(self) -> str:
        """How :attr:`made_by` was told (a tooltip): the fields that gave it away."""
        if self.from_claude_code:
            return ("details.source is \"claude-code\": a compact boundary and its summary from a Claude Code "
                    "transcript, imported by Arbor (trigger and token counts in the details).")
        if self.from_hook is True:
            return "The entry says fromHook: true: an extension wrote this summary, not pi's own compaction."
        if self.summary.lstrip().startswith(OFFLINE_SUMMARY_NOTICE):
            return "The summary opens with Arbor's offline-summary notice: no language model wrote it."
        if self.usage_recorded or self.system_message is not None or self.keeps_nothing:
            return (
                "The entry has pi 1.6.0's fields (the summarizer's usage, the systemMessage checkpoint or a "
                "firstKeptEntryId naming itself). Arbor set to pi 1.6.0 writes the same."
            )
        if self.from_hook is False:
            return "No pi 1.6.0 fields (usage, systemMessage): written as pi 0.73.1 writes (pi, or Arbor set to pi 0.73.1)."
        return "No pi 1.6.0 fields and no fromHook: written by pi 0.73.1 or an earlier pi."


@dataclass(frozen=True)
class BranchSummaryInfo:
    """A branch summary entry and, when Arbor made it, the branch it summarized."""

    entry_id: str
    summary: str
    abandoned_leaf_id: str | None
    read_files: tuple[str, ...]
    modified_files: tuple[str, ...]
    from_hook: bool | None

    @property
    def made_by(self) -> str:
        """An extension (``fromHook``), Arbor's offline summarizer (its notice opens the text), or a
        model's summary written by pi or by Arbor (the entry does not tell them apart)."""
        if self.from_hook is True:
            return "an extension (fromHook)"
        if self.summary.lstrip().startswith(OFFLINE_SUMMARY_NOTICE):
            return "Arbor (offline summary)"
        return "pi or Arbor (a model's summary)"

    @property
    def abandoned_known(self) -> bool:
        return self.abandoned_leaf_id is not None

    @property
    def abandoned_text(self) -> str:
        return self.abandoned_leaf_id if self.abandoned_leaf_id is not None else ABANDONED_UNKNOWN


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _index_of(path: list[Entry], entry_id: Any, end: int) -> int:
    for i in range(end):
        if path[i].get("id") == entry_id:
            return i
    return -1


def audit_compaction(index: SessionIndex, compaction_id: str, profile: PiProfile = PI_1_6_0) -> CompactionAudit:
    """The audit of compaction ``compaction_id`` on its own path (root → the compaction), by the
    rules of ``profile`` (the session's pi version; see the module docstring)."""
    path = index.get_branch(compaction_id)
    if not path or kind_of(path[-1]) is not EntryKind.COMPACTION:
        raise ValueError(f"{compaction_id} is not a compaction entry")
    ci = len(path) - 1
    compaction = path[ci]
    before = path[:ci]

    if profile.projected_compaction:
        entries = context_entries(before)  # what prepare_compaction indexed when it planned C
        has_previous = bool(entries) and kind_of(entries[0]) is EntryKind.COMPACTION
        start, previous = (1, entries[0]) if has_previous else (0, None)
    else:
        entries = before
        bounds = compaction_boundaries(before)
        start = bounds.start
        previous = before[bounds.prev_compaction_index] if bounds.prev_compaction_index >= 0 else None

    first_kept = compaction.get("firstKeptEntryId")
    kept_at = _index_of(before, first_kept, ci)  # the context after C keeps the path from here
    found = kept_at >= 0
    planned_at = _index_of(entries, first_kept, len(entries))
    if planned_at >= 0:
        cut = planned_at
    else:  # kept from further up than the plan's range (an extension's choice): nothing summarized
        cut = start if found else len(entries)
    summarized = entries[start:cut] if cut > start else []
    kept = before[kept_at:] if found else []
    checkpoint: list[Entry] = []
    if profile.projected_compaction:  # the prompt is neither summarized nor kept: the checkpoint holds it
        checkpoint = [e for e in entries[start:] if is_system_entry(e)]
        summarized = [e for e in summarized if not is_system_entry(e)]
        kept = [e for e in kept if not is_system_entry(e)]
    system_message = compaction.get("systemMessage")

    details = compaction.get("details")
    from_hook = compaction.get("fromHook")
    summary = compaction.get("summary")
    summary_text = summary if isinstance(summary, str) else ""
    tokens = compaction.get("tokensBefore")
    return CompactionAudit(
        compaction_id=compaction_id,
        summary=summary_text,
        tokens_before=tokens if isinstance(tokens, (int, float)) and not isinstance(tokens, bool) else None,
        first_kept_entry_id=first_kept if isinstance(first_kept, str) else None,
        first_kept_found=found,
        summarized_ids=tuple(str(e.get("id")) for e in summarized),
        kept_ids=tuple(str(e.get("id")) for e in kept),
        cut_after_id=(str(before[kept_at - 1].get("id")) if kept_at > 0 else None) if found else (str(before[-1].get("id")) if before else None),
        cut_before_id=str(before[kept_at].get("id")) if found else compaction_id,
        previous_compaction_id=str(previous.get("id")) if previous is not None else None,
        read_files=_strings(details.get("readFiles")) if isinstance(details, dict) else (),
        modified_files=_strings(details.get("modifiedFiles")) if isinstance(details, dict) else (),
        is_split_turn=SPLIT_TURN_MARKER in summary_text,
        from_hook=from_hook if isinstance(from_hook, bool) else None,
        details=details,
        system_message=system_message if isinstance(system_message, dict) else None,
        checkpoint_ids=tuple(str(e.get("id")) for e in checkpoint),
        keeps_nothing=first_kept == compaction_id,
        usage_recorded=isinstance(compaction.get("usage"), dict),
    )


def branch_summary_info(index: SessionIndex, entry_id: str) -> BranchSummaryInfo:
    """A branch summary's text, files and (for Arbor-made ones) the abandoned leaf."""
    entry = index.by_id.get(entry_id)
    if entry is None or kind_of(entry) is not EntryKind.BRANCH_SUMMARY:
        raise ValueError(f"{entry_id} is not a branch summary entry")
    details = entry.get("details")
    abandoned = details.get("abandonedLeafId") if isinstance(details, dict) else None
    from_hook = entry.get("fromHook")
    summary = entry.get("summary")
    return BranchSummaryInfo(
        entry_id=entry_id,
        summary=summary if isinstance(summary, str) else "",
        abandoned_leaf_id=abandoned if isinstance(abandoned, str) else None,
        read_files=_strings(details.get("readFiles")) if isinstance(details, dict) else (),
        modified_files=_strings(details.get("modifiedFiles")) if isinstance(details, dict) else (),
        from_hook=from_hook if isinstance(from_hook, bool) else None,
    )
