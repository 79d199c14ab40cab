"""Starting Arbor: the Qt application, the asyncio loop on top of it (qasync), the first session.

A newcomer with no key and no sessions gets the sample session (branches, two compactions, a
branch summary, labels) copied into their sessions folder, on the offline model, so everything the
app can show is on screen at once. The copy is theirs; the shipped file is never written.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_app.agent import AgentSession
from desktop_app.agent.providers import make_provider
from desktop_app.session import SessionManager
from desktop_app.session.catalog import SessionCatalog
from desktop_app.session.paths import arbor_sessions_root, encode_cwd
from desktop_app.settings import Settings

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
SAMPLE_SESSION = RESOURCES / "sample-session.jsonl"


def initial_session(path: str | None, settings: Settings) -> SessionManager:
    """The session to show: the given file, else the newest of Arbor's, else the sample, else a new one."""
    if path:
        return SessionManager.open(path, fsync=settings.fsync)
    root = Path(settings.sessions_root) if settings.sessions_root else arbor_sessions_root()
    # pi's --continue rule per project folder (newest file by mtime, header checked in 512 bytes):
    # start-up never reads whole session files just to pick one.
    catalog = SessionCatalog(root)
    newest = [p for d in (root.iterdir() if root.is_dir() else ()) if d.is_dir() and (p := catalog.most_recent("", d))]
    if newest:
        latest = max(newest, key=lambda p: p.stat().st_mtime_ns)
        return SessionManager.open(latest, fsync=settings.fsync)
    if SAMPLE_SESSION.exists():
        target_dir = root / encode_cwd("/home/you/trips")
        target_dir.mkdir(parents=True, exist_ok=True)
        target = target_dir / SAMPLE_SESSION.name
        shutil.copyfile(SAMPLE_SESSION, target)
        target.chmod(0o600)
        return SessionManager.open(target, fsync=settings.fsync)
    return SessionManager.create(os.getcwd(), fsync=settings.fsync)


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


def run_gui(path: str | None = None) -> int:
    """Open the main window and run until it closes."""
    import qasync
    from PySide6.QtWidgets import QApplication, QMessageBox

    from .main_window import MainWindow
    from .state import UiState

    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("Arbor")
    app.setOrganizationName("Arbor")
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    settings = Settings.load()
    try:
        manager = initial_session(path, settings)
        provider = make_provider(settings)
        agent = AgentSession(manager, provider, settings)
        window = MainWindow(agent, settings, ui_state=UiState())
    except Exception as exc:  # noqa: BLE001 - a clear message instead of a traceback
        what = f"open {path}" if path else "start"
        QMessageBox.critical(None, "Arbor", f"Arbor could not {what}:\n{exc}")
        print(f"arbor: could not {what}: {exc}", file=sys.stderr)
        return 1
    for warning in settings.warnings:
        window.chat.show_error(warning)
    window.show()
    restore_sigterm = close_on_sigterm(window)
    closed = asyncio.Event()
    window.closed.connect(closed.set)
    app.aboutToQuit.connect(closed.set)

    async def warm_up() -> None:
        # Once the window is up: load the SDK and build its models and client now, not on the first turn.
        await asyncio.sleep(0.3)
        warm = getattr(agent.provider, "warm_up", None)
        if warm is not None:
            try:
                await warm()
            except Exception as exc:  # noqa: BLE001 - the first turn will report it properly
                window.statusBar().showMessage(f"Could not prepare the model client: {exc}", 8000)

    with loop:
        loop.create_task(warm_up())
        loop.run_until_complete(closed.wait())
        # A reply that was streaming when the window closed is aborted; let its partial text be saved.
        loop.run_until_complete(agent.wait_idle())
        aclose = getattr(agent.provider, "aclose", None)
        if aclose is not None:
            loop.run_until_complete(aclose())  # close the SDK's connections on the loop that opened them
    restore_sigterm()
    return 0
