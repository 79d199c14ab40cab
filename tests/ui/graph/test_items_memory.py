"""Scene items keep little of their own (issue 10: a whole 100,000-entry graph holds ~10,000 nodes
and as many edges, so every object an item keeps counts 10,000 times)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsScene

from desktop_app.present.viewgraph import ViewNode
from desktop_app.ui.graph import items
from desktop_app.ui.graph.items import Edge, EdgeLayer, NodeItem, edge_path, edge_pen
from desktop_app.ui.graph.style import default_style


def test_edges_are_plain_data_drawn_by_one_layer_with_shared_pens(qtbot: Any) -> None:
    """An edge keeps its ends and its flag, no Qt item of its own; the one layer finds the edges an
    area meets through its bands (the tallest edge included), paints with two shared pens, and is
    never hit by the mouse."""
    style = default_style()
    scene = QGraphicsScene()
    layer = EdgeLayer(style)
    scene.addItem(layer)
    a, b, c = Edge(False), Edge(False), Edge(True)
    a.set_ends(1.5, 2.0, -4.0, 90.25)
    b.set_ends(500.0, 1000.0, 520.0, 1080.0)
    c.set_ends(0.0, -50.0, 0.0, 3000.0)  # a tall one: a long folded run
    for edge in (a, b, c):
        layer.add(edge)
    assert not hasattr(a, "__dict__") and len(layer) == 3
    start, end = a.ends()
    assert (start, end) == (QPointF(1.5, 2.0), QPointF(-4.0, 90.25))
    assert a.path() == edge_path(start, end) and a.path() is a.path()
    assert a.rect().contains(start) and a.rect().contains(end)
    assert layer.boundingRect().contains(a.rect()) and layer.boundingRect().contains(c.rect())
    assert set(map(id, layer.edges_in(QRectF(-10, 0, 20, 10)))) == {id(a), id(c)}
    assert [id(e) for e in layer.edges_in(QRectF(505, 1040, 5, 5))] == [id(b)]
    assert set(map(id, layer.edges_in(QRectF(-5, 2500, 10, 10)))) == {id(c)}  # from a band far above
    assert layer.edges_in(QRectF(2000, 2000, 10, 10)) == []
    assert layer.pen_for(a) is layer.pen_for(b) is edge_pen(style, False)
    assert layer.pen_for(c) is edge_pen(style, True) and layer.pen_for(c) is not layer.pen_for(a)
    assert layer.pen_for(a).color() == style.edge and layer.pen_for(a).widthF() == 1.5
    assert layer.pen_for(c).color() == style.active and layer.pen_for(c).widthF() == 3.0
    layer.set_active([(a, True), (b, False)])
    assert a.active and layer.pen_for(a) is layer.pen_for(c)
    layer.discard(b)
    assert layer.edges_in(QRectF(505, 1040, 5, 5)) == [] and len(layer) == 2
    b.set_ends(0.0, 10.0, 0.0, 20.0)
    layer.add(b)
    a.set_ends(900.0, 900.0, 900.0, 950.0)
    layer.reindex()  # new ends for edges already in: found where they are now
    assert [id(e) for e in layer.edges_in(QRectF(895, 920, 10, 5))] == [id(a)]
    assert layer.shape().isEmpty() and scene.items(QPointF(0.0, 15.0)) == []


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
