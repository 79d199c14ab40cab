"""The canvas's side of following the leaf: the scroll, and the "Jump to leaf" button over the canvas.

Where to scroll is decided in :mod:`desktop_app.present.follow` (no Qt); this module measures the
leaf and the minimap in viewport pixels, applies the scroll, and shows the button while the user
has panned or zoomed away (DESIGN.md §7, "The live loop").
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QRect, QRectF, Qt, Signal
from PySide6.QtWidgets import QGraphicsView, QToolButton

from desktop_app.present.follow import FollowState, follow_scroll
from desktop_app.present.lod import Rect

__all__ = ["JumpButton", "LeafFollower"]


def _rect(r: QRect | QRectF) -> Rect:
    return Rect(float(r.x()), float(r.y()), float(r.width()), float(r.height()))


class JumpButton(QToolButton):
    """"Jump to leaf" over the canvas, bottom centre, shown only while the canvas does not follow."""

    def __init__(self, view: QGraphicsView) -> None:
        super().__init__(view)
        self.setObjectName("jumpToLeaf")
        self.setText("↓ Jump to leaf")
        self.setToolTip("The canvas stopped following the active leaf when you moved it (Ctrl+L follows again)")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAutoRaise(False)
        self.hide()

    def place(self, view: QGraphicsView) -> None:
        area = view.viewport().geometry()
        self.adjustSize()
        self.move(area.left() + (area.width() - self.width()) // 2, area.bottom() - self.height() - 14)
        self.raise_()


class LeafFollower(QObject):
    """Keeps the leaf in view while following (see the module docstring).

    ``leaf_box``: the leaf's box in viewport pixels (its pin, flag and screen label included), or
    ``None`` when the canvas has no leaf; ``obstacles``: viewport rectangles the leaf must stay
    clear of (the minimap while it shows).
    """

    following_changed = Signal(bool)
    jump_requested = Signal()

    def __init__(
        self,
        view: QGraphicsView,
        leaf_box: Callable[[], QRectF | None],
        obstacles: Callable[[], list[QRect]],
    ) -> None:
        super().__init__(view)
        self._view = view
        self._leaf_box = leaf_box
        self._obstacles = obstacles
        self.state = FollowState()
        self.button = JumpButton(view)
        self.button.clicked.connect(self.jump_requested)
        # the scroll bars dragged or clicked by hand (not moved by code): a pan by the user
        view.horizontalScrollBar().actionTriggered.connect(lambda _a: self.user_moved())
        view.verticalScrollBar().actionTriggered.connect(lambda _a: self.user_moved())

    @property
    def following(self) -> bool:
        return self.state.following

    def user_moved(self) -> None:
        """The user panned or zoomed: stop following, offer the way back."""
        if self.state.user_moved():
            self.button.place(self._view)
            self.button.show()
            self.following_changed.emit(False)

    def resume(self) -> None:
        """Follow again (Jump to leaf, Ctrl+L, a leaf move); the caller brings the leaf into view."""
        if self.state.resume():
            self.button.hide()
            self.following_changed.emit(True)

    def follow(self) -> bool:
        """While following: bring the leaf into view, clear of the minimap. ``True`` if it scrolled."""
        return self.state.following and self.show_leaf()

    def show_leaf(self) -> bool:
        """Scroll as little as needed so the leaf's box is in view, clear of the minimap."""
        box = self._leaf_box()
        if box is None:
            return False
        viewport = QRectF(self._view.viewport().rect())
        dx, dy = follow_scroll(_rect(box), _rect(viewport), [_rect(o) for o in self._obstacles() if not o.isEmpty()])
        if not dx and not dy:
            return False
        h, v = self._view.horizontalScrollBar(), self._view.verticalScrollBar()
        h.setValue(h.value() + round(dx))
        v.setValue(v.value() + round(dy))
        return True

    def place(self) -> None:
        """The viewport changed size: the button keeps its place."""
        if self.button.isVisible():
            self.button.place(self._view)
