"""A cut the user chooses: where a manual compaction may begin keeping entries (issue 26, DESIGN.md §6).

pi chooses the cut by a token budget (:func:`~.cut_points.cut_on_messages`); a person may instead pick any
entry pi itself could have cut at. The candidates are exactly pi's cut points over the same range pi
searches, with the same rules per profile:

* pi 1.6.0: the projection (pi16-delta.md §5.7), from just after the newest compaction to the leaf; an
  entry is a cut point by what it gives *after edits* (a hidden entry is none, a compaction never is);
* pi 0.73.1: the raw path from the previous compaction's first kept entry (pi-spec §5.5).

A cut with nothing before it to summarize is refused: such a compaction would only add a summary of
nothing. The chosen entry is kept as it is chosen: pi's backward scan over entries that give no message
(a model change, a label, an edit just before the kept message) is for the budget's cut, and such an
entry is accepted too when chosen, since pi itself writes cuts there (the context is the same).
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.llm.estimate import estimate_tokens_lenient
from desktop_app.session.context import message_from_entry, project_path
from desktop_app.session.entries import Entry, Message
from desktop_app.session.kinds import EntryKind, Role, entry_role, kind_of, role_of
from desktop_app.session.profile import PI_1_6_0, PiProfile

from .cut_points import (
    _TURN_START_ROLES_1_6,
    CutPointResult,
    _cut_points_of,
    _has_role,
    _turn_start_of,
    compaction_boundaries,
    find_turn_start_index,
    find_valid_cut_points,
)

__all__ = ["CutChoice", "CutSpace", "InvalidCutError", "cut_space", "cut_choices", "cut_refusal"]


class InvalidCutError(ValueError):
    """The chosen first kept entry is no valid cut; the message says why and names the nearest ones."""

    def __init__(self, message: str, nearest: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.nearest = nearest


@dataclass(frozen=True)
class CutChoice:
    """One entry a manual compaction may keep from, with what keeping from it means in tokens."""

    entry_id: str
    index: int  #: position in :attr:`CutSpace.entries` (the projection in 1.6.0, the path in 0.73.1)
    tokens_kept: int  #: estimate of the messages kept verbatim (this entry to the leaf)
    tokens_summarized: int  #: estimate of the messages the summary replaces
    split_turn: bool  #: the cut falls inside a turn (its start is summarized separately)


@dataclass(frozen=True)
class CutSpace:
    """The entries a cut is chosen among, each with the messages it gives, and pi's search range."""

    entries: list[Entry]
    messages: list[list[Message]]
    start: int
    end: int
    profile: PiProfile
    points: list[int]
    summarized: frozenset[str] = frozenset()
    """Ids of the path the newest compaction summarized (1.6.0: not in :attr:`entries`), to say so."""

    def cut_at(self, index: int) -> CutPointResult:
        """pi's cut result for a cut at ``index`` (a cut point): split when it is no turn start."""
        entries, start = self.entries, self.start
        if self.profile.cut_rules_1_6:
            starts_turn = _has_role(entries[index], self.messages[index], _TURN_START_ROLES_1_6)
            turn_start = -1 if starts_turn else _turn_start_of(entries, self.messages, index, start)
        else:
            starts_turn = entry_role(entries[index]) is Role.USER
            turn_start = -1 if starts_turn else find_turn_start_index(entries, index, start, self.profile)
        return CutPointResult(index, turn_start, not starts_turn and turn_start != -1)

    def _summarizable(self) -> list[bool]:
        """For each index ``i`` in ``[start, end]``: whether ``[start, i)`` gives a message to summarize."""
        seen, out = False, []
        for i in range(self.start, self.end + 1):
            out.append(seen)
            if i < self.end and any(role_of(m) is not Role.SYSTEM for m in self.messages[i]):
                seen = seen or kind_of(self.entries[i]) is not EntryKind.COMPACTION
        return out

    def choices(self) -> list[CutChoice]:
        """Every valid cut in path order (a cut point with something before it to summarize)."""
        tokens = [
            0
            if kind_of(e) is EntryKind.COMPACTION
            else sum(estimate_tokens_lenient(m, self.profile) for m in ms if role_of(m) is not Role.SYSTEM)
            for e, ms in zip(self.entries, self.messages, strict=True)
        ]
        summarizable = self._summarizable()
        suffix = [0] * (len(tokens) + 1)
        for i in range(len(tokens) - 1, -1, -1):
            suffix[i] = suffix[i + 1] + tokens[i]
        out: list[CutChoice] = []
        for i in self.points:
            entry_id = self.entries[i].get("id")
            if not summarizable[i - self.start] or not isinstance(entry_id, str):
                continue
            summarized = suffix[self.start] - suffix[i]
            out.append(CutChoice(entry_id, i, suffix[i], summarized, self.cut_at(i).is_split_turn))
        return out

    def check(self, entry_id: str) -> int:
        """The index of ``entry_id`` when it is a valid cut; otherwise :class:`InvalidCutError` saying why."""
        choices = self.choices()
        for choice in choices:
            if choice.entry_id == entry_id:
                return choice.index
        at = next((i for i, e in enumerate(self.entries) if e.get("id") == entry_id), None)
        if at is not None and self._settings_before_cut(at, {c.index for c in choices}):
            return at
        nearest = _nearest(choices, at)
        names = _named(nearest, choices, at)
        hint = f" Nearest valid cuts: {names}." if nearest else " There is no valid cut on this path."
        raise InvalidCutError(f"Entry {entry_id} cannot be the first kept entry: {self._why(entry_id, at)}.{hint}", nearest)

    def _settings_before_cut(self, at: int, valid: set[int]) -> bool:
        """Whether ``at`` gives no message and only such entries lead from it to a valid cut: pi's own cut
        moves back onto these (a model change, a label, an edit just before a kept message), so such an
        id is accepted as pi would write it, and keeps what that cut keeps."""
        if at < self.start:
            return False
        j = at
        while j < self.end and not self.messages[j] and kind_of(self.entries[j]) is not EntryKind.COMPACTION:
            j += 1
        return j != at and j in valid

    def _why(self, entry_id: str, at: int | None) -> str:
        if at is None and entry_id in self.summarized:
            return "it is already summarized by the newest compaction"
        if at is None:
            return "it is not in the context of the active branch (unknown, on another branch, or already summarized)"
        entry = self.entries[at]
        if at < self.start:
            return "it is already summarized by the newest compaction"
        if kind_of(entry) is EntryKind.COMPACTION:
            return "it is a compaction"
        if at not in self.points:
            if entry_role(entry) is Role.TOOL_RESULT:
                return "it is a tool result, and a cut never separates a result from its call"
            if not self.messages[at]:
                return "it gives the model no message (hidden, or not a message)"
            return "it is not a message a kept range can begin with"
        return "nothing before it would be summarized"


