"""Child-process entry point: Graphviz ``dot`` through pygraphviz, JSON in, JSON out.

Run as a script (``python dot_worker.py``), never imported by the app: pygraphviz holds the GIL
for the whole layout (DESIGN.md §8), so it lives in a process the UI can kill when the request
is superseded. Input on stdin::

    {"nodes": N, "edges": [[a, b, minlen], ...], "width": px, "height": px, "nodesep": px, "ranksep": px}

(``minlen``, optional, is the ranks an edge spans: a folded run's line is as long as its size.)

Output on stdout: ``{"positions": [[x, y], ...]}`` (node centres, index order, points = pixels,
y growing downwards), or ``{"error": "..."}`` with exit status 1.
"""

from __future__ import annotations

import json
import sys
from typing import Any

_POINTS_PER_INCH = 72.0


def _dot_source(data: dict[str, Any]) -> str:
    width = float(data["width"]) / _POINTS_PER_INCH
    height = float(data["height"]) / _POINTS_PER_INCH
    lines = [
        "digraph G {",
        f'  graph [rankdir=TB, ordering=out, splines=false, nodesep="{float(data["nodesep"]) / _POINTS_PER_INCH:.4f}",'
        f' ranksep="{float(data["ranksep"]) / _POINTS_PER_INCH:.4f}"];',
        f'  node [shape=box, fixedsize=true, label="", width="{width:.4f}", height="{height:.4f}"];',
    ]
    lines.extend(f"  n{i};" for i in range(int(data["nodes"])))
    for edge in data["edges"]:  # [a, b] or [a, b, minlen]: a folded run's edge spans its rows
        a, b = edge[0], edge[1]
        minlen = int(edge[2]) if len(edge) > 2 else 1
        lines.append(f"  n{a} -> n{b} [minlen={minlen}];" if minlen > 1 else f"  n{a} -> n{b};")
    lines.append("}")
    return "\n".join(lines)


def layout(data: dict[str, Any]) -> list[list[float]]:
    """Positions of nodes ``0 … N-1`` as laid out by ``dot``, with y flipped to grow downwards."""
    import pygraphviz  # type: ignore[import-untyped]  # no stubs; imported here so failures are cheap

    count = int(data["nodes"])
    if count == 0:
        return []
    graph = pygraphviz.AGraph(string=_dot_source(data))
    graph.layout(prog="dot")
    raw: list[tuple[float, float]] = []
    for i in range(count):
        x_text, y_text = str(graph.get_node(f"n{i}").attr["pos"]).split(",")[:2]
        raw.append((float(x_text), float(y_text)))
    top = max(y for _, y in raw)
    return [[x, top - y] for x, y in raw]


def main() -> int:
    try:
        data = json.load(sys.stdin)
        result: dict[str, Any] = {"positions": layout(data)}
    except Exception as exc:  # report, never hang: the parent reads one JSON document
        json.dump({"error": f"{type(exc).__name__}: {exc}"}, sys.stdout)
        return 1
    json.dump(result, sys.stdout, separators=(",", ":"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
