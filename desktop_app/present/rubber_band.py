"""Shift+drag on the canvas selects a rectangle of nodes; the window says how much that is.

The canvas hands over the rectangle in scene coordinates and the node positions it laid out; this
module says which entries that covers (a folded run counts every entry in it) and sums their token
estimate, so the user sees "12 entries · ~3.4k tokens" before deciding what to do with them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from desktop_app.compaction.tokens import estimate_tokens
from desktop_app.session import SessionView
from desktop_app.session.context import message_from_entry

from .context_meter import format_tokens
from .viewgraph import Node, ViewGraph

__all__ = ["BandSelection", "band_selection", "nodes_in_rect"]


def nodes_in_rect(
    positions: Mapping[Node, tuple[float, float]], left: float, top: float, right: float, bottom: float
) -> list[Node]:
    """Nodes whose centre lies in the rectangle (corners in any order)."""
    x0, x1 = sorted((left, right))
    y0, y1 = sorted((top, bottom))
    return [node for node, (x, y) in positions.items() if x0 <= x <= x1 and y0 <= y <= y1]


@dataclass(frozen=True)
class BandSelection:
    nodes: tuple[Node, ...]
    entry_ids: tuple[str, ...]
    tokens: int  #: estimate of the messages among the entries

    def describe(self) -> str:
        if not self.entry_ids:
            return "No entries selected"
        return f"{len(self.entry_ids)} entries selected · ~{format_tokens(self.tokens)} tokens"


def band_selection(view: SessionView, graph: ViewGraph, nodes: Iterable[Node]) -> BandSelection:
    """The entries ``nodes`` stand for (in node order, each once) and their token estimate."""
    chosen = tuple(n for n in nodes if n in graph)
    ids: list[str] = []
    seen: set[str] = set()
    for node in chosen:
        for entry_id in graph.nodes[node].ids:
            if entry_id not in seen:
                seen.add(entry_id)
                ids.append(entry_id)
    tokens = 0
    for entry_id in ids:
        entry = view.get_entry(entry_id)
        message = message_from_entry(entry) if entry is not None else None
        if message is not None:
            tokens += int(estimate_tokens(message))
    return BandSelection(chosen, tuple(ids), tokens)