def _nearest(choices: list[CutChoice], at: int | None) -> tuple[str, ...]:
    """The valid cut just before and just after index ``at`` (the last one when ``at`` is unknown)."""
    if not choices:
        return ()
    if at is None:
        return (choices[-1].entry_id,)
    before = [c for c in choices if c.index < at]
    after = [c for c in choices if c.index > at]
    return tuple(c.entry_id for c in (before[-1:] + after[:1]))


def _named(nearest: tuple[str, ...], choices: list[CutChoice], at: int | None) -> str:
    """``abc (before) and def (after)``: the nearest valid cuts, each placed relative to the choice."""
    where = {c.entry_id: c.index for c in choices}
    parts = [f"{n} ({'before' if at is not None and where[n] < at else 'after' if at is not None else 'the last'})" for n in nearest]
    return " and ".join(parts)


def cut_space(path_entries: list[Entry], profile: PiProfile = PI_1_6_0) -> CutSpace:
    """Where a compaction of the root → leaf ``path_entries`` may cut, by ``profile``'s rules."""
    if profile.projected_compaction:
        projected = project_path(path_entries, profile=profile)
        entries = [p.source for p in projected]
        messages = [p.messages for p in projected]
        start = 1 if entries and kind_of(entries[0]) is EntryKind.COMPACTION else 0
        points = _cut_points_of(entries, messages, start, len(entries))
        inside = {id(e) for e in entries}
        summarized = frozenset(i for e in path_entries if id(e) not in inside and isinstance(i := e.get("id"), str))
        return CutSpace(entries, messages, start, len(entries), profile, points, summarized)
    bounds = compaction_boundaries(path_entries)
    messages = [[] if kind_of(e) is EntryKind.COMPACTION else _one(message_from_entry(e)) for e in path_entries]
    points = find_valid_cut_points(path_entries, bounds.start, bounds.end, profile)
    return CutSpace(path_entries, messages, bounds.start, bounds.end, profile, points)


def _one(message: Message | None) -> list[Message]:
    return [] if message is None else [message]


def cut_refusal(path_entries: list[Entry], entry_id: str, profile: PiProfile = PI_1_6_0) -> str | None:
    """Why a manual compaction of ``path_entries`` cannot keep from ``entry_id``; ``None`` when it can."""
    if path_entries and kind_of(path_entries[-1]) is EntryKind.COMPACTION:
        return "The active path ends with a compaction already"
    try:
        cut_space(path_entries, profile).check(entry_id)
    except InvalidCutError as exc:
        return str(exc)
    return None


def cut_choices(path_entries: list[Entry], profile: PiProfile = PI_1_6_0) -> list[CutChoice]:
    """Every valid manual cut of ``path_entries`` (see :meth:`CutSpace.choices`)."""
    if path_entries and kind_of(path_entries[-1]) is EntryKind.COMPACTION:
        return []  # already compacted: pi refuses to compact again
    return cut_space(path_entries, profile).choices()
