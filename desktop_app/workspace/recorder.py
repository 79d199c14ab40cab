"""Taking a checkpoint around tool calls: snapshot, compare with the path's last one, say what changed.

:func:`take_checkpoint` is the slow half (reads the folder, writes the store): the agent runs it on a
worker thread and appends the entry it returns on its own thread. It never raises: a snapshot that
fails (folder gone, a file that cannot be read, a store that cannot be written) comes back as
:class:`CheckpointFailed` with the reason, and the tool call goes ahead without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from desktop_app.tools import APPROVAL_TOOLS

from .checkpoints import Checkpoint, Phase, checkpoint_data
from .store import DEFAULT_SIZE_LIMIT, Workspace, WorkspaceError

__all__ = [
    "CheckpointTaken", "CheckpointFailed", "take_checkpoint", "MUTATING_TOOLS", "missing_checkpoint_text",
    "CHECKPOINT_NOTE_KEY",
]

#: The key in a tool result's ``details`` saying which checkpoint of the call is missing and why.
CHECKPOINT_NOTE_KEY = "arborCheckpoint"

#: The tools around whose calls the folder is snapshotted: those that ask before they run, because
#: they change files (write, edit, bash); the registry says which they are.
MUTATING_TOOLS: frozenset[str] = APPROVAL_TOOLS


@dataclass(frozen=True)
class CheckpointTaken:
    snapshot: str
    data: dict[str, Any] | None
    """The entry's ``data`` to append, or ``None``: the folder is as the path's last checkpoint says."""


@dataclass(frozen=True)
class CheckpointFailed:
    phase: Phase
    reason: str


def take_checkpoint(folder: str, phase: Phase, tool_call_ids: tuple[str, ...], previous: Checkpoint | None,
                    size_limit: int = DEFAULT_SIZE_LIMIT) -> CheckpointTaken | CheckpointFailed:
    """Snapshot ``folder``; the entry data if it changed since ``previous`` (or if there is none)."""
    try:
        workspace = Workspace.open(folder, size_limit=size_limit)
        snapshot = workspace.snapshot()
        workspace.mark_known(snapshot.id)
        known = previous is not None and workspace.has(previous.snapshot)
        if known and previous is not None and workspace.tree_of(previous.snapshot) == snapshot.tree:
            return CheckpointTaken(snapshot.id, None)
        files = workspace.changes(previous.snapshot, snapshot.id) if known and previous is not None else []
        data = checkpoint_data(snapshot.id, phase, tool_call_ids, files, snapshot.skipped, baseline=not known)
        return CheckpointTaken(snapshot.id, data)
    except WorkspaceError as exc:
        return CheckpointFailed(phase, str(exc))
    except OSError as exc:  # opening or creating the store itself
        return CheckpointFailed(phase, f"the checkpoint store could not be used ({exc.strerror or exc})")


def missing_checkpoint_text(failure: CheckpointFailed) -> str:
    """What a tool call's card says when its checkpoint could not be taken."""
    when = "before" if failure.phase is Phase.BEFORE else "after"
    return f"No checkpoint {when} this call: {failure.reason}. The call ran; its files cannot be restored to this point."
