"""What a compaction's audit says, in plain words, and the parts of a summary worth listing.

The canvas and the audit panel use these so the words are the same in both and testable without
Qt: the captions of the two bands and the cut line, the sentence that explains
``firstKeptEntryId``, the start of a split turn, and the ``<read-files>`` / ``<modified-files>``
lists pi appends to a summary (shown as lists, the summary without them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from desktop_app.compaction.audit import CompactionAudit
from desktop_app.session.entries import Entry
from desktop_app.session.kinds import EntryKind, Role, kind_of, role_of

from .pi16_words import system_summary

__all__ = ["AuditWords", "audit_words", "audit_words_of", "checkpoint_words", "split_summary", "turn_start"]

_FILES = re.compile(r"<(read-files|modified-files)>\n?(.*?)\n?</\1>", re.DOTALL)
#: What starts a turn pi's cut can keep: these entries, and message entries of these roles.
_TURN_START_KINDS = frozenset({EntryKind.BRANCH_SUMMARY, EntryKind.CUSTOM_MESSAGE})
_TURN_START_ROLES = frozenset({Role.USER, Role.BASH_EXECUTION})


@dataclass(frozen=True)
class AuditWords:
    above: str  #: caption over the cut (the summarized band)
    below: str  #: caption under the cut (the kept band)
    cut: str  #: the cut line's own words
    first_kept: str  #: one sentence on what the first kept entry means
    split: str  #: the split-turn marker's words ("" when the turn was not split)
    summarized_band: str = ""  #: the summarized band's own caption on the canvas (and the legend's words)
    kept_band: str = ""  #: the kept band's own caption


def _entries(n: int) -> str:
    return "1 entry" if n == 1 else f"{n} entries"


def audit_words(
    summarized: int, kept: int, first_kept_found: bool, split_turn: bool, *, keeps_nothing: bool = False
) -> AuditWords:
    """The audit's sentences for these counts (see :class:`AuditWords`); ``keeps_nothing``: pi
    1.6.0 stored the compaction's own id as ``firstKeptEntryId``, or the compaction is a Claude Code
    boundary (nothing kept, on purpose)."""
    above = f"▲ summarized: {_entries(summarized)} replaced by the summary"
    if keeps_nothing:
        below = "▼ nothing kept"
        cut = "✂ everything above is replaced by the summary"
        first = ("The compaction keeps nothing from before it (pi 1.6.0: its firstKeptEntryId is its own id; "
                 "Claude Code: nothing before its boundary is sent again): the model reads only the summary.")
    elif first_kept_found:
        below = f"▼ kept word for word: {_entries(kept)}"
        cut = "✂ cut: the summary replaces what is above, the rest is kept"
        first = (
            "The first kept entry is the oldest entry the model still reads word for word; "
            "everything before it is replaced by the summary."
        )
    else:
        below = "▼ nothing kept"
        cut = "✂ the first kept entry is not on this path: the model reads only the summary"
        first = "The first kept entry is not on this path, so nothing before the compaction is kept."
    split = (
        "◆ split turn: this turn's start is summarized (as a turn prefix), its end is kept"
        if split_turn
        else ""
    )
    summarized_band = (
        f"summarized · {_entries(summarized)}" if summarized else "summarized · no new entries (the previous summary, updated)"
    )
    kept_band = f"kept word for word · {_entries(kept)}" if first_kept_found and not keeps_nothing else "nothing kept"
    return AuditWords(above, below, cut, first, split, summarized_band, kept_band)


def audit_words_of(audit: CompactionAudit) -> AuditWords:
    """:func:`audit_words` for one compaction's audit: the canvas, the audit panel and the exported
    page say the same (a Claude Code boundary keeps nothing, as pi 1.6.0's own-id cut does)."""
    return audit_words(
        len(audit.summarized_ids), len(audit.kept_ids), audit.first_kept_found, audit.is_split_turn,
        keeps_nothing=audit.keeps_nothing_before,
    )


def turn_start(path: Sequence[Entry], first_kept_id: str | None) -> str | None:
    """The entry that starts the turn the cut falls into: the nearest user message (or bash run,
    custom message, branch summary) at or before ``first_kept_id`` on ``path``."""
    if first_kept_id is None:
        return None
    ids = [e.get("id") for e in path]
    if first_kept_id not in ids:
        return None
    for entry in reversed(path[: ids.index(first_kept_id) + 1]):
        if kind_of(entry) in _TURN_START_KINDS or role_of(entry.get("message")) in _TURN_START_ROLES:
            entry_id = entry.get("id")
            return entry_id if isinstance(entry_id, str) else None
    return None


def split_summary(summary: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(the summary without its file lists, files read, files modified) from pi's summary text."""
    lists: dict[str, tuple[str, ...]] = {"read-files": (), "modified-files": ()}
    for match in _FILES.finditer(summary):
        lists[match.group(1)] = tuple(line.strip() for line in match.group(2).splitlines() if line.strip())
    text = _FILES.sub("", summary).rstrip()
    return text, lists["read-files"], lists["modified-files"]


def checkpoint_words(system_message: Mapping[str, Any] | None, folded: int) -> str:
    """pi 1.6.0's checkpoint in one line: the prompt the compaction stored (``systemMessage``),
    which the model reads first after it, and how many system messages of the range it holds."""
    if system_message is None:
        return "none (no system prompt recorded on this path, or made by pi 0.73.1)"
    held = f" · takes in {folded} system message{'s' if folded != 1 else ''} of the range" if folded else ""
    return system_summary(system_message, whole=True) + held
