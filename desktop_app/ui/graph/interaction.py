"""Direct manipulation on the graph canvas beyond click, double-click and the leaf pin.

An event filter on the :class:`~.view.GraphView` and its viewport (installed by the window with
one line, ``GraphInteraction(window.graph, lambda: agent.view, drop_target)``), so the canvas itself stays a thin adapter:

* **Node menu**: right-click on a node, the Menu key or Shift+F10 (on the selection, else the
  leaf) emit ``menu_requested(entry_id, global_pos)``; the window builds the menu from
  ``present/node_menu``.
* **Rubber band**: Shift+drag draws a rectangle; on release the nodes whose centre it covers are
  outlined and ``band_selected(BandSelection)`` says which entries and how many tokens.
* **Undo/redo of leaf moves** (Ctrl+Z / Ctrl+Shift+Z) while the canvas has the keyboard:
  ``history_step(-1 | +1)``.
* **Drag a node out**: a drag that starts on a node other than the leaf (the leaf's drag is the pin,
  handled by the canvas) no longer pans; released over a drop target the window names (the
  toolbar's Fork) it emits ``node_dropped(entry_id)``.

A plain drag on empty canvas still pans (the canvas's hand drag), as before.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt, Signal
from PySide6.QtGui import QColor, QContextMenuEvent, QKeyEvent, QKeySequence, QMouseEvent, QPen
from PySide6.QtWidgets import QApplication, QGraphicsRectItem, QRubberBand

from desktop_app.present.rubber_band import BandSelection, band_selection, nodes_in_rect
from desktop_app.present.viewgraph import Node
from desktop_app.session import SessionView

from .view import GraphView

__all__ = ["GraphInteraction"]

DropTarget = Callable[[QPoint], bool]


class GraphInteraction(QObject):
    """Menu, rubber band and node drag on ``view`` (see the module docstring)."""

    menu_requested = Signal(str, QPoint)
    band_selected = Signal(object)
    node_dropped = Signal(str)
    #: A carried node is over the drop target (``True``) or left it (``False``): highlight it.
    drag_over = Signal(bool)
    #: Undo (-1) or redo (+1) of a leaf move asked for on the canvas (when the window's shortcut
    #: did not take the keys first).
    history_step = Signal(int)

    def __init__(
        self, view: GraphView, session: Callable[[], SessionView | None], drop_target: DropTarget | None = None
    ) -> None:
        super().__init__(view)
        self._view = view
        self._session = session
        self._drop_target = drop_target
        self._band: QRubberBand | None = None
        self._band_origin = QPoint()
        self._band_items: list[QGraphicsRectItem] = []
        self.selection: BandSelection | None = None
        self._press_node: Node | None = None
        self._press_pos = QPoint()
        self._dragging_node = False
        self._over_target = False
        self._viewport = view.viewport()  # kept: the view may be half-destroyed when late events come
        view.installEventFilter(self)
        self._viewport.installEventFilter(self)

    # ================================================================================ dispatch

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if watched is not self._viewport and watched is not self._view:
            return False
        kind = event.type()
        if kind == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            return self._key(event)
        if kind == QEvent.Type.ContextMenu and isinstance(event, QContextMenuEvent):
            return self._context_menu(watched, event)
        if watched is not self._viewport or not isinstance(event, QMouseEvent):
            return False
        if kind == QEvent.Type.MouseButtonPress:
            return self._press(event)
        if kind == QEvent.Type.MouseMove:
            return self._move(event)
        if kind == QEvent.Type.MouseButtonRelease:
            return self._release(event)
        return False

    def _node_at(self, pos: QPoint) -> Node | None:
        return self._view.graph_scene().node_at(self._view.mapToScene(pos))

    # ================================================================================ menu

    def _key(self, event: QKeyEvent) -> bool:
        if event.matches(QKeySequence.StandardKey.Undo):
            self.history_step.emit(-1)
            return True
        if event.matches(QKeySequence.StandardKey.Redo) or (
            event.key() == Qt.Key.Key_Z
            and event.modifiers() == Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
        ):
            self.history_step.emit(1)
            return True
        shift_f10 = event.key() == Qt.Key.Key_F10 and event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        if event.key() != Qt.Key.Key_Menu and not shift_f10:
            return False
        self._menu_from_keyboard()
        return True

    def _menu_from_keyboard(self) -> None:
        graph = self._view.graph()
        entry_id = self._view.selected_entry() or graph.entry_of(graph.leaf_node)
        if entry_id is None:
            return
        node = self._view.select(entry_id, center=True, notify=True)
        position = self._view.mapFromScene(*self._view.graph_scene().positions[node]) if (
            node is not None and node in self._view.graph_scene().positions
        ) else self._viewport.rect().center()
        self.menu_requested.emit(entry_id, self._viewport.mapToGlobal(position))

    def _context_menu(self, watched: QObject, event: QContextMenuEvent) -> bool:
        if event.reason() != QContextMenuEvent.Reason.Mouse:
            self._menu_from_keyboard()
            return True
        if watched is not self._viewport:
            return False
        node = self._node_at(event.pos())
        entry_id = self._view.graph().entry_of(node)
        if entry_id is None:
            return True
        self._view.select(entry_id, center=False, notify=True)
        self.menu_requested.emit(entry_id, event.globalPos())
        return True

    # ================================================================================ mouse

    def _press(self, event: QMouseEvent) -> bool:
        if event.button() != Qt.MouseButton.LeftButton:
            return False
        pos = event.position().toPoint()
        self.clear_band()
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self._band_origin = pos
            self._band = QRubberBand(QRubberBand.Shape.Rectangle, self._viewport)
            self._band.setGeometry(QRect(pos, pos))
            self._band.show()
            return True
        node = self._node_at(pos)
        graph = self._view.graph()
        self._press_node = node if node is not None and node != graph.leaf_node else None
        self._press_pos = pos
        self._dragging_node = False
        return False  # the canvas selects (and picks up the pin on the leaf)

    def _move(self, event: QMouseEvent) -> bool:
        pos = event.position().toPoint()
        if self._band is not None:
            self._band.setGeometry(QRect(self._band_origin, pos).normalized())
            return True
        if self._press_node is None:
            return False
        if not self._dragging_node:
            if (pos - self._press_pos).manhattanLength() < QApplication.startDragDistance():
                return True
            self._dragging_node = True
            self._viewport.setCursor(Qt.CursorShape.DragMoveCursor)
        self._set_over(self._drop_target is not None and self._drop_target(self._viewport.mapToGlobal(pos)))
        return True  # a node is carried: the canvas does not pan

    def _set_over(self, over: bool) -> None:
        if over != self._over_target:
            self._over_target = over
            self.drag_over.emit(over)

    def _release(self, event: QMouseEvent) -> bool:
        if event.button() != Qt.MouseButton.LeftButton:
            return False
        pos = event.position().toPoint()
        if self._band is not None:
            self._finish_band(QRect(self._band_origin, pos).normalized())
            return True
        node, dragging = self._press_node, self._dragging_node
        self._press_node, self._dragging_node = None, False
        if dragging:
            self._viewport.unsetCursor()
            self._set_over(False)
            entry_id = self._view.graph().entry_of(node)
            target = self._drop_target
            if entry_id is not None and target is not None and target(self._viewport.mapToGlobal(pos)):
                self.node_dropped.emit(entry_id)
        return False

    # ================================================================================ rubber band

    def _finish_band(self, rect: QRect) -> None:
        assert self._band is not None
        self._band.hide()
        self._band.deleteLater()
        self._band = None
        scene_rect = self._view.mapToScene(rect).boundingRect()
        scene = self._view.graph_scene()
        nodes = nodes_in_rect(scene.positions, scene_rect.left(), scene_rect.top(), scene_rect.right(), scene_rect.bottom())
        session = self._session()
        if session is None:
            return
        self.selection = band_selection(session, self._view.graph(), nodes)
        pen = QPen(QColor("#1f6feb"), 2.0, Qt.PenStyle.DashLine)
        for node in self.selection.nodes:
            item = QGraphicsRectItem(scene.node_rect(node).adjusted(-4, -4, 4, 4))
            item.setPen(pen)
            item.setZValue(5.0)
            scene.addItem(item)
            self._band_items.append(item)
        self.band_selected.emit(self.selection)

    def clear_band(self) -> None:
        """Remove the outlines of the last rubber-band selection."""
        scene = self._view.graph_scene()
        for item in self._band_items:
            if item.scene() is scene:
                scene.removeItem(item)
        self._band_items.clear()
        self.selection = None
