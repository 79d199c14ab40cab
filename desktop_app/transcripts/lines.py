"""Reading a Claude Code transcript's lines: one JSON object per line, read fast, never fatal.

Why its own reader (not :func:`desktop_app.session.entries.parse_session_text`): a transcript is
not a pi file (no header, no migration, no JS number quirks to keep), it can be 100 MB of tool
output and pasted images, and the first picture must come within seconds. So the file is read as
bytes in one call and each line goes straight to ``orjson`` (about 1 GB/s on this machine); no
text decoding of the whole file, no per-line Python parsing.

What cannot be read is reported as pi's files are (:class:`~desktop_app.session.manager.OpenReport`):
unreadable lines by number, and an unterminated last line that is not whole JSON as a *torn* last
line (Claude Code was killed mid-write, or is writing right now), never as an error that stops
the rest from loading.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

__all__ = ["TranscriptLines", "read_lines", "parse_lines"]


@dataclass
class TranscriptLines:
    """The objects of a transcript with their 1-based line numbers, and what could not be read."""

    objects: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    malformed_lines: list[int] = field(default_factory=list)
    """Lines that are not a JSON object (bad JSON, an array, a number...)."""
    torn_last_line: bool = False
    """The file ends in an unterminated line that is not a whole JSON object: left unread."""
    size: int = 0


def parse_lines(data: bytes) -> TranscriptLines:
    """Split ``data`` on ``\\n`` and parse each non-blank line; see :class:`TranscriptLines`."""
    result = TranscriptLines(size=len(data))
    lines = data.split(b"\n")
    last = len(lines) - 1  # after the final "\n" this is b"": nothing unterminated
    loads, objects, malformed = orjson.loads, result.objects, result.malformed_lines
    if not lines[last]:  # the usual file: every line whole JSON, none blank; parsed without a Python loop
        try:
            parsed = list(map(loads, lines[:last]))
        except orjson.JSONDecodeError:
            pass  # some line is blank or unreadable: the careful loop below says which
        else:
            if all(type(obj) is dict for obj in parsed):
                objects.extend(zip(range(1, last + 1), parsed, strict=True))
                return result
    for number, raw in enumerate(lines):
        if not raw or raw.isspace():
            continue
        try:
            obj = loads(raw)
        except orjson.JSONDecodeError:
            if number == last:
                result.torn_last_line = True
            else:
                malformed.append(number + 1)
            continue
        if isinstance(obj, dict):
            objects.append((number + 1, obj))
        else:
            malformed.append(number + 1)
    return result


def read_lines(path: str | Path) -> TranscriptLines:
    """Read and parse the file at ``path`` (``OSError`` when it cannot be read)."""
    with open(path, "rb") as handle:
        return parse_lines(handle.read())
