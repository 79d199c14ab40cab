"""What the window says about the working folder's files as the tree moves (DESIGN.md §13), Qt-free.

- The offer after a leaf move, fork or clone: "Restore files to this point (N files)" / "Keep my
  files" / "Show changes", only when N > 0, with the files changed by hand named before a restore
  overwrites them; the choice can be remembered per session (:class:`RestoreChoice`).
- Badges on the nodes whose turn changed files ("2 files +12 −3"), from the checkpoints recorded in
  the session (store-free, one walk of the entries per session revision).
- The diff documents the diff view shows (a turn, the branch since a node, what a restore would do)
  and their lines classified for colour; plain text always, never rich text from session content.

The functions named ``load_*`` and :func:`prepare_offer` read the folder and the store: the window
runs them on a worker thread.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from desktop_app.session.entries import Entry
from desktop_app.session.kinds import EntryKind, Role, kind_of, role_of
from desktop_app.session.manager import SessionManager
from desktop_app.session.tree import SessionIndex
from desktop_app.workspace.changes import ChangeKind, FileChange
from desktop_app.workspace.checkpoints import CHECKPOINT_TYPE, Phase, checkpoint_of
from desktop_app.workspace.queries import (
    TurnChanges,
    changed_since,
    checkpoint_at,
    checkpoints_on_path,
    compaction_changes,
    turn_changes,
)
from desktop_app.workspace.recorder import CHECKPOINT_NOTE_KEY
from desktop_app.workspace.restore import RestoreError, plan_restore_to
from desktop_app.workspace.store import DEFAULT_SIZE_LIMIT, RestoreFailed, Workspace, WorkspaceError

__all__ = [
    "RestoreChoice", "FilesOffer", "files_offer", "prepare_offer", "restore_failed_text", "restored_text",
    "restoring_text", "ask_again_rule",
    "ChangeBadge", "BadgeCache", "turn_badges", "badge_for", "badge_text", "file_line", "file_lines",
    "DiffDoc", "LineKind", "diff_line_kind", "file_offsets", "load_turn_diff", "load_branch_diff",
    "load_restore_diff", "checkpoint_note", "files_rule", "has_checkpoints", "compaction_file_lines", "turn_summary",
]

MINUS = "\u2212"  # − : reads as a minus sign, not a hyphen


class RestoreChoice(StrEnum):
    """What to do with the files after a leaf move in this session (remembered per session)."""

    ASK = "ask"
    RESTORE = "restore"
    KEEP = "keep"


# ================================================================================ the offer


@dataclass(frozen=True)
class FilesOffer:
    """One offer to bring the folder to ``target_id``'s checkpoint."""

    target_id: str
    current_id: str | None
    """The entry whose state the folder was in before the move (hand edits are counted from it)."""
    folder: str
    changes: tuple[FileChange, ...]
    hand_edited: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.changes)

    @property
    def restore_label(self) -> str:
        return f"Restore files to this point ({_files(self.count)})"

    @property
    def text(self) -> str:
        return (f"The working folder differs from this point of the tree in {_files(self.count)}: "
                + _names(f.path for f in self.changes) + ".")

    @property
    def hand_edit_text(self) -> str:
        """The question before overwriting files changed by hand ('' when there are none)."""
        if not self.hand_edited:
            return ""
        them = "it" if len(self.hand_edited) == 1 else "them"
        return (f"You changed {_files(len(self.hand_edited))} by hand since the last checkpoint: "
                f"{_names(self.hand_edited)}. Restoring overwrites {them} (Arbor keeps a copy: going back "
                f"to where you were and restoring brings {them} back). Restore anyway?")


def _files(n: int) -> str:
    return f"{n} file" if n == 1 else f"{n} files"


def _names(paths: Iterable[str], limit: int = 4) -> str:
    names = list(paths)
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def files_offer(plan: Any, current_id: str | None) -> FilesOffer | None:
    """The offer for a :class:`~desktop_app.workspace.restore.RestorePlan` (``None``: nothing to restore)."""
    if not plan.changes:
        return None
    return FilesOffer(plan.entry_id, current_id, plan.folder, tuple(plan.changes), tuple(plan.hand_edited))


