"""Issue 10 item 8: while a reply streams, the outline, the minimap and the screen labels cost what
changed, not the whole session (counted, never timed)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester

import desktop_app.ui.graph.outline_panel as outline_panel
from desktop_app.session import SessionManager
from desktop_app.ui.graph import GraphView
from desktop_app.ui.graph.minimap import MinimapDrawing
from desktop_app.ui.graph.outline_panel import OutlinePanel

from .test_view import OpenCase, make_view


def _rows(panel: OutlinePanel) -> list[tuple[Any, ...]]:
    model = panel.list.model()
    out = []
    for i in range(model.rowCount()):
        index = model.index(i, 0)
        font = index.data(Qt.ItemDataRole.FontRole)
        out.append((index.data(), index.data(Qt.ItemDataRole.UserRole), index.data(Qt.ItemDataRole.ForegroundRole),
                    font is not None and font.bold()))
    return out


class _Signals:
    """What a model told its views: resets and the rows removed, inserted or changed."""

    def __init__(self, model: Any) -> None:
        self.resets = 0
        self.rows: list[tuple[str, int, int]] = []
        model.modelReset.connect(self._reset)
        model.rowsRemoved.connect(lambda _p, first, last: self.rows.append(("removed", first, last)))
        model.rowsInserted.connect(lambda _p, first, last: self.rows.append(("inserted", first, last)))
        model.dataChanged.connect(lambda a, b, _roles=(): self.rows.append(("changed", a.row(), b.row())))

    def _reset(self) -> None:
        self.resets += 1


def _append(manager: SessionManager, text: str) -> str:
    return manager.append_message({"role": "assistant", "content": [{"type": "text", "text": text}], "timestamp": 1})


def test_outline_touches_only_the_rows_an_append_changes(qtbot: Any, open_case: OpenCase) -> None:
    manager = open_case("gen-0031")
    view: GraphView = make_view(qtbot, manager)
    panel = OutlinePanel(view, view.graph_style)
    qtbot.addWidget(panel)
    QAbstractItemModelTester(panel.model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    panel.refresh()
    assert panel.list.model().rowCount() >= 10
    told = _Signals(panel.model)
    for step in range(3):  # a reply streaming at the leaf, the outline refreshed after each append
        _append(manager, f"streamed {step}")
        panel.refresh()
    assert told.resets == 0 and 0 < len(told.rows) <= 6  # the old leaf's row and the new one's, each time
    assert all(last - first <= 1 for _kind, first, last in told.rows)
    fresh = OutlinePanel(view, view.graph_style)
    qtbot.addWidget(fresh)
    fresh.refresh()
    assert _rows(panel) == _rows(fresh) and panel.items == fresh.items  # and say what a fresh list says
    told.rows.clear()
    panel.refresh()
    assert told.rows == [] and told.resets == 0 and _rows(panel) == _rows(fresh)  # nothing changed


def test_minimap_redraws_in_bounded_chunks_and_ends_with_the_same_picture(
    qtbot: Any, open_case: OpenCase, monkeypatch: Any
) -> None:
    import desktop_app.ui.graph.minimap as minimap

    manager = open_case("gen-0031")
    view = make_view(qtbot, manager)
    binding = view._minimap
    binding.redraw_now(view.graph())
    whole = binding.widget.image()
    assert whole is not None and len(view.positions()) > 40
    whole = whole.copy()
    monkeypatch.setattr(minimap, "CHUNK", 10)
    steps: list[int] = []
    original = minimap.MinimapDrawing.step

    def counted(self: Any, budget: int | None = None) -> bool:
        before = self.painted
        done = original(self, budget)
        steps.append(self.painted - before)
        return bool(done)

    monkeypatch.setattr(minimap.MinimapDrawing, "step", counted)
    binding.widget.show_picture(binding.widget._scene_rect, whole.copy())
    shown = binding.widget.image()
    for _ in range(5):  # a stream of appends asks again and again: one picture follows
        binding.redraw(view.graph())
    qtbot.waitUntil(lambda: binding.drawing is None and binding.widget.image() is not shown, timeout=5_000)
    assert len(steps) >= len(view.positions()) // 10  # the old minimap painted every dot in one turn
    assert max(steps) <= 10
    image = binding.widget.image()
    assert image is not None and image == whole  # the same picture as drawn in one go


def test_outline_row_gone_here_and_new_there_leaves_the_rows_between_alone(qtbot: Any, open_case: OpenCase) -> None:
    from desktop_app.present.outline import OutlineItem

    view = make_view(qtbot, open_case("gen-0004"))
    panel = OutlinePanel(view, view.graph_style)
    qtbot.addWidget(panel)
    model = panel.model
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)

    def item(i: int | str) -> OutlineItem:
        return OutlineItem(f"n{i}", f"e{i}", "leaf", "assistant", f"row {i}", False)

    old = [item(i) for i in range(100)]
    model.set_items(old)
    panel.list.setCurrentIndex(model.index(50))
    told = _Signals(model)
    new = old[:10] + old[11:90] + [item("x")] + old[90:]  # the old leaf's row goes, the new leaf's comes
    model.set_items(new)
    assert told.rows == [("removed", 10, 10), ("inserted", 89, 89)]  # not the 79 rows between
    assert told.resets == 0
    assert [row[0] for row in _rows(panel)] == [it.text for it in new]
    assert panel.list.currentIndex().data() == "row 50"  # the selection among them stays
    many = [item(f"y{i}") for i in range(100)]
    model.set_items(many)  # most of the list: one reset, not a signal per row
    assert told.resets == 1 and [row[0] for row in _rows(panel)] == [it.text for it in many]


def test_minimap_paints_only_the_appended_dots_onto_the_picture(
    qtbot: Any, open_case: OpenCase, monkeypatch: Any
) -> None:
    """An append that removes nothing, within the scene rect: the new and restyled nodes' dots go
    onto the picture on screen at once (no redraw of every dot), and it is the picture a full
    redraw gives. When the scene rect grows the whole picture is drawn again."""
    manager = open_case("gen-0031")
    view = make_view(qtbot, manager)
    binding = view._minimap
    _append(manager, "one")  # the scene rect grows (with room for more below)
    binding.redraw_now(view.graph())
    pixels = binding.widget.pixels()
    assert pixels is not None
    rect = view.graph_scene().sceneRect()
    written: list[int] = []
    original = MinimapDrawing._write

    def counted(self: Any, budget: int) -> int:
        written.append(original(self, budget))
        return written[-1]

    monkeypatch.setattr(MinimapDrawing, "_write", counted)
    for text in ("two", "three"):
        before = binding.widget.image()
        _append(manager, text)
        assert view.graph_scene().sceneRect() == rect  # still inside: the touch-up way
        assert binding.drawing is None and not binding._timer.isActive()
        assert binding.widget.pixels() is pixels  # written onto, not drawn afresh
        assert binding.widget.image() is not before  # and shown at once
        assert 0 < written[-1] <= 3  # the new node and the restyled ones, not every dot
    touched = binding.widget.image()
    assert touched is not None
    binding.redraw_now(view.graph())
    redrawn = binding.widget.image()
    assert redrawn is not None and binding.widget.pixels() is not pixels and redrawn == touched
    blank = touched.copy()
    blank.fill(0)
    assert touched != blank

    for i in range(40):  # past the slack: the rect grows, a whole redraw is due
        _append(manager, f"more {i}")
    assert view.graph_scene().sceneRect() != rect
    qtbot.waitUntil(lambda: binding.drawing is None and not binding._timer.isActive(), timeout=5_000)
    assert binding.widget.picture_rect == view.graph_scene().sceneRect()


def test_a_long_outline_follows_a_stream_at_most_once_a_second(qtbot: Any, open_case: OpenCase) -> None:
    """A short outline follows layouts 150 ms later, a long one (7,000 landmarks at 100,000
    entries: a ~10 ms refresh) a second later; later layouts meanwhile never push it back, so
    the list still follows a stream."""
    from desktop_app.present.outline import OutlineItem

    view = make_view(qtbot, open_case("gen-0004"))
    panel = OutlinePanel(view, view.graph_style)
    qtbot.addWidget(panel)
    panel.refresh()
    assert 0 < len(panel.items) <= outline_panel._BIG_OUTLINE
    panel._on_layout("incremental")
    assert panel._timer.isActive() and panel._timer.interval() == 150
    panel._timer.stop()
    panel.model.set_items([OutlineItem(f"n{i}", f"e{i}", "leaf", "assistant", f"row {i}", False) for i in range(1_001)])
    panel._on_layout("incremental")
    assert panel._timer.interval() == outline_panel._BIG_OUTLINE_DELAY_MS
    left = panel._timer.remainingTime()
    qtbot.wait(30)
    panel._on_layout("incremental")  # another append: the refresh already due is not put off
    assert panel._timer.isActive() and panel._timer.remainingTime() < left


def test_outline_rows_elide_to_the_list_width_with_the_whole_text_on_hover(qtbot: Any, open_case: OpenCase) -> None:
    """Issue 22 Found 10: rows were cut behind a sideways scroll bar; now each row is as wide as the
    list (the delegate elides it) and its tooltip holds the whole text, as text."""
    manager = open_case("gen-0031")
    _append(manager, "<img src='file:///tmp/red.png'> a very long last reply " + "word " * 40)
    view: GraphView = make_view(qtbot, manager)
    panel = OutlinePanel(view, view.graph_style)
    qtbot.addWidget(panel)
    panel.resize(220, 500)
    panel.show()
    panel.refresh()
    qtbot.waitUntil(lambda: panel.list.model().rowCount() > 0)
    listing = panel.list
    assert listing.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    width = listing.viewport().width()
    model = listing.model()
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        assert listing.visualRect(index).width() <= width
        tip = index.data(Qt.ItemDataRole.ToolTipRole)
        text = index.data()
        assert tip.startswith(text) or (tip.startswith('<p style="white-space:pre-wrap">') and "&lt;img" in tip)
    tips = [model.index(r, 0).data(Qt.ItemDataRole.ToolTipRole) for r in range(model.rowCount())]
    assert any("a very long last reply " + "word " * 39 in tip for tip in tips)  # the whole text, not the row's 44
