"""The context lens's heat strip on the canvas: a bar left of every node in the context, yellow to
red by its tokens (screen space, at least 3 px tall, so it reads as a strip along the path at any
zoom). Moved out of :class:`~.view.GraphView` (issue 22: no class in ``ui/`` over 500 lines)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QTransform

from desktop_app.present.lens import heat
from desktop_app.present.viewgraph import Node

from .scene import GraphScene

__all__ = ["HeatStrip"]

_COLD, _HOT = QColor("#ffe066"), QColor("#e03131")


class HeatStrip:
    """Tokens per entry (``None``: off), mapped to the scene's nodes once per picture."""

    def __init__(self) -> None:
        self.tokens: dict[str, int] | None = None
        self._nodes: dict[Node, int] = {}
        self._version = -1

    def set(self, tokens_by_entry: dict[str, int] | None) -> None:
        self.tokens = tokens_by_entry
        self._version = -1

    def _per_node(self, scene: GraphScene) -> dict[Node, int]:
        assert self.tokens is not None
        if self._version != scene.version:
            self._version = scene.version
            graph = scene.graph
            nodes: dict[Node, int] = {}
            for entry, tokens in self.tokens.items():
                node = graph.node_for_entry(entry)
                if node is not None:
                    nodes[node] = nodes.get(node, 0) + tokens
            self._nodes = nodes
        return self._nodes

    def paint(self, painter: QPainter, scene: GraphScene, transform: QTransform, viewport: QRectF) -> None:
        """Onto ``painter`` in viewport pixels (``transform``: the view's, scene → viewport)."""
        if not self.tokens:
            return
        per_node = self._per_node(scene)
        if not per_node:
            return
        hottest = max(per_node.values())
        scale, dx, dy = transform.m11(), transform.m31(), transform.m32()
        spec = scene.graph_style.spec
        half_w, half_h = spec.node_width / 2 * scale, max(spec.node_height / 2 * scale, 1.5)
        area = viewport.adjusted(-20, -20, 20, 20)
        painter.setPen(Qt.PenStyle.NoPen)
        for node, tokens in per_node.items():
            at = scene.positions.get(node)
            if at is None:
                continue
            x, y = at[0] * scale + dx, at[1] * scale + dy
            if not area.contains(x, y):
                continue
            k = heat(tokens, hottest)
            color = QColor(
                round(_COLD.red() + (_HOT.red() - _COLD.red()) * k),
                round(_COLD.green() + (_HOT.green() - _COLD.green()) * k),
                round(_COLD.blue() + (_HOT.blue() - _COLD.blue()) * k),
            )
            width = 4.0 + 6.0 * k
            painter.setBrush(color)
            painter.drawRect(QRectF(x - half_w - 6 - width, y - half_h, width, 2 * half_h))
