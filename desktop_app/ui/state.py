"""Arbor's own UI state: the last selected leaf of each session (DESIGN.md §2, §9).

pi does not persist a navigation without a summary (the leaf is the file's last line on reopen).
Arbor keeps the file as pi would and remembers the leaf here instead, in ``<state dir>/ui-state.json``.
A missing or broken state file is simply empty; writes are atomic so a crash never corrupts it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from desktop_app.session.paths import arbor_state_dir

MAX_SESSIONS = 500


class UiState:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or arbor_state_dir() / "ui-state.json"
        self._data: dict[str, Any] = self._read()

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"leaves": {}}
        if not isinstance(data, dict) or not isinstance(data.get("leaves"), dict):
            return {"leaves": {}}
        return data

    def last_leaf(self, session_file: str | None) -> str | None:
        if not session_file:
            return None
        value = self._data["leaves"].get(session_file)
        return value if isinstance(value, str) else None

    def remember_leaf(self, session_file: str | None, leaf_id: str | None) -> None:
        if not session_file:
            return
        leaves: dict[str, Any] = self._data["leaves"]
        leaves.pop(session_file, None)
        if leaf_id is not None:
            leaves[session_file] = leaf_id  # newest last, so the oldest are dropped first
        while len(leaves) > MAX_SESSIONS:
            leaves.pop(next(iter(leaves)))
        self._write()

    def _write(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
            tmp.write_text(json.dumps(self._data), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            pass  # UI state is a convenience; never an error for the user
