"""Find in the tree: pi's rule (every word of the query, case-insensitive, in the entry's text).

:class:`GraphSearch` keeps the query, the matching nodes in the visible list's order and which one
is current; a view only paints what it says. An entry's searchable text is computed once and
cached until a label changes or the file is reloaded (:meth:`GraphSearch.forget_texts`).
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop_app.session.tree import SessionIndex

from .text import searchable_text
from .viewgraph import Node, ViewGraph

__all__ = ["GraphSearch", "query_tokens"]


def query_tokens(query: str) -> list[str]:
    """The words every match must contain (lower-cased)."""
    return query.lower().split()


class GraphSearch:
    """The search state of one canvas: query, matches in visible order, current match."""

    def __init__(self) -> None:
        self.query = ""
        self.matches: list[Node] = []
        self.current = -1  #: index into ``matches`` of the match jumped to, or -1
        self._texts: dict[str, str] = {}

    @property
    def active(self) -> bool:
        return bool(self.query)

    @property
    def current_node(self) -> Node | None:
        return self.matches[self.current] if 0 <= self.current < len(self.matches) else None

    def forget_texts(self) -> None:
        """Drop cached texts: a label (part of its target's text) or a reload changed them."""
        self._texts.clear()

    def set_query(self, query: str, graph: ViewGraph, order: Sequence[Node], index: SessionIndex) -> int:
        """A new query (the current match resets); returns the number of matching nodes."""
        self.query = query
        self.current = -1
        return len(self.rematch(graph, order, index))

    def clear(self) -> None:
        self.query = ""
        self.matches = []
        self.current = -1

    def rematch(self, graph: ViewGraph, order: Sequence[Node], index: SessionIndex) -> list[Node]:
        """Recompute the matches against ``graph`` (after it changed), keeping the query."""
        tokens = query_tokens(self.query)
        self.matches = []
        if tokens:
            texts = self._texts
            for node in order:
                for entry_id in graph.nodes[node].ids:
                    text = texts.get(entry_id)
                    if text is None:
                        entry = index.by_id.get(entry_id)
                        text = searchable_text(entry, index.labels.get(entry_id)).lower() if entry else ""
                        texts[entry_id] = text
                    if all(t in text for t in tokens):
                        self.matches.append(node)
                        break
        if self.current >= len(self.matches):
            self.current = -1
        return self.matches

    def step(self, step: int) -> Node | None:
        """Move to the next (``1``) or previous (``-1``) match, wrapping; ``None`` without matches."""
        if not self.matches:
            return None
        self.current = (self.current + step) % len(self.matches)
        return self.matches[self.current]
