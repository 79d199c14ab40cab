"""The graph canvas: the session tree as a view graph, its layouts, and the Qt view.

``model``, ``audit``, ``layout``, ``navigation`` and ``text`` are pure Python (no Qt) and import
cheaply; the Qt classes are loaded on first use, so ``from desktop_app.ui.graph import
build_view_graph`` never starts Qt.
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
from .model import FILTER_MODES, GraphDelta, SegmentKey, ViewGraphModel, build_view_graph

__all__ = [
    "DOT_NODE_LIMIT",
    "FILTER_MODES",
    "BranchSummaryInfo",
    "CompactionAudit",
    "CompactionAuditPanel",
    "GraphDelta",
    "GraphView",
    "LayoutSpec",
    "Layouter",
    "SegmentKey",
    "ViewGraphModel",
    "audit_compaction",
    "branch_summary_info",
    "build_view_graph",
    "dot_layout_in_subprocess",
    "tidy_tree_layout",
]

_QT = {"GraphView": ".view", "CompactionAuditPanel": ".audit_panel"}


def __getattr__(name: str) -> Any:
    if name in _QT:
        return getattr(import_module(_QT[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
