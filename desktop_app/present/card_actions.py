"""Which actions a chat card offers, decided without Qt (issue 22, item 2).

Every finished user and assistant card carries a line of actions, so a stopped or failed turn
always has a way on from the chat itself:

* an assistant reply offers **Retry** when it failed, was stopped or came back empty (ask again
  from the same parent), else **Regenerate** (the same command: a new sibling reply);
* a user message offers **Retry** while it has no usable answer under it (nothing yet, or a reply
  that failed, was stopped or is empty): the same message is answered again, with no second user
  entry; and **Edit & branch** (its text to the composer, the leaf to its parent);
* both offer **Copy** when they hold text.

The live (streaming) row offers nothing: it is not an entry yet. Other rows (tool results,
summaries, system prompts) carry no action line, which keeps a coding session's chat compact.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from desktop_app.session.kinds import BlockKind, Role, block_kind, role_of

__all__ = [
    "CARD_KINDS_WITH_ACTIONS",
    "CardAction",
    "card_actions",
    "failed_reply",
    "has_action_line",
    "unanswered",
]


class CardAction(Enum):
    """An action on a chat card; the value is the name shown on the card (DESIGN.md §7.1)."""

    RETRY = "Retry"
    REGENERATE = "Regenerate"
    COPY = "Copy"
    EDIT_BRANCH = "Edit & branch"


#: Message roles whose cards carry an action line.
CARD_KINDS_WITH_ACTIONS = frozenset({Role.USER, Role.ASSISTANT})


def _text(message: Any) -> str:
    content = message.get("content") if type(message) is dict else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text") or "") for b in content if block_kind(b) is BlockKind.TEXT)
    return ""


def _empty(message: Any) -> bool:
    """No content block worth keeping: no text, no thinking, no tool call."""
    content = message.get("content") if type(message) is dict else None
    if isinstance(content, str):
        return not content.strip()
    if not isinstance(content, list):
        return True
    for block in content:
        match block_kind(block):
            case BlockKind.TEXT if str(block.get("text") or "").strip():
                return False
            case BlockKind.THINKING if str(block.get("thinking") or "").strip():
                return False
            case BlockKind.TOOL_CALL | BlockKind.IMAGE:
                return False
    return True


def failed_reply(message: Any) -> bool:
    """An assistant reply that failed, was stopped or came back empty: it is retried, not regenerated."""
    return role_of(message) is Role.ASSISTANT and (message.get("stopReason") in ("error", "aborted") or _empty(message))


def unanswered(user: Any, following: Any | None) -> bool:
    """Whether a user message has no usable answer: nothing follows it in the chat, or what follows
    is a reply that failed, was stopped or is empty."""
    if role_of(user) is not Role.USER:
        return False
    return following is None or failed_reply(following)


def has_action_line(message: Any, *, streaming: bool = False) -> bool:
    """Whether the card shows an action line (cheap: the layout asks for every row)."""
    return not streaming and role_of(message) in CARD_KINDS_WITH_ACTIONS


def card_actions(
    message: Any, following: Any | None = None, *, streaming: bool = False, reply_streaming: bool = False
) -> tuple[CardAction, ...]:
    """The actions ``message``'s card offers, in the order shown. ``following`` is the message of
    the next row (``None`` when this is the last row); ``reply_streaming``: the next row is the live
    reply (a user message being answered is not retried)."""
    if not has_action_line(message, streaming=streaming):
        return ()
    copy = (CardAction.COPY,) if _text(message).strip() else ()
    if role_of(message) is Role.ASSISTANT:
        return (CardAction.RETRY if failed_reply(message) else CardAction.REGENERATE, *copy)
    retry = (CardAction.RETRY,) if not reply_streaming and unanswered(message, following) else ()
    return (*retry, CardAction.EDIT_BRANCH, *copy)
