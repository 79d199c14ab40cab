"""How each node kind looks on the canvas, as plain data (no Qt): its shape, accent colour and
whether its outline is dashed. ``ui.graph.style`` builds Qt colours from these; the exported page
(:mod:`desktop_app.export`) draws its SVG tree with the same ones, so both read alike."""

from __future__ import annotations

from desktop_app.session.kinds import EntryKind

__all__ = ["DASHED_KINDS", "KIND_ACCENTS", "KIND_SHAPES"]

#: ``card`` rounded card, ``pill`` small rounded pill, ``terminal`` dark card, ``slab`` the torn
#: compaction block, ``hexagon`` the branch summary, ``stack`` a folded run, ``note`` a context
#: edit, ``marker`` a usage entry (a small pill in the middle of its box).
KIND_SHAPES: dict[str, str] = {
    "user": "card",
    "assistant": "card",
    "toolResult": "pill",
    "bashExecution": "terminal",
    "custom_message": "card",
    "custom": "pill",
    "model_change": "pill",
    "thinking_level_change": "pill",
    "compaction": "slab",
    "branch_summary": "hexagon",
    "label": "pill",
    "session_info": "pill",
    "unknown": "pill",
    "segment": "stack",
    "system": "card",
    "context_edit": "note",
    "usage": "marker",
}

#: Each kind's accent colour (stripe, outline, tag).
KIND_ACCENTS: dict[str, str] = {
    "user": "#1971c2",
    "assistant": "#2f9e44",
    "toolResult": "#868e96",
    "bashExecution": "#495057",
    "custom_message": "#c2255c",
    "custom": "#868e96",
    "model_change": "#e67700",
    "thinking_level_change": "#e67700",
    "compaction": "#e8590c",
    "branch_summary": "#0c8599",
    "label": "#868e96",
    "session_info": "#868e96",
    "unknown": "#868e96",
    "segment": "#868e96",
    "system": "#862e9c",
    "context_edit": "#c92a2a",
    "usage": "#868e96",
}


#: Node kinds drawn with a dashed outline: bookkeeping that is not part of the conversation (the
#: node kinds of ``present.text.entry_kind``: entry types, and ``unknown`` and ``segment``).
DASHED_KINDS: frozenset[str] = frozenset(
    {
        EntryKind.CUSTOM, EntryKind.LABEL, EntryKind.SESSION_INFO, EntryKind.CONTEXT_EDIT, EntryKind.USAGE,
        "unknown", "segment",
    }
)
