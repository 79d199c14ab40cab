"""Where a compaction may cut a path, and where the cut turn started (pi-spec §5.5, §5.6).

A cut never lands on a tool result (the model would see a result without its call); it may land in the
middle of a turn, in which case the start of that turn is summarized separately so the kept tail still
makes sense. Indices are positions in the path list, exactly as pi reports them.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Any

from desktop_app.session.context import entry_context_messages, same_id
from desktop_app.session.entries import Entry, Message
from desktop_app.session.kinds import EntryKind, Role, entry_role, kind_of, role_of
from desktop_app.session.profile import PI_1_6_0, PiProfile

from .tokens import estimate_tokens

__all__ = [
    "CutPointResult",
    "find_valid_cut_points",
    "find_turn_start_index",
    "find_cut_point",
    "cut_on_messages",
    "OmissionRule",
    "CompactionBoundaries",
    "compaction_boundaries",
]

_CUT_ROLES = frozenset(
    {Role.USER, Role.ASSISTANT, Role.BASH_EXECUTION, Role.CUSTOM, Role.BRANCH_SUMMARY, Role.COMPACTION_SUMMARY}
)
_TURN_START_ROLES = frozenset({Role.USER, Role.BASH_EXECUTION})
_TURN_START_ROLES_1_6 = frozenset(
    {Role.USER, Role.BASH_EXECUTION, Role.CUSTOM, Role.BRANCH_SUMMARY, Role.COMPACTION_SUMMARY}
)
_MESSAGE_LIKE_KINDS = frozenset({EntryKind.BRANCH_SUMMARY, EntryKind.CUSTOM_MESSAGE})
"""Entries that are cut points and turn starts by their kind alone (0.73.1)."""


def _role(entry: Entry) -> Role:
    """The role of a ``message`` entry's message (the caller knows the kind)."""
    return role_of(entry.get("message"))


def find_valid_cut_points(
    entries: list[Entry], start: int, end: int, profile: PiProfile = PI_1_6_0
) -> list[int]:
    """Indices in ``[start, end)`` a kept range may begin at: messages except tool results."""
    if profile.cut_rules_1_6:
        return _cut_points_of(entries, [entry_context_messages(e) for e in entries], start, end)
    points: list[int] = []
    for i in range(start, end):
        entry = entries[i]
        kind = kind_of(entry)
        if kind is EntryKind.MESSAGE:
            if role_of(entry.get("message")) in _CUT_ROLES:  # _role, inlined: a hot loop
                points.append(i)
        elif kind in _MESSAGE_LIKE_KINDS:
            points.append(i)
    return points


def find_turn_start_index(
    entries: list[Entry], entry_index: int, start: int, profile: PiProfile = PI_1_6_0
) -> int:
    """The nearest index ≤ ``entry_index`` (and ≥ ``start``) that begins a turn, or -1."""
    if profile.cut_rules_1_6:
        # Only the entries walked back over are projected (a list of them all made each call O(path)).
        for i in range(entry_index, start - 1, -1):
            if _has_role(entries[i], entry_context_messages(entries[i]), _TURN_START_ROLES_1_6):
                return i
        return -1
    for i in range(entry_index, start - 1, -1):
        entry = entries[i]
        kind = kind_of(entry)
        if kind in _MESSAGE_LIKE_KINDS:
            return i
        if kind is EntryKind.MESSAGE and _role(entry) in _TURN_START_ROLES:
            return i
    return -1


@dataclass(frozen=True)
class CutPointResult:
    """``{firstKeptEntryIndex, turnStartIndex, isSplitTurn}``."""

    first_kept_entry_index: int
    turn_start_index: int
    is_split_turn: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "firstKeptEntryIndex": self.first_kept_entry_index,
            "turnStartIndex": self.turn_start_index,
            "isSplitTurn": self.is_split_turn,
        }


