"""``LayerTrash``: a replaced picture's items deleted a slice per event-loop turn, not at once.

Deleting 20,000 items in one go stalls the event loop for ~100 ms (a branch switch at 100,000
entries). A big layer is hidden and emptied :data:`DISCARD_STEP` items per turn instead, from the
scene's own list of what it made (asking Qt for a layer's 10,000 children makes as many Python
wrappers, each turn).
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene

__all__ = ["DISCARD_DELAY_MS", "DISCARD_STEP", "LayerTrash"]

#: Items deleted per event-loop turn when a big picture is replaced (~3-4 ms; 1,500 took ~10 ms).
DISCARD_STEP = 500
#: The deleting starts this long after the replacement: the new picture's first paint (and the
#: rest of a branch switch) comes first.
DISCARD_DELAY_MS = 50


class LayerTrash:
    """Replaced layers of ``scene`` being emptied, each with the items still in it."""

    def __init__(self, scene: QGraphicsScene) -> None:
        self._scene = scene
        self._queue: list[tuple[QGraphicsItem, list[QGraphicsItem]]] = []

    @property
    def busy(self) -> bool:
        """Items of a replaced picture are still being deleted (hidden meanwhile)."""
        return bool(self._queue)

    def discard(self, layer: QGraphicsItem, items: list[QGraphicsItem]) -> None:
        """Take a replaced layer off the picture (``items``: its children, as the scene made them)."""
        if len(items) <= DISCARD_STEP:
            self._scene.removeItem(layer)
            return
        layer.setVisible(False)
        self._queue.append((layer, items))
        if len(self._queue) == 1:
            QTimer.singleShot(DISCARD_DELAY_MS, self._scene, self._empty)

    def _empty(self) -> None:
        if not self._queue:
            return
        scene = self._scene
        layer, items = self._queue[0]
        cut = max(len(items) - DISCARD_STEP, 0)
        for item in items[cut:]:
            if item.scene() is scene:  # not already taken out (a node removed since)
                scene.removeItem(item)
        del items[cut:]
        if not items:
            self._queue.pop(0)
            scene.removeItem(layer)  # with anything else still in it
        if self._queue:
            QTimer.singleShot(0, scene, self._empty)
