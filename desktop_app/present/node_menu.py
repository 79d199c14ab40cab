"""The menu on a graph node: what each item means and whether it applies, decided without Qt.

Right-click, the Menu key and Shift+F10 open the same menu on a node. An item that cannot apply to
this entry (Fork on an assistant reply, Regenerate on a user message, anything that writes while a
reply is running) is *shown disabled with the reason*, so the user never learns it from an error
afterwards (issue 9, Found item 2). The window only renders :func:`node_menu`'s items and carries
out the chosen :class:`MenuAction`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import assert_never

from desktop_app.session import SessionView
from desktop_app.session.entries import Entry

from .text import entry_kind, full_text

__all__ = ["MenuAction", "MenuItem", "menu_item", "node_menu"]


class MenuAction(Enum):
    """What a menu item does (the window maps each to an agent command or a view)."""

    CONTINUE = "Continue from here"
    EDIT_BRANCH = "Edit && branch"
    REGENERATE = "Regenerate"
    FORK = "Fork from here"
    CLONE = "Clone up to here"
    LABEL = "Label…"
    CLEAR_LABEL = "Clear label"
    COPY_TEXT = "Copy text"
    SHOW_CONTEXT = "Show context"


#: Menu order; a separator goes before each action in this set.
_GROUP_STARTS = frozenset({MenuAction.FORK, MenuAction.LABEL, MenuAction.COPY_TEXT})

BUSY = "Stop the running reply first"
READ_ONLY = "This session is open read-only"


@dataclass(frozen=True)
class MenuItem:
    """One line of the menu: ``reason`` says why it is disabled (the tooltip), else what it does."""

    action: MenuAction
    enabled: bool
    reason: str
    separator_before: bool = False

    @property
    def text(self) -> str:
        """The menu text (``&&`` is Qt's escaped ampersand)."""
        return self.action.value


def _role(entry: Entry) -> str:
    return entry_kind(entry)


def _writes(busy: bool, read_only: bool) -> str | None:
    """Why an item that writes (or moves the leaf) cannot run now; ``None`` when it can."""
    if read_only:
        return READ_ONLY
    if busy:
        return BUSY
    return None


def menu_item(view: SessionView, entry: Entry, action: MenuAction, *, busy: bool) -> MenuItem:
    """Whether ``action`` applies to ``entry`` now, and the tooltip that says why (or what it does)."""
    entry_id = str(entry.get("id"))
    kind = _role(entry)
    blocked = _writes(busy, view.read_only)
    is_leaf = entry_id == view.leaf_id
    has_parent = isinstance(entry.get("parentId"), str)
    separator = action in _GROUP_STARTS

    def item(enabled: bool, reason: str) -> MenuItem:
        return MenuItem(action, enabled, reason, separator)

    match action:
        case MenuAction.CONTINUE:
            if blocked:
                return item(False, blocked)
            if is_leaf:
                return item(False, "This is already the active leaf")
            if kind in ("user", "custom_message"):
                return item(True, "Move the leaf to the message's parent and put its text in the composer")
            return item(True, "Make this entry the active leaf: the chat continues from here")
        case MenuAction.EDIT_BRANCH:
            if kind != "user":
                return item(False, "Only a user message can be edited")
            if blocked:
                return item(False, blocked)
            return item(True, "Put this message in the composer and branch from its parent")
        case MenuAction.REGENERATE:
            if kind != "assistant":
                return item(False, "Only an assistant reply can be regenerated")
            if not has_parent:
                return item(False, "This reply has no parent to answer again")
            if blocked:
                return item(False, blocked)
            return item(True, "Ask the model again from the same parent: a new sibling reply")
        case MenuAction.FORK:
            if kind != "user":
                return item(False, "Fork starts before a user message; use Clone up to here for this entry")
            if busy:
                return item(False, BUSY)
            return item(True, "A new session with the path before this message; its text goes to the composer")
        case MenuAction.CLONE:
            if busy:
                return item(False, BUSY)
            return item(True, "A new session with the path up to and including this entry")
        case MenuAction.LABEL:
            if view.read_only:
                return item(False, READ_ONLY)
            return item(True, "Name this entry (a label entry is appended)")
        case MenuAction.CLEAR_LABEL:
            if not view.get_label(entry_id):
                return item(False, "This entry has no label")
            if view.read_only:
                return item(False, READ_ONLY)
            return item(True, "Remove the label (a label entry is appended)")
        case MenuAction.COPY_TEXT:
            if not full_text(entry, limit=10**9):
                return item(False, "This entry has no text")
            return item(True, "Copy the entry's full text to the clipboard")
        case MenuAction.SHOW_CONTEXT:
            return item(True, "Show the messages the model would receive at this entry")
        case _:
            assert_never(action)


def node_menu(view: SessionView, entry_id: str, *, busy: bool) -> tuple[MenuItem, ...]:
    """Every item of the node menu for ``entry_id``, in menu order (empty for an unknown id)."""
    entry = view.get_entry(entry_id)
    if entry is None:
        return ()
    return tuple(menu_item(view, entry, action, busy=busy) for action in MenuAction)
