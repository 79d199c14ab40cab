"""The asyncio loop on top of Qt's event loop (qasync), behind one typed function.

qasync ships no type information; this module is the only place that imports it, so the rest of
``ui/`` (and ``testing``) stays fully typed.

The loop's default executor (``asyncio.to_thread``, ``run_in_executor(None, ...)``) is a plain
:class:`~concurrent.futures.ThreadPoolExecutor`, not qasync's ``QThreadExecutor``: its QThreads are
never joined when the interpreter ends, and Qt then aborts the process ("QThread: Destroyed while
thread is still running", exit code 134) after everything else succeeded. Python joins the workers of
a ``ThreadPoolExecutor`` at exit, and they never touch Qt.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import QCoreApplication

__all__ = ["qt_event_loop"]


def qt_event_loop(app: QCoreApplication) -> asyncio.AbstractEventLoop:
    """A new asyncio event loop that runs on ``app``'s Qt event loop (not yet set as current)."""
    import qasync  # type: ignore[import-untyped]  # no stubs; typed by this function's signature

    loop: asyncio.AbstractEventLoop = qasync.QEventLoop(app)
    loop.set_default_executor(ThreadPoolExecutor(max_workers=4, thread_name_prefix="arbor-io"))
    return loop
