"""The canvas's Qt input: keys, mouse, wheel, pinch, tooltips → commands decided in ``present/``.

What an input means is decided without Qt: clicks, double-clicks, keys and the leaf pin's drag by
:class:`~desktop_app.present.graph_controller.GraphController`, zoom factors and "the user moved
the picture" by :mod:`desktop_app.present.canvas_gestures`. :class:`CanvasInput` translates the
Qt events of a :class:`~desktop_app.ui.graph.view.GraphView` into those calls and hands the
commands back to the canvas to execute. Each handler takes ``base``, Qt's own handling of the
event, and calls it when the canvas does not take the event itself (panning, scrolling).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, assert_never

from PySide6.QtCore import QEvent, QPoint, Qt, SignalInstance
from PySide6.QtGui import QKeyEvent, QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QGestureEvent, QGraphicsView, QPinchGesture, QToolTip

from desktop_app.present.canvas_gestures import PanWatch, native_zoom, wheel_zoom
from desktop_app.present.graph_controller import (
    Activate,
    ClearSearch,
    Collapse,
    Expand,
    GraphCommand,
    GraphController,
    Key,
    MoveLeaf,
    Select,
    Zoom,
)
from desktop_app.present.graph_model import ViewGraphModel
from desktop_app.present.viewgraph import Node

__all__ = ["KEYS", "CanvasInput", "InputTarget"]

KEYS = {
    Qt.Key.Key_Up: Key.UP,
    Qt.Key.Key_Down: Key.DOWN,
    Qt.Key.Key_PageUp: Key.PAGE_UP,
    Qt.Key.Key_PageDown: Key.PAGE_DOWN,
    Qt.Key.Key_Home: Key.HOME,
    Qt.Key.Key_End: Key.END,
    Qt.Key.Key_Left: Key.LEFT,
    Qt.Key.Key_Right: Key.RIGHT,
    Qt.Key.Key_Return: Key.ENTER,
    Qt.Key.Key_Enter: Key.ENTER,
    Qt.Key.Key_Escape: Key.ESCAPE,
    Qt.Key.Key_Plus: Key.ZOOM_IN,
    Qt.Key.Key_Equal: Key.ZOOM_IN,
    Qt.Key.Key_Minus: Key.ZOOM_OUT,
}


class InputTarget(Protocol):
    """What the input handler needs of its canvas."""

    @property
    def model(self) -> ViewGraphModel | None: ...
    @property
    def search_active(self) -> bool: ...
    def selected_node(self) -> Node | None: ...
    def visible_order(self) -> list[Node]: ...
    def node_at(self, point: QPoint) -> Node | None: ...
    def preview_text(self, node: Node) -> str: ...
    node_activated: SignalInstance

    def select_node(self, node: Node | None, *, center: bool = False, notify: bool = True) -> None: ...
    def expand(self, node: Node) -> None: ...
    def collapse(self, entry_id: str) -> bool: ...
    def clear_search(self) -> None: ...
    def zoom_by(self, factor: float) -> None: ...
    def user_moved(self) -> None: ...
    def toggle_minimap(self) -> None: ...


class CanvasInput:
    """Qt input of one canvas (see the module docstring); ``view`` is the canvas widget itself."""

    def __init__(self, view: QGraphicsView, target: InputTarget) -> None:
        self._view = view
        self._target = target
        self.controller = GraphController()
        self._pan = PanWatch()

    def _scroll(self) -> tuple[int, int]:
        return self._view.horizontalScrollBar().value(), self._view.verticalScrollBar().value()

    def _zoom(self, factor: float) -> None:
        self._target.zoom_by(factor)
        self._target.user_moved()

    def execute(self, command: GraphCommand | None) -> None:
        """Carry out what the controller decided an input means."""
        target = self._target
        match command:
            case None:
                pass
            case Select(node=node, center=center):
                target.select_node(node, center=center, notify=True)
            case Expand(node=segment):
                target.expand(segment)
            case Collapse(entry_id=entry_id):
                target.collapse(entry_id)
            case Activate(entry_id=entry_id) | MoveLeaf(entry_id=entry_id):
                target.node_activated.emit(entry_id)
            case Zoom(factor=factor):
                self._zoom(factor)
            case ClearSearch():
                target.clear_search()
            case _ as unreachable:
                assert_never(unreachable)

    def activate(self, node: Node | None) -> None:
        """Enter / double-click: unfold a segment, or ask the window to move the leaf here."""
        model = self._target.model
        if model is not None:
            self.execute(self.controller.activate(model.graph, node or self._target.selected_node()))

    def takes_shortcut(self, event: QEvent) -> bool:
        """Esc belongs to the canvas while a search is shown: the window's Esc (Stop) must not take
        it (issue 9.8). Qt asks the focused widget first through ``ShortcutOverride``."""
        return (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Escape
            and self._target.search_active
        )

    def key_press(self, event: QKeyEvent, base: Callable[[], None]) -> None:
        if event.key() == Qt.Key.Key_M and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            self._target.toggle_minimap()
            event.accept()
            return
        key = KEYS.get(Qt.Key(event.key()))
        model = self._target.model
        command = None
        if key is not None and model is not None and len(model.graph) > 0:
            order = self._target.visible_order()
            command = self.controller.key(
                model.graph, order, self._target.selected_node(), key, self._target.search_active
            )
        if command is None:
            base()
            return
        self.execute(command)
        event.accept()

    def _node_under(self, event: QMouseEvent) -> Node | None:
        return self._target.node_at(event.position().toPoint())

    def mouse_press(self, event: QMouseEvent, base: Callable[[], None]) -> None:
        view = self._view
        view.setFocus(Qt.FocusReason.MouseFocusReason)
        left = event.button() == Qt.MouseButton.LeftButton
        self._pan.press(self._scroll() if left else None)
        model = self._target.model
        if left and model is not None:
            self.execute(self.controller.press(model.graph, self._node_under(event)))
            if self.controller.dragging_pin:  # carry the pin: no panning under it
                view.setDragMode(QGraphicsView.DragMode.NoDrag)
                view.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
                event.accept()
                return
        base()

    def mouse_move(self, event: QMouseEvent, base: Callable[[], None]) -> None:
        base()
        if self._pan.moved(self._scroll()):
            self._target.user_moved()  # the hand dragged the canvas

    def mouse_release(self, event: QMouseEvent, base: Callable[[], None]) -> None:
        self._pan.release()
        if event.button() == Qt.MouseButton.LeftButton and self.controller.dragging_pin:
            self._view.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
            self._view.viewport().unsetCursor()
            model = self._target.model
            if model is not None:
                self.execute(self.controller.release(model.graph, self._node_under(event)))
            event.accept()
            return
        base()

    def double_click(self, event: QMouseEvent, base: Callable[[], None]) -> None:
        node = self._node_under(event)
        model = self._target.model
        if node is not None and model is not None:
            self.execute(self.controller.double_click(model.graph, node))
            event.accept()
            return
        base()

    def wheel(self, event: QWheelEvent, base: Callable[[], None]) -> None:
        """The desktop convention: the wheel scrolls (Shift: sideways), Ctrl+wheel zooms about the
        pointer; pinch gestures zoom too (:meth:`viewport_event`)."""
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            factor = wheel_zoom(event.angleDelta().y() or event.pixelDelta().y())
            if factor is not None:
                self._zoom(factor)
            event.accept()
            return
        before = self._scroll()
        base()
        if self._scroll() != before:
            self._target.user_moved()

    def viewport_event(self, event: QEvent) -> bool:
        """Tooltips (the hover preview) and zoom gestures; ``False`` leaves the event to Qt."""
        kind = event.type()
        if kind == QEvent.Type.ToolTip:
            node = self._target.node_at(event.pos())  # type: ignore[attr-defined]
            if node is None:
                QToolTip.hideText()
            else:
                QToolTip.showText(event.globalPos(), self._target.preview_text(node), self._view.viewport())  # type: ignore[attr-defined]
            return True
        if kind == QEvent.Type.Gesture:
            pinch = event.gesture(Qt.GestureType.PinchGesture)  # type: ignore[attr-defined]
            if isinstance(pinch, QPinchGesture) and isinstance(event, QGestureEvent):
                self._zoom(pinch.scaleFactor())
                return True
        if kind == QEvent.Type.NativeGesture:
            if event.gestureType() == Qt.NativeGestureType.ZoomNativeGesture:  # type: ignore[attr-defined]
                self._zoom(native_zoom(event.value()))  # type: ignore[attr-defined]
                return True
        return False
