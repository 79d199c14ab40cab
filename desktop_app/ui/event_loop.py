"""The asyncio loop on top of Qt's event loop (qasync), behind one typed function.

qasync ships no type information; this module is the only place that imports it, so the rest of
``ui/`` (and ``testing``) stays fully typed.

The loop's default executor (``asyncio.to_thread``, ``run_in_executor(None, ...)``) is a plain
:class:`~concurrent.futures.ThreadPoolExecutor`, not qasync's ``QThreadExecutor``: its QThreads are
never joined when the interpreter ends, and Qt then aborts the process ("QThread: Destroyed while
thread is still running", exit code 134) after everything else succeeded. Python joins the workers of
a ``ThreadPoolExecutor`` at exit, and they never touch Qt.

Work moved off the UI thread (the whole graph's build, a compaction's preparation, freeing a replaced
graph) is pure Python, so it shares the GIL with the UI thread. With CPython's default switch
interval (5 ms) the UI thread, each time it lets the GIL go (every Qt call that releases it), may wait
5 ms to get it back: a 10 ms turn became 40-60 ms while a compaction was prepared at 100,000
entries. The loop sets the interval to :data:`GIL_SWITCH_INTERVAL` (measured, issue 10: the longest
stall while streaming and compacting, median of 3 runs, 25 -> 20 ms; the gap as the compaction
starts 42/29/19 -> 18/19/20 ms). It only matters while threads compete for the GIL.

The loop also puts cyclic garbage collection on the GUI thread (:mod:`.gui_gc`): a collection
started by a worker thread's allocations could finalize Qt objects there.
"""

from __future__ import annotations

import asyncio
import sys
from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import QCoreApplication

from .gui_gc import install_gui_gc

__all__ = ["GIL_SWITCH_INTERVAL", "qt_event_loop"]

#: Seconds a thread holds the GIL before another that wants it gets its turn (CPython: 0.005).
GIL_SWITCH_INTERVAL = 0.001


def qt_event_loop(app: QCoreApplication, *, already_running: bool = False) -> asyncio.AbstractEventLoop:
    """A new asyncio event loop that runs on ``app``'s Qt event loop (not yet set as current), with
    garbage collected on ``app``'s thread only (:func:`~.gui_gc.install_gui_gc`).

    ``already_running``: the loop counts as running at once and is this thread's running loop, while
    whoever drives Qt's event processing (``testing.pump``) runs its callbacks; stop it with ``stop()``.
    """
    import qasync  # type: ignore[import-untyped]  # no stubs; typed by this function's signature

    sys.setswitchinterval(GIL_SWITCH_INTERVAL)
    install_gui_gc(app)
    loop: asyncio.AbstractEventLoop = qasync.QEventLoop(app, already_running=already_running)
    loop.set_default_executor(ThreadPoolExecutor(max_workers=4, thread_name_prefix="arbor-io"))
    return loop
