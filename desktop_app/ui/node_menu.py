"""The node menu as a ``QMenu``: renders :func:`desktop_app.present.node_menu.node_menu`'s items.

Nothing is decided here: each item's text, whether it is enabled and its tooltip (the reason it is
disabled, or what it does) come from ``present/``. Disabled items keep their tooltip (tooltips are
made visible in the menu), and every item has a mnemonic, so the menu works from the keyboard
alone: Menu key or Shift+F10, then the underlined letter or the arrows and Enter.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from desktop_app.present.node_menu import MenuAction, MenuItem

from .plain import plain_text

__all__ = ["MNEMONICS", "build_node_menu", "chosen_action"]

#: The underlined letter of each item (unique in the menu).
MNEMONICS = {
    MenuAction.CONTINUE: "&Continue from here",
    MenuAction.EDIT_BRANCH: "&Edit && branch",
    MenuAction.REGENERATE: "&Regenerate",
    MenuAction.FORK: "&Fork from here",
    MenuAction.CLONE: "Clo&ne up to here",
    MenuAction.LABEL: "&Label…",
    MenuAction.CLEAR_LABEL: "Clear l&abel",
    MenuAction.COPY_TEXT: "Cop&y text",
    MenuAction.SHOW_CONTEXT: "&Show context",
    MenuAction.SHOW_CHANGES: "Show chan&ges",
    MenuAction.CHANGES_SINCE: "Changes since this no&de",
}


def build_node_menu(items: Sequence[MenuItem], parent: QWidget) -> QMenu:
    """A menu of ``items``; each action's ``data()`` is its :class:`MenuAction`."""
    menu = QMenu(parent)
    menu.setObjectName("nodeMenu")
    menu.setToolTipsVisible(True)
    for item in items:
        if item.separator_before and not menu.isEmpty():
            menu.addSeparator()
        action = QAction(MNEMONICS[item.action], menu)
        action.setData(item.action)
        action.setEnabled(item.enabled)
        action.setToolTip(plain_text(item.reason))
        action.setStatusTip(item.reason)
        menu.addAction(action)
    return menu


def chosen_action(action: QAction | None) -> MenuAction | None:
    """The :class:`MenuAction` of a triggered menu action (``None``: dismissed)."""
    data = action.data() if action is not None else None
    return data if isinstance(data, MenuAction) else None
