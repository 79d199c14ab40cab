"""The scene's items: one :class:`NodeItem` per view node; the edges, plain :class:`Edge` data,
all drawn by one :class:`EdgeLayer`.

Nodes derive from ``QGraphicsRectItem`` and override only ``paint``: their bounding rectangles stay
in C++, so the scene's per-frame scan over 10,000+ items never calls into Python. An edge's curve
is built only when it is first painted. Node pictures are cached by Qt
(``DeviceCoordinateCache``). Far out, the view hides all of them and :class:`OverviewLayer` draws
the whole graph in a handful of bulk calls instead.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QStyleOptionGraphicsItem, QWidget

from desktop_app.present.lod import FULL_SCALE, compaction_words
from desktop_app.present.text import KIND_TITLES, NodeKind
from desktop_app.present.viewgraph import Node, ViewNode

from .node_lines import paint_lines
from .style import GraphStyle

__all__ = [
    "PILL_INSET",
    "EDGE_BAND",
    "Edge",
    "EdgeLayer",
    "NodeItem",
    "OverviewLayer",
    "edge_path",
    "edge_pen",
    "edit_link_path",
    "edit_link_pen",
]

_PAD_X = 16.0  # room for the leaf pin on the right and halos
_PAD_TOP = 18.0  # room for the label flag above
_PAD_BOTTOM = 8.0
PILL_INSET = 7.0  # pills (tool results, settings) are this much shorter than the box, top and bottom
MARKER_INSET = 13.0  # usage markers are smaller still
_NO_PEN = QPen(Qt.PenStyle.NoPen)


_BODIES: dict[tuple[float, float], QRectF] = {}


def _body_of(width: float, height: float) -> QRectF:
    """The box of a node of that size, centred on its position: one object for all such nodes."""
    body = _BODIES.get((width, height))
    if body is None:
        if len(_BODIES) >= 16:  # sizes come from the style's spec: a handful at most
            _BODIES.clear()
        body = _BODIES[(width, height)] = QRectF(-width / 2, -height / 2, width, height)
    return body



def _tag_and_text(kind: str, text: str, count: int) -> tuple[str, str]:
    """A node's tag line and body text: the kind's title, with the words some kinds put first
    ("✂ COMPACTION", a folded run's size, a context edit's verb) and their body reworded."""
    title = KIND_TITLES.get(kind, kind)
    match kind:
        case NodeKind.SEGMENT:
            title = f"⋯ {count} entries folded"
        case NodeKind.COMPACTION:
            title = "✂ COMPACTION"
            text = compaction_words(text)
        case NodeKind.BRANCH_SUMMARY:
            title = "⤺ BRANCH SUMMARY"
            text = text or "(empty summary)"
        case NodeKind.SYSTEM:
            head, _, rest = text.partition(" · ")
            title = "⚙ " + (head.upper() if head.startswith("System") else "SYSTEM")
            text = rest or head
        case NodeKind.CONTEXT_EDIT:
            verb, _, rest = text.partition(": ")
            title = "✎ CONTEXT EDIT · " + ("OMITS" if verb == "omits" else "REPLACES")
            text = rest or text
        case NodeKind.BASH_EXECUTION:
            text = "$ " + text.removeprefix("[bash]: ")
    return title, text

class NodeItem(QGraphicsRectItem):
    """A view node: shape and colour by kind, text, label flag, leaf pin, selection and matches."""

    def __init__(
        self, node: Node, view: ViewNode, style: GraphStyle, parent: QGraphicsItem | None = None
    ):
        body = _body_of(style.spec.node_width, style.spec.node_height)
        super().__init__(body.adjusted(-_PAD_X, -_PAD_TOP, _PAD_X, _PAD_BOTTOM), parent)
        self.node = node
        self.view = view
        self.style = style
        self.selected = False
        self.pinned = False
        self.match = 0  # 0 none, 1 a search match, 2 the current match
        self._body = body  # shared by every node of this size: never changed in place
        self.setPen(_NO_PEN)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        #: Half the drawn height: where edges attach (pills are shorter than the layout box).
        shape = style.kind(view.kind).shape
        self.half_height = body.height() / 2 - (PILL_INSET if shape == "pill" else MARKER_INSET if shape == "marker" else 0.0)

    # ------------------------------------------------------------------------------------ state

    def set_state(
        self, *, selected: bool | None = None, pinned: bool | None = None, match: int | None = None
    ) -> None:
        changed = False
        if selected is not None and selected != self.selected:
            self.selected, changed = selected, True
        if pinned is not None and pinned != self.pinned:
            self.pinned, changed = pinned, True
        if match is not None and match != self.match:
            self.match, changed = match, True
        if changed:
            self.update()

    def set_view(self, view: ViewNode) -> None:
        self.view = view
        self.update()

    @property
    def body(self) -> QRectF:
        """The node's box in item coordinates (what layout sizes refer to); a copy."""
        return QRectF(self._body)

    def _outline(self, shape: str) -> QPainterPath:
        r = self._body
        path = QPainterPath()
        if shape == "card" or shape == "terminal":
            path.addRoundedRect(r, 8, 8)
        elif shape == "pill":
            inner = r.adjusted(14, PILL_INSET, -14, -PILL_INSET)
            path.addRoundedRect(inner, inner.height() / 2, inner.height() / 2)
        elif shape == "marker":
            inner = r.adjusted(r.width() * 0.18, MARKER_INSET, -r.width() * 0.18, -MARKER_INSET)
            path.addRoundedRect(inner, inner.height() / 2, inner.height() / 2)
        elif shape == "note":  # a card with its top-right corner folded over
            fold = 10.0
            path.addPolygon(
                QPolygonF(
                    [
                        QPointF(r.left(), r.top()),
                        QPointF(r.right() - fold, r.top()),
                        QPointF(r.right(), r.top() + fold),
                        QPointF(r.right(), r.bottom()),
                        QPointF(r.left(), r.bottom()),
                    ]
                )
            )
            path.closeSubpath()
        elif shape == "hexagon":
            k = r.height() / 2
            path.addPolygon(
                QPolygonF(
                    [
                        QPointF(r.left(), r.center().y()),
                        QPointF(r.left() + k, r.top()),
                        QPointF(r.right() - k, r.top()),
                        QPointF(r.right(), r.center().y()),
                        QPointF(r.right() - k, r.bottom()),
                        QPointF(r.left() + k, r.bottom()),
                    ]
                )
            )
            path.closeSubpath()
        elif shape == "slab":
            path.addPolygon(_torn_slab(r.adjusted(-4, -2, 4, 2)))
            path.closeSubpath()
        else:  # stack
            path.addRoundedRect(r.adjusted(0, 4, -6, 0), 6, 6)
        return path

    # ------------------------------------------------------------------------------------ paint

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        style = self.style
        kind = self.view.kind
        ks = style.kind(kind)
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        outline = self._outline(ks.shape)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, lod > 0.2)

        if self.match or self.selected:  # halos behind the body
            halo = QPainterPath()
            halo.addRoundedRect(self._body.adjusted(-7, -7, 7, 7), 12, 12)
            if self.match:
                color = QColor(style.current_match if self.match == 2 else style.match)
                color.setAlpha(230 if self.match == 2 else 190)
                painter.fillPath(halo, color)
            if self.selected:
                painter.setPen(QPen(style.selection, 3.0))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawPath(halo)

        if ks.shape == "stack":  # the cards behind a folded run
            back = QPainterPath()
            back.addRoundedRect(self._body.adjusted(6, 0, 0, -4), 6, 6)
            painter.setPen(QPen(ks.accent, 1.0, Qt.PenStyle.DashLine))
            painter.setBrush(ks.fill)
            painter.drawPath(back)

        on_path = self.view.on_active_path
        if on_path and ks.shape not in ("slab", "hexagon"):
            border = QPen(style.active, 2.6)
        elif ks.shape in ("slab", "hexagon"):
            border = QPen(ks.accent.darker(135), 2.0)
        else:
            border = QPen(ks.accent, 1.3, Qt.PenStyle.DashLine if ks.dashed else Qt.PenStyle.SolidLine)
        painter.setPen(border)
        painter.setBrush(ks.fill)
        painter.drawPath(outline)
        if on_path and ks.shape in ("slab", "hexagon"):  # active path ring outside the solid shapes
            painter.setPen(QPen(style.active, 2.6))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            ring = QPainterPath()
            ring.addRoundedRect(self._body.adjusted(-5, -5, 5, 5), 10, 10)
            painter.drawPath(ring)

        if ks.shape in ("card", "terminal", "note"):  # kind stripe
            stripe = QPainterPath()
            stripe.addRoundedRect(QRectF(self._body.left(), self._body.top(), 6, self._body.height()), 3, 3)
            painter.fillPath(stripe, ks.accent)

        if lod >= FULL_SCALE:  # nearer than that, the view writes screen-size labels instead
            self._paint_text(painter, kind, ks)
        if self.view.label:
            self._paint_flag(painter, self.view.label, lod)
        if self.pinned:
            self._paint_pin(painter)

    def _paint_text(self, painter: QPainter, kind: str, ks: Any) -> None:
        style = self.style
        r = self._body
        text = self.view.text
        if ks.shape == "marker":
            inner = r.adjusted(r.width() * 0.18 + 10, MARKER_INSET, -r.width() * 0.18 - 8, -MARKER_INSET)
            painter.setFont(style.tag_font)
            painter.setPen(style.muted)
            metrics = QFontMetricsF(style.tag_font)
            painter.drawText(
                inner,
                Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                metrics.elidedText("Σ " + text, Qt.TextElideMode.ElideRight, inner.width()),
            )
            return
        if ks.shape == "pill":
            inner = r.adjusted(24, PILL_INSET, -22, -PILL_INSET)
            painter.setPen(style.muted if kind != NodeKind.TOOL_RESULT else style.text)
            paint_lines(painter, inner, text, style.mono_font if kind == NodeKind.TOOL_RESULT else style.font)
            return
        left = r.left() + (14 if ks.shape in ("card", "terminal", "note") else 26 if ks.shape == "hexagon" else 12)
        right = r.right() - (26 if ks.shape == "hexagon" else 10)
        title, text = _tag_and_text(kind, text, self.view.count)
        painter.setFont(style.tag_font)
        painter.setPen(ks.text if ks.shape in ("slab", "hexagon", "terminal") else ks.accent)
        tag_rect = QRectF(left, r.top() + 4, right - left, 14)
        painter.drawText(tag_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)
        font = style.mono_font if kind == NodeKind.BASH_EXECUTION else style.font
        painter.setPen(ks.text)
        body_rect = QRectF(left, r.top() + 19, right - left, r.height() - 22)
        paint_lines(painter, body_rect, text, font)  # two lines, wrapped once and cached

    def _paint_flag(self, painter: QPainter, label: str, lod: float) -> None:
        style = self.style
        r = self._body
        font = style.tag_font
        metrics = QFontMetricsF(font)
        text = metrics.elidedText(label, Qt.TextElideMode.ElideRight, r.width() * 0.6)
        width = metrics.horizontalAdvance(text) + 22 if lod >= FULL_SCALE else 24
        x = r.right() - width - 8
        y = r.top() - 15
        pole = QRectF(x, y, 2, 17)
        painter.fillRect(pole, style.flag.darker(130))
        flag = QPainterPath()
        flag.moveTo(x + 2, y)
        flag.lineTo(x + width, y)
        flag.lineTo(x + width - 6, y + 6.5)
        flag.lineTo(x + width, y + 13)
        flag.lineTo(x + 2, y + 13)
        flag.closeSubpath()
        painter.fillPath(flag, style.flag)
        if lod >= FULL_SCALE:
            painter.setFont(font)
            painter.setPen(QColor("#212529"))
            painter.drawText(QRectF(x + 5, y, width - 12, 13), Qt.AlignmentFlag.AlignVCenter, text)

    def _paint_pin(self, painter: QPainter) -> None:
        """The leaf marker: a map pin standing on the node's right edge."""
        r = self._body
        cx, top = r.right() + 2, r.top() - 14
        radius = 8.0
        pin = QPainterPath()
        pin.moveTo(cx, top + 26)
        pin.arcTo(QRectF(cx - radius, top, 2 * radius, 2 * radius), -60, 300)
        pin.closeSubpath()
        painter.setPen(QPen(self.style.pin.darker(140), 1.2))
        painter.setBrush(self.style.pin)
        painter.drawPath(pin)
        painter.setBrush(QColor("#ffffff"))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawEllipse(QPointF(cx, top + radius), 3.2, 3.2)


