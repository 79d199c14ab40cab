"""The automation surface (DESIGN.md §7.1): tests, benchmarks and outside checks drive the real
window through these calls, and mouse and keyboard input goes through ``QTest`` on
``window.graph.viewport()`` — the same code path as a person's hand.

- :func:`open_window` opens a session file exactly as ``arbor FILE`` does and returns the shown
  window once the graph's first layout is on screen;
- :func:`pump` runs the event loop (asyncio tasks included) for a while;
- on the window: ``window.session`` (read-only :class:`~desktop_app.session.SessionView`),
  ``window.agent``, ``window.graph.reveal(entry_id)`` / ``node_center(entry_id)`` /
  ``pin_center()``, ``window.chat.composer_text()``.

Extended for steering by hand (issue 9), on ``window.steering``: ``node_menu`` (the open node menu,
a ``QMenu`` whose actions carry their :class:`~desktop_app.present.node_menu.MenuAction` as data),
``reader`` (the reader panel), ``summary_question`` (the open question; ``choose("none" | "summarize" |
"focus" | "cancel")``), ``compaction_dialog`` (the open preview or progress), ``band`` (the last
rubber-band selection); ``window.fork_action`` / ``window.clone_action`` / ``window.fork_button()``;
``window.chat.sibling_arrows``.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

from desktop_app.settings import Settings

from .app import build_window
from .event_loop import qt_event_loop
from .gui_gc import install_gui_gc
from .main_window import MainWindow

__all__ = ["open_window", "pump"]


def _application() -> QApplication:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        return app
    return QApplication([])


def _loop() -> asyncio.AbstractEventLoop:
    """The current asyncio loop if it runs on Qt (qasync), else a new one set as current."""
    app = _application()
    try:
        loop = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        loop = None
    if loop is None or loop.is_closed() or type(loop).__module__.split(".")[0] != "qasync":
        loop = qt_event_loop(app)
        asyncio.set_event_loop(loop)
    return loop


def pump(ms: int) -> None:
    """Run the event loop for ``ms`` milliseconds: Qt events, timers and asyncio tasks.

    From synchronous code only (inside a running loop, ``await asyncio.sleep`` instead).
    """
    loop = _loop()
    if loop.is_running():
        deadline = time.monotonic() + ms / 1000
        while time.monotonic() < deadline:
            QCoreApplication.processEvents()
        return
    loop.run_until_complete(asyncio.sleep(ms / 1000))


def open_window(path: str | Path | None, *, size: tuple[int, int] = (1600, 1000), timeout_ms: int = 10_000) -> MainWindow:
    """Open ``path`` as ``arbor FILE`` does (``ARBOR_HOME`` and settings honoured, the offline model
    unless a key is configured), show the window at ``size`` and return once the graph's first
    layout is on screen. ``None`` opens the window as ``arbor`` with no file does (first launch:
    the newest session, else the sample)."""
    _loop()
    install_gui_gc()  # garbage collected on this thread only, whichever loop drives the window
    settings = Settings.load()
    window = build_window(str(path) if path is not None else None, settings)
    window.resize(*size)
    window.show()
    deadline = time.monotonic() + timeout_ms / 1000
    while window.graph.layout_kind == "none" and time.monotonic() < deadline:
        QCoreApplication.processEvents()
    QCoreApplication.processEvents()
    if window.graph.layout_kind == "none":
        raise TimeoutError(f"no graph layout on screen after {timeout_ms} ms")
    return window
