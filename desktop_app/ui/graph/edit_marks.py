"""Context edits on the canvas: a node the model no longer receives is dimmed and struck through, a node
whose text the model receives edited wears a ✎ badge; the legend draws the same two swatches.

The marks are child items of the node items (they move, hide and die with them), laid over the node by
:func:`apply_edit_marks` from :func:`desktop_app.present.context_actions.context_edit_states` (the edits pi
applies on the active path). Nothing here decides anything.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from desktop_app.present.context_actions import EditState
from desktop_app.present.viewgraph import Node

from ..plain import plain_text
from .items import NodeItem
from .style import GraphStyle

__all__ = ["EditMark", "apply_edit_marks", "edit_marks_of", "paint_edited_swatch", "paint_hidden_swatch"]

HIDDEN, EDITED = "hidden", "edited"
_STRIKE = QColor(200, 40, 40)
_BADGE = QColor(214, 120, 0)


class EditMark(QGraphicsItem):
    """A veil with a strike-through line (hidden) or a corner badge (edited) over one node."""

    def __init__(self, node: NodeItem, mark: str) -> None:
        super().__init__(node)
        self.mark = mark
        self._body = node.body
        shape = node.style.kind(node.view.kind).shape
        #: the strike spans the drawn shape (pills and markers are narrower than the node's box)
        self._inset = 14.0 if shape == "pill" else node.body.width() * 0.18 if shape == "marker" else 4.0
        self.setZValue(1)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # clicks go to the node beneath
        self.setToolTip(
            plain_text(
                "Hidden from the context by hand: the model no longer receives this entry"
                if mark == HIDDEN
                else "Text edited in the context by hand: the model receives another text for this entry"
            )
        )

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt API)
        return self._body.adjusted(-4, -14, 14, 4)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        r = self._body
        if self.mark == HIDDEN:
            veil = QColor(widget.palette().base().color() if widget is not None else QColor(255, 255, 255))
            veil.setAlpha(150)
            painter.fillRect(r, veil)
            painter.setPen(QPen(_STRIKE, 2.4))
            y = r.center().y()
            painter.drawLine(QPointF(r.left() + self._inset, y), QPointF(r.right() - self._inset, y))
            return
        _badge(painter, QPointF(r.right() - 2, r.top() + 2), 10.0)


def _badge(painter: QPainter, centre: QPointF, radius: float) -> None:
    painter.save()  # its font and pens stay its own (the legend writes its words after it)
    painter.setPen(QPen(_BADGE.darker(140), 1.0))
    painter.setBrush(_BADGE)
    painter.drawEllipse(centre, radius, radius)
    font = QFont(painter.font())
    font.setPixelSize(int(radius * 1.3))
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(QColor(255, 255, 255))
    box = QRectF(centre.x() - radius, centre.y() - radius, 2 * radius, 2 * radius)
    painter.drawText(box, Qt.AlignmentFlag.AlignCenter, "✎")
    painter.restore()


def apply_edit_marks(nodes: Mapping[Node, NodeItem], states: Mapping[str, EditState]) -> None:
    """Put each node's mark right (an entry drawn on its own node; a folded run shows none)."""
    for node, item in nodes.items():
        state = states.get(node) if isinstance(node, str) else None
        want = None if state is None else HIDDEN if state.hidden else EDITED
        marks = [child for child in item.childItems() if isinstance(child, EditMark)]
        if (marks[0].mark if marks else None) == want:
            continue  # as drawn already (the usual case: most nodes are neither)
        for mark in marks:
            mark.hide()
            scene = mark.scene()
            if scene is not None:
                scene.removeItem(mark)  # off its node too
        if want is not None:
            EditMark(item, want)
        item.setOpacity(0.55 if want == HIDDEN else 1.0)


def edit_marks_of(nodes: Mapping[Node, NodeItem]) -> dict[str, str]:
    """Entry id → ``"hidden"`` or ``"edited"`` as drawn (the automation surface reads this)."""
    drawn: dict[str, str] = {}
    for node, item in nodes.items():
        for child in item.childItems():
            if isinstance(child, EditMark) and isinstance(node, str):
                drawn[node] = child.mark
    return drawn


def paint_hidden_swatch(painter: QPainter, style: GraphStyle, r: QRectF) -> None:
    """The legend's swatch for a hidden entry: a dimmed card struck through."""
    ks = style.kind("user")
    fill = QColor(ks.fill)
    fill.setAlpha(110)
    painter.setPen(QPen(ks.accent.lighter(130), 1.0))
    painter.setBrush(fill)
    painter.drawRoundedRect(r.adjusted(0, 2, 0, -2), 4, 4)
    painter.setPen(QPen(_STRIKE, 2.0))
    painter.drawLine(QPointF(r.left() + 1, r.center().y()), QPointF(r.right() - 1, r.center().y()))


def paint_edited_swatch(painter: QPainter, style: GraphStyle, r: QRectF) -> None:
    """The legend's swatch for an edited entry: a card with the ✎ badge."""
    ks = style.kind("user")
    painter.setPen(QPen(ks.accent, 1.0))
    painter.setBrush(ks.fill)
    painter.drawRoundedRect(r.adjusted(0, 3, -5, -1), 4, 4)
    _badge(painter, QPointF(r.right() - 5, r.top() + 4), 6.0)