def prepare_offer(manager: SessionManager, folder: str, target_id: str, current_id: str | None,
                  size_limit: int = DEFAULT_SIZE_LIMIT) -> FilesOffer | None:
    """Worker thread: what restoring the folder to ``target_id`` would change now (files over
    ``size_limit`` bytes left alone, as the snapshots skip them).

    ``None`` when there is nothing to offer: no checkpoint on the path (no tool wrote anything before
    that point), the folder already matches, or the folder or its snapshots are unavailable (a
    restore could not be made, so none is offered; ``arbor restore`` says why).
    """
    if current_id is not None and manager.get_entry(current_id) is None:
        current_id = None  # a fork: the leaf it came from is in the other session
    if checkpoint_at(manager.index, target_id) is None:
        return None
    try:
        plan = plan_restore_to(manager, target_id, folder, size_limit, current_id=current_id)
    except (RestoreError, WorkspaceError, OSError):
        return None
    return files_offer(plan, current_id)


def restore_failed_text(exc: BaseException) -> str:
    """What the window says when a restore failed (the engine's message says what happened)."""
    if isinstance(exc, RestoreFailed):
        return f"The restore stopped part-way: {exc}"
    return f"Could not restore the files: {exc}"


def restored_text(offer: FilesOffer) -> str:
    return f"Restored {_files(offer.count)} to this point of the tree (undo: go back to where you were and restore)."


def restoring_text(offer: FilesOffer) -> str:
    """What the strip says while the files are written (its buttons wait)."""
    return f"Restoring {_files(offer.count)}\u2026"


def ask_again_rule(choice: RestoreChoice) -> tuple[bool, str]:
    """Whether "Ask again about restoring files" applies (a remembered answer), and its tooltip."""
    if choice is RestoreChoice.RESTORE:
        return True, ("After every move in this session the files are restored without asking "
                      "(remembered): ask again from now on")
    if choice is RestoreChoice.KEEP:
        return True, ("After every move in this session the files are kept without asking "
                      "(remembered): ask again from now on")
    return False, "Arbor asks after every move in this session: no answer is remembered"


# ================================================================================ badges


@dataclass(frozen=True)
class ChangeBadge:
    """What a node's badge says: files changed by its turn, lines added and removed."""

    files: int
    added: int
    removed: int
    paths: tuple[str, ...] = field(default=(), compare=False)
    """The files' paths (a folded run counts a file its turns both changed once)."""

    @property
    def parts(self) -> tuple[str, str, str]:
        """The badge's three words ("2 files", "+12", "−3"), each drawn in its own colour."""
        return badge_parts(self.files, self.added, self.removed)

    @property
    def text(self) -> str:
        return " ".join(self.parts)


def badge_parts(files: int, added: int, removed: int) -> tuple[str, str, str]:
    return _files(files), f"+{added}", f"{MINUS}{removed}"


def badge_text(files: int, added: int, removed: int) -> str:
    return " ".join(badge_parts(files, added, removed))


def _is_user(entry: Entry) -> bool:
    return kind_of(entry) is EntryKind.MESSAGE and role_of(entry.get("message")) is Role.USER


def _is_assistant(entry: Entry) -> bool:
    return kind_of(entry) is EntryKind.MESSAGE and role_of(entry.get("message")) is Role.ASSISTANT


def _is_after(entry: Entry) -> bool:
    if entry.get("type") != "custom" or entry.get("customType") != CHECKPOINT_TYPE:
        return False
    checkpoint = checkpoint_of(entry)
    return checkpoint is not None and checkpoint.phase is Phase.AFTER


_SEEN: dict[int, tuple[weakref.ref[SessionIndex], int, bool]] = {}


def has_checkpoints(index: SessionIndex) -> bool:
    """Whether the session holds any checkpoint entry: a session that never ran write, edit or bash
    pays nothing for badges, the reader's file list or the menu's rules. Entries are only ever
    appended, so each index is scanned once and then only its new entries."""
    seen = _SEEN.get(id(index))
    start, found = (seen[1], seen[2]) if seen is not None and seen[0]() is index else (0, False)
    entries = index.entries
    if not found:
        found = any(e.get("customType") == CHECKPOINT_TYPE for e in entries[start:])
    if len(_SEEN) > 64:
        _SEEN.clear()
    _SEEN[id(index)] = (weakref.ref(index), len(entries), found)
    return found


