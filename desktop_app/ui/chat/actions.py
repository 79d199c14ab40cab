"""Carries out the actions chosen on chat cards (issue 22, item 2), for the main window.

The panel reports ``card_action_requested(entry_id, name)``; this runs it through the same commands
the graph's node menu uses, so both say the same thing when an action cannot run now:

* **Regenerate**, and **Retry** on a reply: ask again from the reply's parent (a sibling reply);
* **Retry** on a user message: :meth:`AgentSession.retry` answers that same message again, with no
  second user entry (an early Stop left it unanswered, or its reply failed);
* **Edit & branch**: the message's text to the composer, the leaf to its parent. On the leaf itself
  (a message stopped before its first token) the leaf simply moves back: nothing is left behind to
  summarize.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Protocol

from PySide6.QtWidgets import QStatusBar

from desktop_app.agent import AgentSession
from desktop_app.present.card_actions import CardAction
from desktop_app.present.chat_feed import ChatFeed
from desktop_app.present.node_menu import BUSY, READ_ONLY, MenuAction
from desktop_app.session.entries import message_text
from desktop_app.session.kinds import Role, message_of, role_of

from .panel import ChatPanel


class MainWindow(Protocol):
    """What of the main window the card actions use (``ui.main_window.MainWindow``; no import of it
    here: the window imports this module)."""

    agent: AgentSession
    chat: ChatPanel
    feed: ChatFeed
    steering: Any  # ui.steering.Steering: run_menu_action(entry_id, MenuAction)

    def statusBar(self) -> QStatusBar: ...  # noqa: N802 - Qt's name

    def run_task(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Future[Any]: ...

__all__ = ["bind_card_actions", "run_card_action"]


def bind_card_actions(window: MainWindow) -> None:
    """Connect the chat's card actions to ``window``'s agent, and the chat's rows to its entries."""
    window.chat.set_entry_lookup(window.feed)
    window.chat.card_action_requested.connect(lambda entry_id, name: run_card_action(window, entry_id, name))


def run_card_action(window: MainWindow, entry_id: str, name: str) -> None:
    """Carry out the card action ``name`` on ``entry_id`` (a reason in the status bar if it cannot run)."""
    entry = window.agent.view.get_entry(entry_id)
    message = message_of(entry)
    if message is None:
        return
    role = role_of(message)
    steering = window.steering
    if name in (CardAction.REGENERATE.value, CardAction.RETRY.value) and role is Role.ASSISTANT:
        steering.run_menu_action(entry_id, MenuAction.REGENERATE)
    elif name == CardAction.RETRY.value and role is Role.USER:
        reason = READ_ONLY if window.agent.view.read_only else BUSY if window.agent.busy else None
        if reason is not None:
            window.statusBar().showMessage(reason, 5000)
            return
        window.chat.clear_error()
        window.run_task(window.agent.retry(entry_id), "Retrying")
    elif name == CardAction.EDIT_BRANCH.value and role is Role.USER:
        parent = entry.get("parentId") if entry is not None else None
        if entry_id == window.agent.view.leaf_id and isinstance(parent, str):
            if window.agent.busy:
                window.statusBar().showMessage(BUSY, 5000)
                return
            window.agent.restore_leaf(parent)
            window.chat.set_editor_text(message_text(message.get("content")))
        else:
            steering.run_menu_action(entry_id, MenuAction.EDIT_BRANCH)