def _torn_slab(r: QRectF) -> QPolygonF:
    """A rectangle whose top and bottom edges are zig-zags: history was torn off here."""
    teeth = 11
    step = r.width() / teeth
    depth = 4.0
    points = [QPointF(r.left(), r.top() + depth)]
    for i in range(1, teeth + 1):
        y = r.top() if i % 2 else r.top() + depth
        points.append(QPointF(r.left() + i * step, y))
    points.append(QPointF(r.right(), r.bottom() - depth))
    for i in range(teeth - 1, -1, -1):
        y = r.bottom() if i % 2 else r.bottom() - depth
        points.append(QPointF(r.left() + i * step, y))
    return QPolygonF(points)


def edge_path(start: QPointF, end: QPointF) -> QPainterPath:
    """A parent → child edge: leaves the parent's bottom and enters the child's top vertically."""
    path = QPainterPath(start)
    dy = max(abs(end.y() - start.y()) * 0.5, 12.0)
    if math.isclose(start.x(), end.x()):
        path.lineTo(end)
    else:
        path.cubicTo(QPointF(start.x(), start.y() + dy), QPointF(end.x(), end.y() - dy), end)
    return path


def edit_link_path(
    source: tuple[float, float], target: tuple[float, float], half_width: float, *, outward: bool = False
) -> QPainterPath:
    """A context edit's link to its target (usually an ancestor in the same column): it leaves the
    edit's right edge and bows out to the right before it enters the target's right edge, arrow
    first; ``outward`` uses the left edges instead (a column on the left side of the tree)."""
    (sx, sy), (tx, ty) = source, target
    sign = -1.0 if outward else 1.0
    start, end = QPointF(sx + sign * half_width, sy), QPointF(tx + sign * (half_width + 3), ty)
    bow = sign * (36.0 + min(abs(ty - sy) * 0.2, 110.0))
    path = QPainterPath(start)
    path.cubicTo(QPointF(start.x() + bow, sy), QPointF(end.x() + bow, ty), end)
    tip = path.pointAtPercent(1.0)
    angle = math.radians(path.angleAtPercent(0.97))
    back = QPointF(tip.x() - 9 * math.cos(angle), tip.y() + 9 * math.sin(angle))
    normal = QPointF(4.5 * math.sin(angle), 4.5 * math.cos(angle))
    path.addPolygon(QPolygonF([tip, back + normal, back - normal, tip]))
    return path


