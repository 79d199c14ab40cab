"""The automation surface (DESIGN.md §7.1): tests, benchmarks and outside checks drive the real
window through these calls, and mouse and keyboard input goes through ``QTest`` on
``window.graph.viewport()`` — the same code path as a person's hand.

- :func:`open_window` opens a session file exactly as ``arbor FILE`` does and returns the shown
  window once the graph's first layout is on screen;
- :func:`pump` runs the event loop (asyncio tasks included) for a while; from synchronous code one
  asyncio loop stays running across calls, so a reply streams on over any number of them
  (:func:`release_loop` leaves the thread without it: a test's teardown);
- on the window: ``window.session`` (read-only :class:`~desktop_app.session.SessionView`),
  ``window.agent``, ``window.graph.reveal(entry_id)`` / ``node_center(entry_id)`` /
  ``pin_center()``, ``window.chat.composer_text()``;
- the chat (issue 22): ``window.chat.composer`` (type into it with ``QTest.keyClicks``, Enter sends,
  Esc stops), ``window.chat.card_actions(entry_id)`` (the names of the actions on that entry's card:
  "Retry", "Regenerate", "Copy", "Edit & branch") and ``window.chat.trigger(entry_id, name)`` (the
  path a click on the card's action takes).

Extended for steering by hand (issue 9), on ``window.steering``: ``node_menu`` (the open node menu,
a ``QMenu`` whose actions carry their :class:`~desktop_app.present.node_menu.MenuAction` as data),
``reader`` (the reader panel), ``summary_question`` (the open question; ``choose("none" | "summarize" |
"focus" | "cancel")``), ``compaction_dialog`` (the open preview or progress), ``band`` (the last
rubber-band selection); ``window.fork_action`` / ``window.clone_action`` / ``window.fork_button()``;
``window.chat.sibling_arrows``.

Extended for context by hand (issue 26): the node menu's context actions carry their
:class:`~desktop_app.present.context_actions.ContextAction` as data; ``window.steering.context_hand``
has ``edit_dialog`` (the open "Edit text in context…": ``editor``, ``original``, ``change``, ``buttons``)
and ``run(entry_id, action)``; ``compaction_dialog`` is a manual one (``slider`` over the valid cuts,
``cut``, ``set_cut(entry_id)``, ``summary_edit``, ``generate_button``, ``error``); :func:`edit_marks`
says which nodes are drawn hidden or edited.

Extended for the files following the tree (issue 25), on ``window.files``: ``bar`` (the offer over the
chat: ``offer`` with ``count`` and ``hand_edited``, ``restore_button`` / ``keep_button`` /
``changes_button`` / ``remember``, ``confirming`` while files changed by hand are named),
``diff_views`` (the open diff windows, newest last: ``file_paths()``, ``text``), ``choice()`` /
``set_choice(RestoreChoice)`` (the remembered answer of the session); ``window.steering.reader.changes_button``;
``window.audit_panel.changed`` (files changed in a compaction's range); the badges on screen:
``desktop_app.ui.graph.change_badges.badges_of(window.graph).placed`` (node, badge text, viewport rect).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEventLoop, QThread, QTimer
from PySide6.QtWidgets import QApplication

from desktop_app.settings import Settings

from .app import build_window
from .event_loop import qt_event_loop
from .gui_gc import install_gui_gc
from .main_window import MainWindow

__all__ = ["edit_marks", "open_window", "pump", "release_loop"]


def _application() -> QApplication:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        return app
    return QApplication([])


#: The loop :func:`pump` keeps running from synchronous code: started once (it counts as running and
#: is the thread's running loop from then on), driven by each ``pump``, ended by :func:`release_loop`.
_running: asyncio.AbstractEventLoop | None = None


def _loop() -> asyncio.AbstractEventLoop:
    """The loop agent work runs on: the caller's running loop (an async test's), else the one
    :func:`pump` keeps running, started on first use.

    Why it keeps running between calls: a loop stopped after each call and started again by the
    next ran callbacks of streaming tasks while it was stopped (Qt delivers them whenever events are
    processed: the end of ``run_until_complete``, ``QTest`` input, a dialog), where the SDK's
    ``sniffio`` found no running loop and the reply was saved as an error
    (``AsyncLibraryNotFoundError: unknown async library``).
    """
    global _running
    app = _application()
    outer = asyncio.events._get_running_loop()
    if outer is not None and outer is not _running:
        return outer
    if _running is None or _running.is_closed() or not _running.is_running():
        _running = qt_event_loop(app, already_running=True)
    if outer is None:  # first use, after release_loop, or another loop's run_until_complete unset it
        asyncio.set_event_loop(_running)
        asyncio.events._set_running_loop(_running)
    return _running


def pump(ms: int) -> None:
    """Run the event loop for ``ms`` milliseconds: Qt events, timers and asyncio tasks.

    From synchronous code the same asyncio loop stays running across calls (and in between, for
    whatever else processes Qt events): a reply streams on over any number of ``pump`` calls. Inside
    a running loop (an async test) only Qt's events are processed (``await asyncio.sleep`` there).
    """
    loop = _loop()
    if loop is not _running:
        deadline = time.monotonic() + ms / 1000
        while time.monotonic() < deadline:
            QCoreApplication.processEvents()
        return
    # Qt's own main loop, as the app runs (QCoreApplication.exec: deferred deletes are done, and
    # Qt's timers fire as they do in the app), quit at the deadline; inside another event loop (a
    # dialog's exec), Qt's events are processed instead.
    app = _application()
    deadline = time.monotonic() + ms / 1000
    while True:
        left = int((deadline - time.monotonic()) * 1000)
        if QThread.currentThread().loopLevel() > 0:
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, max(0, left))
        else:
            quit_timer = QTimer()
            quit_timer.setSingleShot(True)
            quit_timer.timeout.connect(app.exit)
            quit_timer.start(max(0, left))
            app.exec()
            quit_timer.stop()
        if time.monotonic() >= deadline:
            return


def release_loop(timeout_ms: int = 2000) -> None:
    """Leave the thread with no running loop, as before the first :func:`pump` (a test's teardown:
    pytest-asyncio and ``asyncio.run`` refuse to start inside a running loop). The loop's tasks are
    cancelled and given up to ``timeout_ms`` to finish; the next ``pump`` takes the loop up again.

    The loop is never stopped: qasync's ``stop()`` calls ``QCoreApplication.exit()``, after which
    every nested ``QEventLoop.exec()`` (``pump``'s, a dialog's) returns at once until the next
    ``QCoreApplication.exec()``, which nothing here runs.
    """
    loop = _running
    if loop is None or loop.is_closed():
        return
    asyncio.events._set_running_loop(loop)
    tasks = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in tasks:
        task.cancel()
    deadline = time.monotonic() + timeout_ms / 1000
    while tasks and time.monotonic() < deadline and not all(task.done() for task in tasks):
        pump(10)
    asyncio.events._set_running_loop(None)


async def _warm_up(window: MainWindow) -> None:
    """What ``run_gui`` does once the window is up: the SDK loaded, the client built."""
    try:
        await window.agent.provider.warm_up()
    except Exception as exc:  # noqa: BLE001 - the first turn will report it properly
        window.statusBar().showMessage(f"Could not prepare the model client: {exc}", 8000)


def open_window(path: str | Path | None, *, size: tuple[int, int] = (1600, 1000), timeout_ms: int = 10_000,
                files_from: str | None = None) -> MainWindow:
    """Open ``path`` as ``arbor FILE`` does (``ARBOR_HOME`` and settings honoured, the offline model
    unless a key is configured), show the window at ``size`` and return once the graph's first
    layout is on screen. ``None`` opens the window as ``arbor`` with no file does (first launch:
    the newest session, else the sample). ``files_from``: as ``arbor FILE --files-from ENTRY``
    (a fork or clone opened in a new window: the window offers to restore the files).

    From synchronous code it also waits for the model client's warm-up, which the app runs once its
    window is up (the SDK imported off the UI thread): imported instead inside the first turn, on the
    UI thread, it left Qt's timers of the running loop unfired (a first reply that never came).
    """
    loop = _loop()
    install_gui_gc()  # garbage collected on this thread only, whichever loop drives the window
    settings = Settings.load()
    window = build_window(str(path) if path is not None else None, settings, files_from=files_from)
    window.resize(*size)
    window.show()
    warm = loop.create_task(_warm_up(window)) if loop is _running else None
    deadline = time.monotonic() + timeout_ms / 1000
    while (window.graph.layout_kind == "none" or (warm is not None and not warm.done())) and time.monotonic() < deadline:
        QCoreApplication.processEvents()
    QCoreApplication.processEvents()
    if window.graph.layout_kind == "none":
        raise TimeoutError(f"no graph layout on screen after {timeout_ms} ms")
    return window


def edit_marks(window: MainWindow) -> dict[str, str]:
    """Entry id → ``"hidden"`` (struck through) or ``"edited"`` (✎ badge), as the canvas draws them now."""
    from .graph.edit_marks import edit_marks_of

    return edit_marks_of(window.graph.graph_scene().nodes)
