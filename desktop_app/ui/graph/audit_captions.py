"""The audit's words over the canvas, in screen pixels and pinned inside the viewport.

The scene keeps what each caption labels (:class:`~.audit_bands.BandCaption`, a scene rectangle); the
view calls :meth:`AuditCaptionPainter.layout` then :meth:`AuditCaptionPainter.paint` from
``drawForeground`` with the painter reset to viewport pixels. Where a caption goes is decided in
:func:`desktop_app.present.captions.pin_caption` (no Qt); this class measures, maps and draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QTransform

from desktop_app.present.captions import ARROWS, apart, off_screen, pin_caption
from desktop_app.present.lod import Rect

from .audit_bands import BandCaption
from .style import GraphStyle

__all__ = ["AuditCaptionPainter"]


class AuditCaptionPainter:
    """Places and paints the captions of the audit shown on the canvas (``placed``: the words and
    their viewport rectangles, for tests and for the labels that keep clear of them)."""

    def __init__(self, style: GraphStyle) -> None:
        self._style = style
        self.font = QFont(style.tag_font)
        self.font.setPixelSize(12)
        self._metrics = QFontMetricsF(self.font)
        self.placed: list[tuple[BandCaption, Rect]] = []

    def layout(self, captions: Sequence[BandCaption], transform: QTransform, viewport: QRectF) -> list[Rect]:
        """Place every caption for this view; returns their rectangles."""
        seen = Rect(viewport.x(), viewport.y(), viewport.width(), viewport.height())
        placed: list[tuple[BandCaption, Rect]] = []
        for caption in captions:
            mapped = transform.mapRect(caption.target)
            target = Rect(mapped.x(), mapped.y(), mapped.width(), mapped.height())
            if caption.spot == "band":  # off screen: at the edge it went past, with that side's arrow
                caption = replace(caption, text=ARROWS[off_screen(target, seen)] + caption.text)
            width = self._metrics.horizontalAdvance(caption.text) + 6
            height = self._metrics.height() + 2
            spot = pin_caption(target, width, height, seen, caption.spot)
            if spot is not None:
                placed.append((caption, spot))
        spots = apart([spot for _caption, spot in placed], seen)  # pinned at one edge, never on top of each other
        placed = [(caption, spot) for (caption, _old), spot in zip(placed, spots, strict=True)]
        self.placed = placed
        return [rect for _caption, rect in placed]

    def paint(self, painter: QPainter) -> None:
        """Draw the placed captions (painter in viewport pixels), each on a background so it reads
        over edges and bands."""
        if not self.placed:
            return
        painter.setFont(self.font)
        background = QColor(self._style.background)
        background.setAlpha(230)
        for caption, rect in self.placed:
            box = QRectF(rect.x, rect.y, rect.w, rect.h)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(background)
            painter.drawRoundedRect(box, 3, 3)
            painter.setPen(caption.color)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, caption.text)