def edit_link_pen(style: GraphStyle) -> QPen:
    pen = QPen(style.edit_link, 1.8, Qt.PenStyle.DashLine)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    return pen


#: Edge pens by (colour, active): the edge layer paints with these two on every frame instead of
#: making them each time.
_EDGE_PENS: dict[tuple[int, bool], QPen] = {}
_EDGE_PENS_KEPT = 16  # a theme switch brings new colours; old pens are dropped past this many


def edge_pen(style: GraphStyle, active: bool) -> QPen:
    """The pen of an edge (on the active path or not) in ``style``'s current colours, shared."""
    colour = style.active if active else style.edge
    key = (colour.rgba(), active)
    pen = _EDGE_PENS.get(key)
    if pen is None:
        if len(_EDGE_PENS) >= _EDGE_PENS_KEPT:
            _EDGE_PENS.clear()
        pen = _EDGE_PENS[key] = QPen(colour, 3.0 if active else 1.5)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    return pen


class Edge:
    """One parent → child edge of the canvas: where it runs and whether it is on the active path.

    Plain data, drawn by the scene's :class:`EdgeLayer`: a whole graph has one edge per node, and
    10,000 edge items were ~23 MiB and 10,000 more children for Qt to sort and check on every append
    (issue 10). Its curve is made when it is first painted and kept until it moves.
    """

    __slots__ = ("_curve", "active", "ax", "ay", "bx", "by")

    def __init__(self, active: bool) -> None:
        self.active = active
        self.ax = self.ay = self.bx = self.by = 0.0
        self._curve: QPainterPath | None = None

    def set_ends(self, ax: float, ay: float, bx: float, by: float) -> None:
        """From (``ax``, ``ay``) to (``bx``, ``by``). Before it goes into a layer, or followed by
        :meth:`EdgeLayer.reindex` (its place in the index depends on its ends)."""
        self.ax, self.ay, self.bx, self.by = ax, ay, bx, by
        self._curve = None

    def ends(self) -> tuple[QPointF, QPointF]:
        return QPointF(self.ax, self.ay), QPointF(self.bx, self.by)

    def rect(self) -> QRectF:
        """Its bounds: the curve leaves and enters vertically, so it stays inside its ends' box
        (with room for the pen)."""
        return QRectF(
            min(self.ax, self.bx) - 3, min(self.ay, self.by) - 3, abs(self.bx - self.ax) + 6, abs(self.by - self.ay) + 6
        )

    def path(self) -> QPainterPath:
        if self._curve is None:
            self._curve = edge_path(*self.ends())
        return self._curve


