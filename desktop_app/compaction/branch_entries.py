"""Which entries a branch summary covers, and which of them fit its budget (pi-spec §5.9).

When the user leaves a branch, what they abandon is the stretch from the old leaf back to where the old
and new positions meet (the deepest common ancestor). Compactions on that stretch are not a barrier:
their summaries are part of what was explored. The budget is filled newest first, because the end of an
exploration says most about where it got to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from desktop_app.llm.estimate import js_truthy
from desktop_app.session.context import (
    check_edit_as_pi,
    compaction_summary_message,
    edit_key,
    edited_messages,
    latest_edits,
    message_from_entry,
)
from desktop_app.session.entries import Entry, Message
from desktop_app.session.kinds import EntryKind, Role, kind_of, role_of
from desktop_app.session.profile import PI_1_6_0, PiProfile
from desktop_app.session.tree import SessionIndex, key_of

from .file_ops import FileOperations, extract_file_ops
from .tokens import estimate_tokens

__all__ = [
    "BranchEntries",
    "BranchPreparation",
    "collect_entries_for_branch_summary",
    "branch_message_from_entry",
    "prepare_branch_entries",
]


class _HasIndex(Protocol):
    @property
    def index(self) -> SessionIndex: ...


@dataclass
class BranchEntries:
    """``{entries, commonAncestorId}`` of ``collectEntriesForBranchSummary``."""

    entries: list[Entry]
    common_ancestor_id: str | None


def _index_of(source: SessionIndex | _HasIndex) -> SessionIndex:
    return source if isinstance(source, SessionIndex) else source.index


def collect_entries_for_branch_summary(
    source: SessionIndex | _HasIndex, old_leaf_id: str | None, target_id: str
) -> BranchEntries:
    """Entries from ``old_leaf_id`` up to (not including) its deepest common ancestor with ``target_id``.

    Navigating to an ancestor summarizes everything below it; navigating to a descendant (or to the
    same entry) yields nothing. ``source`` is a ``SessionIndex`` or anything with ``.index``
    (a ``SessionManager``).
    """
    if not js_truthy(old_leaf_id):
        return BranchEntries([], None)
    index = _index_of(source)
    # ids compare as JavaScript's Set and `!==` compare them: `true` is not 1, objects by identity
    old_ids = {key_of(entry.get("id")) for entry in index.get_branch(old_leaf_id)}
    common: Any = None
    for entry in reversed(index.get_branch(target_id)):
        if key_of(entry.get("id")) in old_ids:
            common = entry.get("id")
            break
    common_key = key_of(common)
    collected: list[Entry] = []
    seen: set[int] = set()
    current: Any = old_leaf_id
    while js_truthy(current) and (common is None or key_of(current) != common_key):
        node = index.by_id.get(key_of(current))
        if node is None or id(node) in seen:  # a parentId cycle: pi would loop forever
            break
        seen.add(id(node))
        collected.append(node)
        current = node.get("parentId")
    collected.reverse()
    return BranchEntries(collected, common)


def branch_message_from_entry(entry: Entry) -> Message | None:
    """The message an entry contributes to a branch summary.

    Tool results are left out (their calls say what happened, their bulk would crowd the budget);
    compactions count as their summary; settings, labels and custom data contribute nothing.
    """
    message = message_from_entry(entry)
    if kind_of(entry) is EntryKind.MESSAGE and role_of(message) is Role.TOOL_RESULT:
        return None
    return message


@dataclass
class BranchPreparation:
    """``prepareBranchEntries``: messages in chronological order, file operations, their token total."""

    messages: list[Message] = field(default_factory=list)
    file_ops: FileOperations = field(default_factory=FileOperations)
    total_tokens: int | float = 0


_EDITED_KINDS = frozenset({EntryKind.MESSAGE, EntryKind.CUSTOM_MESSAGE})
"""The entries whose edits ``prepareBranchEntries`` applies: a ``branch_summary`` stays as it is, even
where the context leaves it out."""


def _projected_branch_message(entry: Entry, edits: dict[Any, Entry], pi_errors: bool) -> Message | None:
    """pi 1.6.0: the message after the entry's latest edit (``None`` when omitted); a compaction is
    its summary only (not its system checkpoint); system messages count like any other. With
    ``pi_errors``, an edit without ``replacement`` raises where pi throws."""
    kind = kind_of(entry)
    if kind is EntryKind.COMPACTION:
        return compaction_summary_message(entry)
    message = branch_message_from_entry(entry)
    if message is None:
        return None
    edit = edits.get(edit_key(entry.get("id"))) if edits and kind in _EDITED_KINDS else None
    if edit is not None:
        if pi_errors:
            check_edit_as_pi([message], edit)
        edited = edited_messages([message], edit)
        return edited[0] if edited else None
    return message


def prepare_branch_entries(
    entries: list[Entry], token_budget: int | float = 0, profile: PiProfile = PI_1_6_0, *, pi_errors: bool = False
) -> BranchPreparation:
    """Keep the newest messages that fit ``token_budget`` (0 = no limit).

    File operations are gathered from every entry, even those that do not fit, so the summary's file
    lists stay complete. A summary entry (compaction or branch summary) that overflows the budget is
    still taken while less than 90% of it is used: summaries are dense, and losing one loses a lot.
    With pi 1.6.0's rules the latest context edit among ``entries`` applies (an omitted entry adds
    nothing and does not stop the walk). ``pi_errors`` (``arbor inspect``): raise pi's ``TypeError``
    where the walk reaches an edit without ``replacement`` of a message it would replace; the app
    shows that message without content instead.
    """
    edits = latest_edits(entries) if profile.branch_entries_projected else {}
    prep = BranchPreparation()
    ops = prep.file_ops
    for entry in entries:
        details = entry.get("details")
        if kind_of(entry) is EntryKind.BRANCH_SUMMARY and not entry.get("fromHook") and isinstance(details, dict):
            if isinstance(details.get("readFiles"), list):
                ops.add_read(details["readFiles"])
            if isinstance(details.get("modifiedFiles"), list):
                ops.add_edited(details["modifiedFiles"])
    newest_first: list[Message] = []
    total: int | float = 0
    for entry in reversed(entries):
        if profile.branch_entries_projected:
            message = _projected_branch_message(entry, edits, pi_errors)
        else:
            message = branch_message_from_entry(entry)
        if message is None:
            continue
        extract_file_ops(message, ops, profile)
        tokens = estimate_tokens(message, profile)
        if token_budget > 0 and total + tokens > token_budget:
            if kind_of(entry) in (EntryKind.COMPACTION, EntryKind.BRANCH_SUMMARY) and total < token_budget * 0.9:
                newest_first.append(message)
                total += tokens
            break
        newest_first.append(message)
        total += tokens
    newest_first.reverse()
    prep.messages = newest_first
    prep.total_tokens = total
    return prep
