"""The minimap writes its dots as bytes (no Qt call per dot): they must land where the nodes are, in
their colours, and nowhere else."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor

from desktop_app.ui.graph.minimap import Minimap, MinimapDrawing
from desktop_app.ui.graph.style import default_style


def test_dots_land_on_the_nodes_in_their_kind_or_active_colour(qtbot: Any) -> None:
    style = default_style()
    widget = Minimap(style, lambda point: None)
    qtbot.addWidget(widget)
    rect = QRectF(-100, 50, 1000, 700)
    positions = {"a": (-100.0, 50.0), "b": (400.0, 400.0), "c": (900.0, 750.0), "d": (150.0, 600.0)}
    kinds = {"a": "user", "b": "assistant", "c": "compaction", "d": "user"}
    drawing = MinimapDrawing(widget, rect, positions, lambda n: kinds[n], lambda n: n == "d")
    assert not drawing.step(2)  # two dots per turn: not finished, nothing shown yet
    assert widget.image() is None
    calls = 2
    while not drawing.step(2):  # the plain dots, then the active path's and the landmark's over them
        calls += 1
    assert calls == 3
    image = widget.image()
    assert image is not None and image.size() == widget.size()
    target = widget.target_for(rect)
    sx, sy = target.width() / rect.width(), target.height() / rect.height()
    for node, (x, y) in positions.items():
        px = target.left() + (x - rect.left()) * sx
        py = target.top() + (y - rect.top()) * sy
        want = style.active if node == "d" else style.kind(kinds[node]).accent
        assert image.pixelColor(int(px), int(py)).rgba() == QColor(want).rgba(), node
    coloured = sum(
        1 for x in range(image.width()) for y in range(image.height()) if image.pixelColor(x, y).alpha() > 0
    )
    # a small graph: a 3×3 dot each, the active path's 4×4 and a landmark's 5×5; none lost off the edge
    assert coloured == 3 * 3 + 3 * 3 + 5 * 5 + 4 * 4


def test_a_dot_at_the_pictures_edge_is_clipped_not_wrapped_to_the_next_row(qtbot: Any) -> None:
    widget = Minimap(default_style(), lambda point: None)
    qtbot.addWidget(widget)
    pixels = bytearray(widget.width() * widget.height() * 4)
    drawing = MinimapDrawing(widget, QRectF(0, 0, 100, 100), {"x": (0.0, 0.0)}, lambda n: "user", lambda n: False)
    drawing._left = drawing._top = 0.0  # the node's dot centred on the picture's corner
    drawing.pixels = pixels
    assert drawing.step()
    image = widget.image()
    assert image is not None
    lit = {(x, y) for x in range(image.width()) for y in range(image.height()) if image.pixelColor(x, y).alpha()}
    assert lit == {(0, 0), (1, 0), (0, 1), (1, 1)}  # the 3×3 dot's quarter inside the picture
