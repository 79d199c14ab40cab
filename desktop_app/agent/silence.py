"""Noticing a silent server: ``WaitingForServer`` after a few seconds without a stream event.

A watch costs one timer per stream, not per event: :meth:`SilenceWatch.heard` only notes the time,
and the timer, when it fires, re-arms itself for the moment the silence would reach the threshold.
The network timeouts that end a stall belong to the provider; this only tells the user.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from .events import AgentEvent, WaitingForServer

__all__ = ["SilenceWatch"]

REPEAT_SECONDS = 1.0
"""While the silence lasts, the notice is repeated this often (the view shows the seconds)."""


class SilenceWatch:
    """Emits ``WaitingForServer(seconds)`` once ``after`` seconds pass with no :meth:`heard` call."""

    def __init__(
        self, after: float, emit: Callable[[AgentEvent], None], *, repeat: float = REPEAT_SECONDS
    ) -> None:
        self._loop = asyncio.get_running_loop()
        self._after = max(0.001, after)
        self._repeat = max(0.001, repeat)
        self._emit = emit
        self._last = self._loop.time()
        self._handle: asyncio.TimerHandle | None = self._loop.call_at(self._last + self._after, self._fire)

    def heard(self) -> None:
        """Something arrived from the server."""
        self._last = self._loop.time()

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _fire(self) -> None:
        now = self._loop.time()
        silent = now - self._last
        if silent + 1e-3 >= self._after:
            self._emit(WaitingForServer(round(silent, 1)))
            self._handle = self._loop.call_at(now + self._repeat, self._fire)
        else:
            self._handle = self._loop.call_at(self._last + self._after, self._fire)
