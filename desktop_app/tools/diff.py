"""The line diff edit returns in ``details.diff`` (pi's ``generateDiffString`` over jsdiff's ``diffLines``).

Format: removed lines ``-{old:>W} text``, added ``+{new:>W} text``, context ``␠{old:>W} text`` and a
gap ``␠{W spaces}␠...``, with W the digit count of the longer file's line count; 4 lines of context
around changes (a run between two changes is shown whole up to 8 lines). Lines are compared with
their newline, so a changed final newline shows as a removed and an added line.

The alignment is a plain Myers shortest edit script; where several shortest scripts exist, jsdiff
may pick another one (pi-tools.md marks this [inferred]); the text of every line is the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["DiffPart", "diff_lines", "format_diff", "CONTEXT_LINES"]

CONTEXT_LINES = 4
Kind = Literal["same", "removed", "added"]


@dataclass(frozen=True)
class DiffPart:
    kind: Kind
    lines: list[str]
    """The lines without their newline characters."""


def _tokens(text: str) -> list[str]:
    return text.splitlines(keepends=True) if text else []


def _myers(a: list[str], b: list[str]) -> list[tuple[Kind, str]]:
    """Shortest edit script between token lists (Myers 1986), as ``(kind, token)`` steps."""
    n, m = len(a), len(b)
    offset = n + m + 1
    frontier = [0] * (2 * offset + 1)
    trace: list[list[int]] = []
    for d in range(n + m + 1):
        trace.append(frontier.copy())
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and frontier[offset + k - 1] < frontier[offset + k + 1]):
                x = frontier[offset + k + 1]
            else:
                x = frontier[offset + k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            frontier[offset + k] = x
            if x >= n and y >= m:
                return _backtrack(a, b, trace, offset, d, k)
    return []


def _backtrack(
    a: list[str], b: list[str], trace: list[list[int]], offset: int, d: int, k: int
) -> list[tuple[Kind, str]]:
    steps: list[tuple[Kind, str]] = []
    x, y = len(a), len(b)
    for depth in range(d, 0, -1):
        previous = trace[depth]
        k = x - y
        down = k == -depth or (k != depth and previous[offset + k - 1] < previous[offset + k + 1])
        prev_k = k + 1 if down else k - 1
        prev_x = previous[offset + prev_k]
        prev_y = prev_x - prev_k
        while x > prev_x and y > prev_y:
            x -= 1
            y -= 1
            steps.append(("same", a[x]))
        if down:
            y -= 1
            steps.append(("added", b[y]))
        else:
            x -= 1
            steps.append(("removed", a[x]))
    while x > 0 and y > 0:
        x -= 1
        y -= 1
        steps.append(("same", a[x]))
    steps.reverse()
    return steps


def diff_lines(old: str, new: str) -> list[DiffPart]:
    """Runs of unchanged, removed and added lines; in each change, removals come before additions."""
    a, b = _tokens(old), _tokens(new)
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    middle = _myers(a[head : len(a) - tail], b[head : len(b) - tail])
    steps: list[tuple[Kind, str]] = [("same", t) for t in a[:head]] + middle
    steps += [("same", t) for t in a[len(a) - tail :]]
    parts: list[DiffPart] = []
    removed: list[str] = []
    added: list[str] = []
    same: list[str] = []

    def flush_change() -> None:
        if removed:
            parts.append(DiffPart("removed", removed.copy()))
        if added:
            parts.append(DiffPart("added", added.copy()))
        removed.clear()
        added.clear()

    for kind, token in steps:
        line = token[:-1] if token.endswith("\n") else token
        if kind == "same":
            flush_change()
            same.append(line)
            continue
        if same:
            parts.append(DiffPart("same", same.copy()))
            same.clear()
        (removed if kind == "removed" else added).append(line)
    flush_change()
    if same:
        parts.append(DiffPart("same", same))
    return parts


def format_diff(old: str, new: str) -> tuple[str, int | None]:
    """pi's diff text and the first changed line (1-based, in the new file)."""
    parts = diff_lines(old, new)
    width = len(str(max(len(old.split("\n")), len(new.split("\n")))))
    gap = " " + " " * width + " ..."
    out: list[str] = []
    old_no = new_no = 1
    first_changed: int | None = None
    for index, part in enumerate(parts):
        if part.kind != "same":
            if first_changed is None:
                first_changed = new_no
            sign = "-" if part.kind == "removed" else "+"
            for line in part.lines:
                number = old_no if part.kind == "removed" else new_no
                out.append(f"{sign}{str(number).rjust(width)} {line}")
                if part.kind == "removed":
                    old_no += 1
                else:
                    new_no += 1
            continue
        before = index > 0
        after = index < len(parts) - 1
        numbered: list[tuple[int, str] | None] = [(old_no + i, line) for i, line in enumerate(part.lines)]
        shown: list[tuple[int, str] | None]
        if before and after:
            shown = numbered if len(numbered) <= 2 * CONTEXT_LINES else [*numbered[:4], None, *numbered[-4:]]
        elif after:
            shown = numbered if len(numbered) <= CONTEXT_LINES else [None, *numbered[-CONTEXT_LINES:]]
        elif before:
            shown = numbered if len(numbered) <= CONTEXT_LINES else [*numbered[:CONTEXT_LINES], None]
        else:
            shown = []
        for item in shown:
            out.append(gap if item is None else f" {str(item[0]).rjust(width)} {item[1]}")
        old_no += len(part.lines)
        new_no += len(part.lines)
    return "\n".join(out), first_changed
