"""The read end of a shell command's output pipe, read by the event loop without waiting for EOF.

Why not asyncio's subprocess pipes: with them, both a read to EOF and ``Process.wait()`` (Python
3.11 wakes ``wait()`` only once every pipe is closed) last until *every* holder of the write end has
closed it, and a background job (``npm run dev &``, ``setsid server &``) inherits it from the shell.
The call then ran as long as the job did, and Stop could not end it when the job had left the
process group.

Here the bash tool makes the pipe itself, hands the write end to the shell and reads this end with
``loop.add_reader``. When the shell exits, :meth:`OutputPipe.read_available` takes what is already
in the pipe, without waiting, and :meth:`OutputPipe.detach` ends the call's reading. A job still
holding the pipe is not cut off: closing the read end would make its next write fail (SIGPIPE or
EPIPE kills a dev server at its next log line, where a terminal would keep printing), so its output
is read and dropped until the last job closes the pipe, and this end is closed then. That drain
reads at most one chunk per :data:`DRAIN_PAUSE`, so a job that writes without pause (``yes &``) is
slowed by the full pipe, as a slow terminal slows it, instead of keeping the app's loop busy.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

__all__ = ["OutputPipe", "draining_pipes", "dropped_bytes"]

CHUNK = 65536
DRAIN_PAUSE = 0.05
"""Seconds between two reads of a detached pipe: at most 1.3 MB/s of a job's output is dropped."""

_DRAINING: set[OutputPipe] = set()
"""Detached pipes whose jobs still write; kept here (not only by the loop) so they are easy to see."""


_dropped = 0


def draining_pipes() -> int:
    """How many detached pipes are still held open by background jobs (for tests and diagnostics)."""
    return len(_DRAINING)


def dropped_bytes() -> int:
    """How much background jobs' output has been read and dropped in all (for tests and diagnostics)."""
    return _dropped


class OutputPipe:
    """Delivers what arrives on ``fd`` to ``on_data`` until EOF or :meth:`detach`; owns ``fd``."""

    def __init__(self, fd: int, on_data: Callable[[bytes], None]) -> None:
        os.set_blocking(fd, False)
        self._fd = fd
        self._on_data: Callable[[bytes], None] | None = on_data
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(fd, self._readable)
        self._resume: asyncio.TimerHandle | None = None
        self.closed = False

    def _read(self, size: int) -> bytes | None:
        """One read: the bytes, ``b""`` at EOF (or a broken pipe), None when nothing is there yet."""
        try:
            return os.read(self._fd, size)
        except BlockingIOError:
            return None
        except OSError:
            return b""

    def _readable(self) -> None:
        chunk = self._read(CHUNK)
        if chunk is None:
            return
        if not chunk:
            self.close()
        elif self._on_data is not None:
            self._on_data(chunk)
        else:  # detached: drop it, and let the job's next writes wait a little in the pipe
            global _dropped
            _dropped += len(chunk)
            self._loop.remove_reader(self._fd)
            self._resume = self._loop.call_later(DRAIN_PAUSE, self._listen)

    def _listen(self) -> None:
        self._resume = None
        if not self.closed:
            self._loop.add_reader(self._fd, self._readable)

    def read_available(self, limit: int = 16 * CHUNK) -> None:
        """Deliver what is in the pipe now, at most ``limit`` bytes, without waiting for more.

        Everything a process wrote before it exited is in the pipe by then (a full pipe would
        have blocked it), so this takes all of an exited shell's output; the limit only stops a
        job that writes without pause from holding the call.
        """
        taken = 0
        while not self.closed and self._on_data is not None and taken < limit:
            chunk = self._read(min(CHUNK, limit - taken))
            if chunk is None:
                return
            if not chunk:
                self.close()
                return
            taken += len(chunk)
            self._on_data(chunk)

    def detach(self) -> None:
        """Stop delivering; if background jobs still hold the pipe, drop their output until they close it."""
        self._on_data = None
        if not self.closed:
            _DRAINING.add(self)

    def close(self) -> None:
        """Stop reading and close the fd (idempotent)."""
        if self.closed:
            return
        self.closed = True
        _DRAINING.discard(self)
        if self._resume is not None:
            self._resume.cancel()
        self._loop.remove_reader(self._fd)
        os.close(self._fd)
