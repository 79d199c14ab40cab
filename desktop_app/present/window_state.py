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
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from desktop_app.session.paths import arbor_state_dir
from desktop_app.session.workers import serial_worker

MAX_SESSIONS = 500
MAX_RECENT = 10


class UiState:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or arbor_state_dir() / "ui-state.json"
        self._data: dict[str, Any] = self._read()
        self._schedule: Callable[[Callable[[], None]], None] | None = None
        self._pending = False
        self._lock = threading.Lock()  # one write at a time, the newest state last
        self._made = 0  # states made into text so far (their numbers order the writes)
        self._stored = 0  # the number of the state on disk
        self._background: Future[None] | None = None

    def write_leaves_later(self, schedule: Callable[[Callable[[], None]], None] | None) -> None:
        """Leaf changes are written by ``schedule(write)`` (a timer's, a moment later) on a worker
        thread, not at once on the caller's.

        The leaf moves with every append: a reply, a tool result, the user's message. Writing the
        file each time was ~0.7 ms of the event loop per entry, two or three in the turn that sends a
        message, and 24 ms once when its rename waited behind another file's fsync. Every other
        change, and :meth:`flush`, writes everything at once, pending leaves included; a crash loses
        at most the last moment's leaf, which reopening then takes from the file as pi does.
        ``None``: write at once again.
        """
        self._schedule = schedule

    def flush(self) -> None:
        """Write a leaf change that is waiting for its moment now (nothing if none is)."""
        if self._pending:
            self._write()

    def wait_written(self) -> None:
        """Until the worker thread's write (if any) is on disk."""
        if self._background is not None:
            self._background.result()

    def _write_in_background(self) -> None:
        if self._pending:
            self._pending = False
            self._background = serial_worker("ui-state").submit(self._store, *self._snapshot())

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
        if self._schedule is None:
            self._write()
        elif not self._pending:
            self._pending = True
            self._schedule(self._write_in_background)

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

    def files_choice(self, session_key: str | None) -> str | None:
        """What to do with the files after a leaf move in that session, when remembered (issue 25)."""
        choices = self._data.get("filesChoice")
        value = choices.get(session_key) if isinstance(choices, dict) and session_key else None
        return value if isinstance(value, str) else None

    def set_files_choice(self, session_key: str | None, choice: str | None) -> None:
        if not session_key:
            return
        choices = self._data.get("filesChoice")
        if not isinstance(choices, dict):
            choices = self._data["filesChoice"] = {}
        choices.pop(session_key, None)
        if choice is not None:
            choices[session_key] = choice  # newest last, so the oldest are dropped first
        while len(choices) > MAX_SESSIONS:
            choices.pop(next(iter(choices)))
        self._write()

    def _write(self) -> None:
        self._pending = False
        self._store(*self._snapshot())

    def _snapshot(self) -> tuple[str, int]:
        """The state as text now, numbered (taken on the caller's thread: the dict is not shared)."""
        self._made += 1
        return json.dumps(self._data), self._made

    def _store(self, text: str, number: int) -> None:
        with self._lock:
            if number < self._stored:
                return  # a newer state is on disk already
            self._stored = number
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
                tmp.write_text(text, encoding="utf-8")
                os.replace(tmp, self.path)
            except OSError:
                pass  # UI state is a convenience; never an error for the user