def turn_badges(index: SessionIndex) -> dict[str, ChangeBadge]:
    """Badges by entry id: on the last assistant reply of every turn that changed files.

    Two passes over the entries (file order: a parent comes before its children) find the replies
    that end a turn with an ``after`` checkpoint on the way; only those ask
    :func:`~desktop_app.workspace.queries.turn_changes`. A session without checkpoints costs one scan.
    """
    entries = index.entries
    if not has_checkpoints(index):
        return {}
    changed: dict[Any, bool] = {}  # entry id → an ``after`` checkpoint since the turn's user message
    for entry in entries:
        entry_id = entry.get("id")
        if _is_user(entry):
            changed[entry_id] = False
        else:
            changed[entry_id] = changed.get(entry.get("parentId"), False) or _is_after(entry)
    later_reply: set[Any] = set()  # ids with an assistant reply below them in the same turn
    for entry in reversed(entries):
        parent = entry.get("parentId")
        if parent is None or _is_user(entry):
            continue
        if _is_assistant(entry) or entry.get("id") in later_reply:
            later_reply.add(parent)
    badges: dict[str, ChangeBadge] = {}
    for entry in entries:
        entry_id = entry.get("id")
        if isinstance(entry_id, str) and changed.get(entry_id) and entry_id not in later_reply and _is_assistant(entry):
            turn = turn_changes(index, entry_id)
            if turn is not None:
                paths = tuple(f.path for f in turn.files)
                badges[entry_id] = ChangeBadge(len(turn.files), turn.added, turn.removed, paths)
    return badges


class BadgeCache:
    """:func:`turn_badges` kept per session revision (the index and how many entries it holds)."""

    def __init__(self) -> None:
        self._key: tuple[int, int] | None = None
        self._badges: dict[str, ChangeBadge] = {}

    def badges(self, index: SessionIndex) -> dict[str, ChangeBadge]:
        key = (id(index), len(index.entries))
        if key != self._key:
            self._badges, self._key = turn_badges(index), key
        return self._badges


def badge_for(badges: Mapping[str, ChangeBadge], ids: Sequence[str]) -> ChangeBadge | None:
    """The badge of a node showing ``ids`` (a folded run: its turns' badges added up)."""
    found = [badges[i] for i in ids if i in badges]
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    paths = tuple(dict.fromkeys(p for b in found for p in b.paths))
    return ChangeBadge(len(paths), sum(b.added for b in found), sum(b.removed for b in found), paths)


def file_line(change: FileChange) -> str:
    """``M src/app.py  +3 −1`` (a binary file: ``binary``)."""
    counts = "binary" if change.binary else f"+{change.added} {MINUS}{change.removed}"
    return f"{change.kind.value} {change.path}  {counts}"


def file_lines(changes: Iterable[FileChange]) -> list[str]:
    return [file_line(c) for c in changes]


def turn_summary(index: SessionIndex, entry_id: str) -> tuple[TurnChanges | None, list[str]]:
    """The turn's changes up to ``entry_id`` and one line per file (store-free: the reader's part)."""
    turn = turn_changes(index, entry_id) if has_checkpoints(index) else None
    return turn, (file_lines(turn.files) if turn is not None else [])


def compaction_file_lines(index: SessionIndex, compaction_id: str) -> list[str]:
    """The files changed in a compaction's summarized range, one line each (the audit lists them)."""
    return file_lines(compaction_changes(index, compaction_id))


def checkpoint_note(message: Mapping[str, Any] | None) -> str | None:
    """The engine's note on a tool result whose checkpoint failed (``details["arborCheckpoint"]``)."""
    details = message.get("details") if isinstance(message, Mapping) else None
    note = details.get(CHECKPOINT_NOTE_KEY) if isinstance(details, Mapping) else None
    return note if isinstance(note, str) and note else None


def files_rule(view: Any, entry_id: str, turn: bool) -> tuple[bool, str]:
    """The node menu's "Show changes" (``turn``) and "Changes since this node": enabled, and the tooltip."""
    index = view.index
    if not has_checkpoints(index):
        return False, "No file was written or command run in this session"
    if turn:
        changes = turn_changes(index, entry_id)
        if changes is None:
            return False, "This node's turn changed no file"
        return True, f"The diff of this turn ({badge_text(len(changes.files), changes.added, changes.removed)})"
    leaf = view.leaf_id
    if leaf is None or leaf == entry_id:
        return False, "This is the active leaf"
    end = checkpoint_at(index, leaf)
    start = checkpoint_at(index, entry_id)
    if end is None or (start is not None and start.snapshot == end.snapshot):
        return False, "No file changed between this node and the leaf"
    return True, "The diff of the files from this node to the active leaf"


