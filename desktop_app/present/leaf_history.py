"""Undo and redo of leaf moves (Ctrl+Z / Ctrl+Shift+Z).

Moving the leaf is the one thing Arbor does to a session that is not an append: nothing is written
(the leaf is where the next entry will hang), so it can be taken back exactly. Every move the user
makes — double-click, Enter, the dragged pin, a menu's Continue, a sibling arrow — is recorded as
``before → after``; undo puts the leaf back on ``before`` without asking for a summary and without
writing anything (a branch summary appended by the move stays in the file, as every append does).
A new move forgets what could be redone. Another session starts a fresh history.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LeafHistory", "LeafMove"]

LIMIT = 100


@dataclass(frozen=True)
class LeafMove:
    before: str
    after: str


class LeafHistory:
    """Two stacks of :class:`LeafMove` for one session."""

    def __init__(self) -> None:
        self._undo: list[LeafMove] = []
        self._redo: list[LeafMove] = []

    def clear(self) -> None:
        self._undo.clear()
        self._redo.clear()

    def record(self, before: str | None, after: str | None) -> None:
        """The user moved the leaf. A move from or to no leaf at all (an empty session) is not undoable."""
        if before is None or after is None or before == after:
            return
        self._undo.append(LeafMove(before, after))
        del self._undo[:-LIMIT]
        self._redo.clear()

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo(self) -> str | None:
        """The leaf to go back to (``None``: nothing to undo); the move becomes redoable."""
        if not self._undo:
            return None
        move = self._undo.pop()
        self._redo.append(move)
        return move.before

    def redo(self) -> str | None:
        """The leaf to go forward to again (``None``: nothing to redo)."""
        if not self._redo:
            return None
        move = self._redo.pop()
        self._undo.append(move)
        return move.after
