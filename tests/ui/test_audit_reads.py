"""The compaction audit reads at a glance (issue 22, Found 5, 6 and 14): selected by a click on a
pi-written session, its summary is rendered once as markdown in the reader's place, the chat keeps a
readable height, and the canvas names both bands — wherever they are scrolled."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtTest import QTest

from desktop_app.ui.graph.outline_panel import Legend
from desktop_app.ui.main_window import CHAT_MIN_HEIGHT, MainWindow
from desktop_app.ui.testing import pump
from tests.ui.driving import compactions_in


@pytest.fixture
def window(real_window: MainWindow) -> MainWindow:
    return real_window


def test_a_clicked_compaction_reads_once_rendered_with_both_bands_named(window: MainWindow) -> None:
    compactions = compactions_in(window.session.session_file or "")
    assert compactions
    for compaction in compactions:
        assert window.graph.reveal(compaction)
        point = window.graph.node_center(compaction)
        assert point is not None
        QTest.mouseClick(window.graph.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
        pump(30)
        reader = window.steering.reader
        assert reader.detail_shown() and window.audit_panel.isVisible()  # the audit in the reader's place
        text = window.audit_panel.text()
        assert "Goal" in text and "## Goal" not in text  # rendered, once
        assert reader.text().count("## Goal") <= 1 and not reader._body.isVisible()  # the raw text is not shown too
        assert window.chat.height() >= CHAT_MIN_HEIGHT
        words = " | ".join(text for text, _rect in window.graph.audit_captions())
        assert "summarized" in words and "kept" in words, words
        inside = QRectF(window.graph.viewport().rect())
        for caption, rect in window.graph.audit_captions():
            assert inside.contains(QRectF(rect.x, rect.y, rect.w, rect.h)), caption
        assert window.audit_panel._made_by.text() in ("pi 0.73.1", "pi 0.73.1 or earlier")  # no pi 1.6.0 fields


def test_a_plain_node_after_a_compaction_shows_its_own_text(window: MainWindow) -> None:
    compaction = compactions_in(window.session.session_file or "")[0]
    window.graph.select(compaction, center=True, notify=True)
    pump(20)
    assert window.steering.reader.detail_shown()
    leaf = window.session.leaf_id
    assert leaf is not None
    window.graph.select(leaf, center=True, notify=True)
    pump(20)
    assert not window.steering.reader.detail_shown() and not window.audit_panel.isVisible()


def test_the_legend_shows_the_audit_bands() -> None:
    words = [text for _shape, _kind, text in Legend.ROWS]
    shapes = [shape for shape, _kind, _text in Legend.ROWS]
    assert "summarized by a compaction" in words and "kept word for word after it" in words
    assert "summarized" in shapes and "kept" in shapes
