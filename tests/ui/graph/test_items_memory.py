"""Scene items keep little of their own (issue 10: a whole 100,000-entry graph holds ~10,000 nodes
and as many edges, so every object an item keeps counts 10,000 times)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsScene

from desktop_app.present.viewgraph import ViewNode
from desktop_app.ui.graph import items
from desktop_app.ui.graph.items import EdgeItem, NodeItem, edge_path, edge_pen
from desktop_app.ui.graph.style import default_style


def test_edges_share_their_pens_and_keep_their_ends(qtbot: Any) -> None:
    style = default_style()
    scene = QGraphicsScene()
    a, b, c = (EdgeItem(style, active) for active in (False, False, True))
    for edge in (a, b, c):
        scene.addItem(edge)
    assert a._pen is b._pen is edge_pen(style, False)
    assert c._pen is edge_pen(style, True) and c._pen is not a._pen
    assert a._pen.color() == style.edge and a._pen.widthF() == 1.5
    assert c._pen.color() == style.active and c._pen.widthF() == 3.0
    a.set_ends(QPointF(1.5, 2.0), QPointF(-4.0, 90.25))
    start, end = a.ends()
    assert (start, end) == (QPointF(1.5, 2.0), QPointF(-4.0, 90.25))
    assert a.path() == edge_path(start, end)
    assert a.rect().contains(start) and a.rect().contains(end)
    a.set_active(True)
    assert a._pen is c._pen and a.active and a.zValue() == c.zValue()


def test_edge_pens_follow_colours_and_stay_few(qtbot: Any) -> None:
    style = default_style()
    before = edge_pen(style, False)
    original = QColor(style.edge)
    try:
        for n in range(40):
            style.edge = QColor(n, 2 * n, 3 * n)
            pen = edge_pen(style, False)
            assert pen.color() == style.edge
            assert len(items._EDGE_PENS) <= items._EDGE_PENS_KEPT
    finally:
        style.edge = original
    assert edge_pen(style, False).color() == before.color()


def test_nodes_share_one_body_and_hand_out_copies(qtbot: Any) -> None:
    style = default_style()
    view = ViewNode("user", "hello", ("a",), None, False, False)
    one, two = NodeItem("a", view, style), NodeItem("b", view, style)
    assert one._body is two._body
    body = one.body
    assert body == one._body and body is not one._body
    body.adjust(0, 0, 50, 50)  # a caller changing its copy changes no node
    assert one.body == two.body != body
    spec = style.spec
    assert one.body.width() == spec.node_width and one.body.height() == spec.node_height
