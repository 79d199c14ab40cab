"""Compaction and branch summaries, exactly as pi computes them; pure Python, no Qt.

Token estimates and thresholds (``tokens``), cut points (``cut_points``), the compaction plan
(``prepare``), file lists (``file_ops``), the transcript a summarizer reads (``serialize``), the model
calls (``summarize``, ``branch_summary``) and the ``arbor inspect`` sections (``report``). Callers import
from these modules; the package re-exports nothing, so importing one module does not load the rest.
"""
