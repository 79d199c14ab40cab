"""Context by hand (issue 26, DESIGN.md §6): hide or replace what an entry gives the model, continue
without a compaction. Written as pi 1.6.0's own entries, so pi reads the result exactly.

* An edit is a ``context_edit`` (pi16-delta.md §2.4): ``replacement`` ``null`` hides the target from the
  context from then on, ``{content}`` replaces its content. The latest edit per target wins (§4.1c), so
  *showing a hidden entry again* and *restoring an edited one* are one more edit whose content is the
  entry's original content: nothing is ever rewritten, and every step is undone by a leaf move.
* What may be edited is pi's rule (user, assistant and tool-result messages and custom messages on the
  active branch) plus one of Arbor's: an entry the newest compaction already summarized is refused, since
  the model does not see it and the edit would change nothing the user can see now.
* ``expand_compaction`` continues without a compaction: a new branch under the compaction's parent holding
  copies of the entries that came after it on the active path (:func:`expand_compaction` says exactly
  what is copied and how the copies refer to each other).

Each refusal is decided by one function (``*_refusal``) that both the command and the window's menu
(:mod:`desktop_app.present.context_actions`) ask, so a disabled item and an error say the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from desktop_app.session import SessionView
from desktop_app.session.context import active_edits, context_entries, edit_key
from desktop_app.session.entries import Entry
from desktop_app.session.kinds import EntryKind, Role, entry_role, kind_of
from desktop_app.session.manager import SessionManager
from desktop_app.session.profile import PiProfile

__all__ = [
    "NO_EDITS_IN_0_73_1",
    "ContextEditError",
    "EditState",
    "context_edit_states",
    "edit_refusal",
    "edit_context",
    "show_in_context",
    "original_content",
    "expand_refusal",
    "expand_compaction",
]

NO_EDITS_IN_0_73_1 = (
    "pi 0.73.1 cannot read context edits (this session follows piVersion 0.73.1; choose pi 1.6.0 in Settings)"
)
_EDITABLE_ROLES = frozenset({Role.USER, Role.ASSISTANT, Role.TOOL_RESULT})
_NOT_COPIED = frozenset({EntryKind.LABEL, EntryKind.SESSION_INFO, EntryKind.USAGE})
"""File-wide records, not part of a branch's context: a label or a name is found by its target id or by
being the latest in the file, so copying one would duplicate or undo it, and a ``usage`` entry records
spending that happened once."""


class ContextEditError(ValueError):
    """An edit of the context that cannot be made; ``reason`` is the sentence to show the user."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class EditState:
    """How the latest edit pi applies changes an entry of the active path."""

    entry_id: str
    hidden: bool  #: the entry gives the model nothing
    replaced: bool  #: the entry gives the model other content than it holds
    edit_id: str  #: the ``context_edit`` that decides it


def original_content(entry: Entry) -> Any:
    """The content an entry gives the model unedited (pi 1.6.0: null or missing is ``[]``)."""
    holder = entry if kind_of(entry) is EntryKind.CUSTOM_MESSAGE else (entry.get("message") or {})
    content = holder.get("content") if isinstance(holder, dict) else None
    return [] if content is None else content


def _as_stored(entry: Entry, content: Any) -> Any:
    """``content`` as pi stores it for ``entry``: a string is one text block for assistant and tool results."""
    if isinstance(content, str) and entry_role(entry) in (Role.ASSISTANT, Role.TOOL_RESULT):
        return [{"type": "text", "text": content}]
    return content


def context_edit_states(view: SessionView, profile: PiProfile) -> dict[str, EditState]:
    """The entries of the active path that the edits pi applies hide or replace (none under 0.73.1).

    An edit that gives back the original content (:func:`show_in_context`) counts as no edit.
    """
    if not profile.context_projection or view.leaf_id is None:
        return {}
    path = view.get_context_branch()
    states: dict[str, EditState] = {}
    entries = context_entries(path, profile)
    by_key = {edit_key(e.get("id")): e for e in entries}
    for key, edit in active_edits(path, profile).items():
        target = by_key.get(key)
        target_id, edit_id = (target or {}).get("id"), edit.get("id")
        if target is None or not isinstance(target_id, str) or not isinstance(edit_id, str):
            continue
        replacement = edit.get("replacement")
        if replacement is None:
            states[target_id] = EditState(target_id, True, False, edit_id)
            continue
        content = replacement.get("content") if isinstance(replacement, dict) else None
        if _as_stored(target, content) != _as_stored(target, original_content(target)):
            states[target_id] = EditState(target_id, False, True, edit_id)
    return states


def _newest_compaction(path: list[Entry]) -> Entry | None:
    for entry in reversed(path):
        if kind_of(entry) is EntryKind.COMPACTION:
            return entry
    return None


