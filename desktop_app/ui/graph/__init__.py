"""The graph canvas: the Qt view over the view graph of ``desktop_app.present``.

The view graph, its layout (``present.layout``), folding, filters, search, selection and what an
input means live in ``desktop_app.present``; the compaction audit in ``desktop_app.compaction``. The
Qt classes named here are loaded on first use, not whenever a module of this package is imported.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["CompactionAuditPanel", "GraphView"]

_QT = {"GraphView": ".view", "CompactionAuditPanel": ".audit_panel"}


def __getattr__(name: str) -> Any:
    if name in _QT:
        return getattr(import_module(_QT[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
