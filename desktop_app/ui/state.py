"""Arbor's own UI state: the last selected leaf of each session, window geometry, splitter sizes,
recent sessions (DESIGN.md §2, §9).

pi does not persist a navigation without a summary (the leaf is the file's last line on reopen).
Arbor keeps the file as pi would and remembers the leaf here instead, in ``<state dir>/ui-state.json``.
A missing or broken state file is simply empty; writes are atomic so a crash never corrupts it.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_app.session.paths import arbor_state_dir

MAX_SESSIONS = 500
MAX_RECENT = 10


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

    # ------------------------------------------------------------------ window

    def geometry(self) -> bytes | None:
        """The window geometry Qt saved (``QWidget.saveGeometry``), or ``None``."""
        value = self._data.get("geometry")
        if not isinstance(value, str):
            return None
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return None

    def set_geometry(self, data: bytes) -> None:
        self._data["geometry"] = base64.b64encode(data).decode("ascii")
        self._write()

    def splitter_sizes(self, name: str) -> list[int] | None:
        """The sizes of splitter ``name`` as last left (``None``: never saved or unusable)."""
        sizes = self._data.get("splitters", {}).get(name) if isinstance(self._data.get("splitters"), dict) else None
        if isinstance(sizes, list) and sizes and all(isinstance(n, int) and n >= 0 for n in sizes):
            return list(sizes)
        return None

    def set_splitter_sizes(self, name: str, sizes: Sequence[int]) -> None:
        splitters = self._data.get("splitters")
        if not isinstance(splitters, dict):
            splitters = self._data["splitters"] = {}
        splitters[name] = [int(n) for n in sizes]
        self._write()

    def recent(self) -> list[str]:
        """Recently opened session files, newest first."""
        value = self._data.get("recent")
        return [p for p in value if isinstance(p, str)] if isinstance(value, list) else []

    def add_recent(self, path: str | None) -> None:
        if not path:
            return
        self._data["recent"] = [path, *[p for p in self.recent() if p != path]][:MAX_RECENT]
        self._write()

    def flag(self, name: str, default: bool) -> bool:
        value = self._data.get("flags", {}).get(name) if isinstance(self._data.get("flags"), dict) else None
        return value if isinstance(value, bool) else default

    def set_flag(self, name: str, value: bool) -> None:
        flags = self._data.get("flags")
        if not isinstance(flags, dict):
            flags = self._data["flags"] = {}
        flags[name] = value
        self._write()

    def _write(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
            tmp.write_text(json.dumps(self._data), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            pass  # UI state is a convenience; never an error for the user
