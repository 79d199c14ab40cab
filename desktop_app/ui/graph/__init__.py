"""The graph canvas: layouts and the Qt view over the view graph of ``desktop_app.present``.

``audit`` and ``layout`` import no Qt and load cheaply; the Qt classes are loaded on first use, so
``from desktop_app.ui.graph import Layouter`` never starts Qt. The view graph, folding, filters,
search, selection and what an input means live in ``desktop_app.present``.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from desktop_app.compaction.audit import (
    BranchSummaryInfo,
    CompactionAudit,
    audit_compaction,
    branch_summary_info,
)

from .layout import DOT_NODE_LIMIT, Layouter, LayoutSpec, dot_layout_in_subprocess, tidy_tree_layout

__all__ = [
    "DOT_NODE_LIMIT",
    "BranchSummaryInfo",
    "CompactionAudit",
    "CompactionAuditPanel",
    "GraphView",
    "LayoutSpec",
    "Layouter",
    "audit_compaction",
    "branch_summary_info",
    "dot_layout_in_subprocess",
    "tidy_tree_layout",
]

_QT = {"GraphView": ".view", "CompactionAuditPanel": ".audit_panel"}


def __getattr__(name: str) -> Any:
    if name in _QT:
        return getattr(import_module(_QT[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
