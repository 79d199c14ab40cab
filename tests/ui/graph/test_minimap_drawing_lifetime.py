"""A minimap picture dropped half-drawn (the window closes, the graph is replaced) must not crash
Qt: a QPainter kept open across event-loop turns outlived its QImage ("QPaintDevice: Cannot
destroy paint device that is being painted", then SIGSEGV in the branch-switch benchmark). Run in
a child process, so the crash it guards against fails this test instead of killing the suite."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

CHILD = textwrap.dedent(
    """
    import gc
    from PySide6.QtCore import QRectF
    from PySide6.QtWidgets import QApplication
    from desktop_app.ui.graph.minimap import Minimap, MinimapDrawing
    from desktop_app.ui.graph.style import default_style

    app = QApplication([])
    for round in range(20):
        widget = Minimap(default_style(), lambda point: None)
        positions = {n: (float(n % 50) * 10, float(n // 50) * 10) for n in range(5_000)}
        drawing = MinimapDrawing(widget, QRectF(0, 0, 500, 1000), positions, lambda n: "", lambda n: False)
        assert not drawing.step(100)  # half-drawn
        del drawing, widget
        gc.collect()
    # and a complete drawing shows every dot
    widget = Minimap(default_style(), lambda point: None)
    drawing = MinimapDrawing(widget, QRectF(0, 0, 500, 1000), positions, lambda n: "", lambda n: True)
    while not drawing.step(700):
        pass
    assert drawing.painted == 5_000 and widget.image() is drawing.image
    print("ok")
    """
)


def test_a_half_drawn_minimap_picture_can_be_dropped() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("ok")
