"""Context by hand in the window, decided without Qt: which of its node-menu items apply to an entry and
why not, which entries of the active path are hidden or edited, and where a manual cut may go.

The reasons are the agent's own (:mod:`desktop_app.agent.context_hand`, :mod:`desktop_app.compaction.manual_cut`):
a disabled item's tooltip is the very sentence the command would raise. Under piVersion 0.73.1 the edit
items are disabled because that pi cannot read ``context_edit`` entries; a compaction with the user's
summary or cut, and continuing without a compaction, are plain entries 0.73.1 reads, so they stay.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import assert_never

from desktop_app.agent.context_hand import EditState, context_edit_states, edit_refusal, expand_refusal
from desktop_app.compaction.manual_cut import CutChoice, cut_choices, cut_refusal
from desktop_app.llm.estimate import estimate_tokens_lenient
from desktop_app.session import SessionView
from desktop_app.session.context import edited_messages, entry_context_messages
from desktop_app.session.entries import Message
from desktop_app.session.profile import PiProfile

from .context_meter import format_tokens
from .node_menu import BUSY

__all__ = [
    "ContextAction",
    "ActionState",
    "TokenChange",
    "edit_token_change",
    "CutChoice",
    "EditState",
    "action_state",
    "context_actions",
    "context_edit_states",
    "cut_choices_of",
]


class ContextAction(Enum):
    """A context-by-hand item of the node menu (the window maps each to an agent command)."""

    HIDE = "Hide from context"
    SHOW = "Show in context again"
    EDIT_TEXT = "Edit text in context…"
    RESTORE_TEXT = "Restore original text"
    SUMMARIZE_UP_TO_HERE = "Summarize up to here"
    CONTINUE_WITHOUT_COMPACTION = "Continue without this compaction"


@dataclass(frozen=True)
class ActionState:
    """Whether an item applies now; ``reason`` is its tooltip: why not, or what it does."""

    action: ContextAction
    enabled: bool
    reason: str


def cut_choices_of(view: SessionView, profile: PiProfile) -> list[CutChoice]:
    """Every valid manual cut of the active path, in path order, with the tokens kept and summarized
    (what the draggable cut line snaps to; ``compact(first_kept_entry_id=…)`` accepts exactly these)."""
    if view.leaf_id is None:
        return []
    return cut_choices(view.get_context_branch(), profile)


def _edit_item(action: ContextAction, view: SessionView, entry_id: str, profile: PiProfile, busy: bool) -> tuple[bool, str]:
    refusal = edit_refusal(view, entry_id, profile)
    if refusal is not None:
        return False, refusal
    if busy:
        return False, BUSY
    state = context_edit_states(view, profile).get(entry_id)
    match action:
        case ContextAction.HIDE:
            if state is not None and state.hidden:
                return False, "This entry is hidden from the context already"
            return True, "The model no longer receives this entry (a context edit; nothing is deleted)"
        case ContextAction.SHOW:
            if state is None or not state.hidden:
                return False, "This entry is not hidden"
            return True, "The model receives this entry again, with its own text"
        case ContextAction.EDIT_TEXT:
            return True, "Change the text the model receives for this entry (the entry itself stays)"
        case ContextAction.RESTORE_TEXT:
            if state is None or not state.replaced:
                return False, "The model receives this entry's own text already"
            return True, "The model receives this entry's own text again"
    return False, ""  # pragma: no cover - only the four edit actions come here


def action_state(
    view: SessionView, entry_id: str, action: ContextAction, *, profile: PiProfile, busy: bool
) -> ActionState:
    """Whether ``action`` applies to ``entry_id`` now, and the tooltip saying why (or what it does)."""
    match action:
        case ContextAction.HIDE | ContextAction.SHOW | ContextAction.EDIT_TEXT | ContextAction.RESTORE_TEXT:
            enabled, reason = _edit_item(action, view, entry_id, profile, busy)
        case ContextAction.SUMMARIZE_UP_TO_HERE:
            enabled, reason = _summarize_item(view, entry_id, profile, busy)
        case ContextAction.CONTINUE_WITHOUT_COMPACTION:
            refusal = expand_refusal(view, entry_id) or (BUSY if busy else None)
            enabled = refusal is None
            reason = refusal or "A new branch with the history this compaction summarized (this branch stays)"
        case _:
            assert_never(action)
    return ActionState(action, enabled, reason)


def _summarize_item(view: SessionView, entry_id: str, profile: PiProfile, busy: bool) -> tuple[bool, str]:
    if view.read_only:
        return False, "This session is open read-only"
    choice = next((c for c in cut_choices_of(view, profile) if c.entry_id == entry_id), None)
    if choice is None:
        path = view.get_context_branch() if view.leaf_id is not None else []
        return False, cut_refusal(path, entry_id, profile) or "Not a valid cut on the active path"
    if busy:
        return False, BUSY
    return True, (
        f"Summarize what comes before this entry (about {format_tokens(choice.tokens_summarized)} tokens); "
        f"keep it and what follows (about {format_tokens(choice.tokens_kept)} tokens)"
    )


@dataclass(frozen=True)
class TokenChange:
    """What an edit of one entry's text changes in the context, by pi's estimate."""

    before: int  #: the entry's tokens in the context now (0 when hidden)
    after: int  #: with ``text`` as its content

    @property
    def delta(self) -> int:
        return self.after - self.before


def edit_token_change(view: SessionView, entry_id: str, text: str | None, profile: PiProfile) -> TokenChange:
    """The token change of :meth:`AgentSession.edit_context` ``(entry_id, text)`` before it is saved (``None``:
    hiding), for the edit dialog; the entry's messages as pi would project them before and after."""
    entry = view.get_entry(entry_id)
    if entry is None:
        return TokenChange(0, 0)
    raw = entry_context_messages(entry, profile=profile)
    current = context_edit_states(view, profile).get(entry_id)
    edit = view.get_entry(current.edit_id) if current is not None else None
    now = edited_messages(raw, edit) if edit is not None else raw
    replacement = None if text is None else {"content": text}
    then = edited_messages(raw, {"type": "context_edit", "targetId": entry_id, "replacement": replacement})
    return TokenChange(_tokens(now, profile), _tokens(then, profile))


def _tokens(messages: list[Message], profile: PiProfile) -> int:
    return sum(estimate_tokens_lenient(m, profile) for m in messages)


def context_actions(
    view: SessionView, entry_id: str, *, profile: PiProfile, busy: bool
) -> tuple[ActionState, ...]:
    """Every context-by-hand item for ``entry_id``, in menu order (empty for an unknown id)."""
    if view.get_entry(entry_id) is None:
        return ()
    return tuple(action_state(view, entry_id, a, profile=profile, busy=busy) for a in ContextAction)
