"""Claude Code transcripts: read, shown read-only, continued as pi sessions (DESIGN.md §14).

Qt-free, one layer above ``session`` (it builds pi entries and read-only ``SessionManager``\\ s)
and below everything that opens files (``agent``, ``present``, ``ui``). One module per job:
:mod:`.lines` (the fast, tolerant line reader), :mod:`.model` (the tree, odd files included),
:mod:`.convert` (pi v3 entries), :mod:`.importing` (open read-only, ``arbor import``),
:mod:`.detect` (is a file a transcript) and :mod:`.discovery` (where they live, listing records).
"""

from .detect import is_claude_code_transcript
from .discovery import claude_projects_root, transcript_info_from_text
from .importing import (
    FOREIGN_NAME,
    ImportResult,
    TranscriptError,
    continue_in_arbor,
    import_transcript,
    load_transcript,
    open_session_or_transcript,
    open_transcript,
)

__all__ = [
    "FOREIGN_NAME",
    "ImportResult",
    "TranscriptError",
    "claude_projects_root",
    "continue_in_arbor",
    "import_transcript",
    "is_claude_code_transcript",
    "load_transcript",
    "open_session_or_transcript",
    "open_transcript",
    "transcript_info_from_text",
]
