"""Compaction and branch summaries, exactly as pi 0.73.1 computes them; pure Python, no Qt.

Token estimates and thresholds (``tokens``), cut points (``cut_points``), the compaction plan
(``prepare``), file lists (``file_ops``), the transcript a summarizer reads (``serialize``), the model
calls (``summarize``, ``branch_summary``) and the ``arbor inspect`` sections (``report``). The model
calls are imported from their modules (they depend on ``desktop_app.llm``); the names below are the
pure, synchronous part.
"""

from .branch_entries import collect_entries_for_branch_summary, prepare_branch_entries
from .cut_points import CutPointResult, find_cut_point, find_turn_start_index, find_valid_cut_points
from .file_ops import FileOperations, compute_file_lists, extract_file_ops, format_file_operations
from .prepare import CompactionPreparation, prepare_compaction
from .serialize import serialize_conversation
from .tokens import (
    DEFAULT_COMPACTION_SETTINGS,
    CompactionSettings,
    ContextEstimate,
    calculate_context_tokens,
    estimate_context_tokens,
    estimate_tokens,
    get_last_assistant_usage,
    is_context_overflow,
    should_compact,
)

__all__ = [
    "DEFAULT_COMPACTION_SETTINGS",
    "CompactionPreparation",
    "CompactionSettings",
    "ContextEstimate",
    "CutPointResult",
    "FileOperations",
    "calculate_context_tokens",
    "collect_entries_for_branch_summary",
    "compute_file_lists",
    "estimate_context_tokens",
    "estimate_tokens",
    "extract_file_ops",
    "find_cut_point",
    "find_turn_start_index",
    "find_valid_cut_points",
    "format_file_operations",
    "get_last_assistant_usage",
    "is_context_overflow",
    "prepare_branch_entries",
    "prepare_compaction",
    "serialize_conversation",
    "should_compact",
]
