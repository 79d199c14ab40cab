"""What the canvas's pointer gestures mean, beside the clicks and keys of :mod:`.graph_controller`.

Qt-free: the canvas (``ui/graph/canvas_input.py``) passes in wheel deltas and scroll positions and
gets back a zoom factor, or whether the user moved the picture themselves (which stops following
the leaf: DESIGN.md §7, "The live loop").
"""

from __future__ import annotations

__all__ = ["WHEEL_ZOOM_BASE", "PanWatch", "native_zoom", "wheel_zoom"]

#: Ctrl+wheel zooms by this factor per unit of wheel delta (a notch of 120: ×1.2 about the pointer).
WHEEL_ZOOM_BASE = 1.0015


def wheel_zoom(delta: int) -> float | None:
    """The zoom factor for a Ctrl+wheel turn of ``delta`` (angle, else pixel units); ``None`` for none."""
    return WHEEL_ZOOM_BASE**delta if delta else None


def native_zoom(value: float) -> float:
    """The zoom factor for a trackpad's native zoom gesture (``value``: the change, 0 for none)."""
    return 1.0 + value


class PanWatch:
    """Tells when a left-button drag moved the canvas (the hand dragged it), once per press.

    A click that does not scroll is a selection, not a move: only a changed scroll counts.
    """

    def __init__(self) -> None:
        self._pressed_at: tuple[int, int] | None = None

    def press(self, scroll: tuple[int, int] | None) -> None:
        """A button went down with the scroll bars at ``scroll`` (``None``: not the left button)."""
        self._pressed_at = scroll

    def moved(self, scroll: tuple[int, int]) -> bool:
        """The pointer moved with the scroll bars now at ``scroll``: ``True`` the first time the
        drag has scrolled the canvas since the press."""
        if self._pressed_at is None or self._pressed_at == scroll:
            return False
        self._pressed_at = None
        return True

    def release(self) -> None:
        self._pressed_at = None
