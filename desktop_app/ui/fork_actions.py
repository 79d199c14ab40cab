"""The window's Fork and Clone toolbar actions: their menus, their state, and the drop target they make.

Whether Fork or Clone applies to the selected entry, and why not, is decided in
:func:`~desktop_app.present.node_menu.menu_item` (no Qt); :class:`ForkActions` shows it on the two
actions (issue 9, item 2), gives each toolbar button its "here / in a new window" menu, and finds
where a node carried out of the graph would be forked or cloned (the Fork button, or the sessions
list).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QToolBar, QToolButton, QWidget

from desktop_app.present.node_menu import MenuAction, menu_item
from desktop_app.session import SessionView

from .plain import plain_text

__all__ = ["ForkActions"]


def _global_rect(widget: QWidget) -> QRect:
    return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())


class ForkActions:
    """Fork (``before`` a user message) and Clone (``at`` an entry) on ``window``'s toolbars."""

    def __init__(self, window: QWidget, fork: QAction, clone: QAction) -> None:
        self._window = window
        self.fork = fork
        self.clone = clone

    def toolbar_button(self, action: QAction) -> QToolButton | None:
        for bar in self._window.findChildren(QToolBar):
            widget = bar.widgetForAction(action)
            if isinstance(widget, QToolButton):
                return widget
        return None

    def add_menus(self, fork_selected: Callable[[str, bool], None]) -> None:
        """Fork and Clone each get a menu: here, or in a new window (as with Ctrl or Shift held).
        ``fork_selected(position, new_window)`` forks the selection."""
        for action, position, name in ((self.fork, "before", "Fork"), (self.clone, "at", "Clone")):
            button = self.toolbar_button(action)
            if button is None:
                continue
            menu = QMenu(button)
            here = menu.addAction(f"{name} here")
            here.triggered.connect(lambda _c=False, p=position: fork_selected(p, False))
            away = menu.addAction(f"{name} in a new window (Ctrl+click)")
            away.triggered.connect(lambda _c=False, p=position: fork_selected(p, True))
            button.setMenu(menu)
            button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)

    def sync(self, view: SessionView, entry_id: str | None, *, busy: bool) -> None:
        """Fork and Clone say whether they apply to ``entry_id`` (the selection), and why not."""
        entry = view.get_entry(entry_id) if entry_id else None
        for action, kind, idle in (
            (self.fork, MenuAction.FORK, "Fork: select a user message"),
            (self.clone, MenuAction.CLONE, "Clone: select an entry"),
        ):
            if entry is None:
                action.setEnabled(False)
                action.setToolTip(plain_text(idle))
                continue
            item = menu_item(view, entry, kind, busy=busy)
            action.setEnabled(item.enabled)
            elsewhere = " (Ctrl+click: in a new window)" if item.enabled else ""
            action.setToolTip(plain_text(f"{action.text()}: {item.reason}{elsewhere}"))

    def drop_target(self, global_pos: QPoint, panel: QWidget | None) -> QWidget | None:
        """The Fork button or ``panel`` (the sessions list, when shown) under ``global_pos``."""
        for target in (self.toolbar_button(self.fork), panel):
            if target is not None and target.isVisible() and _global_rect(target).contains(global_pos):
                return target
        return None
