"""Is this file a Claude Code transcript? Told from its first lines, never from its name or folder.

A person may open a transcript copied anywhere (``Open…``, ``arbor FILE``), so the folder proves
nothing; and a pi file must never be taken for one. The first readable JSON object decides: a pi
header (``type: "session"``) means pi; a line of a type only Claude Code writes, or with its
``sessionId``/``uuid`` fields, means Claude Code. Only the first 64 KiB are read.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from .wire import Line

__all__ = ["is_claude_code_transcript", "PROBE_BYTES", "CLAUDE_CODE_TYPES"]

PROBE_BYTES = 64 * 1024
CLAUDE_CODE_TYPES = frozenset(Line) - {Line.PI_SESSION}


def is_claude_code_transcript(path: str | Path) -> bool:
    """``True`` when the first JSON object of the file is a Claude Code line (see the module)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(PROBE_BYTES)
    except OSError:
        return False
    for raw in head.split(b"\n"):
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue  # a torn or unreadable line (or the probe's cut): look at the next
        if not isinstance(obj, dict):
            return False
        kind = obj.get("type")
        if kind == Line.PI_SESSION:
            return False
        return kind in CLAUDE_CODE_TYPES and ("sessionId" in obj or "uuid" in obj or "leafUuid" in obj
                                              or "messageId" in obj)
    return False
