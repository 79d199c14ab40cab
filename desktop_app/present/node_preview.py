"""The hover preview of a node in a session's graph, with what only the session knows.

:func:`~desktop_app.present.preview.preview_html` builds the text from plain facts; this adds the
facts a compaction (its audit) or a branch summary (the branch it abandoned) needs, worked out from
the session only for those kinds (a tooltip over any other node costs no audit).
"""

from __future__ import annotations

from desktop_app.compaction.audit import audit_compaction, branch_summary_info
from desktop_app.session import SessionView

from .chat_feed import session_profile
from .preview import preview_html
from .text import NodeKind
from .viewgraph import Node, ViewGraph

__all__ = ["node_preview"]


def node_preview(graph: ViewGraph, node: Node, session: SessionView) -> str:
    """The preview (rich text) of ``node``; empty for a node not in ``graph``."""
    shown = graph.nodes.get(node)
    if shown is None:
        return ""
    index = session.index
    compaction = (
        audit_compaction(index, shown.entry_id, session_profile(session)) if shown.kind == NodeKind.COMPACTION else None
    )
    abandoned = branch_summary_info(index, shown.entry_id).abandoned_text if shown.kind == NodeKind.BRANCH_SUMMARY else None
    return preview_html(graph, node, index, compaction=compaction, abandoned_text=abandoned)
