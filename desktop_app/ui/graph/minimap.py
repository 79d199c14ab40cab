"""A small overview of the whole graph with the visible area framed; click or drag to move there.

It draws its own picture (one coloured dot per node, re-rendered only when positions change)
instead of asking the scene to paint 10,000 items into a thumbnail on every scroll. While a reply
streams the picture is redrawn at most every 120 ms, :data:`CHUNK` dots per event-loop turn into a
fresh picture that replaces the old one when complete, so no turn waits for 100,000 dots.

Readable at any size (issue 22 item 9): the picture is stretched to fill the widget on both axes
(a 20,000-entry tree is 200 times taller than wide: drawn to scale it was a hairline), the widget
itself taller for a tall tree; the active path is drawn over the rest and the landmarks (compactions,
branch summaries) over that, each a little bigger, and the leaf is ringed. A click or a drag goes to
the nearest node, never to empty canvas.

The dots are written into plain bytes by Python alone, and Qt sees only the finished picture (one
``QImage`` per picture). A Qt call per dot was fine alone, but every PySide call lets go of the GIL:
while a worker thread runs Python (a compaction preparing at 100,000 entries), each call waited to
get it back, and 500 dots took 13-39 ms of one turn instead of 0.4 ms.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from math import floor
from typing import Any

from PySide6.QtCore import QPointF, QRect, QRectF, QSize, QSizeF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QGraphicsView, QWidget

from desktop_app.present.viewgraph import ViewGraph

from .scene import GraphScene
from .style import GraphStyle

__all__ = ["CHUNK", "LANDMARK_KINDS", "MIN_VIEWPORT", "Minimap", "MinimapBinding", "MinimapDrawing", "minimap_size"]

#: Kinds drawn bigger and last, over everything else.
LANDMARK_KINDS = frozenset({"compaction", "branch_summary"})


def minimap_size(content: QRectF) -> QSize:
    """The widget's size for a graph of ``content``'s shape: taller for a tall tree (the usual
    session: a long path), wider for a wide one."""
    w, h = content.width(), content.height()
    if w > 0 and h > 2 * w:
        return QSize(150, 240)
    if h > 0 and w > 2 * h:
        return QSize(260, 130)
    return QSize(200, 140)

#: Dots written per event-loop turn by a deferred redraw (~1 µs of Python each, no Qt call).
CHUNK = 2000

#: Bytes per pixel of the picture: RGBA8888, premultiplied (the byte order is the same on every machine).
_FORMAT = QImage.Format.Format_RGBA8888_Premultiplied


def _rgba(color: QColor) -> bytes:
    """``color`` as the picture's four bytes (premultiplied by its alpha)."""
    a = color.alpha()
    return bytes((color.red() * a // 255, color.green() * a // 255, color.blue() * a // 255, a))


class MinimapDrawing:
    """One picture of the graph in the making: :meth:`step` writes the next dots into
    :attr:`pixels`; when all are written the widget shows the new picture (the old one stays on
    screen meanwhile). ``onto``: the pixels of a finished picture of the same scene rect, to add
    dots to (they are changed in place)."""

    def __init__(
        self,
        widget: Minimap,
        scene_rect: QRectF,
        positions: Mapping[Any, tuple[float, float]],
        kinds: Callable[[Any], str],
        active: Callable[[Any], bool],
        onto: bytearray | None = None,
    ) -> None:
        self._widget = widget
        self.scene_rect = QRectF(scene_rect)
        size = widget.size()
        self.width, self.height = size.width(), size.height()
        self.pixels = onto if onto is not None else bytearray(self.width * self.height * 4)
        self.image: QImage | None = None
        self.total = len(positions)
        self.painted = 0
        self.done = False
        # a copy (appends change the scene's dict meanwhile); of the dict, not 10,000 new pairs
        self._items: Iterator[tuple[Any, tuple[float, float]]] = iter(dict(positions).items())
        self._kinds, self._active = kinds, active
        #: the active path's dots, then the landmarks', written after the rest so they stay on top
        self._later: list[tuple[int, str, bool, float, float]] = []
        self._later_at = -1  #: -1: still writing the first pass
        self._paints = False
        if positions and scene_rect.width() > 0 and scene_rect.height() > 0:
            self._paints = True
            target = widget.target_for(scene_rect)
            self._left, self._top = target.left(), target.top()
            self._sx = target.width() / scene_rect.width()
            self._sy = target.height() / scene_rect.height()
            self._dot = 3 if self.total < 400 else 2
        self._colors: dict[tuple[str, bool], bytes] = {}

    def finish(self) -> None:
        """Write every dot left now (a small picture, or one asked for at once)."""
        while not self.step(2 * self.total + 1):
            pass

    def step(self, budget: int | None = None) -> bool:
        """Write up to ``budget`` (default :data:`CHUNK`) more dots; ``True`` once the picture is
        complete and shown."""
        if self.done:
            return True
        if budget is None:
            budget = CHUNK
        if self._paints:
            self._write(budget)
            if self._remaining():
                return False
            self._paints = False
        self.done = True
        # a copy of its own: the pixels go on changing (dots added later, see ``onto``)
        self.image = QImage(self.pixels, self.width, self.height, self.width * 4, _FORMAT).copy()
        self._widget.show_picture(self.scene_rect, self.image, self.pixels)
        return True

    def _write(self, budget: int) -> int:
        """The next ``budget`` dots: the plain ones as they come, the active path's and the
        landmarks' kept for a second pass (:attr:`_later`) so nothing is drawn over them. Returns
        how many dots it wrote."""
        kinds, active, later, dot = self._kinds, self._active, self._later, self._dot
        n, painted = 0, self.painted
        if self._later_at < 0:
            for node, (x, y) in self._items:
                n += 1
                kind, on_path = kinds(node), active(node)
                if kind in LANDMARK_KINDS:
                    later.append((2, kind, on_path, x, y))
                elif on_path:
                    later.append((1, kind, True, x, y))
                else:
                    self._dot_at(kind, False, x, y, dot)
                    self.painted += 1
                if n >= budget:
                    return self.painted - painted
            later.sort(key=lambda item: item[0])  # stable: the path in its order, then the landmarks
            self._later_at = 0
        while self._later_at < len(later) and n < budget:
            layer, kind, on_path, x, y = later[self._later_at]
            self._later_at += 1
            n += 1
            self.painted += 1
            self._dot_at(kind, on_path and layer == 1, x, y, dot + layer)
        return self.painted - painted

    def _remaining(self) -> bool:
        return self._later_at < 0 or self._later_at < len(self._later)

    def _dot_at(self, kind: str, on_path: bool, x: float, y: float, dot: int) -> None:
        """A ``dot``×``dot`` square of the node's colour at scene (``x``, ``y``), clipped to the picture."""
        key = (kind, on_path)
        color = self._colors.get(key)
        if color is None:
            style = self._widget.graph_style
            color = self._colors[key] = _rgba(QColor(style.active) if on_path else QColor(style.kind(kind).accent))
        width, height = self.width, self.height
        x0 = floor(self._left - dot / 2 + (x - self.scene_rect.left()) * self._sx + 0.5)
        y0 = floor(self._top - dot / 2 + (y - self.scene_rect.top()) * self._sy + 0.5)
        x1, y1 = min(x0 + dot, width), min(y0 + dot, height)
        x0, y0 = max(x0, 0), max(y0, 0)
        if x1 > x0:
            run = color * (x1 - x0)
            pixels = self.pixels
            for row in range(y0, y1):
                at = (row * width + x0) * 4
                pixels[at : at + len(run)] = run

    def cancel(self) -> None:
        self._paints = False
        self.done = True


class Minimap(QWidget):
    """Overview widget; the owner feeds it positions and the visible scene rectangle."""

    navigated = Signal()  #: the user clicked or dragged in it (the canvas stops following the leaf)

    def __init__(
        self, style: GraphStyle, on_navigate: Callable[[QPointF], None], parent: QWidget | None = None
    ):
        super().__init__(parent)
        self._style = style
        self._navigate = on_navigate
        self._image: QImage | None = None
        self._pixels: bytearray | None = None
        self._scene_rect = QRectF()
        self._viewport = QRectF()
        self._leaf: QPointF | None = None
        self.setFixedSize(QSize(200, 140))
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Overview: click or drag to move")

    def set_content(
        self,
        scene_rect: QRectF,
        positions: Mapping[Any, tuple[float, float]],
        kinds: Mapping[Any, str],
        active: Mapping[Any, bool],
    ) -> None:
        """Redraw the picture of the graph now (positions or structure changed)."""
        drawing = MinimapDrawing(self, scene_rect, positions, lambda n: kinds.get(n, ""), lambda n: bool(active.get(n)))
        drawing.finish()

    @property
    def graph_style(self) -> GraphStyle:
        return self._style

    def show_picture(self, scene_rect: QRectF, image: QImage, pixels: bytearray | None = None) -> None:
        """A finished picture (:class:`MinimapDrawing`) of the graph in ``scene_rect``, with the
        pixels it was made from (for dots added later) when it has them."""
        self._scene_rect = QRectF(scene_rect)
        self._image = image
        self._pixels = pixels
        self.update()

    def image(self) -> QImage | None:
        return self._image

    def pixels(self) -> bytearray | None:
        """The bytes of the picture on screen, when it was drawn by :class:`MinimapDrawing`."""
        return self._pixels

    @property
    def picture_rect(self) -> QRectF:
        """The scene rect the picture on screen was drawn for."""
        return QRectF(self._scene_rect)

    def set_viewport(self, visible: QRectF) -> None:
        self._viewport = QRectF(visible)
        self.update()

    def _target(self) -> QRectF:
        return self.target_for(self._scene_rect)

    def target_for(self, rect: QRectF) -> QRectF:
        """Where the scene ``rect`` maps inside the widget: all of it, each axis scaled on its own
        (kept to scale, a long session's path was a hairline down the middle)."""
        return QRectF(self.rect()).adjusted(6, 6, -6, -6)

    def scale(self) -> tuple[float, float]:
        """Widget pixels per scene unit, across and down, for the picture on screen."""
        target, rect = self._target(), self._scene_rect
        if rect.width() <= 0 or rect.height() <= 0:
            return 0.0, 0.0
        return target.width() / rect.width(), target.height() / rect.height()

    def set_leaf(self, point: QPointF | None) -> None:
        """Where the active leaf is (scene coordinates): ringed on the picture."""
        if point != self._leaf:
            self._leaf = point
            self.update()

    def reshape(self, size: QSize) -> bool:
        """Another size for another shape of graph; the picture on screen no longer fits it (a
        redraw follows). ``True`` when the size changed."""
        if size == self.size():
            return False
        self.setFixedSize(size)
        self._image = None
        self._pixels = None
        return True

    def _to_widget(self, r: QRectF) -> QRectF:
        target = self._target()
        rect = self._scene_rect
        if rect.width() <= 0 or rect.height() <= 0:
            return QRectF()
        sx, sy = target.width() / rect.width(), target.height() / rect.height()
        return QRectF(
            target.left() + (r.left() - rect.left()) * sx,
            target.top() + (r.top() - rect.top()) * sy,
            r.width() * sx,
            r.height() * sy,
        )

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt API)
        painter = QPainter(self)
        back = QColor(self._style.background)
        back.setAlpha(235)
        painter.setPen(QPen(self._style.edge, 1.0))
        painter.setBrush(back)
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6)
        if self._image is not None:
            painter.drawImage(0, 0, self._image)
        frame = self._to_widget(self._viewport)
        if not self._viewport.isEmpty() and (frame.width() < 10 or frame.height() < 8):
            # near, a viewport is a sliver of a long tree's picture: drawn at least this big, where it is
            centre = frame.center()
            w, h = max(frame.width(), 10.0), max(frame.height(), 8.0)
            frame = QRectF(centre.x() - w / 2, centre.y() - h / 2, w, h)
        frame = frame.intersected(QRectF(self.rect()).adjusted(1, 1, -1, -1))
        if not frame.isEmpty():
            painter.setPen(QPen(self._style.selection, 1.5))
            fill = QColor(self._style.selection)
            fill.setAlpha(30)
            painter.setBrush(fill)
            painter.drawRect(frame)
        if self._leaf is not None and not self._scene_rect.isEmpty():
            at = self._to_widget(QRectF(self._leaf, QSizeF(0, 0))).topLeft()
            painter.setPen(QPen(QColor("#e03131"), 2.0))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(at, 4.5, 4.5)
        painter.end()

    def _navigate_to(self, pos: QPointF) -> None:
        target = self._target()
        rect = self._scene_rect
        if target.width() <= 0 or target.height() <= 0:
            return
        x = rect.left() + (pos.x() - target.left()) / target.width() * rect.width()
        y = rect.top() + (pos.y() - target.top()) / target.height() * rect.height()
        self._navigate(QPointF(x, y))

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt API)
        self._navigate_to(event.position())
        self.navigated.emit()
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt API)
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._navigate_to(event.position())
            self.navigated.emit()
        event.accept()


