"""A compaction's audit on the canvas: the summarized band, the kept band, the cut line, their words.

:func:`build_audit_bands` makes the scene items of one audit (dimmed summarized entries, the kept
tail outlined, the dashed cut line) and the captions the view pins on screen over them
(:class:`BandCaption`, painted by :mod:`.audit_captions`); the scene adds and removes the items
(:meth:`~desktop_app.ui.graph.scene.GraphScene.show_audit`). What the words say is decided in
:func:`~desktop_app.present.audit_words.audit_words` (no Qt).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsLineItem, QGraphicsPathItem

from desktop_app.compaction.audit import CompactionAudit
from desktop_app.present.audit_words import audit_words_of
from desktop_app.present.captions import CaptionSpot
from desktop_app.present.viewgraph import Node, ViewGraph

from .style import GraphStyle

__all__ = ["AuditBands", "BandCaption", "build_audit_bands"]

Positions = Mapping[Any, tuple[float, float]]


@dataclass(frozen=True)
class BandCaption:
    """Screen-size words of the audit (a band's, the cut line's, the split turn's): what they label
    as a scene rectangle, and where on it they go; the view pins them inside the viewport
    (:mod:`desktop_app.present.captions`, painted by :mod:`.audit_captions`)."""

    text: str
    color: QColor
    target: QRectF
    spot: CaptionSpot


class AuditBands:
    """The overlay for one compaction: which nodes are in which band, the items drawing it and the
    captions the view paints over it."""

    def __init__(
        self, audit: CompactionAudit, summarized: list[Node], kept: list[Node], split_entry: str | None = None
    ) -> None:
        self.audit = audit
        self.summarized_nodes = summarized
        self.kept_nodes = kept
        self.split_entry = split_entry  #: where the split turn starts (marked), or ``None``
        self.items: list[QGraphicsItem] = []
        self.captions: list[BandCaption] = []


def build_audit_bands(
    audit: CompactionAudit, split_entry: str | None, graph: ViewGraph, positions: Positions, style: GraphStyle
) -> AuditBands:
    """Dim the summarized entries, outline the kept tail, draw the cut line; mark where a split
    turn starts (``split_entry``). Lines and words keep their screen size at any zoom."""
    node_of: Mapping[str, Node] = graph.node_of
    summarized = _unique(node_of[i] for i in audit.summarized_ids if i in node_of)
    kept = _unique(node_of[i] for i in audit.kept_ids if i in node_of)
    bands = AuditBands(audit, summarized, kept, split_entry)
    style = style
    words = audit_words_of(audit)
    placed_summarized = [n for n in summarized if n in positions]
    placed_kept = [n for n in kept if n in positions]
    if placed_summarized:
        path = _band_path(positions, style, placed_summarized)
        item = QGraphicsPathItem(path)
        item.setPen(QPen(Qt.PenStyle.NoPen))
        item.setBrush(style.dim)
        item.setZValue(2.0)
        bands.items.append(item)
        bands.captions.append(BandCaption(words.summarized_band, style.muted, path.boundingRect(), "band"))
    elif not audit.summarized_ids:  # nothing new: the previous compaction's summary was updated
        previous = node_of.get(audit.previous_compaction_id) if audit.previous_compaction_id else None
        anchor = previous if previous is not None and previous in positions else node_of.get(audit.compaction_id)
        if anchor is not None and anchor in positions:  # the summary updated, else the compaction itself
            bands.captions.append(BandCaption(words.summarized_band, style.muted, _node_rect(positions, style, anchor), "band"))
    if placed_kept:
        path = _band_path(positions, style, placed_kept)
        item = QGraphicsPathItem(path)
        pen = QPen(style.kept, 3.0, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        item.setPen(pen)
        fill = QColor(style.kept)
        fill.setAlpha(22)
        item.setBrush(fill)
        item.setZValue(2.0)
        bands.items.append(item)
        bands.captions.append(BandCaption(words.kept_band, style.kept, path.boundingRect(), "band"))
    cut = _cut_line(graph, positions, style, audit, placed_summarized, placed_kept)
    if cut is not None:
        bands.items.append(cut)
        bands.captions.append(BandCaption(words.cut, style.cut, QRectF(cut.line().p1(), cut.line().p2()), "line"))
    split_node = node_of.get(split_entry) if split_entry and audit.is_split_turn else None
    if split_node is not None and split_node in positions:
        bands.captions.append(BandCaption(words.split, style.cut, _node_rect(positions, style, split_node), "left"))
    return bands


def _band_path(positions: Positions, style: GraphStyle, nodes: list[Node]) -> QPainterPath:
    """One rounded box per straight run of the path, joined where the path changes column."""
    spec = style.spec
    pad_x, pad_y = 12.0, 10.0
    path = QPainterPath()
    path.setFillRule(Qt.FillRule.WindingFill)
    joints = QPainterPath()
    runs: list[list[tuple[float, float]]] = []
    for node in nodes:
        x, y = positions[node]
        if runs and runs[-1][-1][0] == x and abs(runs[-1][-1][1] - y) <= spec.row * 1.01:
            runs[-1].append((x, y))
        else:
            if runs:
                joints.moveTo(*runs[-1][-1])
                joints.lineTo(x, y)
            runs.append([(x, y)])
    for run in runs:
        x = run[0][0]
        top = min(y for _, y in run) - spec.node_height / 2 - pad_y
        bottom = max(y for _, y in run) + spec.node_height / 2 + pad_y
        path.addRoundedRect(
            QRectF(x - spec.node_width / 2 - pad_x, top, spec.node_width + 2 * pad_x, bottom - top),
            12,
            12,
        )
    if not joints.isEmpty():
        stroker = QPainterPathStroker()
        stroker.setWidth(spec.node_height)
        path.addPath(stroker.createStroke(joints))
    return path.simplified() if len(runs) > 1 else path


def _cut_line(
    graph: ViewGraph, positions: Positions, style: GraphStyle, audit: CompactionAudit, summarized: list[Node], kept: list[Node]
) -> QGraphicsLineItem | None:
    """The dashed cut line between the last summarized and the first kept entry (its words are a
    caption the view pins on screen)."""
    spec = style.spec
    node_of: Mapping[str, Node] = graph.node_of
    after = node_of.get(audit.cut_after_id) if audit.cut_after_id else None
    before = node_of.get(audit.cut_before_id) if audit.cut_before_id else None
    if before is None or before not in positions:
        before = kept[0] if kept else None  # the first kept entry has no node in this filter: the first drawn
        if before is None:
            return None
    by = positions[before][1]
    if (
        after is not None
        and after in positions
        and after != before
        and positions[after][1] < by
    ):
        y = (positions[after][1] + by) / 2
    else:
        y = by - spec.row / 2
    xs = [positions[n][0] for n in summarized + kept + [before] if n in positions]
    left = min(xs) - spec.node_width / 2 - 30
    right = max(xs) + spec.node_width / 2 + 30
    line = QGraphicsLineItem(left, y, right, y)
    pen = QPen(style.cut, 2.4, Qt.PenStyle.DashLine)
    pen.setCosmetic(True)  # as thick far out as near
    line.setPen(pen)
    line.setZValue(3.0)
    return line


def _node_rect(positions: Positions, style: GraphStyle, node: Node) -> QRectF:
    x, y = positions[node]
    spec = style.spec
    return QRectF(x - spec.node_width / 2, y - spec.node_height / 2, spec.node_width, spec.node_height)


def _unique(nodes: Iterable[Node]) -> list[Node]:
    seen: set[Node] = set()
    out: list[Node] = []
    for node in nodes:
        if node not in seen:
            seen.add(node)
            out.append(node)
    return out
