"""``arbor inspect``: the engine's answers for a session file as one JSON document (pi's conformance schema).

Named ``inspection`` so that it never shadows the standard library's ``inspect``.
"""

from .report import build_report, render, run

__all__ = ["build_report", "render", "run"]
