"""``prepareCompaction``: what a compaction of a path would summarize and keep (pi-spec §5.7).

This is 0.73.1's rule for repeated compactions: the range starts where the previous compaction began
keeping messages verbatim (its ``firstKeptEntryId``), so the messages it kept are summarized this time
instead of being silently lost (upstream issue #2608), and ``tokensBefore`` is the size of the context as
the model sees it now. No LLM is involved here: the result says exactly what ``compact`` will send.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.session.context import (
    ProjectedEntry,
    entry_context_messages,
    message_from_entry,
    project_path,
)
from desktop_app.session.entries import Entry, Message
from desktop_app.session.kinds import EntryKind, Role, kind_of, role_of
from desktop_app.session.profile import PI_1_6_0, PiProfile

from .cut_points import (
    CompactionBoundaries,
    OmissionRule,
    _cut_points_of,
    compaction_boundaries,
    cut_on_messages,
    find_cut_point,
)
from .file_ops import FileOperations, extract_file_ops
from .manual_cut import CutSpace, cut_space
from .tokens import (
    DEFAULT_COMPACTION_SETTINGS,
    CompactionSettings,
    estimate_context_tokens,
    estimate_projected_context_tokens,
)

__all__ = [
    "CompactionBoundaries",
    "CompactionPreparation",
    "compaction_boundaries",
    "prepare_compaction",
    "compaction_message_from_entry",
]


def compaction_message_from_entry(entry: Entry) -> Message | None:
    """The message an entry contributes to a compaction's input; compaction entries contribute none.

    Unlike the session context, an empty branch summary still counts here (pi maps it regardless).
    """
    return None if kind_of(entry) is EntryKind.COMPACTION else message_from_entry(entry)


@dataclass
class CompactionPreparation:
    """pi's ``CompactionPreparation`` plus the boundaries, for audits and ``arbor inspect``."""

    first_kept_entry_id: str | None
    messages_to_summarize: list[Message]
    turn_prefix_messages: list[Message]
    is_split_turn: bool
    tokens_before: int | float
    previous_summary: str | None
    file_ops: FileOperations
    settings: CompactionSettings
    boundary_start: int = 0
    boundary_end: int = 0
    prev_compaction_index: int = -1
    first_kept_entry_index: int = 0
    turn_start_index: int = -1
    projected: list[ProjectedEntry] | None = None
    """pi 1.6.0: the projection the indices above refer to (``None``: they index the path)."""


def prepare_compaction(
    path_entries: list[Entry],
    settings: CompactionSettings = DEFAULT_COMPACTION_SETTINGS,
    profile: PiProfile = PI_1_6_0,
    *,
    first_kept_entry_id: str | None = None,
) -> CompactionPreparation | None:
    """Plan a compaction of ``path_entries`` (root → leaf); ``None`` if the path already ends compacted.

    With 0.73.1's rules it never refuses because there is little to summarize: a small session still
    yields a preparation with nothing to summarize, exactly as pi 0.73.1 (which then still asks the
    model for a summary). pi 1.6.0 plans on the context projection instead and returns ``None`` when
    there is nothing to summarize.

    ``first_kept_entry_id`` is a cut the user chose instead of pi's token budget (:mod:`.manual_cut`):
    everything else (tokens before, split turn, file lists, previous summary) is computed as for pi's own
    cut; :class:`~.manual_cut.InvalidCutError` when it is no valid cut.
    """
    if path_entries and kind_of(path_entries[-1]) is EntryKind.COMPACTION:
        return None
    if profile.projected_compaction:
        return _prepare_projected(path_entries, settings, profile, first_kept_entry_id)
    bounds = compaction_boundaries(path_entries)
    # The context's messages only (what context_from_path builds them from): its model and thinking
    # level walk the whole path again, a third of this function's time on a long path.
    projected = project_path(path_entries, profile=profile)
    tokens_before = estimate_context_tokens([m for p in projected for m in p.messages], profile).tokens

    if first_kept_entry_id is not None:
        space = cut_space(path_entries, profile)
        cut = space.cut_at(space.check(first_kept_entry_id))
    else:
        cut = find_cut_point(path_entries, bounds.start, bounds.end, settings.keep_recent_tokens, profile)
    if cut.first_kept_entry_index >= len(path_entries):
        return None
    first_kept_id = path_entries[cut.first_kept_entry_index].get("id")
    if not first_kept_id:
        return None  # pi: a v1 entry without an id (the session needs migration)

    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    to_summarize = _messages(path_entries, bounds.start, history_end)
    turn_prefix = (
        _messages(path_entries, cut.turn_start_index, cut.first_kept_entry_index) if cut.is_split_turn else []
    )

    previous = path_entries[bounds.prev_compaction_index] if bounds.prev_compaction_index >= 0 else None
    previous_summary = previous.get("summary") if previous is not None else None
    ops = _file_ops(previous, to_summarize, turn_prefix, profile)

    return CompactionPreparation(
        first_kept_entry_id=first_kept_id,
        messages_to_summarize=to_summarize,
        turn_prefix_messages=turn_prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous_summary,
        file_ops=ops,
        settings=settings,
        boundary_start=bounds.start,
        boundary_end=bounds.end,
        prev_compaction_index=bounds.prev_compaction_index,
        first_kept_entry_index=cut.first_kept_entry_index,
        turn_start_index=cut.turn_start_index,
    )


