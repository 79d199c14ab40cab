"""The canvas follows the active leaf (issue 22, item 1; DESIGN.md §7 "The live loop").

While the canvas follows, every new entry (a reply, a tool call, a compaction, a branch summary)
and every leaf move (sibling arrows, undo, the node menu, the API) is brought into view, clear of
the minimap; a pan or zoom by the user stops following until "Jump to leaf" (or Ctrl+L). A leaf
move is the user steering, so it follows again.

No Qt: the canvas passes rectangles in viewport pixels and applies the scroll it gets back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .lod import Rect

__all__ = ["FollowState", "follow_scroll", "union"]

#: Room kept between the leaf and the viewport's edge (pixels).
MARGIN = 32.0
#: Room kept between the leaf and an obstacle such as the minimap (pixels).
GAP = 12.0


@dataclass
class FollowState:
    """Whether the canvas follows the leaf; why it stopped, for the "Jump to leaf" button's tooltip."""

    following: bool = True

    def user_moved(self) -> bool:
        """The user panned or zoomed: stop following. ``True`` when that changed something."""
        changed = self.following
        self.following = False
        return changed

    def resume(self) -> bool:
        """"Jump to leaf", Ctrl+L or a leaf move: follow again. ``True`` when that changed something."""
        changed = not self.following
        self.following = True
        return changed


def union(a: Rect, b: Rect) -> Rect:
    x, y = min(a.x, b.x), min(a.y, b.y)
    return Rect(x, y, max(a.right, b.right) - x, max(a.bottom, b.bottom) - y)


def _into(low: float, high: float, start: float, end: float) -> float:
    """The least shift of ``[low, high]`` that puts it inside ``[start, end]`` (its start first
    when it is longer: the leaf's top-left, where its kind and text begin, stays in view)."""
    if high - low > end - start or low < start:
        return low - start
    if high > end:
        return high - end
    return 0.0


def follow_scroll(
    target: Rect,
    viewport: Rect,
    obstacles: Sequence[Rect] = (),
    margin: float = MARGIN,
    gap: float = GAP,
) -> tuple[float, float]:
    """How far to scroll (``dx``, ``dy``: what the scroll bars' values grow by; the content moves
    the other way) so that ``target`` is inside ``viewport`` with ``margin`` to spare and clear of
    every obstacle (the minimap) by ``gap``. As little as possible: ``(0, 0)`` when it already is.

    When no scroll clears the obstacles (a small viewport), the target is only brought inside; the
    minimap then hides rather than cover it (:class:`~desktop_app.ui.graph.minimap.MinimapBinding`).
    """
    m = min(margin, max(0.0, (viewport.w - target.w) / 2), max(0.0, (viewport.h - target.h) / 2))
    inner = Rect(viewport.x + m, viewport.y + m, viewport.w - 2 * m, viewport.h - 2 * m)
    dx = _into(target.x, target.right, inner.x, inner.right)
    dy = _into(target.y, target.bottom, inner.y, inner.bottom)
    moved = Rect(target.x - dx, target.y - dy, target.w, target.h)
    blocking = [o for o in obstacles if o.w > 0 and o.h > 0 and _grown(o, gap).intersects(moved)]
    if not blocking:
        return dx, dy
    best: tuple[float, float, float] | None = None
    for ox, oy in _escapes(moved, blocking, gap):
        candidate = Rect(moved.x - ox, moved.y - oy, moved.w, moved.h)
        if not inner.contains(candidate) or any(_grown(o, gap).intersects(candidate) for o in obstacles if o.w > 0):
            continue
        cost = abs(ox) + abs(oy)
        if best is None or cost < best[0]:
            best = (cost, ox, oy)
    if best is None:
        return dx, dy
    return dx + best[1], dy + best[2]


def _grown(r: Rect, by: float) -> Rect:
    return Rect(r.x - by, r.y - by, r.w + 2 * by, r.h + 2 * by)


def _escapes(moved: Rect, blocking: Sequence[Rect], gap: float) -> list[tuple[float, float]]:
    """Shifts that take ``moved`` past each side of the obstacles' union (above, below, left, right)."""
    box = blocking[0]
    for o in blocking[1:]:
        box = union(box, o)
    up = moved.bottom - (box.y - gap)  # scroll down by this: the target ends above the obstacle
    down = moved.y - (box.bottom + gap)  # negative: the target goes below it
    left = moved.right - (box.x - gap)
    right = moved.x - (box.right + gap)
    return [(0.0, up), (0.0, down), (left, 0.0), (right, 0.0)]
