"""The reader: any node's full content, read without leaving the active branch (issue 9, Build 4).

A click on a node shows its whole text, the path from the root to it as breadcrumbs and where it
stands — on the active path, on another branch, or summarized away by a compaction (so no longer
sent to the model) — while the chat stays on the active leaf. "Show context" on a node gives the
exact messages the model would receive there, each with its token estimate. Decided here, without
Qt; ``ui/reader.py`` renders a :class:`ReaderPage`.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.compaction.audit import audit_compaction
from desktop_app.compaction.tokens import estimate_tokens
from desktop_app.session import SessionView
from desktop_app.session.context import context_entries, edit_key, is_system_entry, latest_edits
from desktop_app.session.entries import Entry, message_text
from desktop_app.session.kinds import EntryKind, Role, kind_of, role_of
from desktop_app.workspace.checkpoints import CHECKPOINT_TYPE

from .chat_feed import session_profile
from .context_meter import format_tokens
from .file_changes import badge_text, turn_summary
from .pi16_words import EDIT_OMITTED, edit_state, edit_text, system_summary
from .text import KIND_TITLES, entry_kind, entry_text, full_text

__all__ = ["Crumb", "ReaderPage", "context_page", "reader_page", "refreshed_page"]

CRUMB_CHARS = 28


@dataclass(frozen=True)
class Crumb:
    entry_id: str
    text: str


@dataclass(frozen=True)
class ReaderPage:
    """What the reader shows for one entry."""

    entry_id: str
    title: str  #: kind, label and where the entry stands
    crumbs: tuple[Crumb, ...]  #: root → the entry
    body: str  #: plain text (markdown for messages)
    status: str  #: "On the active path", "On another branch", "Summarized by a compaction …"
    can_continue: bool
    continue_reason: str  #: tooltip of "Continue from here"
    kind: str = "entry"  #: "entry" (the node's content) or "context" (what the model receives there)
    changes: str = ""  #: the files its turn changed so far ("2 files +3 −1"; "" none): "Show changes" (issue 25)


def _crumb(entry: Entry) -> Crumb:
    text = entry_text(entry) or KIND_TITLES.get(entry_kind(entry), "entry")
    short = text if len(text) <= CRUMB_CHARS else text[: CRUMB_CHARS - 1].rstrip() + "…"
    return Crumb(str(entry.get("id")), short)


def _status(view: SessionView, entry_id: str) -> str:
    """Where the entry stands: the context at the leaf holds the latest compaction's kept entries
    and what follows it; anything above them on the path was summarized (by it or an earlier one).

    Which entries a compaction summarized is its audit's answer, by the session's pi version (pi
    1.6.0: the projection, system messages go to the compaction's checkpoint). A pi 1.6.0 context
    edit can also have omitted or replaced the entry: the latest edit per target wins, as in the
    context itself.
    """
    active = view.get_branch()
    ids = [str(e.get("id")) for e in active]
    if entry_id not in ids:
        return "On another branch (not in the active context)"
    profile = session_profile(view)
    position = ids.index(entry_id)
    compaction = EntryKind.COMPACTION
    last = max((i for i, e in enumerate(active) if kind_of(e) is compaction), default=-1)
    if position < last:
        audit = audit_compaction(view.index, ids[last], profile)
        if entry_id in audit.checkpoint_ids or (profile.projected_compaction and is_system_entry(active[position])):
            return "In the compaction's system-prompt checkpoint: the model reads the prompt it set up from there"
        if entry_id not in audit.kept_ids:
            return "Summarized by a compaction: the model no longer receives it verbatim"
    edit = latest_edits(context_entries(active)).get(edit_key(entry_id))
    if edit is not None:
        if edit_state(edit) == EDIT_OMITTED:
            return f"Omitted by context edit {edit.get('id')}: the model no longer receives it"
        return f"Replaced by context edit {edit.get('id')}: the model receives the edit's text instead"
    if entry_id == view.leaf_id:
        return "The active leaf"
    return "On the active path"


def reader_page(view: SessionView, entry_id: str, *, busy: bool = False) -> ReaderPage | None:
    """The reader's page for ``entry_id`` (``None`` for an unknown id)."""
    entry = view.get_entry(entry_id)
    if entry is None:
        return None
    kind = KIND_TITLES.get(entry_kind(entry), "entry")
    label = view.get_label(entry_id)
    title = kind.capitalize() + (f" · ⚑ {label}" if label else "")
    body = full_text(entry, limit=10**9) or entry_text(entry)
    if kind_of(entry) is EntryKind.CONTEXT_EDIT:  # name the target by what it says, not only its id
        target_id = entry.get("targetId")
        target = view.get_entry(target_id) if isinstance(target_id, str) else None
        body = edit_text(entry, entry_text(target) if target is not None else None)
    path = view.get_branch(entry_id)  # checkpoints are no stops of their own (issue 25), unless read themselves
    crumbs = tuple(_crumb(e) for e in path if e is path[-1] or e.get("customType") != CHECKPOINT_TYPE)
    can_continue, reason = True, "Make this the active leaf (the same as a double-click)"
    if entry_id == view.leaf_id:
        can_continue, reason = False, "This is already the active leaf"
    elif view.read_only:
        can_continue, reason = False, "This session is open read-only"
    elif busy:
        can_continue, reason = False, "Stop the running reply first"
    turn, files = turn_summary(view.index, entry_id)
    if turn is not None:
        body += "\n\nFiles changed by this turn:\n" + "\n".join(files)
    changes = badge_text(len(turn.files), turn.added, turn.removed) if turn is not None else ""
    return ReaderPage(entry_id, title, crumbs, body, _status(view, entry_id), can_continue, reason, changes=changes)


def context_page(view: SessionView, entry_id: str) -> ReaderPage | None:
    """"Show context": the messages the model would receive with ``entry_id`` as the leaf."""
    page = reader_page(view, entry_id)
    if page is None:
        return None
    messages = view.build_session_context(entry_id).messages
    total = 0
    lines: list[str] = []
    for number, message in enumerate(messages, 1):
        tokens = int(estimate_tokens(message, session_profile(view)))
        total += tokens
        role = str(message.get("role", "?"))
        if role_of(message) is Role.SYSTEM:
            text = system_summary(message, whole=None)
        else:
            text = message_text(message.get("content"), " ") or str(message.get("summary") or "")
        text = " ".join(text.split())
        lines.append(f"{number}. {role} · ~{format_tokens(tokens)} tokens — {text[:160]}")
    head = f"The model receives {len(messages)} message(s), about {format_tokens(total)} tokens, at this entry."
    return ReaderPage(
        entry_id,
        f"Context at this {page.title.split(' · ')[0].lower()}",
        page.crumbs,
        head + "\n\n" + "\n".join(lines),
        page.status,
        page.can_continue,
        page.continue_reason,
        "context",
    )


def refreshed_page(view: SessionView, page: ReaderPage, *, busy: bool = False) -> ReaderPage | None:
    """``page`` as it reads now: the leaf moved, entries arrived, a reply started or ended (issue 22
    item 7: the reader must not keep saying "On the active path" about a branch just left). The
    context page's text does not depend on the leaf, so only its status and "Continue" change;
    ``None`` when the entry is gone (another session, a reloaded file)."""
    fresh = reader_page(view, page.entry_id, busy=busy)
    if fresh is None:
        return None
    if page.kind == "context":
        return ReaderPage(
            page.entry_id, page.title, page.crumbs, page.body, fresh.status, fresh.can_continue,
            fresh.continue_reason, "context",
        )
    return fresh
