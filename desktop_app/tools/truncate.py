"""pi's output limits (``truncate.js``): 2000 lines or 50 KB, cut at the head or the tail.

Every tool that can return a lot (read, bash, grep, find, ls) goes through these two functions, so
the limits, the byte accounting (UTF-8 bytes plus one per joining ``\\n``) and the ``details.truncation``
record the model and the session file see are the same everywhere. Lines are ``split("\\n")``: a
trailing newline counts as one more, empty, line, exactly as pi counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

__all__ = [
    "DEFAULT_MAX_LINES",
    "DEFAULT_MAX_BYTES",
    "GREP_MAX_LINE_LENGTH",
    "UNLIMITED_LINES",
    "Truncation",
    "truncate_head",
    "truncate_tail",
    "format_size",
    "utf8_len",
]

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500
UNLIMITED_LINES = 9007199254740991
"""``Number.MAX_SAFE_INTEGER``: the line limit grep, find and ls pass (they cut by bytes only)."""


def utf8_len(text: str) -> int:
    """``Buffer.byteLength(text, "utf8")`` (a lone surrogate counts as the 3 bytes of U+FFFD)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "replace"))


def _to_fixed_1(value: float) -> str:
    """``Number.prototype.toFixed(1)``: a tie rounds away from zero on the exact binary value."""
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def format_size(size: int) -> str:
    """pi's ``formatSize``: ``512B``, ``50.0KB``, ``1.5MB``."""
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{_to_fixed_1(size / 1024)}KB"
    return f"{_to_fixed_1(size / (1024 * 1024))}MB"


@dataclass(frozen=True)
class Truncation:
    """The result of a cut; :meth:`to_details` is pi's ``details.truncation`` object, keys in pi's order."""

    content: str
    truncated: bool
    truncated_by: Literal["lines", "bytes"] | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: int
    max_bytes: int

    def to_details(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }


def _untouched(content: str, lines: int, size: int, max_lines: int, max_bytes: int) -> Truncation:
    return Truncation(content, False, None, lines, size, lines, size, False, False, max_lines, max_bytes)


def _cut(
    kept: list[str],
    truncated_by: Literal["lines", "bytes"],
    total_lines: int,
    total_bytes: int,
    partial: bool,
    max_lines: int,
    max_bytes: int,
) -> Truncation:
    out = "\n".join(kept)
    return Truncation(
        out, True, truncated_by, total_lines, total_bytes, len(kept), utf8_len(out), partial, False,
        max_lines, max_bytes,
    )  # fmt: skip


def truncate_head(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> Truncation:
    """Keep whole lines from the start (read, grep, find, ls).

    A first line that alone is over ``max_bytes`` yields ``""`` with ``first_line_exceeds_limit``
    so the caller can tell the model how to get at it (read's ``sed`` hint).
    """
    total_bytes = utf8_len(content)
    lines = content.split("\n")
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untouched(content, total_lines, total_bytes, max_lines, max_bytes)
    if utf8_len(lines[0]) > max_bytes:
        return Truncation(
            "", True, "bytes", total_lines, total_bytes, 0, 0, False, True, max_lines, max_bytes
        )
    kept: list[str] = []
    used = 0
    truncated_by: Literal["lines", "bytes"] = "lines"
    for index, line in enumerate(lines[:max_lines]):
        cost = utf8_len(line) + (1 if index > 0 else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        used += cost
    return _cut(kept, truncated_by, total_lines, total_bytes, False, max_lines, max_bytes)


def _utf8_tail(text: str, max_bytes: int) -> str:
    """The last ``max_bytes`` bytes of ``text``, starting on a character boundary."""
    raw = text.encode("utf-8", "replace")
    start = max(0, len(raw) - max_bytes)
    while start < len(raw) and (raw[start] & 0xC0) == 0x80:
        start += 1
    return raw[start:].decode("utf-8")


def truncate_tail(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> Truncation:
    """Keep whole lines from the end (bash); a last line over the limit keeps its last bytes."""
    total_bytes = utf8_len(content)
    lines = content.split("\n")
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untouched(content, total_lines, total_bytes, max_lines, max_bytes)
    kept: list[str] = []
    used = 0
    truncated_by: Literal["lines", "bytes"] = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        cost = utf8_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            if not kept:
                kept.append(_utf8_tail(line, max_bytes))
                partial = True
            break
        kept.append(line)
        used += cost
    kept.reverse()
    return _cut(kept, truncated_by, total_lines, total_bytes, partial, max_lines, max_bytes)
