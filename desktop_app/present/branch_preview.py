"""What pi's "summarize the branch you are leaving?" would summarize, shown with the question.

The entries are pi's own choice (:func:`~desktop_app.compaction.branch_entries.collect_entries_for_branch_summary`:
from the old leaf up to the common ancestor with the target), the token count the estimate of the
messages the summary would be made from (:func:`~desktop_app.compaction.branch_entries.prepare_branch_entries`).
The question shows the count, the tokens, the first and the last message, and the graph highlights
the entries (issue 9, Build 6). Leaving for a descendant summarizes nothing, and the question is not
asked at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.compaction.audit import CompactionAudit
from desktop_app.compaction.branch_entries import collect_entries_for_branch_summary, prepare_branch_entries
from desktop_app.session import SessionView
from desktop_app.session.kinds import EntryKind, kind_of

from .compaction_preview import bands_audit
from .context_meter import format_tokens
from .text import entry_text

__all__ = ["BranchPreview", "preview_branch_summary"]


@dataclass(frozen=True)
class BranchPreview:
    """The abandoned branch a summary would stand for."""

    entry_ids: tuple[str, ...]
    message_count: int
    tokens: int
    first_text: str
    last_text: str

    @property
    def empty(self) -> bool:
        """Nothing would be summarized (the target is on the way down from the leaf)."""
        return not self.entry_ids

    def as_audit(self) -> CompactionAudit:
        """The abandoned entries as a dimmed band on the graph."""
        return bands_audit("(branch summary preview)", self.entry_ids)

    def describe(self) -> str:
        if self.empty:
            return "Nothing to summarize: the branch you are on continues through the target."
        lines = [
            f"The branch you are leaving: {len(self.entry_ids)} entries, {self.message_count} messages, "
            f"about {format_tokens(self.tokens)} tokens."
        ]
        if self.first_text:
            lines.append(f"First: {self.first_text}")
        if self.last_text and self.message_count > 1:
            lines.append(f"Last: {self.last_text}")
        return "\n".join(lines)


#: Entries whose line says something of the branch (not its settings).
_SAYS = frozenset({EntryKind.MESSAGE, EntryKind.CUSTOM_MESSAGE, EntryKind.BRANCH_SUMMARY, EntryKind.COMPACTION})


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def preview_branch_summary(view: SessionView, target_id: str) -> BranchPreview:
    """What leaving the active leaf for ``target_id`` would summarize."""
    collected = collect_entries_for_branch_summary(view.index, view.leaf_id, target_id)
    prep = prepare_branch_entries(collected.entries)
    texts = [
        _short(entry_text(e))
        for e in collected.entries
        if kind_of(e) in _SAYS and entry_text(e)
    ]
    return BranchPreview(
        entry_ids=tuple(str(e.get("id")) for e in collected.entries),
        message_count=len(prep.messages),
        tokens=int(prep.total_tokens),
        first_text=texts[0] if texts else "",
        last_text=texts[-1] if texts else "",
    )
