"""Workspace checkpoints (DESIGN.md §13): the working folder snapshotted into a git store outside it,
recorded in the session as ``arbor.checkpoint`` custom entries, and restored with the tree.

Qt-free; below ``agent`` (which takes the snapshots around tool calls) and above ``compaction``.
"""

from .changes import ChangeKind, FileChange, SkippedFile
from .store import DEFAULT_SIZE_LIMIT, RestoreFailed, RestoreResult, Snapshot, Workspace, WorkspaceError

__all__ = [
    "ChangeKind", "FileChange", "SkippedFile", "Workspace", "Snapshot", "RestoreResult",
    "WorkspaceError", "RestoreFailed", "DEFAULT_SIZE_LIMIT",
]
