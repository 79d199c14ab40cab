"""The audit's captions never cover each other, wherever the canvas is scrolled (issue 22, Found 6
and 14: at 1280×800 the summarized band's caption pinned to the top edge was painted under the kept
band's, "▲ sumkept word for word · 7 entries")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.present.lod import Rect
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import pump


@pytest.fixture
def window(real_window: MainWindow) -> MainWindow:
    return real_window


def _clash(a: Rect, b: Rect) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


def test_captions_never_cover_each_other_while_scrolling(window: MainWindow) -> None:
    path = Path(window.session.session_file or "")
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    compactions = [entry["id"] for entry in lines if entry.get("type") == "compaction"]
    assert compactions
    bar = window.graph.verticalScrollBar()
    seen = 0
    for compaction in compactions:
        window.graph.select(compaction, center=True, notify=True)
        pump(20)
        centred = bar.value()  # the bands and the cut lie around the compaction: scroll them past the edges
        for value in range(max(bar.minimum(), centred - 700), min(bar.maximum(), centred + 700) + 1, 20):
            bar.setValue(value)
            window.graph.viewport().repaint()
            captions = window.graph.audit_captions()
            seen += len(captions) >= 2
            for i, (text, rect) in enumerate(captions):
                for other, other_rect in captions[i + 1 :]:
                    assert not _clash(rect, other_rect), (compaction, value, text, other)
    assert seen  # two or more captions were on screen together
