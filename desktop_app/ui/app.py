"""Starting Arbor: the Qt application, the asyncio loop on top of it (qasync), the first session.

A newcomer with no key and no sessions gets the sample session (branches, two compactions, a
branch summary, labels) copied into their sessions folder, on the offline model, so everything the
app can show is on screen at once. The copy is theirs; the shipped file is never written.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop_app.agent import AgentSession
from desktop_app.agent.providers import make_provider
from desktop_app.agent.startup import SAMPLE_SESSION, initial_session
from desktop_app.settings import Settings

from .plain import plain_text

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from .main_window import MainWindow

__all__ = ["SAMPLE_SESSION", "close_on_sigterm", "initial_session", "run_gui"]

def close_on_sigterm(window: QWidget) -> Callable[[], None]:
    """Make SIGTERM close ``window`` exactly as its close button does; returns the undo.

    Closing aborts a streaming reply and the loop then waits for its partial text to be saved;
    the default SIGTERM action would kill the process and lose it (issue 13 item 9). Python runs
    signal handlers only between bytecodes, which an idle Qt loop never executes, so the signal
    is carried into Qt through a wake-up socket that a ``QSocketNotifier`` watches.
    """
    from PySide6.QtCore import QSocketNotifier

    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    previous_fd = signal.set_wakeup_fd(writer.fileno())
    previous_handler = signal.signal(signal.SIGTERM, lambda _signum, _frame: None)
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, window)

    def on_wakeup() -> None:
        try:
            received = reader.recv(512)
        except BlockingIOError:
            return
        if signal.SIGTERM in received:
            window.close()

    notifier.activated.connect(on_wakeup)

    def undo() -> None:
        notifier.setEnabled(False)
        signal.signal(signal.SIGTERM, previous_handler)
        signal.set_wakeup_fd(previous_fd)
        reader.close()
        writer.close()

    return undo


def build_window(path: str | None, settings: Settings, *, defer_load: bool = False,
                 files_from: str | None = None) -> MainWindow:
    """The main window on the session ``arbor [path]`` opens: the file, else the start-up choice
    (newest session, else the sample), with the configured model (offline without a key).
    ``defer_load``: a big file shows from the lines its first picture needs; the caller then runs
    :func:`finish_loading_in_background` (``SessionManager.open(defer=True)``). ``files_from``: the
    file is a fork or clone made in another window whose leaf was that entry (``--files-from``): the
    window offers to restore the files to its own leaf's point."""
    from desktop_app.present.window_state import UiState

    from .main_window import MainWindow
    from .theme import apply_theme

    apply_theme(settings.theme)  # before the widgets are built: the graph takes its colours at birth
    manager = initial_session(path, settings, defer_load=defer_load)
    agent = AgentSession(manager, make_provider(settings, offline_on_invalid_key=True), settings)
    window = MainWindow(agent, settings, ui_state=UiState())
    if files_from is not None:
        window.files.arrive(files_from)
    return window


#: The latest a deferred open's whole-file parse starts when the graph never paints (hidden window).
_LOAD_AT_THE_LATEST_MS = 1000
#: The whole-file parse starts this long after the first picture's paint: the work that waited for
#: the picture (the meter, the sibling arrows' first slice) and the chat's paint run first without
#: the parse's thread beside them (issue 28: the turn right after the picture was the longest left).
_PARSE_AFTER_PICTURE_MS = 120
#: The interpreter's switch interval (s) while that parse runs on its worker: the UI thread waits
#: this long at most for the GIL back after each Qt call (at the app's 1 ms, a turn of a hundred
#: Qt calls beside the parse could wait 0.1 s; the whole graph's build, when it ran on a worker,
#: measured 110-150 ms turns at 1 ms and 55 ms at 0.2 ms, issue 28). Restored once installed.
_PARSE_SWITCH_INTERVAL = 0.0002