def _messages(path_entries: list[Entry], start: int, end: int) -> list[Message]:
    out: list[Message] = []
    for entry in path_entries[start:end]:
        message = compaction_message_from_entry(entry)
        if message is not None:
            out.append(message)
    return out


def _prepare_projected(
    path_entries: list[Entry], settings: CompactionSettings, profile: PiProfile, chosen: str | None = None
) -> CompactionPreparation | None:
    """pi 1.6.0's ``prepareCompaction`` on the projection (pi16-delta.md §5.7).

    The range starts right after the newest compaction: its kept range is part of the projection, so
    it is summarized again only if the cut falls after it. Edited messages are what is summarized (an
    omitted failed attempt is not), and the replayed system prompt is never part of a summary.
    """
    projected = project_path(path_entries, profile=profile)
    entries = [p.source for p in projected]
    messages = [p.messages for p in projected]
    has_compaction = bool(entries) and kind_of(entries[0]) is EntryKind.COMPACTION
    start, end = (1 if has_compaction else 0), len(entries)
    tokens_before = estimate_projected_context_tokens(projected, path_entries, profile).tokens
    raw = [entry_context_messages(e, profile=profile) for e in entries]
    if chosen is not None:
        space = CutSpace(entries, messages, start, end, profile, _cut_points_of(entries, messages, start, end))
        cut = space.cut_at(space.check(chosen))
    else:
        cut = cut_on_messages(entries, messages, start, end, settings.keep_recent_tokens, profile, OmissionRule(raw))
    first_kept = cut.first_kept_entry_index
    if first_kept >= len(entries):
        return None
    first_kept_id = entries[first_kept].get("id")
    if not first_kept_id:
        return None
    history_end = cut.turn_start_index if cut.is_split_turn else first_kept
    to_summarize = _projected_messages(projected[start:history_end])
    turn_prefix = _projected_messages(projected[cut.turn_start_index : first_kept]) if cut.is_split_turn else []
    if not to_summarize and not turn_prefix:
        return None

    # A compaction an edit omitted is no previous compaction: no previous summary, no file lists.
    previous = entries[0] if has_compaction and projected[0].messages else None
    previous_summary = previous.get("summary") if previous is not None else None
    ops = _file_ops(previous, to_summarize, turn_prefix, profile)
    # The projection starts at the path's newest compaction when there is one (and is the path if none).
    prev_index = _index_from_leaf(path_entries, entries[0]) if has_compaction else -1
    return CompactionPreparation(
        first_kept_entry_id=first_kept_id,
        messages_to_summarize=to_summarize,
        turn_prefix_messages=turn_prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous_summary,
        file_ops=ops,
        settings=settings,
        boundary_start=start,
        boundary_end=end,
        prev_compaction_index=prev_index,
        first_kept_entry_index=first_kept,
        turn_start_index=cut.turn_start_index,
        projected=projected,
    )


def _file_ops(
    previous: Entry | None, to_summarize: list[Message], turn_prefix: list[Message], profile: PiProfile
) -> FileOperations:
    """The files of a compaction: the previous compaction's lists (unless an extension made it), then
    every file operation of what is summarized (``turn_prefix`` is empty unless the turn is split)."""
    ops = FileOperations()
    details = previous.get("details") if previous is not None else None
    if previous is not None and not previous.get("fromHook") and isinstance(details, dict):
        if isinstance(details.get("readFiles"), list):
            ops.add_read(details["readFiles"])
        if isinstance(details.get("modifiedFiles"), list):
            ops.add_edited(details["modifiedFiles"])
    for message in [*to_summarize, *turn_prefix]:
        extract_file_ops(message, ops, profile)
    return ops


def _index_from_leaf(path_entries: list[Entry], entry: Entry) -> int:
    """Where ``entry`` (this very object) is on the path, searched from the leaf; -1 if it is not."""
    for i in range(len(path_entries) - 1, -1, -1):
        if path_entries[i] is entry:
            return i
    return -1


def _projected_messages(projected: list[ProjectedEntry]) -> list[Message]:
    """A summary's input: projected messages except system messages; compactions give none."""
    return [
        m
        for p in projected
        if kind_of(p.source) is not EntryKind.COMPACTION
        for m in p.messages
        if role_of(m) is not Role.SYSTEM
    ]
