"""``arbor restore SESSION ENTRY_ID [--yes]``: the working folder back to an entry of the tree.

Without ``--yes`` it prints what would change (``M path``, ``A path``, ``D path``, one a line, as
``git status --short`` would put it) and changes nothing in the folder or the session file; with
``--yes`` it restores and prints the same. Notes (hand-edited files, nothing to change) go to stderr;
errors too, with exit code 1 and never a traceback.
"""

from __future__ import annotations

import sys
from typing import TextIO

from desktop_app.session import SessionError, SessionFileError, SessionManager

from .changes import ChangeKind
from .restore import RestoreError, RestorePlan, plan_restore_to, restore_to
from .store import DEFAULT_SIZE_LIMIT, RestoreFailed, WorkspaceError

__all__ = ["run"]


def _print_plan(plan: RestorePlan, out: TextIO, err: TextIO, *, done: bool) -> None:
    for change in plan.changes:
        print(f"{change.kind.value} {change.path}", file=out)
    if not plan.changes:
        print(f"arbor restore: the folder is already as it was at {plan.entry_id}; nothing to change", file=err)
    kinds = {change.path: change.kind for change in plan.changes}
    for path in plan.hand_edited:
        action = "removed" if kinds.get(path) is ChangeKind.DELETED else "overwritten"
        verb = f"was {action}; its content is kept" if done else f"would be {action}; its content would be kept"
        print(f"arbor restore: {path} was changed by hand since the last checkpoint and {verb} "
              "in a checkpoint under the current entry", file=err)


def run(session_path: str, entry_id: str, yes: bool, out: TextIO | None = None, err: TextIO | None = None,
        size_limit: int = DEFAULT_SIZE_LIMIT) -> int:
    """``size_limit``: the ``checkpoints.maxFileSizeMB`` setting (larger files are left alone)."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        manager = SessionManager.open(session_path)
    except (SessionError, SessionFileError, OSError) as exc:
        print(f"arbor restore: {session_path}: {exc}", file=err)
        return 1
    try:
        if not yes:
            _print_plan(plan_restore_to(manager, entry_id, size_limit=size_limit), out, err, done=False)
            return 0
        outcome = restore_to(manager, entry_id, size_limit=size_limit)
        _print_plan(outcome.plan, out, err, done=True)
        return 0
    except RestoreFailed as exc:
        print(f"arbor restore: {exc}", file=err)
        return 1
    except (RestoreError, WorkspaceError, SessionError, SessionFileError, OSError) as exc:
        print(f"arbor restore: {exc}", file=err)
        return 1
    finally:
        manager.close()
