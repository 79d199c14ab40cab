"""Where the audit's words go on screen: inside the viewport, never cut at its edge.

A compaction's bands (what was summarized, what was kept word for word) and its cut line are
drawn on the canvas; their captions are screen-size words. Anchored to the band's corner, a caption
slid off the canvas whenever the band's corner was scrolled out of view (the label of the cut was
right-aligned to a line that began left of the canvas: "…ed by the summary"). Here a caption is
placed at its anchor and then pinned to the viewport's edge; a band scrolled wholly out of view
keeps its caption at the edge it went past, with an arrow. Pure geometry in viewport pixels, no Qt.
"""

from __future__ import annotations

from typing import Literal

from .lod import Rect

__all__ = ["ARROWS", "CaptionSpot", "Side", "apart", "off_screen", "pin_caption"]

#: ``band``: at the top-left corner inside the labelled rectangle; ``line``: just above a
#: horizontal line, at its right end; ``left``: left of the labelled rectangle, vertically centred.
CaptionSpot = Literal["band", "line", "left"]
Side = Literal["", "above", "below", "left", "right"]

#: Pixels kept between a caption and the viewport's edge.
MARGIN = 4.0


def _clamp(value: float, low: float, high: float) -> float:
    return low if high < low else min(max(value, low), high)


def off_screen(target: Rect, viewport: Rect) -> Side:
    """Where ``target`` lies when no part of it is in ``viewport`` (``""``: partly or wholly on screen)."""
    if target.bottom < viewport.y:
        return "above"
    if target.y > viewport.bottom:
        return "below"
    if target.right < viewport.x:
        return "left"
    if target.x > viewport.right:
        return "right"
    return ""


#: The arrow a band's caption gets while its band is off screen on that side.
ARROWS: dict[Side, str] = {"": "", "above": "▲ ", "below": "▼ ", "left": "◀ ", "right": "▶ "}


def pin_caption(target: Rect, width: float, height: float, viewport: Rect, spot: CaptionSpot) -> Rect | None:
    """The caption's rectangle (``width`` × ``height``) for ``target`` (the band, line or node it
    labels, in viewport pixels); ``None`` for a line or node caption whose target is off screen.

    The caption starts at its spot and is then moved the least needed to lie wholly inside the
    viewport (with :data:`MARGIN`); a band's caption also stays within the visible part of its band
    when it fits there, so it reads as that band's. A band wholly off screen keeps its caption at the
    viewport's edge on that side (the painter adds the side's arrow from :data:`ARROWS`): a selected
    compaction always says what it summarized and what it kept, wherever the bands are.
    """
    side = off_screen(target, viewport)
    if side and spot != "band":
        return None
    if spot == "band":
        x, y = target.x + 6, target.y + 4
    elif spot == "line":
        x, y = target.right - width, target.y - height - 3
    else:
        x, y = target.x - width - 8, target.y + (target.h - height) / 2
    low_x, high_x = viewport.x + MARGIN, viewport.right - width - MARGIN
    low_y, high_y = viewport.y + MARGIN, viewport.bottom - height - MARGIN
    if spot == "band" and not side:  # stay in the band's visible part when the caption fits there
        seen_top, seen_bottom = max(target.y, viewport.y), min(target.bottom, viewport.bottom)
        if seen_bottom - seen_top >= height + 2 * MARGIN:
            low_y = max(low_y, seen_top + MARGIN)
            high_y = min(high_y, seen_bottom - height - MARGIN)
        seen_left, seen_right = max(target.x, viewport.x), min(target.right, viewport.right)
        if seen_right - seen_left >= width + 2 * MARGIN:
            low_x = max(low_x, seen_left + MARGIN)
            high_x = min(high_x, seen_right - width - MARGIN)
    return Rect(_clamp(x, low_x, high_x), _clamp(y, low_y, high_y), width, height)


#: Pixels between two captions stacked apart.
GAP = 2.0


def _clash(a: Rect, b: Rect) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


def apart(rects: list[Rect], viewport: Rect) -> list[Rect]:
    """The captions' rectangles with none drawn over another: each, in order, moves down past the
    ones before it that it would cover (up when that would leave the viewport). Pinned captions
    meet at the viewport's edges: the summarized band's, pinned to the top with its arrow, was
    painted under the kept band's words at the top of its band ("▲ sumkept word for word")."""
    placed: list[Rect] = []
    for rect in rects:
        for _ in range(len(placed) + 1):
            other = next((p for p in placed if _clash(rect, p)), None)
            if other is None:
                break
            down = other.bottom + GAP
            if down + rect.h <= viewport.bottom - MARGIN:
                rect = Rect(rect.x, down, rect.w, rect.h)
            else:
                rect = Rect(rect.x, max(viewport.y + MARGIN, other.y - GAP - rect.h), rect.w, rect.h)
        placed.append(rect)
    return placed
