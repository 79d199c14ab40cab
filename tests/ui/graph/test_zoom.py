"""Semantic zoom on the real canvas: screen-size labels far out, wheel scrolls, Ctrl+wheel zooms,
Esc clears a search even though the window binds Esc to Stop (pytest-qt, offscreen)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from desktop_app.present.lod import Detail
from desktop_app.ui.graph import GraphView

from .test_view import OpenCase, make_view


def wheel(view: GraphView, dy: int, modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    viewport = view.viewport()
    at = QPointF(viewport.width() / 2, viewport.height() / 2)
    event = QWheelEvent(
        at, QPointF(viewport.mapToGlobal(at.toPoint())), QPoint(0, 0), QPoint(0, dy),
        Qt.MouseButton.NoButton, modifiers, Qt.ScrollPhase.NoScrollPhase, False,
    )
    QApplication.sendEvent(viewport, event)


def test_wheel_scrolls_and_ctrl_wheel_zooms(qtbot: Any, open_case: OpenCase) -> None:
    view = make_view(qtbot, open_case("gen-0004"))
    view.resetTransform()
    view.center_on_leaf()
    bar = view.verticalScrollBar()
    assert bar.maximum() > 0
    before, zoom = bar.value(), view.zoom()
    wheel(view, 120)  # one notch up
    assert view.zoom() == zoom
    assert bar.value() < before
    wheel(view, -240)
    assert bar.value() > before - 1
    wheel(view, 120, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom() > zoom
    wheel(view, -480, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom() < zoom


def test_far_out_only_landmarks_are_written_at_screen_size(qtbot: Any, open_case: OpenCase) -> None:
    view = make_view(qtbot, open_case("gen-0031"))
    view.zoom_by(0.1 / view.zoom())
    view.center_on_leaf()
    QApplication.processEvents()
    assert view.detail() is Detail.LANDMARKS
    labels = view.screen_labels()
    assert labels
    assert labels[0].mark.role == "active-leaf"
    assert all(p.mark.is_landmark for p in labels)
    kinds = {p.mark.role for p in labels}
    assert "compaction" in kinds
    for a, b in combinations(labels, 2):
        assert not a.rect.intersects(b.rect)
    view.zoom_by(0.5 / view.zoom())
    assert view.detail() is Detail.GROUPS
    nearer = view.screen_labels()
    assert any(not p.mark.is_landmark for p in nearer)
    view.zoom_by(1.0 / view.zoom())
    assert view.detail() is Detail.FULL and view.screen_labels() == []


def test_escape_clears_the_search_on_the_canvas(qtbot: Any, open_case: OpenCase) -> None:
    view = make_view(qtbot, open_case("gen-0004"))
    assert view.search("compaction") > 0
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert view.matches() == []


# --------------------------------------------------------------------------- minimap


def _pin_rect_clear_of_minimap(view: GraphView) -> bool:
    pin = view.pin_center()
    minimap = view.minimap_widget()
    if pin is None or not minimap.isVisible():
        return True
    frame = minimap.geometry().translated(-view.viewport().pos())
    return not frame.adjusted(-10, -10, 10, 10).contains(pin)


def test_m_toggles_the_minimap_and_small_panes_hide_it(qtbot: Any, open_case: OpenCase) -> None:
    view = make_view(qtbot, open_case("gen-0031"))
    view.fit_all()
    assert view.minimap_widget().isVisible()
    view.setFocus()
    qtbot.keyClick(view.viewport(), Qt.Key.Key_M)
    assert not view.minimap_widget().isVisible() and not view.minimap_wanted()
    qtbot.keyClick(view.viewport(), Qt.Key.Key_M)
    assert view.minimap_widget().isVisible()
    view.resize(500, 400)  # too small: the graph needs the room
    QApplication.processEvents()
    assert view.minimap_wanted() and not view.minimap_widget().isVisible()
    view.resize(1400, 900)
    QApplication.processEvents()
    assert view.minimap_widget().isVisible()


def test_the_minimap_never_covers_the_leaf(qtbot: Any, open_case: OpenCase) -> None:
    view = make_view(qtbot, open_case("gen-0031"))
    viewport = view.viewport()
    # put the leaf near each corner of the viewport in turn: the minimap moves out of its way
    view.zoom_by(2.0)  # room to scroll the leaf anywhere
    tried = 0
    for tx, ty in ((0.9, 0.9), (0.1, 0.9), (0.9, 0.1), (0.1, 0.1)):
        pin = view.pin_center()
        assert pin is not None
        bar_h, bar_v = view.horizontalScrollBar(), view.verticalScrollBar()
        bar_h.setValue(bar_h.value() + pin.x() - round(tx * viewport.width()))
        bar_v.setValue(bar_v.value() + pin.y() - round(ty * viewport.height()))
        QApplication.processEvents()
        pin = view.pin_center()
        assert pin is not None
        if not viewport.rect().contains(pin):
            continue
        tried += 1
        assert _pin_rect_clear_of_minimap(view), (tx, ty, pin, view.minimap_widget().geometry())
        assert view.minimap_widget().isVisible()  # another corner is free
    assert tried == 4


def test_selecting_brings_the_whole_node_into_view(qtbot: Any, open_case: OpenCase) -> None:
    view = make_view(qtbot, open_case("gen-0031"))
    view.resetTransform()
    graph = view.graph()
    positions = view.positions()
    far = max(graph, key=lambda n: positions[n][0])  # the rightmost node
    view.centerOn(0, 0)
    view.select(graph.entry_of(far), center=True)
    rect = view.graph_scene().node_rect(far)
    assert view.visible_scene_rect().contains(rect)


def test_audit_words_keep_their_screen_size_far_out(qtbot: Any, open_case: OpenCase) -> None:
    view = make_view(qtbot, open_case("gen-0031"))
    scene = view.graph_scene()
    compactions = [n for n, v in view.graph().nodes.items() if v.kind == "compaction"]
    for compaction in compactions:  # one whose cut is drawn (its kept entries are on screen)
        view.select(str(compaction), center=True)
        if scene.bands is not None and len(scene.bands.items) > 2:
            break
    assert scene.bands is not None and len(scene.bands.items) > 2
    view.zoom_by(0.05 / view.zoom())
    view.centerOn(*view.positions()[compaction])
    QApplication.processEvents()
    words = view.audit_captions()
    texts = [text for text, _rect in words]
    assert any(t.startswith("summarized · ") for t in texts) and any(t.startswith("kept word for word · ") for t in texts)
    assert any(t.startswith("✂ cut") for t in texts)
    for _text, rect in words:
        assert rect.h >= 12  # the UI's size, not 5 % of it
    captions = view._caption_rects()
    assert captions
    for label in view.screen_labels():
        assert not any(label.rect.intersects(c) for c in captions)


def test_audit_words_stay_inside_the_canvas_when_their_bands_reach_past_it(qtbot: Any, open_case: OpenCase) -> None:
    """Found: "…ed by the summary" and "✂ cut: the su…" were cut at the canvas's edges. Scrolled so
    the bands start left of and above the viewport, every caption still lies wholly inside it."""
    view = make_view(qtbot, open_case("gen-0031"))
    scene = view.graph_scene()
    compactions = [n for n, v in view.graph().nodes.items() if v.kind == "compaction"]
    for compaction in compactions:
        view.select(str(compaction), center=True)
        if scene.bands is not None and scene.bands.captions:
            break
    assert scene.bands is not None and scene.bands.captions
    view.zoom_by(1.5 / view.zoom())
    for caption in scene.bands.captions:  # each band's corner in turn at the viewport's top-left, and past it
        corner = caption.target.topLeft()
        view.centerOn(corner.x() + 40, corner.y() + 40)
        QApplication.processEvents()
        inside = QRectF(view.viewport().rect())
        for text, rect in view.audit_captions():
            assert inside.contains(QRectF(rect.x, rect.y, rect.w, rect.h)), text
