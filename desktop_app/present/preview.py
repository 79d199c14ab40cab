"""The hover preview of a graph node, as Qt rich text (HTML): kind, id, label, the start of the text.

Pure string building, so what a tooltip says is tested without a display; the canvas only shows it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Protocol

from desktop_app.session.tree import SessionIndex

from .text import KIND_TITLES, full_text
from .viewgraph import Node, SegmentKey, ViewGraph

__all__ = ["CompactionFacts", "preview_html"]


class CompactionFacts(Protocol):
    """What the preview says about a compaction (a compaction audit has these)."""

    @property
    def summarized_ids(self) -> Sequence[str]: ...

    @property
    def kept_ids(self) -> Sequence[str]: ...

    @property
    def is_split_turn(self) -> bool: ...

    @property
    def made_by(self) -> str: ...


def _title(kind: str) -> str:
    return KIND_TITLES.get(kind, kind)


def preview_html(
    graph: ViewGraph,
    node: Node,
    index: SessionIndex,
    *,
    compaction: CompactionFacts | None = None,
    abandoned_text: str | None = None,
) -> str:
    """The preview of ``node``; ``compaction`` / ``abandoned_text`` add a compaction's audit
    figures or the branch a summary abandoned. Empty for a node not in ``graph``."""
    view = graph.nodes.get(node)
    if view is None:
        return ""
    if isinstance(node, SegmentKey):
        ids = view.ids
        kinds = ", ".join(f"{n} {_title(k)}" for k, n in view.kinds)
        first = index.by_id.get(ids[0])
        last = index.by_id.get(ids[-1])
        body = (
            f"<b>{len(ids)} entries folded</b> ({html.escape(kinds)})<br>"
            f"first: {html.escape(full_text(first, 200) if first else '')}<br>"
            f"last: {html.escape(full_text(last, 200) if last else '')}<br>"
            "<i>Enter or double-click to unfold</i>"
        )
        return f"<div style='max-width:420px'>{body}</div>"
    entry_id = view.entry_id
    entry = index.by_id.get(entry_id) or {}
    head = f"<b>{html.escape(_title(view.kind))}</b> · <code>{html.escape(entry_id)}</code>"
    if view.label:
        head += f" · ⚑ {html.escape(view.label)}"
    if view.is_leaf:
        head += " · <b>current leaf</b>"
    extra = ""
    if compaction is not None:
        extra = (
            f"<br>{len(compaction.summarized_ids)} entries summarized, {len(compaction.kept_ids)} kept"
            f"{' · split turn' if compaction.is_split_turn else ''} · made by {html.escape(compaction.made_by)}"
        )
    elif abandoned_text is not None:
        extra = f"<br>abandoned branch: {html.escape(abandoned_text)}"
    text = html.escape(full_text(entry, 700)).replace("\n", "<br>")
    return f"<div style='max-width:460px'>{head}{extra}<hr>{text}</div>"
