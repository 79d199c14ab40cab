"""Where things are on a painted chat row: its card actions, section toggles and links.

:class:`RowHits` answers, for one row of the chat list, which action, section header or link is
under a point (viewport coordinates) and where an action or a section header is drawn, from the
row's laid-out document (:class:`~desktop_app.ui.chat.sliced.StackedDocument`). Which actions a
card offers is decided in :func:`~desktop_app.present.card_actions.card_actions` (no Qt). The
delegate (:class:`~desktop_app.ui.chat.delegate.MessageDelegate`) paints; this hit-tests.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter

from desktop_app.present.card_actions import CardAction, card_actions
from desktop_app.present.chat_messages import message_kind, message_status
from desktop_app.present.chat_render import parse_toggle
from desktop_app.present.chat_theme import ChatTheme

from .model import ChatModel
from .sliced import StackedDocument

__all__ = ["ACTION_GAP", "PAD_Y", "RowGeometry", "RowHits"]

PAD_Y = 8  # bubble edge → text, vertically
ACTION_GAP = 16  # between two actions of a card's action line


class RowGeometry(Protocol):
    """What hit-testing needs of the delegate that lays the rows out."""

    def laid_out_document(self, model: ChatModel, row: int, row_width: int) -> tuple[StackedDocument, int]: ...
    def bubble_rect(self, rect: QRect, kind: str) -> QRect: ...
    def text_left(self, kind: str, status: str) -> int: ...
    def line_height(self) -> int: ...
    def font(self) -> QFont: ...


class RowHits:
    """Hit-testing of chat rows laid out by ``geometry`` (see the module docstring)."""

    def __init__(self, geometry: RowGeometry) -> None:
        self._geometry = geometry

    # ================================================================================ actions

    def row_actions(self, model: ChatModel, row: int) -> tuple[CardAction, ...]:
        """The actions ``row``'s card offers (``present.card_actions``, given the row after it)."""
        if not 0 <= row < model.rowCount():
            return ()
        nxt = row + 1
        streaming_next = model.is_stream_row(nxt)
        following = model.message(nxt) if nxt < model.rowCount() and not streaming_next else None
        return card_actions(
            model.message(row), following, streaming=model.is_stream_row(row), reply_streaming=streaming_next
        )

    def action_rects(self, model: ChatModel, row: int, rect: QRect) -> list[tuple[CardAction, QRect]]:
        """Where each of ``row``'s actions is drawn (viewport coordinates; ``rect``: the row's)."""
        actions = self.row_actions(model, row)
        if not actions:
            return []
        geometry = self._geometry
        message = model.message(row)
        kind = message_kind(message)
        box = geometry.bubble_rect(rect, kind)
        metrics = QFontMetrics(geometry.font())
        line = geometry.line_height()
        top = box.bottom() - PAD_Y - line + 1
        left = box.left() + geometry.text_left(kind, message_status(message))
        placed = []
        for action in actions:
            width = metrics.horizontalAdvance(action.value)
            placed.append((action, QRect(left, top, width, line)))
            left += width + ACTION_GAP
        return placed

    def hit_action(self, model: ChatModel, row: int, rect: QRect, pos: QPoint | QPointF) -> CardAction | None:
        """The action under ``pos`` (viewport coordinates), if any (a little slack around the words)."""
        point = QPoint(int(pos.x()), int(pos.y()))
        for action, where in self.action_rects(model, row, rect):
            if where.adjusted(-4, -3, 4, 3).contains(point):
                return action
        return None

    def paint_actions(self, painter: QPainter, model: ChatModel, row: int, rect: QRect, theme: ChatTheme) -> None:
        placed = self.action_rects(model, row, rect)
        if not placed:
            return
        painter.save()
        painter.setClipping(False)
        painter.setPen(QColor(theme.dim))
        for action, where in placed:
            painter.drawText(where, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), action.value)
        painter.restore()

    # ================================================================================ sections and links

    def hit_section(self, model: ChatModel, row: int, rect: QRect, pos: QPoint | QPointF) -> int | None:
        """The collapsible section whose header line is under ``pos`` (viewport coordinates)."""
        doc, point = self._doc_point(model, row, rect, pos)
        found = doc.locate(point) if point is not None else None
        if found is None:
            return None
        segment, point = found
        layout = segment.documentLayout()
        position = layout.hitTest(point, Qt.HitTestAccuracy.FuzzyHit)
        if position < 0:
            return None
        block = segment.findBlock(position)
        bounds = layout.blockBoundingRect(block)
        if not bounds.top() <= point.y() <= bounds.bottom():
            return None
        it = block.begin()
        while not it.atEnd():
            section = parse_toggle(it.fragment().charFormat().anchorHref())
            if section is not None:
                return section
            it += 1
        return None

    def section_rect(self, model: ChatModel, row: int, rect: QRect, section: int) -> QRect | None:
        """Where the header line of ``section`` is drawn (viewport coordinates), or ``None``.

        For keyboard/accessibility helpers and tests that click a particular toggle.
        """
        doc, box, left = self._placed(model, row, rect)
        for segment, top in doc.placed():
            layout = segment.documentLayout()
            block = segment.begin()
            while block.isValid():
                it = block.begin()
                while not it.atEnd():
                    if parse_toggle(it.fragment().charFormat().anchorHref()) == section:
                        bounds = layout.blockBoundingRect(block).translated(0, top).toAlignedRect()
                        return bounds.translated(box.left() + left, box.top() + PAD_Y)
                    it += 1
                block = block.next()
        return None

    def link_at(self, model: ChatModel, row: int, rect: QRect, pos: QPoint | QPointF) -> str:
        doc, point = self._doc_point(model, row, rect, pos)
        found = doc.locate(point) if point is not None else None
        return found[0].documentLayout().anchorAt(found[1]) if found is not None else ""

    def _doc_point(
        self, model: ChatModel, row: int, rect: QRect, pos: QPoint | QPointF
    ) -> tuple[StackedDocument, QPointF | None]:
        doc, box, left = self._placed(model, row, rect)
        if not box.contains(QPoint(int(pos.x()), int(pos.y()))):
            return doc, None
        return doc, QPointF(pos.x() - box.left() - left, pos.y() - box.top() - PAD_Y)

    def _placed(self, model: ChatModel, row: int, rect: QRect) -> tuple[StackedDocument, QRect, int]:
        """The row's laid-out document, its bubble and the text's left offset inside the bubble."""
        geometry = self._geometry
        message = model.message(row)
        kind = message_kind(message)
        status = "streaming" if model.is_stream_row(row) else message_status(message)
        doc, _ = geometry.laid_out_document(model, row, rect.width())
        return doc, geometry.bubble_rect(rect, kind), geometry.text_left(kind, status)
