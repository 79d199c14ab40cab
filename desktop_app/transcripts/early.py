"""``arbor FILE`` on a big Claude Code transcript: its first picture prepared while the GUI imports.

Reading, building and partly converting a 100 MB transcript takes ~1 s of CPU, and importing Qt and
the window's modules another ~1 s, one after the other on the one thread that matters (``orjson`` and
the imports both hold the GIL, so a thread would not overlap them). A process does: :func:`prepare`
forks before the GUI is imported, the child makes exactly what the deferred open makes first
(:func:`.importing.first_picture_part`: the header, the first picture's entries, the report) and
pipes it back pickled (~1,000 entries); :func:`take_prepared`, in the open, reads it. The whole
transcript is then read again by the ordinary deferred machinery on the loading thread, after the
first paint. Anything odd (no ``fork``, a small file, not a transcript, the child failed) gives
``None`` and the open goes the ordinary way; the source file is only read.
"""

from __future__ import annotations

import os
import pickle
import stat
from collections.abc import Callable
from typing import Any

__all__ = ["prepare", "take_prepared"]

#: ``SessionManager.DEFER_MIN_BYTES`` (not imported here: this runs before the engine is needed).
MIN_BYTES = 8_000_000

_pending: dict[str, tuple[int, int]] = {}  # absolute path → (child pid, read end of its pipe)


def prepare(path: str, make: Callable[[str], object]) -> bool:
    """Start ``make(path)`` (``.importing.first_part_or_none``) in a child process; ``False``: not
    worth it here."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_size < MIN_BYTES or not hasattr(os, "fork"):
        return False
    key = os.path.abspath(path)
    if key in _pending:
        return True
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer, then leave without running the parent's exit handlers
        code = 0
        try:
            os.close(read_end)
            with os.fdopen(write_end, "wb") as out:
                out.write(pickle.dumps(make(path), protocol=pickle.HIGHEST_PROTOCOL))
        except BaseException:  # noqa: BLE001 - the parent opens the ordinary way
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    _pending[key] = (pid, read_end)
    return True


def take_prepared(path: str | os.PathLike[str]) -> Any:
    """What :func:`prepare` made for ``path`` (waiting for it), or ``None``: header, entries, report."""
    pending = _pending.pop(os.path.abspath(os.fspath(path)), None)
    if pending is None:
        return None
    pid, read_end = pending
    try:
        with os.fdopen(read_end, "rb") as handle:
            data = handle.read()
    finally:
        os.waitpid(pid, 0)
    try:
        return pickle.loads(data) if data else None
    except Exception:  # noqa: BLE001 - a truncated answer: the ordinary open
        return None