def finish_loading_in_background(window: MainWindow, loop: asyncio.AbstractEventLoop) -> None:
    """Parse the rest of a deferred open's file on a worker thread once the first picture is painted
    (the parse holds the GIL much of the time: started earlier, it slows that picture down), then
    install it on this thread (:meth:`MainWindow.install_full_session`).

    Meanwhile (issue 28: the window's turns beside the parse): no cyclic collection runs
    (:func:`~.gui_gc.hold_collections`; the parse makes millions of objects that all survive, and
    each collection the GUI thread's timer ran walked those made so far: 17 of them, ~0.56 s in all,
    at 100,000 entries; once installed, the graph freezes the session out of the collector's sight),
    the GIL changes hands every :data:`_PARSE_SWITCH_INTERVAL` seconds, and the worker also scans
    the parsed entries for checkpoints (what the first paint after the install asked, ~40 ms)."""
    from PySide6.QtCore import QEvent, QObject, QTimer

    from desktop_app.present.file_changes import has_checkpoints

    from .gui_gc import hold_collections, release_collections

    manager = window.agent.session
    if not manager.loading:
        return
    switch_before: list[float] = []

    def install() -> None:
        try:
            window.install_full_session()
        finally:
            release_collections(manager)
            if switch_before:
                sys.setswitchinterval(switch_before.pop())

    def loaded() -> None:  # on the worker thread
        try:
            loop.call_soon_threadsafe(install)
        except RuntimeError:  # the loop is closed: the window is gone, nothing to show
            pass

    def start() -> None:
        viewport.removeEventFilter(watcher)
        if manager.loading and not switch_before:  # once (the first paint or the timer, whichever comes first)
            hold_collections(manager)
            switch_before.append(sys.getswitchinterval())
            sys.setswitchinterval(_PARSE_SWITCH_INTERVAL)
        manager.load_in_background(loaded, has_checkpoints)

    class FirstPaint(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
            if event.type() == QEvent.Type.Paint:
                QTimer.singleShot(_PARSE_AFTER_PICTURE_MS, window, start)  # after this paint and what waited for it
            return False

    viewport = window.graph.viewport()
    watcher = FirstPaint(window)
    viewport.installEventFilter(watcher)
    QTimer.singleShot(_LOAD_AT_THE_LATEST_MS, window, start)


def run_gui(path: str | None = None, *, files_from: str | None = None) -> int:
    """Open the main window and run until it closes (``files_from``: see :func:`build_window`)."""
    from PySide6.QtWidgets import QApplication, QMessageBox

    from .event_loop import qt_event_loop

    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("Arbor")
    app.setOrganizationName("Arbor")
    if isinstance(app, QApplication):
        from PySide6.QtGui import QIcon

        from desktop_app.agent.startup import RESOURCES

        app.setDesktopFileName("arbor")  # the window matches packaging/arbor.desktop
        app.setWindowIcon(QIcon(str(RESOURCES / "icons" / "arbor.svg")))
    loop = qt_event_loop(app)
    asyncio.set_event_loop(loop)
    settings = Settings.load()
    try:
        window = build_window(path, settings, defer_load=True, files_from=files_from)
        agent = window.agent
    except Exception as exc:  # noqa: BLE001 - a clear message instead of a traceback
        what = f"open {path}" if path else "start"
        QMessageBox.critical(None, "Arbor", plain_text(f"Arbor could not {what}:\n{exc}"))
        print(f"arbor: could not {what}: {exc}", file=sys.stderr)
        return 1
    for warning in settings.warnings:
        window.chat.show_error(warning)
    window.show()
    finish_loading_in_background(window, loop)
    restore_sigterm = close_on_sigterm(window)
    closed = asyncio.Event()
    window.closed.connect(closed.set)
    app.aboutToQuit.connect(closed.set)

    async def warm_up() -> None:
        # Once the window is up: load the SDK and build its models and client now, not on the first turn.
        await asyncio.sleep(0.3)
        try:
            await agent.provider.warm_up()
        except Exception as exc:  # noqa: BLE001 - the first turn will report it properly
            window.statusBar().showMessage(f"Could not prepare the model client: {exc}", 8000)

    try:
        loop.create_task(warm_up())
        loop.run_until_complete(closed.wait())
        # A reply that was streaming when the window closed is aborted; let its partial text be saved.
        loop.run_until_complete(agent.wait_idle())
        loop.run_until_complete(agent.provider.aclose())  # close the SDK's connections on their loop
    finally:
        loop.close()
    restore_sigterm()
    return 0
