"""The qasync loop's default executor must not leave QThreads behind: a process that used
``asyncio.to_thread`` (the agent syncs the session file that way before each request) has to exit
with code 0, not abort with "QThread: Destroyed while thread is still running" (exit 134)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import asyncio
    from PySide6.QtWidgets import QApplication
    from desktop_app.ui.event_loop import qt_event_loop

    app = QApplication([])
    loop = qt_event_loop(app)
    asyncio.set_event_loop(loop)

    async def main() -> int:
        return await asyncio.to_thread(sum, [1, 2, 3])

    print(loop.run_until_complete(main()))
    """
)


def test_a_process_that_used_to_thread_exits_cleanly() -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.strip() == "6"
    assert "QThread" not in done.stderr
    assert done.returncode == 0, done.stderr


def test_the_ui_loop_takes_the_gil_back_within_a_millisecond() -> None:
    """Work moved to threads is pure Python and shares the GIL: the app's loop shortens the switch
    interval so the UI thread does not wait CPython's default 5 ms each time it wants the GIL back."""
    script = "from PySide6.QtWidgets import QApplication\n" + (
        "import sys\nfrom desktop_app.ui.event_loop import GIL_SWITCH_INTERVAL, qt_event_loop\n"
        "assert sys.getswitchinterval() == 0.005\n"
        "qt_event_loop(QApplication([]))\n"
        "print(sys.getswitchinterval(), GIL_SWITCH_INTERVAL)\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    now, wanted = (float(v) for v in done.stdout.split())
    assert now == wanted <= 0.001
