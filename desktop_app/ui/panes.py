"""Moving between the window's panes from the keyboard: Tab's order and F6 / Shift+F6.

Qt chains Tab through widgets in the order they were made, which put the chat and the composer
before the outline and never reached the toolbar or the sessions list. Here the window names its
panes in reading order — toolbar, side column (sessions, outline or context, whichever tab is up),
canvas, chat, composer — and :class:`PaneKeys` sets Tab's chain through their widgets in that order
and makes F6 / Shift+F6 jump to the next / previous pane, as in other desktop apps. A pane that is
hidden (or collapsed to no width) is skipped, so focus never lands on something nobody can see.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QWidget

__all__ = ["Pane", "PaneKeys"]


@dataclass(frozen=True)
class Pane:
    """One pane: its name, the widget that takes focus when F6 lands on it (read when needed: the
    side column's depends on its tab), and the widgets Tab walks through inside it, in order."""

    name: str
    target: Callable[[], QWidget | None]
    chain: Callable[[], Sequence[QWidget]]
    area: Callable[[], QWidget | None]  #: the pane's whole area: a focused widget inside it is "in" the pane


def _usable(widget: QWidget | None) -> bool:
    return (
        widget is not None
        and widget.isVisible()
        and widget.isEnabled()
        and not widget.visibleRegion().isEmpty()  # not clipped away (a splitter pane collapsed to no width)
        and widget.focusPolicy() != Qt.FocusPolicy.NoFocus
    )


class PaneKeys(QObject):
    """Tab's order and F6 / Shift+F6 over ``panes`` (in reading order) of ``window``."""

    def __init__(self, window: QWidget, panes: Sequence[Pane]) -> None:
        super().__init__(window)
        self._window = window
        self.panes = list(panes)
        for keys, step in (("F6", 1), ("Shift+F6", -1)):
            shortcut = QShortcut(QKeySequence(keys), window)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(lambda step=step: self.step(step))
        self.set_tab_order()

    def set_tab_order(self) -> None:
        """Tab goes through every pane's widgets in reading order (call again when panes change)."""
        chain = [widget for pane in self.panes for widget in pane.chain()]
        for before, after in pairwise(chain):
            QWidget.setTabOrder(before, after)

    def current(self) -> int | None:
        """The index of the pane holding the focus, or ``None``."""
        focused = QApplication.focusWidget()
        for index, pane in enumerate(self.panes):
            area = pane.area()
            if focused is not None and area is not None and (focused is area or area.isAncestorOf(focused)):
                return index
        return None

    def step(self, direction: int) -> str | None:
        """Focus the next (``1``) or previous (``-1``) pane that can take it; returns its name."""
        count = len(self.panes)
        start = self.current()
        index = start if start is not None else (-1 if direction > 0 else 0)
        for _ in range(count):
            index = (index + direction) % count
            pane = self.panes[index]
            target = pane.target()
            if _usable(target):
                assert target is not None
                target.setFocus(Qt.FocusReason.ShortcutFocusReason)
                return pane.name
        return None
