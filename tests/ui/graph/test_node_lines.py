"""A node shows its text on two wrapped lines, the second elided (issue 22 item 10: "nodes show two
wrapped lines"), laid out once per text and not once per paint."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter
from PySide6.QtWidgets import QStyleOptionGraphicsItem

from desktop_app.agent.startup import SAMPLE_SESSION
from desktop_app.present.lod import FULL_SCALE, Detail, detail_for
from desktop_app.present.viewgraph import ViewNode
from desktop_app.ui.graph import node_lines
from desktop_app.ui.graph.items import NodeItem
from desktop_app.ui.graph.node_lines import two_lines
from desktop_app.ui.graph.style import default_style
from desktop_app.ui.testing import pump

LONG = (
    "Summarize the whole plan in five bullet points, with the train times from Rossio and the "
    "price of every ticket we still need to buy before Thursday"
)


def _fits(line: str, metrics: QFontMetricsF, width: float) -> bool:
    return metrics.horizontalAdvance(line) <= width + 0.5


@pytest.mark.parametrize("width", [120.0, 196.0, 300.0])
def test_long_text_wraps_at_a_word_and_the_second_line_is_elided(qtbot: Any, width: float) -> None:
    font = default_style().font
    metrics = QFontMetricsF(font)
    first, second = two_lines(LONG, font, width)
    assert _fits(first, metrics, width) and _fits(second, metrics, width)
    assert LONG.startswith(first) and LONG[len(first)] == " "  # broken at a word boundary
    assert second.endswith("…") and LONG[len(first) :].lstrip().startswith(second[:-1].rstrip())
    # the first line holds as many words as fit: the next word would not have
    next_word = LONG[len(first) :].split()[0]
    assert not _fits(first + " " + next_word, metrics, width)


def test_short_text_is_one_line_and_two_lines_that_fit_are_not_elided(qtbot: Any) -> None:
    font = default_style().font
    assert two_lines("Now day two.", font, 196.0) == ("Now day two.",)
    assert two_lines("", font, 196.0) == ("",)
    text = "Let's do Sintra for day three instead."
    lines = two_lines(text, font, 196.0)
    assert len(lines) == 2 and " ".join(lines) == text and "…" not in lines[1]


def test_a_word_longer_than_the_line_is_broken_anywhere(qtbot: Any) -> None:
    font = default_style().mono_font
    metrics = QFontMetricsF(font)
    path = "src/" + "deeply_nested_folder/" * 8 + "file.ts"  # no space to break at
    first, second = two_lines(path, font, 150.0)
    assert first and path.startswith(first) and _fits(first, metrics, 150.0)
    assert second.endswith("…") and _fits(second, metrics, 150.0)


def test_text_beyond_the_basic_plane_is_cut_on_characters(qtbot: Any) -> None:
    """Qt counts UTF-16 units; Python counts code points: an emoji before the break must not shift it."""
    font = default_style().font
    text = "🌳🌳🌳 the tree " + "grows another branch and " * 6
    first, second = two_lines(text, font, 196.0)
    assert text.startswith(first) and text[len(first)] == " "
    assert text[len(first) :].lstrip().startswith(second.rstrip("…").rstrip())


def test_wrapping_is_cached_not_done_on_every_paint(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """20,000-entry sessions must not draw slower: a node is laid out once; repaints reuse it."""
    calls: list[str] = []
    real = node_lines._wrap

    def counting(text: str, *args: Any) -> tuple[str, ...]:
        calls.append(text)
        return real(text, *args)

    monkeypatch.setattr(node_lines, "_wrap", counting)
    style = default_style()
    item = NodeItem("a", ViewNode("user", LONG + " (cached)", ("a",)), style)
    for _ in range(5):
        _paint(item, 1.0)
    assert calls == [LONG + " (cached)"]
    for i in range(node_lines.CACHED_LAYOUTS + 10):  # bounded: old layouts fall out
        two_lines(f"text {i}", style.font, 50.0)
    assert len(node_lines._cache) == node_lines.CACHED_LAYOUTS


def _paint(item: NodeItem, scale: float) -> QImage:
    rect = item.boundingRect()
    image = QImage(int(rect.width() * scale) + 2, int(rect.height() * scale) + 2, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.scale(scale, scale)
    painter.translate(-rect.topLeft())
    item.paint(painter, QStyleOptionGraphicsItem(), None)
    painter.end()
    return image


def _text_bands(image: QImage, area: QRectF, ink: QColor) -> int:
    """Runs of pixel rows in ``area`` with pixels close to the text colour ``ink``."""
    bands, inside = 0, False
    for y in range(int(area.top()), int(area.bottom())):
        dark = any(
            abs(QColor(image.pixel(x, y)).lightness() - ink.lightness()) < 40
            for x in range(int(area.left()), int(area.right()))
        )
        if dark and not inside:
            bands += 1
        inside = dark
    return bands


@pytest.mark.parametrize("kind", ["user", "assistant", "toolResult"])
def test_a_node_at_the_opening_zoom_shows_two_lines_of_its_text(qtbot: Any, kind: str) -> None:
    """A session opens at 100 % (the nodes write their own text there): a long text reads as two
    lines inside the node's box, under the kind's tag."""
    assert detail_for(1.0) is Detail.FULL and FULL_SCALE <= 1.0
    style = default_style()
    item = NodeItem("a", ViewNode(kind, LONG, ("a",)), style)
    image = _paint(item, 1.0)
    body = item.body.translated(-item.boundingRect().topLeft())
    # the text lines, below the tag line (cards) or inside the pill; clear of the box's border
    area = QRectF(body.left() + 30, body.top() + (19 if kind != "toolResult" else 9), body.width() - 60, 0)
    area.setBottom(body.bottom() - (3 if kind != "toolResult" else 9))
    ink = style.kind(kind).text if kind != "toolResult" else style.text
    assert _text_bands(image, area, ink) == 2


def test_the_node_box_has_room_for_a_tag_and_two_lines(qtbot: Any) -> None:
    style = default_style()
    spec = style.spec
    line = QFontMetricsF(style.font).lineSpacing()
    assert spec.node_height - 22 >= 2 * line  # the body below the tag (items.NodeItem._paint_text)
    item = NodeItem("a", ViewNode("user", LONG, ("a",)), style)
    assert item.body.contains(QPointF(0, 0)) and item.body.height() == spec.node_height


def test_an_elided_node_is_read_whole_in_the_reader_or_its_preview(qtbot: Any, tmp_path: Path) -> None:
    """What two lines cannot hold is one click away (the reader: the whole text) or one hover (the
    preview: its start, far more than two lines)."""
    from tests.ui.test_steering import _click, _open, wait_until

    path = tmp_path / "sample.jsonl"
    shutil.copyfile(SAMPLE_SESSION, path)
    window = _open(path)
    try:
        graph = window.graph
        assert detail_for(graph.zoom()) is Detail.FULL  # a session opens where nodes write their text
        leaf = graph.graph().leaf_node
        assert isinstance(leaf, str)
        view = graph.graph().nodes[leaf]
        style = graph.graph_style
        lines = two_lines(view.text, style.font, style.spec.node_width - 24)  # the card's text width
        assert len(lines) == 2 and lines[1].endswith("…")  # the leaf's text does not fit its node
        assert "120 EUR/day" in graph.preview_text(leaf)
        _click(window, leaf)
        assert wait_until(lambda: window.steering.reader.entry_id() == leaf)
        assert "~120 EUR/day" in window.steering.reader.text()
    finally:
        window.close()
        pump(50)
