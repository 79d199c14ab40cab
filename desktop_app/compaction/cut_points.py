"""Where a compaction may cut a path, and where the cut turn started (pi-spec §5.5, §5.6).

A cut never lands on a tool result (the model would see a result without its call); it may land in the
middle of a turn, in which case the start of that turn is summarized separately so the kept tail still
makes sense. Indices are positions in the path list, exactly as pi reports them.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Any

from desktop_app.session.entries import Entry

from .tokens import estimate_tokens

__all__ = ["CutPointResult", "find_valid_cut_points", "find_turn_start_index", "find_cut_point"]

_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})
_TURN_START_ROLES = frozenset({"user", "bashExecution"})
_MESSAGE_LIKE_TYPES = frozenset({"branch_summary", "custom_message"})


def _role(entry: Entry) -> Any:
    message = entry.get("message")
    return message.get("role") if isinstance(message, dict) else None


def find_valid_cut_points(entries: list[Entry], start: int, end: int) -> list[int]:
    """Indices in ``[start, end)`` a kept range may begin at: messages except tool results."""
    points: list[int] = []
    for i in range(start, end):
        entry = entries[i]
        entry_type = entry.get("type")
        if entry_type == "message":
            if _role(entry) in _CUT_ROLES:
                points.append(i)
        elif entry_type in _MESSAGE_LIKE_TYPES:
            points.append(i)
    return points


def find_turn_start_index(entries: list[Entry], entry_index: int, start: int) -> int:
    """The nearest index ≤ ``entry_index`` (and ≥ ``start``) that begins a turn, or -1."""
    for i in range(entry_index, start - 1, -1):
        entry = entries[i]
        entry_type = entry.get("type")
        if entry_type in _MESSAGE_LIKE_TYPES:
            return i
        if entry_type == "message" and _role(entry) in _TURN_START_ROLES:
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


def find_cut_point(
    entries: list[Entry], start: int, end: int, keep_recent_tokens: int | float
) -> CutPointResult:
    """Keep at least ``keep_recent_tokens`` (estimated) of the newest messages of ``[start, end)``.

    Walks back from ``end`` summing estimates of ``message`` entries only; once the budget is met the cut
    moves forward to the nearest valid cut point, then back over bookkeeping entries (model/thinking
    changes, labels, ...) so settings that precede the kept range stay with it.
    """
    points = find_valid_cut_points(entries, start, end)
    if not points:
        return CutPointResult(start, -1, False)
    cut = points[0]
    accumulated: int | float = 0
    for i in range(end - 1, start - 1, -1):
        entry = entries[i]
        if entry.get("type") != "message":
            continue
        accumulated += estimate_tokens(entry["message"])
        if accumulated >= keep_recent_tokens:
            at = bisect_left(points, i)
            if at < len(points):
                cut = points[at]
            break
    while cut > start and entries[cut - 1].get("type") not in ("message", "compaction"):
        cut -= 1
    is_user = entries[cut].get("type") == "message" and _role(entries[cut]) == "user"
    turn_start = -1 if is_user else find_turn_start_index(entries, cut, start)
    return CutPointResult(cut, turn_start, not is_user and turn_start != -1)