def edit_refusal(view: SessionView, entry_id: str, profile: PiProfile) -> str | None:
    """Why ``entry_id`` cannot be hidden or edited in the context now; ``None`` when it can."""
    if not profile.context_projection:
        return NO_EDITS_IN_0_73_1
    if view.read_only:
        return "This session is open read-only"
    entry = view.get_entry(entry_id)
    if entry is None:
        return f"Entry {entry_id} not found"
    kind = kind_of(entry)
    if not (kind is EntryKind.CUSTOM_MESSAGE or (kind is EntryKind.MESSAGE and entry_role(entry) in _EDITABLE_ROLES)):
        what = f"a {entry_role(entry)} message" if kind is EntryKind.MESSAGE else f"a {kind.value} entry"
        return f"Only user, assistant and tool-result messages and custom messages can be edited; this is {what}"
    path = view.get_branch() if view.leaf_id is not None else []
    if not any(e is entry for e in path):
        return "This entry is not on the active branch: continue from a node below it first"
    if not any(e is entry for e in context_entries(view.get_context_branch(), profile)):
        compaction = _newest_compaction(path)
        name = compaction.get("id") if compaction is not None else "?"
        return f"Compaction {name} summarizes this entry, so the model does not see it; continue without that compaction first"
    return None


def edit_context(session: SessionManager, entry_id: str, replacement: str | list[Any] | None) -> str:
    """Hide ``entry_id`` from the context (``None``) or replace its text; returns the edit's id (the leaf)."""
    reason = edit_refusal(session, entry_id, session.profile)
    if reason is not None:
        raise ContextEditError(reason)
    if replacement is not None and not isinstance(replacement, (str, list)):
        raise ContextEditError("A replacement is a text or a list of content blocks")
    return session.append_context_edit(entry_id, None if replacement is None else {"content": replacement})


def show_in_context(session: SessionManager, entry_id: str) -> str:
    """Show a hidden entry again, or give an edited one its own content back: an edit whose content is
    the entry's original content (the latest edit wins). Refused when the entry is shown unedited."""
    reason = edit_refusal(session, entry_id, session.profile)
    if reason is None and entry_id not in context_edit_states(session, session.profile):
        reason = "This entry is in the context as it is already"
    if reason is not None:
        raise ContextEditError(reason)
    entry = session.get_entry(entry_id)
    assert entry is not None  # edit_refusal found it
    return session.append_context_edit(entry_id, {"content": original_content(entry)})


def expand_refusal(view: SessionView, compaction_id: str) -> str | None:
    """Why the active path cannot continue without ``compaction_id`` now; ``None`` when it can."""
    if view.read_only:
        return "This session is open read-only"
    entry = view.get_entry(compaction_id)
    if entry is None:
        return f"Entry {compaction_id} not found"
    if kind_of(entry) is not EntryKind.COMPACTION:
        return "Only a compaction can be undone this way"
    path = view.get_branch() if view.leaf_id is not None else []
    at = next((i for i, e in enumerate(path) if e is entry), None)
    if at is None:
        return "This compaction is not on the active branch: continue from a node below it first"
    later = next((e for e in path[at + 1 :] if kind_of(e) is EntryKind.COMPACTION), None)
    if later is not None:
        return f"Compaction {later.get('id')} comes after this one and summarizes it; continue without that one first"
    return None


def expand_compaction(session: SessionManager, compaction_id: str) -> str | None:
    """Continue without a compaction; returns the new leaf (the compaction's parent when nothing followed it).

    A new branch starts under the compaction's parent and holds a copy of each entry that came after it
    on the active path, in order, so the context is the history the compaction summarized followed by
    everything since (an older compaction still applies: expand it too to see what it summarized).

    * A copy has a new id; its ``parentId`` is the previous copy's id (the first one's is the compaction's
      parent); its ``timestamp`` is the time of the write; every other key is as in the original
      (messages keep their own timestamps).
    * A ``context_edit`` copy targets the copy of its target when that was copied, else the same entry
      (one before the compaction, shared by both branches).
    * ``label``, ``session_info`` and ``usage`` entries are not copied (:data:`_NOT_COPIED`): labels stay on
      the original entries, and branch summaries are copied like messages (their ``fromId`` unchanged).
    * A later compaction on the path is refused (:func:`expand_refusal`): its summary holds this one's.

    The original branch stays as it was: moving the leaf back to it undoes the expansion.
    """
    reason = expand_refusal(session, compaction_id)
    if reason is not None:
        raise ValueError(reason)
    path = session.get_branch()
    at = next(i for i, e in enumerate(path) if e.get("id") == compaction_id and kind_of(e) is EntryKind.COMPACTION)
    parent = path[at].get("parentId")
    if isinstance(parent, str):
        session.branch(parent)
    else:
        session.reset_leaf()
    copies: dict[Any, str] = {}
    for entry in path[at + 1 :]:
        if kind_of(entry) in _NOT_COPIED:
            continue
        changes: dict[str, Any] = {}
        if kind_of(entry) is EntryKind.CONTEXT_EDIT and edit_key(entry.get("targetId")) in copies:
            changes["targetId"] = copies[edit_key(entry.get("targetId"))]
        copies[edit_key(entry.get("id"))] = session.append_copy(entry, changes)
    return session.leaf_id
