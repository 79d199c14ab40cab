"""Keeping a reply that could not go into its session: the recovery file.

A reply is the one thing a user cannot get back for free (it cost time and money), so when it cannot
be appended where it belongs — the disk is full, the file turned read-only, or the entry it answers
vanished because another program rewrote or truncated the file — it is written as JSON to a file of
its own under ``ARBOR_HOME/state/recovered/`` and the user is told where. Nothing is ever attached
to a parent it does not answer.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from desktop_app.session.paths import arbor_state_dir
from desktop_app.session.store import write_all

__all__ = ["recovery_dir", "write_recovery_file"]


def recovery_dir() -> Path:
    return arbor_state_dir() / "recovered"


def write_recovery_file(
    message: dict[str, Any], *, session_file: str | None, parent_id: str | None, reason: str
) -> Path:
    """Write the reply with where it belonged and why it is here; returns the file's path.

    Raises ``OSError`` when even this cannot be written (the caller then reports the reply's text).
    """
    directory = recovery_dir()
    directory.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    path = directory / f"reply-{stamp}-{os.getpid()}-{time.monotonic_ns() % 1_000_000:06d}.json"
    record = {
        "sessionFile": session_file,
        "parentId": parent_id,
        "reason": reason,
        "savedAt": int(time.time() * 1000),
        "message": message,
    }
    data = (json.dumps(record, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    return path
