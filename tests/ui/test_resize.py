"""Issue 9.7: after resizing the window to 900×600 the graph pane showed nothing but the minimap."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtGui import QColor

from desktop_app.ui.testing import open_window, pump
from tests.ui.conformance_cases import FIXTURES
from tests.ui.graph.test_view import colourful_pixels


def test_the_graph_stays_drawn_after_a_resize_to_900x600(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copyfile(FIXTURES / "gen-0031.jsonl", path)
    window = open_window(path, size=(1600, 1000))
    try:
        graph = window.graph
        graph.set_use_dot(False)
        for fit in (False, True):
            window.resize(1600, 1000)
            pump(50)
            if fit:
                graph.fit_all()
            else:
                graph.center_on_leaf()
            pump(50)  # painted: what the user saw before the resize
            window.resize(900, 600)
            pump(100)
            viewport = graph.viewport()
            pin = graph.pin_center()
            assert pin is not None and viewport.rect().contains(pin), (fit, pin)
            minimap = graph.minimap_widget()
            if minimap.isVisible():
                assert not minimap.geometry().translated(-viewport.pos()).contains(pin)
            image = viewport.grab().toImage()
            differing, colours = colourful_pixels(image, QColor(graph.backgroundBrush().color()))
            assert differing > 200 and colours >= 2, (fit, differing, colours)
    finally:
        window.close()
        pump(50)
