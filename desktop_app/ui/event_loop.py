"""The asyncio loop on top of Qt's event loop (qasync), behind one typed function.

qasync ships no type information; this module is the only place that imports it, so the rest of
``ui/`` (and ``testing``) stays fully typed.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QCoreApplication

__all__ = ["qt_event_loop"]


def qt_event_loop(app: QCoreApplication) -> asyncio.AbstractEventLoop:
    """A new asyncio event loop that runs on ``app``'s Qt event loop (not yet set as current)."""
    import qasync  # type: ignore[import-untyped]  # no stubs; typed by this function's signature

    loop: asyncio.AbstractEventLoop = qasync.QEventLoop(app)
    return loop