def entry_messages(entries: list[Entry]) -> list[list[Message]]:
    """Each entry's context messages before edits (what 1.6.0's cut rules weigh and cut on)."""
    return [entry_context_messages(e) for e in entries]


def find_cut_point(
    entries: list[Entry],
    start: int,
    end: int,
    keep_recent_tokens: int | float,
    profile: PiProfile = PI_1_6_0,
    messages: list[list[Message]] | None = None,
) -> CutPointResult:
    """Keep at least ``keep_recent_tokens`` (estimated) of the newest messages of ``[start, end)``.

    Walks back from ``end`` summing estimates (0.73.1: of ``message`` entries only; 1.6.0: of every
    entry's messages); once the budget is met the cut moves forward to the nearest valid cut point,
    then back over bookkeeping entries (model/thinking changes, labels, ...) so settings that precede
    the kept range stay with it. ``messages``: :func:`entry_messages` of ``entries``, for a caller that
    cuts one path at several budgets (1.6.0's rules read them; made here when not given).
    """
    if profile.cut_rules_1_6:
        if messages is None:
            messages = entry_messages(entries)
        return cut_on_messages(entries, messages, start, end, keep_recent_tokens, profile)
    points = find_valid_cut_points(entries, start, end, profile)
    if not points:
        return CutPointResult(start, -1, False)
    cut = points[0]
    accumulated: int | float = 0
    for i in range(end - 1, start - 1, -1):
        entry = entries[i]
        if kind_of(entry) is not EntryKind.MESSAGE:
            continue
        accumulated += estimate_tokens(entry["message"], profile)
        if accumulated >= keep_recent_tokens:
            at = bisect_left(points, i)
            if at < len(points):
                cut = points[at]
            break
    while cut > start and kind_of(entries[cut - 1]) not in (EntryKind.MESSAGE, EntryKind.COMPACTION):
        cut -= 1
    is_user = entry_role(entries[cut]) is Role.USER
    turn_start = -1 if is_user else find_turn_start_index(entries, cut, start, profile)
    return CutPointResult(cut, turn_start, not is_user and turn_start != -1)


# ----------------------------------------------------------------------------------------- pi 1.6.0
#
# pi 1.6.0 decides on what each entry gives the context (``sessionEntryToContextMessages``), so the same
# rules run on raw entries (``findCutPoint``) and on the edited projection (``prepareCompaction``): the
# caller passes the messages of every entry. A compaction is never a cut point or a turn start.


def _has_role(entry: Entry, messages: list[Message], roles: frozenset[Role]) -> bool:
    """The entry gives a message of one of ``roles`` and is no compaction (whose summary message has
    such a role). A hot path: the roles are looked at first, in a plain loop, and the kind only on a
    match (tool results and entries that give nothing never need it)."""
    for message in messages:
        if role_of(message) in roles:
            return kind_of(entry) is not EntryKind.COMPACTION
    return False


def _cut_points_of(entries: list[Entry], messages: list[list[Message]], start: int, end: int) -> list[int]:
    return [i for i in range(start, end) if _has_role(entries[i], messages[i], _CUT_ROLES)]


def _turn_start_of(entries: list[Entry], messages: list[list[Message]], entry_index: int, start: int) -> int:
    for i in range(entry_index, start - 1, -1):
        if _has_role(entries[i], messages[i], _TURN_START_ROLES_1_6):
            return i
    return -1


