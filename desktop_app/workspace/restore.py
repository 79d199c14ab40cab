"""Restoring the working folder to an entry of the session tree (``arbor restore``, the window's offer).

The folder's state at an entry is the newest checkpoint on root → entry. A restore first records the
folder as the user left it (a ``restore`` checkpoint under the current leaf, when it differs from
what the leaf's checkpoint says: hand edits are kept, and restoring to the leaf brings them back),
then writes the files. Files changed by hand since the leaf's checkpoint are named.

Two halves, so the window never waits on the folder: :func:`apply_restore` (plan, snapshot, file
writes: any thread) and :func:`record_restore` (the one session entry: the session's own thread).
:func:`restore_to` runs both in turn, as ``arbor restore`` does.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from desktop_app.session.manager import SessionManager

from .changes import FileChange
from .checkpoints import CHECKPOINT_TYPE, Checkpoint, Phase, checkpoint_data
from .queries import checkpoint_at
from .store import DEFAULT_SIZE_LIMIT, RestoreFailed, Workspace, WorkspaceError

__all__ = [
    "RestoreError", "RestorePlan", "RestoreOutcome", "AppliedRestore", "plan_restore_to", "apply_restore",
    "record_restore", "restore_to",
]


class RestoreError(Exception):
    """Why the folder cannot be restored to that entry, in plain words."""


@dataclass(frozen=True)
class RestorePlan:
    entry_id: str
    folder: str
    checkpoint: Checkpoint
    """The checkpoint whose snapshot the folder would become."""
    changes: list[FileChange]
    """What restoring would do to the folder as it is now (``M``/``A``/``D`` by path)."""
    hand_edited: list[str]
    """Paths among ``changes`` that differ from the current leaf's checkpoint: changed by hand."""


@dataclass(frozen=True)
class RestoreOutcome:
    plan: RestorePlan
    undo: str
    """Snapshot of the folder just before the restore."""
    recorded: str | None
    """The ``restore`` checkpoint entry saving the folder as it was (``None``: it matched the leaf's)."""


def _workspace(folder: str, size_limit: int) -> Workspace:
    if not os.path.isdir(folder):
        raise RestoreError(f"the working folder {folder} is missing")
    return Workspace.open(folder, size_limit=size_limit)


def _expected(manager: SessionManager, workspace: Workspace, current_id: str | None) -> str | None:
    """What the folder should hold now: as Arbor last saw or made it, else the current entry's checkpoint."""
    known = workspace.known()
    if known is not None:
        return known
    current_id = current_id if current_id is not None else manager.leaf_id
    leaf = checkpoint_at(manager.index, current_id) if current_id is not None else None
    return leaf.snapshot if leaf is not None and workspace.has(leaf.snapshot) else None


def plan_restore_to(manager: SessionManager, entry_id: str, folder: str | None = None,
                    size_limit: int = DEFAULT_SIZE_LIMIT, current_id: str | None = None) -> RestorePlan:
    """What restoring to ``entry_id`` would change; nothing is written (the store gets a snapshot).

    ``folder``: the working folder (default: the session's ``cwd``). ``current_id``: the entry whose
    state the folder should be in now, to tell hand edits (default: the leaf; the window passes the
    leaf it had before the move that offers the restore).
    """
    folder = os.path.abspath(folder or manager.cwd)
    if manager.get_entry(entry_id) is None:
        raise RestoreError(f"no entry {entry_id} in this session")
    target = checkpoint_at(manager.index, entry_id)
    if target is None:
        raise RestoreError(f"no checkpoint on the path to {entry_id}: no file was written or command run before it")
    workspace = _workspace(folder, size_limit)
    try:
        if not workspace.has(target.snapshot):
            raise RestoreError(f"checkpoint {target.snapshot[:12]} is not in the store of {folder} "
                               "(was the session made in another folder or on another machine?)")
        now = workspace.snapshot()
        changes = workspace.changes(now.id, target.snapshot)
        hand = workspace.hand_edited(_expected(manager, workspace, current_id), now.id, changes)
    except WorkspaceError as exc:
        raise RestoreError(str(exc)) from exc
    return RestorePlan(entry_id, folder, target, changes, hand)


