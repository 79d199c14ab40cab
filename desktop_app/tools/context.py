"""Everything a tool run needs besides its arguments: folder, path policy, abort, shell settings.

One :class:`ToolContext` is made per session (or per turn) by the turn loop. Its ``signal`` is an
:class:`AbortSignal` the loop fires on Esc: every running tool then stops promptly and returns pi's
aborted result (``Operation aborted``; bash: ``Command aborted`` with the partial output), which the
loop appends like any other result. The :class:`MutationQueue` must be shared by all calls of one
session so ``edit``/``write`` of the same file apply in call order (pi's ``withFileMutationQueue``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import TypeVar

from .results import ToolError

T = TypeVar("T")

__all__ = ["unless_aborted", "AbortSignal", "PathPolicy", "MutationQueue", "ToolUpdate", "ToolContext"]


ABORTED_TEXT = "Operation aborted"
"""What every tool but bash reports when aborted (bash reports ``Command aborted``)."""


class AbortSignal:
    """A one-shot abort flag that coroutines can wait on (pi's ``AbortSignal``).

    The asyncio event is created on first use, so a signal can be built outside a running loop.
    """

    def __init__(self) -> None:
        self._aborted = False
        self._event: asyncio.Event | None = None

    @property
    def aborted(self) -> bool:
        return self._aborted

    def abort(self) -> None:
        self._aborted = True
        if self._event is not None:
            self._event.set()

    def raise_if_aborted(self) -> None:
        """For tool code running in a worker thread: stop at the next check once aborted."""
        if self._aborted:
            raise ToolError(ABORTED_TEXT)

    async def wait(self) -> None:
        """Return once :meth:`abort` has been called (at once if it already was)."""
        if self._event is None:
            self._event = asyncio.Event()
            if self._aborted:
                self._event.set()
        await self._event.wait()


async def unless_aborted(work: Awaitable[T], signal: AbortSignal) -> tuple[bool, T | None]:
    """Await ``work`` unless ``signal`` fires first: ``(True, result)``, or ``(False, None)`` once
    ``work`` has been cancelled and has finished unwinding."""
    task = asyncio.ensure_future(work)
    if signal.aborted:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return False, None
    stop = asyncio.ensure_future(signal.wait())
    try:
        done, _ = await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        stop.cancel()
    if task in done:
        return True, task.result()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return False, None


@dataclass(frozen=True)
class PathPolicy:
    """Which paths file tools may touch.

    pi has no sandbox; Arbor refuses paths outside the working folder unless ``allow_outside`` is
    set or the path lies under one of ``allowed_roots`` (a setting). Symlinks are resolved first,
    so a link inside the folder that points out of it is outside too.
    """

    allow_outside: bool = False
    allowed_roots: tuple[str, ...] = ()


class MutationQueue:
    """A FIFO lock per file (key: real path, or the absolute path while the file does not exist).

    ``asyncio.Lock`` wakes waiters in arrival order, which is what makes same-file edits in one
    parallel batch apply in call order on fresh content.
    """

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}

    @staticmethod
    def key(abs_path: str) -> str:
        return os.path.realpath(abs_path) if os.path.exists(abs_path) else abs_path

    @asynccontextmanager
    async def hold(self, abs_path: str) -> AsyncIterator[None]:
        lock = self._locks.setdefault(self.key(abs_path), asyncio.Lock())
        async with lock:
            yield


@dataclass(frozen=True)
class ToolUpdate:
    """Partial output of a running tool (bash's running tail), for the chat to show live."""

    tool_call_id: str
    tool_name: str
    text: str


@dataclass
class ToolContext:
    """Where and how tools run.

    ``cwd`` is the session header's ``cwd``. ``enabled`` names the tools the model was given; a call
    to any other gets pi's ``Tool <name> not found``. ``shell_path`` / ``shell_command_prefix`` are
    pi's ``shellPath`` / ``shellCommandPrefix`` settings; ``extra_path`` is prepended to ``PATH`` for
    bash (pi puts ``~/.pi/agent/bin`` there). ``temp_dir`` receives ``pi-bash-*.log`` full outputs.
    """

    cwd: str
    enabled: frozenset[str] | None = None
    policy: PathPolicy = field(default_factory=PathPolicy)
    signal: AbortSignal = field(default_factory=AbortSignal)
    mutation_queue: MutationQueue = field(default_factory=MutationQueue)
    shell_path: str | None = None
    shell_command_prefix: str | None = None
    extra_path: tuple[str, ...] = ()
    temp_dir: str | None = None
    model_supports_images: bool = True
    on_update: Callable[[ToolUpdate], None] | None = None
    tool_call_id: str = ""
    """Set by :func:`~.run.run_tool` on its per-call copy, so updates name their call."""

    def for_call(self, tool_call_id: str) -> ToolContext:
        """A copy for one call; the signal, queue and settings are shared with this context."""
        return replace(self, tool_call_id=tool_call_id)