# ================================================================================ diffs


class LineKind(StrEnum):
    FILE = "file"  #: ``diff --git`` and the ``---``/``+++``/``index``/mode lines under it
    HUNK = "hunk"  #: ``@@ -1,3 +1,4 @@``
    ADDED = "added"
    REMOVED = "removed"
    CONTEXT = "context"


_FILE_PREFIXES = ("diff --git ", "--- ", "+++ ", "index ", "new file mode", "deleted file mode", "old mode",
                  "new mode", "similarity ", "rename ", "Binary files ")


def diff_line_kind(line: str) -> LineKind:
    """How a line of a unified diff is coloured."""
    if line.startswith(_FILE_PREFIXES):
        return LineKind.FILE
    if line.startswith("@@"):
        return LineKind.HUNK
    if line.startswith("+"):
        return LineKind.ADDED
    if line.startswith("-"):
        return LineKind.REMOVED
    return LineKind.CONTEXT


@dataclass(frozen=True)
class DiffDoc:
    """What the diff view shows: a title, the files with their counts, the unified diff text."""

    title: str
    files: tuple[FileChange, ...]
    text: str
    note: str = ""
    """Why there is nothing to show, or what is missing (plain words)."""


def file_offsets(text: str, files: Sequence[FileChange]) -> dict[str, int]:
    """Line number of each file's ``diff --git`` header in ``text`` (the file list jumps there)."""
    wanted = {f"diff --git a/{f.path} b/{f.path}": f.path for f in files}
    found: dict[str, int] = {}
    for number, line in enumerate(text.split("\n")):
        path = wanted.get(line)
        if path is not None and path not in found:
            found[path] = number
    return found


def _doc(title: str, workspace: Workspace, start: str | None, end: str) -> DiffDoc:
    files = tuple(workspace.changes(start, end))
    text = workspace.diff_text(start, end) if files else ""
    return DiffDoc(title, files, text, "" if files else "No file changed.")


def _failed(title: str, exc: BaseException) -> DiffDoc:
    return DiffDoc(title, (), "", f"The changes cannot be shown: {exc}")


def load_turn_diff(index: SessionIndex, folder: str, entry_id: str) -> DiffDoc:
    """Worker thread: the diff of the turn ending at ``entry_id``."""
    title = "Changes of this turn"
    turn = turn_changes(index, entry_id)
    if turn is None:
        return DiffDoc(title, (), "", "This turn changed no file.")
    try:
        return _doc(title, Workspace.open(folder), turn.start, turn.end)
    except (WorkspaceError, OSError) as exc:
        return _failed(title, exc)


def load_branch_diff(index: SessionIndex, folder: str, since_id: str, until_id: str) -> DiffDoc:
    """Worker thread: the files from ``since_id``'s state to ``until_id``'s (the branch since a node)."""
    title = "Changes since this node"
    end = checkpoint_at(index, until_id)
    if end is None or not changed_since(index, since_id, until_id):
        return DiffDoc(title, (), "", "No file changed on the way from this node to the leaf.")
    start = checkpoint_at(index, since_id)
    if start is None:
        later = checkpoints_on_path(index, until_id)
        start = later[0] if later else None
    try:
        return _doc(title, Workspace.open(folder), start.snapshot if start is not None else None, end.snapshot)
    except (WorkspaceError, OSError) as exc:
        return _failed(title, exc)


def load_restore_diff(offer: FilesOffer, index: SessionIndex) -> DiffDoc:
    """Worker thread: what restoring would do to the folder as it is now."""
    title = "What restoring would change"
    target = checkpoint_at(index, offer.target_id)
    if target is None:
        return DiffDoc(title, (), "", "No checkpoint on the path to this point.")
    try:
        workspace = Workspace.open(offer.folder)
        now = workspace.snapshot()
        return _doc(title, workspace, now.id, target.snapshot)
    except (WorkspaceError, OSError) as exc:
        return _failed(title, exc)


def kinds_count(changes: Iterable[FileChange]) -> dict[ChangeKind, int]:
    """How many files of each kind (for tests and summaries)."""
    counts: dict[ChangeKind, int] = {}
    for change in changes:
        counts[change.kind] = counts.get(change.kind, 0) + 1
    return counts
