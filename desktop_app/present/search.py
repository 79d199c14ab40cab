"""Find in the tree: every word of the query, case-insensitive, anywhere in an entry's text.

pi's ``/tree`` search matches a 200-character extract (``getSearchableText``); a find bar over a
long session must find the word in the middle of a tool result or a compaction summary too, so an
entry's find text is pi's searchable text (role and type words, label) plus *all* of its text:
message content, thinking, tool calls, tool results, bash command and output, compaction and
branch summaries with their file lists (:func:`find_text`).

:class:`GraphSearch` keeps the query and its **hits** — matching entries in the visible list's
order, entries inside a folded run each counted — and which hit is current: the find bar says
"2 of 4", Enter steps to the next hit, and a view unfolds the run a hit sits in. ``matches`` are
the nodes holding hits (what the canvas highlights). Texts are computed once and cached until a
label changes or the file is reloaded (:meth:`GraphSearch.forget_texts`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from desktop_app.session.entries import Entry
from desktop_app.session.kinds import BlockKind, EntryKind, block_kind, kind_of
from desktop_app.session.tree import SessionIndex

from .text import full_text, searchable_text
from .viewgraph import Node, ViewGraph

__all__ = ["GraphSearch", "find_text", "query_tokens"]


def query_tokens(query: str) -> list[str]:
    """The words every match must contain (lower-cased)."""
    return query.lower().split()


def _strings(value: Any, out: list[str]) -> None:
    """Every string inside a JSON value (tool-call arguments, details)."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, out)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)


def _content_text(content: Any, out: list[str]) -> None:
    if isinstance(content, str):
        out.append(content)
        return
    if not isinstance(content, list):
        return
    for block in content:
        match block_kind(block):
            case BlockKind.TEXT:
                _strings(block.get("text"), out)
            case BlockKind.THINKING:
                _strings(block.get("thinking"), out)
            case BlockKind.TOOL_CALL:
                _strings(block.get("name"), out)
                arguments = block.get("arguments")
                out.append(json.dumps(arguments, ensure_ascii=False) if isinstance(arguments, (dict, list)) else "")
                _strings(arguments, out)


def find_text(entry: Entry, label: str | None = None) -> str:
    """All the text of ``entry`` a find bar searches (see the module docstring), one string."""
    parts = [searchable_text(entry, label)]
    message = entry.get("message")
    match kind_of(entry):
        case EntryKind.MESSAGE if isinstance(message, dict):
            _content_text(message.get("content"), parts)
            for key in ("command", "output", "toolName", "errorMessage", "customType"):
                _strings(message.get(key), parts)
        case EntryKind.CUSTOM_MESSAGE:
            _content_text(entry.get("content"), parts)
        case EntryKind.COMPACTION | EntryKind.BRANCH_SUMMARY:
            _strings(entry.get("summary"), parts)
            _strings(entry.get("details"), parts)
        case _:
            parts.append(full_text(entry))
    return "\n".join(p for p in parts if p)


class GraphSearch:
    """The search state of one canvas: query, hits in visible order, the current hit."""

    def __init__(self) -> None:
        self.query = ""
        self.hits: list[tuple[Node, str]] = []  #: (node showing it, matching entry), list order
        self.matches: list[Node] = []  #: nodes holding hits, each once, in list order
        self.current = -1  #: index into ``hits`` of the hit jumped to, or -1
        self._texts: dict[str, str] = {}

    @property
    def active(self) -> bool:
        return bool(self.query)

    @property
    def current_hit(self) -> tuple[Node, str] | None:
        return self.hits[self.current] if 0 <= self.current < len(self.hits) else None

    @property
    def current_node(self) -> Node | None:
        hit = self.current_hit
        return hit[0] if hit is not None else None

    @property
    def current_entry(self) -> str | None:
        hit = self.current_hit
        return hit[1] if hit is not None else None

    def status(self) -> str:
        """What the find bar says: ``"2 of 4"``, ``"4 matches"`` before a jump, ``"No matches"``."""
        if not self.query:
            return ""
        if not self.hits:
            return "No matches"
        if self.current < 0:
            return "1 match" if len(self.hits) == 1 else f"{len(self.hits)} matches"
        return f"{self.current + 1} of {len(self.hits)}"

    def forget_texts(self) -> None:
        """Drop cached texts: a label (part of its target's text) or a reload changed them."""
        self._texts.clear()

    def set_query(self, query: str, graph: ViewGraph, order: Sequence[Node], index: SessionIndex) -> int:
        """A new query (the current hit resets); returns the number of matching entries."""
        self.query = query
        self.current = -1
        self.rematch(graph, order, index)
        return len(self.hits)

    def clear(self) -> None:
        self.query = ""
        self.hits = []
        self.matches = []
        self.current = -1

    def text_of(self, entry_id: str, index: SessionIndex) -> str:
        """``entry_id``'s find text, lower-cased (cached)."""
        text = self._texts.get(entry_id)
        if text is None:
            entry = index.by_id.get(entry_id)
            text = find_text(entry, index.labels.get(entry_id)).lower() if entry else ""
            self._texts[entry_id] = text
        return text

    def rematch(self, graph: ViewGraph, order: Sequence[Node], index: SessionIndex) -> list[Node]:
        """Recompute the hits against ``graph`` (after it changed), keeping the query and, when it
        still matches, the current hit's entry (a fold opened under it)."""
        tokens = query_tokens(self.query)
        current = self.current_entry
        self.hits, self.matches, self.current = [], [], -1
        if tokens:
            for node in order:
                found = False
                for entry_id in graph.nodes[node].ids:
                    text = self.text_of(entry_id, index)
                    if all(t in text for t in tokens):
                        if entry_id == current:
                            self.current = len(self.hits)
                        self.hits.append((node, entry_id))
                        found = True
                if found:
                    self.matches.append(node)
        return self.matches

    def step(self, step: int) -> Node | None:
        """Move to the next (``1``) or previous (``-1``) hit, wrapping; its node, or ``None``."""
        if not self.hits:
            return None
        if self.current < 0:
            self.current = 0 if step > 0 else len(self.hits) - 1
        else:
            self.current = (self.current + step) % len(self.hits)
        return self.hits[self.current][0]
