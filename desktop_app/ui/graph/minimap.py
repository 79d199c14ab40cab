"""A small overview of the whole graph with the visible area framed; click or drag to move there.

It draws its own picture (one coloured dot per node, re-rendered only when positions change)
instead of asking the scene to paint 10,000 items into a thumbnail on every scroll.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QGraphicsView, QWidget

from desktop_app.present.viewgraph import ViewGraph

from .scene import GraphScene
from .style import GraphStyle

__all__ = ["MIN_VIEWPORT", "Minimap", "MinimapBinding"]


class Minimap(QWidget):
    """Overview widget; the owner feeds it positions and the visible scene rectangle."""

    def __init__(
        self, style: GraphStyle, on_navigate: Callable[[QPointF], None], parent: QWidget | None = None
    ):
        super().__init__(parent)
        self._style = style
        self._navigate = on_navigate
        self._image: QImage | None = None
        self._scene_rect = QRectF()
        self._viewport = QRectF()
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
        """Redraw the picture of the graph (positions or structure changed)."""
        self._scene_rect = QRectF(scene_rect)
        image = QImage(self.size(), QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        if positions and scene_rect.width() > 0 and scene_rect.height() > 0:
            painter = QPainter(image)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            target = self._target()
            sx = target.width() / scene_rect.width()
            sy = target.height() / scene_rect.height()
            dot = 3.0 if len(positions) < 400 else 2.0
            for node, (x, y) in positions.items():
                color = (
                    QColor(self._style.active)
                    if active.get(node)
                    else self._style.kind(kinds.get(node, "")).accent
                )
                px = target.left() + (x - scene_rect.left()) * sx
                py = target.top() + (y - scene_rect.top()) * sy
                painter.fillRect(QRectF(px - dot / 2, py - dot / 2, dot, dot), color)
            painter.end()
        self._image = image
        self.update()

    def set_viewport(self, visible: QRectF) -> None:
        self._viewport = QRectF(visible)
        self.update()

    def _target(self) -> QRectF:
        """Where the scene maps inside the widget, keeping its aspect ratio."""
        inner = QRectF(self.rect()).adjusted(6, 6, -6, -6)
        rect = self._scene_rect
        if rect.width() <= 0 or rect.height() <= 0:
            return inner
        scale = min(inner.width() / rect.width(), inner.height() / rect.height())
        w, h = rect.width() * scale, rect.height() * scale
        return QRectF(inner.center().x() - w / 2, inner.center().y() - h / 2, w, h)

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
        frame = self._to_widget(self._viewport).intersected(QRectF(self.rect()).adjusted(1, 1, -1, -1))
        if not frame.isEmpty():
            painter.setPen(QPen(self._style.selection, 1.5))
            fill = QColor(self._style.selection)
            fill.setAlpha(30)
            painter.setBrush(fill)
            painter.drawRect(frame)
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
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt API)
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._navigate_to(event.position())
        event.accept()


#: Below this viewport size the minimap would cover too much of the graph: it hides itself.
MIN_VIEWPORT = QSize(520, 420)


class MinimapBinding:
    """Keeps a :class:`Minimap` over a ``QGraphicsView`` in step: placed in a corner, redrawn
    (debounced) when the graph changes, its frame following every scroll and zoom.

    It never covers what the user is looking at: ``avoid`` returns the viewport points (the active
    leaf's pin, the selected node) it must stay clear of, and it moves to another corner or hides
    when none is clear. It hides itself when the viewport is small (:data:`MIN_VIEWPORT`), and the
    user can switch it off (:meth:`set_wanted`, the M key).
    """

    def __init__(
        self,
        view: QGraphicsView,
        style: GraphStyle,
        scene: GraphScene,
        avoid: Callable[[], list[QPoint]] | None = None,
    ) -> None:
        self._view = view
        self._scene = scene
        self._avoid = avoid or (lambda: [])
        self.wanted = True
        self.widget = Minimap(style, self._center_on, view)
        self._timer = QTimer(view)
        self._timer.setSingleShot(True)
        self._timer.setInterval(120)
        self._timer.timeout.connect(self.redraw_now)
        self._graph = ViewGraph(nodes={}, parent={}, children={}, roots=[])
        view.horizontalScrollBar().valueChanged.connect(self.follow_viewport)
        view.verticalScrollBar().valueChanged.connect(self.follow_viewport)

    def set_wanted(self, wanted: bool) -> None:
        """The user's choice (M toggles it); it still hides when small or in the way."""
        self.wanted = wanted
        self.place()

    def redraw(self, graph: ViewGraph) -> None:
        """Redraw a moment later, in its own event-loop turn (no single long stall)."""
        self._graph = graph
        self._timer.start()

    def redraw_now(self, graph: ViewGraph | None = None) -> None:
        if graph is not None:
            self._graph = graph
        nodes = self._graph.nodes
        kinds = {n: view.kind for n, view in nodes.items()}
        active = {n: view.on_active_path for n, view in nodes.items()}
        self.widget.set_content(self._scene.sceneRect(), self._scene.positions, kinds, active)
        self.follow_viewport()

    def follow_viewport(self, *_: Any) -> None:
        view = self._view
        self.widget.set_viewport(view.mapToScene(view.viewport().rect()).boundingRect())
        self.place()

    def place(self) -> None:
        """A corner clear of the leaf and the selection, or hidden (see the class docstring)."""
        area = self._view.viewport().geometry()
        size = self.widget.size()
        small = area.width() < MIN_VIEWPORT.width() or area.height() < MIN_VIEWPORT.height()
        if not self.wanted or small:
            self.widget.hide()
            return
        avoid = [p + area.topLeft() for p in self._avoid()]  # viewport → view coordinates
        margin = 10
        left, right = area.left() + margin, area.right() - size.width() - margin
        top, bottom = area.top() + margin, area.bottom() - size.height() - margin
        for x, y in ((right, bottom), (left, bottom), (right, top), (left, top)):
            frame = QRect(x, y, size.width(), size.height()).adjusted(-24, -24, 24, 24)
            if not any(frame.contains(p) for p in avoid):
                self.widget.move(x, y)
                self.widget.show()
                self.widget.raise_()
                return
        self.widget.hide()

    def _center_on(self, point: QPointF) -> None:
        self._view.centerOn(point)
        self.follow_viewport()