class OmissionRule:
    """pi 1.6.0's recovery-omission rule (pi16-delta.md §5.7 step 5) for a cut on the projection.

    When everything after the cut is a failed turn that was omitted by context edits (an omitted
    assistant message, its omitted tool results, the edits themselves), keeping it would keep nothing
    the model sees, so the cut moves one past the cut point.
    """

    def __init__(self, raw_messages: list[list[Message]]) -> None:
        self.raw_messages = raw_messages

    def advance(self, entries: list[Entry], messages: list[list[Message]], cut: int, end: int) -> bool:
        omitted_ids: set[Any] = set()
        omitted_assistant = False
        for i in range(cut + 1, end):
            entry = entries[i]
            kind = kind_of(entry)
            if kind is EntryKind.COMPACTION:
                return False
            visible = kind is not EntryKind.CONTEXT_EDIT and bool(self.raw_messages[i])
            if not visible:
                continue
            if messages[i]:
                return False
            try:
                omitted_ids.add(entry.get("id"))
            except TypeError:
                return False
            if kind is EntryKind.MESSAGE and _role(entry) is Role.ASSISTANT:
                omitted_assistant = True
        if not omitted_assistant:
            return False
        for i in range(cut + 1, end):
            entry = entries[i]
            if kind_of(entry) is EntryKind.CONTEXT_EDIT and entry.get("replacement") is not None:
                try:
                    if entry.get("targetId") not in omitted_ids:
                        return False
                except TypeError:
                    return False
        return True


def cut_on_messages(
    entries: list[Entry],
    messages: list[list[Message]],
    start: int,
    end: int,
    keep_recent_tokens: int | float,
    profile: PiProfile = PI_1_6_0,
    omission: OmissionRule | None = None,
) -> CutPointResult:
    """pi 1.6.0's ``findCutPoint`` over ``entries`` whose context messages are ``messages`` (§5.6).

    Every entry's tokens count; once the budget is met the cut is the nearest cut point at or after
    it (the last one if there is none), then moves back over entries that give no message; a cut on
    a turn start (user, bash, custom, summary) is never a split turn.
    """
    points = _cut_points_of(entries, messages, start, end)
    if not points:
        return CutPointResult(start, -1, False)
    cut = points[0]
    accumulated: int | float = 0
    exceeded = False
    for i in range(end - 1, start - 1, -1):
        tokens: int | float = 0
        for message in messages[i]:
            tokens += estimate_tokens(message, profile)
        if tokens == 0:
            continue
        accumulated += tokens
        if accumulated >= keep_recent_tokens:
            at = bisect_left(points, i)
            cut = points[at] if at < len(points) else points[-1]
            exceeded = True
            break
    if exceeded and omission is not None and omission.advance(entries, messages, cut, end):
        cut += 1
    while cut > start and not messages[cut - 1] and kind_of(entries[cut - 1]) is not EntryKind.COMPACTION:
        cut -= 1
    if cut >= len(entries):
        return CutPointResult(cut, -1, False)
    starts_turn = _has_role(entries[cut], messages[cut], _TURN_START_ROLES_1_6)
    turn_start = -1 if starts_turn else _turn_start_of(entries, messages, cut, start)
    return CutPointResult(cut, turn_start, not starts_turn and turn_start != -1)


@dataclass(frozen=True)
class CompactionBoundaries:
    """The range ``[start, end)`` of the path that ``find_cut_point`` searches, and the previous compaction."""

    prev_compaction_index: int
    start: int
    end: int


def compaction_boundaries(path_entries: list[Entry]) -> CompactionBoundaries:
    """Start at the previous compaction's first kept entry (or just after it if that id isn't on the path)."""
    prev = _last_compaction_index(path_entries)
    start = 0
    if prev >= 0:
        first_kept = path_entries[prev].get("firstKeptEntryId")
        start = prev + 1
        if first_kept is not None:
            for i, entry in enumerate(path_entries):
                if entry.get("id") == first_kept and same_id(entry.get("id"), first_kept):  # ===: true is not 1
                    start = i
                    break
    return CompactionBoundaries(prev, start, len(path_entries))


def _last_compaction_index(path_entries: list[Entry]) -> int:
    """The index of the path's newest compaction, or -1."""
    for i in range(len(path_entries) - 1, -1, -1):
        if kind_of(path_entries[i]) is EntryKind.COMPACTION:
            return i
    return -1
