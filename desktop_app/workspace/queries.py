"""Questions the window asks about checkpoints on a session tree (Qt-free; DESIGN.md §13).

All take the session's :class:`SessionIndex` (``manager.index``) and walk root → entry paths, so
they are safe on a worker thread. Those that need file contents (exact +/− counts, what a restore
would change now) take the folder's :class:`Workspace` too.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.compaction.audit import audit_compaction
from desktop_app.session.entries import Entry
from desktop_app.session.kinds import Role, role_of
from desktop_app.session.tree import SessionIndex

from .changes import FileChange, LineTotals
from .checkpoints import Checkpoint, Phase, checkpoint_of, merge_changes
from .store import Workspace

__all__ = [
    "TurnChanges", "checkpoints_on_path", "checkpoint_at", "turn_changes", "branch_changes",
    "compaction_changes", "changed_since",
]


@dataclass(frozen=True)
class TurnChanges(LineTotals):
    """What one assistant turn did to the folder."""

    start: str | None
    """Snapshot before the turn's first tool call (``None``: unknown, nothing was recorded before it)."""
    end: str
    """Snapshot after its last tool call."""
    files: tuple[FileChange, ...]
    """Net change (kinds exact; +/− summed over the steps, see :func:`merge_changes`)."""
    checkpoints: tuple[Checkpoint, ...]


def _path(index: SessionIndex, entry_id: str) -> list[Entry]:
    if index.by_id.get(entry_id) is None:
        return []
    return index.get_branch(entry_id, remember=False)


def checkpoints_on_path(index: SessionIndex, entry_id: str) -> list[Checkpoint]:
    """Every checkpoint on root → ``entry_id``, oldest first."""
    return [c for c in (checkpoint_of(e) for e in _path(index, entry_id)) if c is not None]


def checkpoint_at(index: SessionIndex, entry_id: str) -> Checkpoint | None:
    """The folder's state at ``entry_id``: the newest checkpoint on root → ``entry_id``."""
    for entry in reversed(_path(index, entry_id)):
        found = checkpoint_of(entry)
        if found is not None:
            return found
    return None


def turn_changes(index: SessionIndex, entry_id: str) -> TurnChanges | None:
    """The changes of the turn ending at ``entry_id`` (usually its last assistant reply).

    The turn is the part of root → ``entry_id`` after the last user message. Hand edits recorded by
    the turn's first ``before`` checkpoint are not the turn's: they count from that checkpoint on.
    ``None`` when the turn changed no file (no ``after`` checkpoint, or all of them empty).
    """
    path = _path(index, entry_id)
    start_at = 0
    for position in range(len(path) - 1, -1, -1):
        if path[position].get("type") == "message" and role_of(path[position].get("message")) is Role.USER:
            start_at = position
            break
    before_turn = next((c for c in (checkpoint_of(e) for e in reversed(path[:start_at])) if c is not None), None)
    inside = [c for c in (checkpoint_of(e) for e in path[start_at:]) if c is not None]
    if not any(c.phase is Phase.AFTER for c in inside):
        return None
    start = before_turn.snapshot if before_turn is not None else None
    if inside[0].phase is Phase.BEFORE:  # hand edits before the turn are not the turn's
        start = inside[0].snapshot
        counted = inside[1:]
    else:
        counted = inside
    files = merge_changes(counted)
    if not files:
        return None
    return TurnChanges(start, inside[-1].snapshot, tuple(files), tuple(inside))


def branch_changes(index: SessionIndex, workspace: Workspace, since_id: str, until_id: str) -> list[FileChange]:
    """Exact changes from the folder's state at ``since_id`` to its state at ``until_id``.

    With no checkpoint at ``since_id`` the first checkpoint after it on the way to ``until_id`` is
    the start (the folder as the first tool call found it). ``[]`` when nothing was recorded.
    """
    end = checkpoint_at(index, until_id)
    if end is None:
        return []
    start = checkpoint_at(index, since_id)
    if start is None:
        later = checkpoints_on_path(index, until_id)
        start = later[0] if later else None
    return workspace.changes(start.snapshot if start is not None else None, end.snapshot)


def changed_since(index: SessionIndex, since_id: str, until_id: str) -> list[FileChange]:
    """Store-free :func:`branch_changes`: merged from the checkpoints' recorded ``files``."""
    path = checkpoints_on_path(index, until_id)
    start = checkpoint_at(index, since_id)
    ids = [c.entry_id for c in path]
    after = ids.index(start.entry_id) + 1 if start is not None and start.entry_id in ids else 0
    return merge_changes(path[after:])


def compaction_changes(index: SessionIndex, compaction_id: str) -> list[FileChange]:
    """Files changed within a compaction's summarized range (store-free, from the checkpoints)."""
    audit = audit_compaction(index, compaction_id)
    summarized = set(audit.summarized_ids)
    if not summarized:
        return []
    path = _path(index, compaction_id)
    inside = [c for c in (checkpoint_of(e) for e in path if str(e.get("id")) in summarized) if c is not None]
    return merge_changes(inside)
