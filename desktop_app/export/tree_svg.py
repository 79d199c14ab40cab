"""The session tree as one inline SVG: the canvas's view graph and layout, drawn for a web page.

The same :func:`~desktop_app.present.graph_model.build_view_graph` as the canvas (pi's default
filter, long linear runs folded into one node, so a 20,000-entry session is a few thousand nodes),
the same tidy tree (:func:`~desktop_app.present.layout.tidy_tree_layout`, with smaller boxes), the
same words (:func:`~desktop_app.present.lod.node_marks`) and colours
(:mod:`~desktop_app.present.kind_style`). The active path is drawn dark and thick, the leaf ringed;
compactions and branch summaries are filled, labels are in their node's words. A node whose entry
the page shows links to it (``#e-ID``). No script, no external resource.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Collection
from dataclasses import dataclass

from desktop_app.present.kind_style import DASHED_KINDS, KIND_ACCENTS
from desktop_app.present.layout import LayoutSpec, tidy_tree_layout
from desktop_app.present.lod import Mark, MarkRole, node_marks
from desktop_app.present.text import NodeKind
from desktop_app.present.viewgraph import ViewGraph

__all__ = ["SVG_SPEC", "TreePicture", "anchor_id", "tree_svg"]

#: Box and gaps of a node in the page (px): one line of ~40 characters.
SVG_SPEC = LayoutSpec(node_width=236.0, node_height=24.0, h_gap=14.0, v_gap=14.0)
_PAD = 12.0
_CHAR_PX = 6.1  # the mean advance of an 11 px sans-serif character: how many fit in a box
_FILLED: dict[str, str] = {NodeKind.COMPACTION: "#e8590c", NodeKind.BRANCH_SUMMARY: "#0c8599"}
_PATH_EDGE, _EDGE, _LEAF = "#1f2328", "#c4cad1", "#d6336c"


def anchor_id(entry_id: str) -> str:
    """The page's element id of an entry's section (``e-`` and the id, made safe for a fragment)."""
    return "e-" + "".join(c if c.isalnum() or c in "-_" else "_" for c in entry_id)


@dataclass(frozen=True)
class TreePicture:
    svg: str
    nodes: int  #: view nodes drawn (folded runs count once)
    width: float
    height: float


def _fit(text: str, width: float) -> str:
    limit = max(4, int((width - 14) / _CHAR_PX))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _tint(color: str, amount: float = 0.82) -> str:
    """``color`` mixed with white (a light fill behind dark text)."""
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in (r, g, b))


def _edge(x1: float, y1: float, x2: float, y2: float) -> str:
    if abs(x1 - x2) < 0.5:
        return f"M{x1:.0f} {y1:.0f}V{y2:.0f}"
    mid = y1 + 7
    return f"M{x1:.0f} {y1:.0f}V{mid:.0f}H{x2:.0f}V{y2:.0f}"


def _node(mark: Mark, on_path: bool, is_leaf: bool, x: float, y: float, href: str | None, spec: LayoutSpec) -> str:
    w, h = spec.node_width, spec.node_height
    left, top = x - w / 2, y - h / 2
    kind = mark.kind
    accent = KIND_ACCENTS.get(kind, "#868e96")
    filled = _FILLED.get(kind)
    fill = filled or (_tint(accent) if on_path else "#ffffff")
    text_color = "#ffffff" if filled else "#1f2328"
    dash = ' stroke-dasharray="4 3"' if kind in DASHED_KINDS and not on_path else ""
    width = 2.2 if on_path else 1.1
    parts = []
    if is_leaf:
        parts.append(
            f'<rect x="{left - 4:.0f}" y="{top - 4:.0f}" width="{w + 8:.0f}" height="{h + 8:.0f}" rx="8" '
            f'fill="none" stroke="{_LEAF}" stroke-width="2.5"/>'
        )
    parts.append(
        f'<rect x="{left:.0f}" y="{top:.0f}" width="{w:.0f}" height="{h:.0f}" rx="5" fill="{fill}" '
        f'stroke="{accent}" stroke-width="{width}"{dash}/>'
    )
    weight = ' font-weight="700"' if mark.role is not MarkRole.ENTRY and mark.role is not MarkRole.SEGMENT else ""
    parts.append(
        f'<text x="{left + 7:.0f}" y="{y + 4:.0f}" fill="{text_color}"{weight}>{html.escape(_fit(mark.text, w))}</text>'
    )
    body = "".join(parts)
    title = f"<title>{html.escape(mark.text)}</title>" if mark.is_landmark else ""
    if href is not None:
        return f'<a href="#{href}">{title}{body}</a>'
    return f"<g>{title}{body}</g>" if title else body


def tree_svg(
    graph: ViewGraph,
    linked: Collection[str],
    session_name: str | None = None,
    spec: LayoutSpec = SVG_SPEC,
    tick: Callable[[], None] | None = None,
) -> TreePicture:
    """The SVG of ``graph``; ``linked``: the entry ids the page has a section for (a node whose
    entry is one links there)."""
    positions = tidy_tree_layout(graph, spec, stretch=False)  # a run says its size in words here
    if tick is not None:
        tick()
    marks = node_marks(graph, session_name)
    if not positions:
        return TreePicture('<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"></svg>', 0, 0.0, 0.0)
    dx = spec.node_width / 2 + _PAD
    dy = spec.node_height / 2 + _PAD
    width = max(x for x, _ in positions.values()) + spec.node_width + 2 * _PAD
    height = max(y for _, y in positions.values()) + spec.node_height + 2 * _PAD
    half = spec.node_height / 2
    faint: list[str] = []
    bold: list[str] = []
    nodes = graph.nodes
    for a, b in graph.edges():
        (ax, ay), (bx, by) = positions[a], positions[b]
        d = _edge(ax + dx, ay + dy + half, bx + dx, by + dy - half)
        (bold if nodes[a].on_active_path and nodes[b].on_active_path else faint).append(d)
    links = [
        _edge(positions[a][0] + dx, positions[a][1] + dy, positions[b][0] + dx, positions[b][1] + dy)
        for a, b in graph.summary_links
        if a in positions and b in positions
    ]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="tree" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="11" role="img" '
        f'aria-label="The session tree">',
        f'<path d="{" ".join(faint)}" fill="none" stroke="{_EDGE}" stroke-width="1.2"/>' if faint else "",
        f'<path d="{" ".join(bold)}" fill="none" stroke="{_PATH_EDGE}" stroke-width="2.4"/>' if bold else "",
        f'<path d="{" ".join(links)}" fill="none" stroke="#0c8599" stroke-width="1.2" stroke-dasharray="5 4"/>'
        if links
        else "",
    ]
    for node, view in nodes.items():
        x, y = positions[node]
        entry = view.entry_id
        out.append(
            _node(
                marks[node],
                view.on_active_path,
                node == graph.leaf_node,
                x + dx,
                y + dy,
                anchor_id(entry) if entry in linked else None,
                spec,
            )
        )
    out.append("</svg>")
    return TreePicture("".join(out), len(nodes), width, height)

