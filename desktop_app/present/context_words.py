"""Context by hand in words, decided without Qt: what the edit dialog and the context lens say about an
edit (the text before and after, the token change by pi's estimate) and what the manual compaction's cut
slider says at each valid cut.

The window only shows these strings; the numbers come from :mod:`desktop_app.present.context_actions`
(the agent's own rules) and :func:`~desktop_app.present.context_meter.format_tokens`.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.agent.context_hand import original_content
from desktop_app.compaction.manual_cut import CutChoice
from desktop_app.session import SessionView
from desktop_app.session.entries import message_text
from desktop_app.session.profile import PiProfile

from .context_actions import TokenChange, context_edit_states, edit_token_change
from .context_meter import format_tokens

__all__ = [
    "EditEffect",
    "cut_index_of",
    "cut_words",
    "edit_effect",
    "entry_text",
    "text_in_context",
    "token_change_words",
]


def entry_text(content: object) -> str:
    """The plain text of a message content (a string, or its text blocks one per paragraph)."""
    return message_text(content, "\n\n")


def _edit_content(view: SessionView, edit_id: str) -> object:
    edit = view.get_entry(edit_id) or {}
    replacement = edit.get("replacement")
    return replacement.get("content") if isinstance(replacement, dict) else None


def text_in_context(view: SessionView, entry_id: str, profile: PiProfile) -> str:
    """The text the model receives for ``entry_id`` now: a replacement when the entry is edited, else
    its own text (what the editor starts from)."""
    entry = view.get_entry(entry_id)
    if entry is None:
        return ""
    state = context_edit_states(view, profile).get(entry_id)
    if state is not None and state.replaced:
        return entry_text(_edit_content(view, state.edit_id))
    return entry_text(original_content(entry))


def _signed(n: int) -> str:
    if n == 0:
        return "no change"
    return ("+" if n > 0 else "−") + format_tokens(abs(n))


def token_change_words(change: TokenChange) -> str:
    """The edit dialog's line, e.g. ``"In the context: about 1.2k tokens now → about 40 after saving (−1.2k)"``."""
    return (
        f"In the context: about {format_tokens(change.before)} tokens now → "
        f"about {format_tokens(change.after)} after saving ({_signed(change.delta)})"
    )


@dataclass(frozen=True)
class EditEffect:
    """What a context edit changes for one entry: the model got ``before``, it now gets ``after``."""

    entry_id: str
    hidden: bool
    before: str  #: the entry's own text
    after: str  #: the replacement ("" when hidden)
    before_tokens: int
    after_tokens: int

    def describe(self) -> str:
        """The lens's words (plain text; the texts cut to a few lines)."""
        head = "Hidden from the context by a context edit" if self.hidden else "Text replaced in the context by a context edit"
        before = f"Before: about {format_tokens(self.before_tokens)} tokens — “{_clip(self.before)}”"
        if self.hidden:
            after = "Now: nothing (the model no longer receives this entry)"
        else:
            after = f"Now: about {format_tokens(self.after_tokens)} tokens — “{_clip(self.after)}”"
        change = self.after_tokens - self.before_tokens
        return f"{head}: {_signed(change)}{' tokens' if change else ''}.\n{before}\n{after}"


def _clip(text: str, limit: int = 240) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def edit_effect(view: SessionView, entry_id: str, profile: PiProfile) -> EditEffect | None:
    """The effect of the edit applied to ``entry_id`` on the active path (``None``: it is not edited)."""
    state = context_edit_states(view, profile).get(entry_id)
    entry = view.get_entry(entry_id)
    if state is None or entry is None:
        return None
    original = entry_text(original_content(entry))
    change = edit_token_change(view, entry_id, original, profile)  # now (edited) → the original back
    after = "" if state.hidden else entry_text(_edit_content(view, state.edit_id))
    return EditEffect(entry_id, state.hidden, original, after, change.after, change.before)


def cut_words(choice: CutChoice, position: int, count: int) -> str:
    """The cut slider's line for one valid cut."""
    split = " — inside a turn: its start is summarized separately" if choice.split_turn else ""
    return (
        f"Cut {position + 1} of {count}: keep from {choice.entry_id} — about "
        f"{format_tokens(choice.tokens_kept)} tokens kept, about {format_tokens(choice.tokens_summarized)} "
        f"summarized{split}"
    )


def cut_index_of(choices: list[CutChoice], entry_id: str | None) -> int:
    """The slider position of ``entry_id`` among ``choices`` (the last cut when it is none of them)."""
    for i, choice in enumerate(choices):
        if choice.entry_id == entry_id:
            return i
    return len(choices) - 1