class EdgeLayer(QGraphicsItem):
    """Every :class:`Edge` of the canvas in one item, painted for the exposed area only.

    Edges are indexed by the band of scene height their top lies in (:data:`EDGE_BAND` tall), so a
    paint reads the bands it shows (and those above, as far as the tallest edge reaches) instead of
    every edge. Edges on the active path are painted after the others (on top, as their thicker
    line should be). Never hit by the mouse (an empty shape): nodes are found by position.
    """

    def __init__(self, style: GraphStyle) -> None:
        super().__init__()
        self._style = style
        self._bands: dict[int, list[Edge]] = {}
        self._tallest = 0.0
        self._bounds = QRectF()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)  # exposedRect
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def __len__(self) -> int:
        return sum(len(edges) for edges in self._bands.values())

    def add(self, edge: Edge) -> None:
        """Index ``edge`` (its ends set) and show it."""
        self.add_many((edge,))

    def add_many(self, edges: Iterable[Edge]) -> None:
        """Index ``edges`` (their ends set) and show them: the bounds measured once, one update."""
        bands, band_height = self._bands, EDGE_BAND
        x0 = y0 = math.inf
        x1 = y1 = -math.inf
        tallest = self._tallest
        for edge in edges:
            top, bottom = min(edge.ay, edge.by), max(edge.ay, edge.by)
            left, right = min(edge.ax, edge.bx), max(edge.ax, edge.bx)
            bands.setdefault(math.floor(top / band_height), []).append(edge)
            tallest = max(tallest, bottom - top + 6)
            x0, y0, x1, y1 = min(x0, left), min(y0, top), max(x1, right), max(y1, bottom)
        if x0 > x1:
            return
        self._tallest = tallest
        rect = QRectF(x0 - 3, y0 - 3, x1 - x0 + 6, y1 - y0 + 6)
        if not self._bounds.contains(rect):
            self.prepareGeometryChange()
            self._bounds = self._bounds.united(rect) if not self._bounds.isNull() else rect
        self.update(rect)

    def discard(self, edge: Edge) -> None:
        """Take ``edge`` off the picture (it keeps its ends)."""
        band = self._bands.get(math.floor(min(edge.ay, edge.by) / EDGE_BAND))
        if band is not None:
            for i, other in enumerate(band):
                if other is edge:
                    del band[i]
                    break
        self.update(edge.rect())

    def reindex(self) -> None:
        """Its edges were given new ends (a new layout): index them again."""
        edges = [edge for band in self._bands.values() for edge in band]
        self.prepareGeometryChange()
        self._bands, self._tallest, self._bounds = {}, 0.0, QRectF()
        self.add_many(edges)
        self.update()

    def set_active(self, edges: Iterable[tuple[Edge, bool]]) -> None:
        """Each edge on the active path or not (a branch switch restyles thousands: one update)."""
        changed = False
        for edge, active in edges:
            if edge.active != active:
                edge.active = active
                changed = True
        if changed:
            self.update()

    def pen_for(self, edge: Edge) -> QPen:
        """The pen ``edge`` is painted with, in the style's current colours."""
        return edge_pen(self._style, edge.active)

    def edges_in(self, area: QRectF) -> list[Edge]:
        """The edges whose bounds meet ``area``."""
        first = math.floor((area.top() - self._tallest) / EDGE_BAND)
        last = math.floor(area.bottom() / EDGE_BAND)
        left, right, top, bottom = area.left(), area.right(), area.top(), area.bottom()
        found: list[Edge] = []
        bands = self._bands
        if last - first > len(bands):  # far out: fewer bands than the range asks for
            candidates: Iterable[list[Edge]] = (b for k, b in bands.items() if first <= k <= last)
        else:
            candidates = (bands[k] for k in range(first, last + 1) if k in bands)
        for band in candidates:
            for e in band:
                if (
                    min(e.ax, e.bx) - 3 <= right
                    and max(e.ax, e.bx) + 3 >= left
                    and min(e.ay, e.by) - 3 <= bottom
                    and max(e.ay, e.by) + 3 >= top
                ):
                    found.append(e)
        return found

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt API)
        return self._bounds

    def shape(self) -> QPainterPath:
        return QPainterPath()

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        edges = self.edges_in(option.exposedRect)
        if not edges:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for active in (False, True):  # the active path on top
            painter.setPen(edge_pen(self._style, active))
            for edge in edges:
                if edge.active == active:
                    painter.drawPath(edge.path())


