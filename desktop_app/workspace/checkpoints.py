"""The ``arbor.checkpoint`` custom entry: a snapshot of the working folder recorded in the session.

pi keeps ``custom`` entries and never sends them to the model, so a session with checkpoints reads
the same in pi 0.73.1 and 1.6.0. The entry's ``data``::

    {"snapshot": "<commit sha>", "phase": "before" | "after" | "restore",
     "toolCallIds": ["toolu_…", …], "files": [{"path", "change": "A"|"M"|"D", "added", "removed", "binary"?}],
     "skipped": [{"path", "size"}], "baseline": true?}

``files`` are the changes since the previous checkpoint on the entry's path (a *baseline*, the first
checkpoint on a path, lists none). ``before`` brackets the tool calls named in ``toolCallIds`` from
the front (its ``files`` are hand edits made since the last checkpoint), ``after`` from the back;
``restore`` is the folder as the user left it, saved by a restore before it changed the files.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from desktop_app.session.entries import Entry

from .changes import ChangeKind, FileChange, LineTotals, SkippedFile

__all__ = ["CHECKPOINT_TYPE", "Phase", "Checkpoint", "checkpoint_of", "checkpoint_data", "merge_changes"]

CHECKPOINT_TYPE = "arbor.checkpoint"


class Phase(StrEnum):
    BEFORE = "before"
    AFTER = "after"
    RESTORE = "restore"


@dataclass(frozen=True)
class Checkpoint(LineTotals):
    entry_id: str
    snapshot: str
    phase: Phase
    tool_call_ids: tuple[str, ...] = ()
    files: tuple[FileChange, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
    baseline: bool = False


def checkpoint_data(snapshot: str, phase: Phase, tool_call_ids: tuple[str, ...], files: list[FileChange],
                    skipped: tuple[SkippedFile, ...], *, baseline: bool) -> dict[str, Any]:
    """The ``data`` of a new checkpoint entry (see the module docstring)."""
    data: dict[str, Any] = {
        "snapshot": snapshot,
        "phase": phase.value,
        "toolCallIds": list(tool_call_ids),
        "files": [f.to_data() for f in files],
        "skipped": [s.to_data() for s in skipped],
    }
    if baseline:
        data["baseline"] = True
    return data


def checkpoint_of(entry: Entry | None) -> Checkpoint | None:
    """The checkpoint an entry records, or ``None`` (another kind of entry, or malformed data)."""
    if entry is None or entry.get("type") != "custom" or entry.get("customType") != CHECKPOINT_TYPE:
        return None
    data = entry.get("data")
    if not isinstance(data, dict) or not isinstance(data.get("snapshot"), str):
        return None
    try:
        phase = Phase(str(data.get("phase")))
    except ValueError:
        return None
    ids = data.get("toolCallIds")
    files = [FileChange.from_data(f) for f in data.get("files") or [] if isinstance(data.get("files"), list)]
    skipped = [SkippedFile.from_data(s) for s in data.get("skipped") or [] if isinstance(data.get("skipped"), list)]
    return Checkpoint(
        entry_id=str(entry.get("id")),
        snapshot=data["snapshot"],
        phase=phase,
        tool_call_ids=tuple(str(i) for i in ids) if isinstance(ids, list) else (),
        files=tuple(f for f in files if f is not None),
        skipped=tuple(s for s in skipped if s is not None),
        baseline=data.get("baseline") is True,
    )


_AFTER: dict[tuple[ChangeKind, ChangeKind], ChangeKind | None] = {
    (ChangeKind.ADDED, ChangeKind.MODIFIED): ChangeKind.ADDED,
    (ChangeKind.ADDED, ChangeKind.DELETED): None,  # made and removed again: no change at all
    (ChangeKind.MODIFIED, ChangeKind.MODIFIED): ChangeKind.MODIFIED,
    (ChangeKind.MODIFIED, ChangeKind.DELETED): ChangeKind.DELETED,
    (ChangeKind.DELETED, ChangeKind.ADDED): ChangeKind.MODIFIED,
}


def merge_changes(checkpoints: list[Checkpoint]) -> list[FileChange]:
    """The net change over consecutive checkpoints of one path, from their recorded ``files`` alone.

    Kinds are exact; line counts are the sums of the steps (an upper bound on the net +/−: a line
    added then removed counts in both). For exact counts and the diff, ask the store
    (:meth:`Workspace.changes`) with the first and last snapshots.
    """
    net: dict[str, FileChange | None] = {}
    for checkpoint in checkpoints:
        for change in checkpoint.files:
            known = net.get(change.path)
            if known is None:  # first seen, or made and removed again earlier
                net[change.path] = change
                continue
            kind = _AFTER.get((known.kind, change.kind), change.kind)
            net[change.path] = None if kind is None else FileChange(
                change.path, kind, known.added + change.added, known.removed + change.removed,
                known.binary or change.binary)
    return [change for _, change in sorted(net.items()) if change is not None]
