"""What changed between two snapshots, per file: added, modified or deleted, and +/− line counts.

A file is *binary* when either side holds a NUL byte in its first 8,000 bytes (git's own test);
binary files carry no line counts. Counts come from the same line diff the ``edit`` tool reports.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from desktop_app.tools.diff import diff_lines

__all__ = ["ChangeKind", "FileChange", "LineTotals", "SkippedFile", "is_binary", "line_counts", "LINE_DIFF_LIMIT"]

#: Above this many lines on both sides together, counts come from a multiset of lines instead of an
#: alignment (an alignment of two 100,000-line files is seconds; the multiset count is exact unless
#: lines only moved).
LINE_DIFF_LIMIT = 20_000


class ChangeKind(StrEnum):
    ADDED = "A"
    MODIFIED = "M"
    DELETED = "D"


@dataclass(frozen=True)
class FileChange:
    path: str
    """POSIX path relative to the working folder."""
    kind: ChangeKind
    added: int = 0
    """Lines added (0 for a binary file)."""
    removed: int = 0
    """Lines removed (0 for a binary file)."""
    binary: bool = False

    def to_data(self) -> dict[str, Any]:
        """The form kept in a checkpoint entry's ``data.files``."""
        data: dict[str, Any] = {"path": self.path, "change": self.kind.value, "added": self.added,
                                "removed": self.removed}
        if self.binary:
            data["binary"] = True
        return data

    @classmethod
    def from_data(cls, data: Any) -> FileChange | None:
        """Read back :meth:`to_data` (``None`` for anything malformed: another program wrote it)."""
        if not isinstance(data, dict) or not isinstance(data.get("path"), str):
            return None
        try:
            kind = ChangeKind(str(data.get("change")))
        except ValueError:
            return None
        added, removed = data.get("added", 0), data.get("removed", 0)
        return cls(data["path"], kind, added if isinstance(added, int) else 0,
                   removed if isinstance(removed, int) else 0, data.get("binary") is True)


class LineTotals:
    """``added`` and ``removed``: the lines of ``files`` summed, for what holds a set of changes (a
    checkpoint, a turn's net change)."""

    files: tuple[FileChange, ...]

    @property
    def added(self) -> int:
        return sum(f.added for f in self.files)

    @property
    def removed(self) -> int:
        return sum(f.removed for f in self.files)


@dataclass(frozen=True)
class SkippedFile:
    """A file left out of a snapshot because it is over the size limit."""

    path: str
    size: int

    def to_data(self) -> dict[str, Any]:
        return {"path": self.path, "size": self.size}

    @classmethod
    def from_data(cls, data: Any) -> SkippedFile | None:
        if not isinstance(data, dict) or not isinstance(data.get("path"), str):
            return None
        size = data.get("size")
        return cls(data["path"], size if isinstance(size, int) else 0)


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:8000]


def line_counts(old: bytes, new: bytes) -> tuple[int, int]:
    """(lines added, lines removed) from ``old`` to ``new`` (text, decoded leniently)."""
    a = old.decode("utf-8", errors="replace")
    b = new.decode("utf-8", errors="replace")
    a_lines = a.splitlines(keepends=True)
    b_lines = b.splitlines(keepends=True)
    if len(a_lines) + len(b_lines) > LINE_DIFF_LIMIT:
        old_count, new_count = Counter(a_lines), Counter(b_lines)
        return sum((new_count - old_count).values()), sum((old_count - new_count).values())
    added = removed = 0
    for part in diff_lines(a, b):
        if part.kind == "added":
            added += len(part.lines)
        elif part.kind == "removed":
            removed += len(part.lines)
    return added, removed