#: Height of the scene bands :class:`EdgeLayer` indexes edges by (a few rows).
EDGE_BAND = 240.0


class OverviewLayer(QGraphicsItem):
    """The whole graph at overview zoom: edges as lines, nodes as coloured blocks, in bulk calls.

    Below ~30 % zoom no text is legible, and painting 10,000 items one Python call at a time would
    take a visible fraction of a second per frame; this draws the same picture in a few calls.
    """

    def __init__(self, style: GraphStyle) -> None:
        super().__init__()
        self._style = style
        self._bounds = QRectF()
        self._lines: list[QLineF] = []
        self._active_lines: list[QLineF] = []
        self._blocks: dict[str, list[QRectF]] = {}
        self._positions: Mapping[Any, tuple[float, float]] = {}
        self._marks: dict[str, list[QRectF]] = {}
        self.setZValue(1.5)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresParentOpacity, True)

    def set_content(
        self,
        bounds: QRectF,
        positions: Mapping[Any, tuple[float, float]],
        kinds: Mapping[Any, str],
        edges: Iterable[tuple[Hashable, Hashable, bool]],
    ) -> None:
        self.prepareGeometryChange()
        self._bounds = QRectF(bounds)
        self._positions = positions
        spec = self._style.spec
        half_w, half_h = spec.node_width / 2, spec.node_height / 2
        self._lines, self._active_lines = [], []
        for a, b, active in edges:
            if a in positions and b in positions:
                (ax, ay), (bx, by) = positions[a], positions[b]
                (self._active_lines if active else self._lines).append(
                    QLineF(ax, ay + half_h, bx, by - half_h)
                )
        self._blocks = {}
        for node, (x, y) in positions.items():
            self._blocks.setdefault(kinds.get(node, "unknown"), []).append(
                QRectF(x - half_w, y - half_h, spec.node_width, spec.node_height)
            )
        self.update()

    def set_marks(self, marks: Mapping[str, Iterable[Hashable]]) -> None:
        """Nodes to emphasise: ``selected``, ``leaf``, ``match``, ``current``, ``active``."""
        spec = self._style.spec
        pad = 14.0
        self._marks = {
            name: [
                QRectF(
                    x - spec.node_width / 2 - pad,
                    y - spec.node_height / 2 - pad,
                    spec.node_width + 2 * pad,
                    spec.node_height + 2 * pad,
                )
                for n in nodes
                if n in self._positions
                for x, y in [self._positions[n]]
            ]
            for name, nodes in marks.items()
        }
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt API)
        return self._bounds

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        style = self._style
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        for name, color in (("match", style.match), ("current", style.current_match)):
            if self._marks.get(name):
                painter.setPen(_NO_PEN)
                painter.setBrush(color)
                painter.drawRects(self._marks[name])
        pen = QPen(style.edge, 0)  # cosmetic: one pixel at any zoom
        painter.setPen(pen)
        painter.drawLines(self._lines)
        active = QPen(style.active, 2.5)
        active.setCosmetic(True)
        painter.setPen(active)
        painter.drawLines(self._active_lines)
        painter.setPen(_NO_PEN)
        for kind, rects in self._blocks.items():
            painter.setBrush(style.kind(kind).accent)
            painter.drawRects(rects)
        for name, color in (("selected", style.selection), ("leaf", style.pin)):
            if self._marks.get(name):
                ring = QPen(color, 3.0)
                ring.setCosmetic(True)
                painter.setPen(ring)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRects(self._marks[name])