@dataclass(frozen=True)
class AppliedRestore:
    """A restore whose files are written; what is left is the session's part (:func:`record_restore`)."""

    plan: RestorePlan
    undo: str
    """Snapshot of the folder just before the restore."""
    record_under: str | None
    """The entry under which the folder as the user left it is to be recorded (``None``: nothing to record)."""
    record_data: dict[str, Any] | None
    """The ``restore`` checkpoint's ``data``."""


def _hand_edits_data(manager: SessionManager, workspace: Workspace, under: str, snapshot: str) -> dict[str, Any]:
    """The ``restore`` checkpoint of the folder as the user left it, to go under ``under``."""
    leaf = checkpoint_at(manager.index, under)
    known = leaf is not None and workspace.has(leaf.snapshot)
    files = workspace.changes(leaf.snapshot, snapshot) if leaf is not None and known else []
    return checkpoint_data(snapshot, Phase.RESTORE, (), files, (), baseline=not known)


def apply_restore(manager: SessionManager, entry_id: str, folder: str | None = None,
                  size_limit: int = DEFAULT_SIZE_LIMIT, current_id: str | None = None) -> AppliedRestore:
    """The slow half of :func:`restore_to`: plan, snapshot the folder, write the files. It reads the
    session (its index) but never writes it, so the window runs it on a worker thread; the entry it
    leaves to write goes in with :func:`record_restore` on the session's own thread. Raises as
    :func:`restore_to` does (a half-way failure has put the files back, or says it could not)."""
    plan = plan_restore_to(manager, entry_id, folder, size_limit, current_id)
    workspace = _workspace(plan.folder, size_limit)
    leaf_id = current_id if current_id is not None else manager.leaf_id
    try:
        expected = _expected(manager, workspace, current_id)
        result = workspace.restore(plan.checkpoint.snapshot)
        hand_made = expected is None or workspace.tree_of(expected) != workspace.tree_of(result.undo)
        if leaf_id is None or not hand_made:
            return AppliedRestore(plan, result.undo, None, None)
        return AppliedRestore(plan, result.undo, leaf_id, _hand_edits_data(manager, workspace, leaf_id, result.undo))
    except RestoreFailed:
        raise
    except WorkspaceError as exc:
        raise RestoreError(str(exc)) from exc


def record_restore(manager: SessionManager, applied: AppliedRestore) -> RestoreOutcome:
    """The session's half of :func:`restore_to`, on the thread that owns ``manager``: append the
    ``restore`` checkpoint (if any) under the entry the folder was at; the leaf stays where it is."""
    if applied.record_under is None or applied.record_data is None:
        return RestoreOutcome(applied.plan, applied.undo, None)
    moved_from = manager.leaf_id
    recorded = manager.append_custom_entry(CHECKPOINT_TYPE, applied.record_data, parent_id=applied.record_under)
    if moved_from is not None:
        manager.branch(moved_from)  # recording the old state is no move of the leaf
    return RestoreOutcome(applied.plan, applied.undo, recorded)


def restore_to(manager: SessionManager, entry_id: str, folder: str | None = None,
               size_limit: int = DEFAULT_SIZE_LIMIT, current_id: str | None = None) -> RestoreOutcome:
    """Make the folder what it was at ``entry_id`` (arguments as :func:`plan_restore_to`); the leaf
    does not move. Raises :class:`RestoreError`, or :class:`~desktop_app.workspace.RestoreFailed`
    (a ``WorkspaceError``) when writing stopped part-way (its message says whether the files were put back).
    Both halves on this thread (``arbor restore``); the window runs :func:`apply_restore` on a worker."""
    return record_restore(manager, apply_restore(manager, entry_id, folder, size_limit, current_id))