#: Below this viewport size the minimap would cover too much of the graph: it hides itself.
MIN_VIEWPORT = QSize(520, 420)


class MinimapBinding:
    """Keeps a :class:`Minimap` over a ``QGraphicsView`` in step: placed in a corner, redrawn
    (debounced) when the graph changes, its frame following every scroll and zoom.

    It never covers what the user is looking at: ``avoid`` returns the viewport rectangles (the
    active leaf with its pin and label, the selected node) it must stay clear of, and it moves to another corner or hides
    when none is clear. It hides itself when the viewport is small (:data:`MIN_VIEWPORT`), and the
    user can switch it off (:meth:`set_wanted`, the M key).
    """

    def __init__(
        self,
        view: QGraphicsView,
        style: GraphStyle,
        scene: GraphScene,
        avoid: Callable[[], list[QRect]] | None = None,
        leaf_at: Callable[[], QPointF | None] | None = None,
    ) -> None:
        self._view = view
        self._scene = scene
        self._avoid = avoid or (lambda: [])
        self._leaf_at = leaf_at or (lambda: None)
        #: once scrolling stops, a corner that covers fewer nodes is looked for (not on every scroll)
        self._settle = QTimer(view)
        self._settle.setSingleShot(True)
        self._settle.setInterval(200)
        self._settle.timeout.connect(lambda: self.place(fewest_nodes=True))
        self.wanted = True
        self.widget = Minimap(style, self._center_on, view)
        self._timer = QTimer(view)
        self._timer.setSingleShot(True)
        self._timer.setInterval(120)
        self._timer.timeout.connect(self._start_drawing)
        self._drawing: MinimapDrawing | None = None
        self._steps = QTimer(view)  #: one chunk of dots per event-loop turn
        self._steps.setInterval(0)
        self._steps.timeout.connect(self._step)
        self._graph = ViewGraph(nodes={}, parent={}, children={}, roots=[])
        view.horizontalScrollBar().valueChanged.connect(self.follow_viewport)
        view.verticalScrollBar().valueChanged.connect(self.follow_viewport)

    def rect(self) -> QRect:
        """Where the minimap is, in viewport coordinates; empty when it is hidden."""
        if not self.widget.isVisible():
            return QRect()
        return self.widget.geometry().translated(-self._view.viewport().pos())

    def set_wanted(self, wanted: bool) -> None:
        """The user's choice (M toggles it); it still hides when small or in the way."""
        self.wanted = wanted
        self.place()

    def redraw(self, graph: ViewGraph) -> None:
        """Redraw soon, a chunk of dots per event-loop turn (no single long stall). A stream of
        appends asks on every one: the picture follows at most every 120 ms (a running request
        is not pushed back, so it does follow while the stream lasts)."""
        self._graph = graph
        if not self._timer.isActive():
            self._timer.start()

    def touch(self, graph: ViewGraph, nodes: Iterable[Any]) -> None:
        """Only ``nodes`` are new or restyled (an append that removed nothing): their dots go onto
        the pixels of the picture on screen, which is shown again at once; the others stay as
        drawn. A redraw of every dot every 120 ms while a reply streamed was ~100 ms of the event
        loop's time each at 100,000 entries. When the picture is not one of the current scene rect (it grew, or no picture is
        finished yet, or one is being drawn or due) the whole picture is redrawn instead
        (:meth:`redraw`)."""
        widget = self.widget
        pixels = widget.pixels()
        rect = self._scene.sceneRect()
        if pixels is None or self._drawing is not None or self._timer.isActive() or widget.picture_rect != rect:
            self.redraw(graph)
            return
        self._graph = graph
        positions = self._scene.positions
        some = {node: positions[node] for node in nodes if node in positions}
        kind, active = self._lookups()
        if any(not active(node) for node in some):
            # off the active path now (a branch switch), or never on it: its dot may be smaller than
            # the one drawn before, whose edge would stay; the whole picture is drawn again
            self.redraw(graph)
            return
        if some:
            MinimapDrawing(widget, rect, some, kind, active, onto=pixels).finish()

    def redraw_now(self, graph: ViewGraph | None = None) -> None:
        if graph is not None:
            self._graph = graph
        self._timer.stop()
        drawing = self._new_drawing()
        drawing.finish()
        self._drawing = None
        self.follow_viewport()

    def _new_drawing(self) -> MinimapDrawing:
        if self._drawing is not None:
            self._drawing.cancel()
            self._steps.stop()
        kind, active = self._lookups()
        # the scene rect: the graph and a margin, with room for appends below (so most appends
        # touch up the picture instead of drawing it again)
        rect = self._scene.sceneRect()
        if self.widget.reshape(minimap_size(rect)):
            self.place()
        self._drawing = MinimapDrawing(self.widget, rect, self._scene.positions, kind, active)
        return self._drawing

    def _lookups(self) -> tuple[Callable[[Any], str], Callable[[Any], bool]]:
        """A node's kind and whether it is on the active path, in the graph being drawn."""
        nodes = self._graph.nodes

        def kind(node: Any) -> str:  # a node the graph no longer has: the default colour
            view = nodes.get(node)
            return "" if view is None else view.kind

        def active(node: Any) -> bool:
            view = nodes.get(node)
            return view is not None and view.on_active_path

        return kind, active

    def _start_drawing(self) -> None:
        self._new_drawing()
        self._steps.start()

    def _step(self) -> None:
        drawing = self._drawing
        if drawing is None or drawing.step():
            self._steps.stop()
            self._drawing = None
            self.follow_viewport()

    @property
    def drawing(self) -> MinimapDrawing | None:
        """The picture being drawn chunk by chunk, if any."""
        return self._drawing

    def follow_viewport(self, *_: Any) -> None:
        view = self._view
        self.widget.set_viewport(view.mapToScene(view.viewport().rect()).boundingRect())
        self.widget.set_leaf(self._leaf_at())
        self.place()
        self._settle.start()

    def place(self, fewest_nodes: bool = False) -> None:
        """A corner clear of the leaf and the selection, or hidden (see the class docstring). With
        ``fewest_nodes`` (once scrolling stopped), of the clear corners the one over the fewest
        nodes; otherwise the one it is in while that stays clear."""
        area = self._view.viewport().geometry()
        size = self.widget.size()
        small = area.width() < MIN_VIEWPORT.width() or area.height() < MIN_VIEWPORT.height()
        if not self.wanted or small:
            self.widget.hide()
            return
        avoid = [r.translated(area.topLeft()) for r in self._avoid()]  # viewport → view coordinates
        margin = 10
        left, right = area.left() + margin, area.right() - size.width() - margin
        top, bottom = area.top() + margin, area.bottom() - size.height() - margin
        here = self.widget.pos() if self.widget.isVisible() else None
        corners = [(right, bottom), (left, bottom), (right, top), (left, top)]
        if here is not None and (here.x(), here.y()) in corners:  # stay put while that corner is clear
            corners.insert(0, (here.x(), here.y()))
        clear = [
            (x, y)
            for x, y in corners
            if not any(QRect(x, y, size.width(), size.height()).adjusted(-8, -8, 8, 8).intersects(r) for r in avoid)
        ]
        if not clear:
            self.widget.hide()
            return
        x, y = min(clear, key=lambda c: self._nodes_under(QRect(c[0], c[1], size.width(), size.height()))) if (
            fewest_nodes and len(clear) > 1
        ) else clear[0]
        moved = here is None or (here.x(), here.y()) != (x, y)
        self.widget.move(x, y)
        self.widget.show()
        self.widget.raise_()
        if moved:  # the screen labels keep clear of it: laid out again with the next paint
            self._view.viewport().update()

    def _nodes_under(self, frame: QRect, cap: int = 50) -> int:
        """How many nodes (up to ``cap``) would be under the minimap at ``frame`` (view coordinates)."""
        view = self._view
        area = view.mapToScene(frame.translated(-view.viewport().pos())).boundingRect()
        spec = self._scene.graph_style.spec
        half_w, half_h = spec.node_width / 2, spec.node_height / 2
        return self._scene.rows.count_in(
            area.left() - half_w, area.top() - half_h, area.right() + half_w, area.bottom() + half_h, cap
        )

    def _center_on(self, point: QPointF) -> None:
        """A click or drag on the picture: to the nearest node (in the picture's pixels), so the
        canvas never shows empty space (the stretched picture puts a lot of it between branches)."""
        sx, sy = self.widget.scale()
        node = self._scene.rows.nearest(point.x(), point.y(), sx, sy)
        at = self._scene.positions.get(node) if node is not None else None
        self._view.centerOn(QPointF(*at) if at is not None else point)
        self.follow_viewport()
