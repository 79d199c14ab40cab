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

from .file_changes import files_rule
from .text import NodeKind, entry_kind, full_text

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
    SHOW_CHANGES = "Show changes"
    CHANGES_SINCE = "Changes since this node"


#: Menu order; a separator goes before each action in this set.
_GROUP_STARTS = frozenset({MenuAction.FORK, MenuAction.LABEL, MenuAction.COPY_TEXT, MenuAction.SHOW_CHANGES})

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


def _writes(busy: bool, read_only: bool) -> str | None:
    """Why an item that writes (or moves the leaf) cannot run now; ``None`` when it can."""
    if read_only:
        return READ_ONLY
    if busy:
        return BUSY
    return None


@dataclass(frozen=True)
class _Target:
    """What the items of one node's menu are decided by."""

    view: SessionView
    entry: Entry
    entry_id: str
    kind: NodeKind
    busy: bool
    blocked: str | None  #: why writing is not possible now (:func:`_writes`)


_Rule = tuple[bool, str]  # enabled, and the tooltip: why not, or what it does


def _continue(t: _Target) -> _Rule:
    if t.blocked:
        return False, t.blocked
    if t.entry_id == t.view.leaf_id:
        return False, "This is already the active leaf"
    if t.kind in (NodeKind.USER, NodeKind.CUSTOM_MESSAGE):
        return True, "Move the leaf to the message's parent and put its text in the composer"
    return True, "Make this entry the active leaf: the chat continues from here"


def _edit_branch(t: _Target) -> _Rule:
    if t.kind is not NodeKind.USER:
        return False, "Only a user message can be edited"
    if t.blocked:
        return False, t.blocked
    return True, "Put this message in the composer and branch from its parent"


def _regenerate(t: _Target) -> _Rule:
    if t.kind is not NodeKind.ASSISTANT:
        return False, "Only an assistant reply can be regenerated"
    if not isinstance(t.entry.get("parentId"), str):
        return False, "This reply has no parent to answer again"
    if t.blocked:
        return False, t.blocked
    return True, "Ask the model again from the same parent: a new sibling reply"


def _fork(t: _Target) -> _Rule:
    if t.kind is not NodeKind.USER:
        return False, "Fork starts before a user message; use Clone up to here for this entry"
    if t.busy:
        return False, BUSY
    return True, "A new session with the path before this message; its text goes to the composer"


def _clone(t: _Target) -> _Rule:
    if t.busy:
        return False, BUSY
    return True, "A new session with the path up to and including this entry"


def _label(t: _Target) -> _Rule:
    if t.view.read_only:
        return False, READ_ONLY
    return True, "Name this entry (a label entry is appended)"


def _clear_label(t: _Target) -> _Rule:
    if not t.view.get_label(t.entry_id):
        return False, "This entry has no label"
    if t.view.read_only:
        return False, READ_ONLY
    return True, "Remove the label (a label entry is appended)"


def _copy_text(t: _Target) -> _Rule:
    if not full_text(t.entry, limit=10**9):
        return False, "This entry has no text"
    return True, "Copy the entry's full text to the clipboard"


def _rule(action: MenuAction, t: _Target) -> _Rule:
    match action:
        case MenuAction.CONTINUE:
            return _continue(t)
        case MenuAction.EDIT_BRANCH:
            return _edit_branch(t)
        case MenuAction.REGENERATE:
            return _regenerate(t)
        case MenuAction.FORK:
            return _fork(t)
        case MenuAction.CLONE:
            return _clone(t)
        case MenuAction.LABEL:
            return _label(t)
        case MenuAction.CLEAR_LABEL:
            return _clear_label(t)
        case MenuAction.COPY_TEXT:
            return _copy_text(t)
        case MenuAction.SHOW_CONTEXT:
            return True, "Show the messages the model would receive at this entry"
        case MenuAction.SHOW_CHANGES | MenuAction.CHANGES_SINCE:
            return files_rule(t.view, t.entry_id, action is MenuAction.SHOW_CHANGES)
        case _:
            assert_never(action)


def menu_item(view: SessionView, entry: Entry, action: MenuAction, *, busy: bool) -> MenuItem:
    """Whether ``action`` applies to ``entry`` now, and the tooltip that says why (or what it does)."""
    blocked = _writes(busy, view.read_only)
    target = _Target(view, entry, str(entry.get("id")), entry_kind(entry), busy, blocked)
    enabled, reason = _rule(action, target)
    return MenuItem(action, enabled, reason, action in _GROUP_STARTS)


def node_menu(view: SessionView, entry_id: str, *, busy: bool) -> tuple[MenuItem, ...]:
    """Every item of the node menu for ``entry_id``, in menu order (empty for an unknown id)."""
    entry = view.get_entry(entry_id)
    if entry is None:
        return ()
    return tuple(menu_item(view, entry, action, busy=busy) for action in MenuAction)
