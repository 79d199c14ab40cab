"""SIGTERM to a running window keeps the partial reply, as closing the window does (issue 13 item 9).

A real second process runs the app (``run_gui``) on a session with a slow offline model, starts a
reply, and is sent SIGTERM once text has streamed. It must exit normally and the file must end with
the aborted assistant message holding what had arrived.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from desktop_app.session import SessionManager

CHILD = textwrap.dedent(
    """
    import sys
    from desktop_app.llm.offline import OfflineProvider
    from desktop_app.ui import app
    from desktop_app.ui.main_window import MainWindow

    app.make_provider = lambda settings, **_: OfflineProvider(chunk_chars=3, delay=0.05)
    original_show = MainWindow.show

    def show(self):
        original_show(self)
        seen = []

        def on_event(event):
            seen.append(event)
            if len(seen) == 6:  # the turn started and text is streaming
                print("streaming", flush=True)

        self.agent.subscribe(on_event)
        self.run_task(self.agent.prompt("tell me a long story"), "Sending")

    MainWindow.show = show
    sys.exit(app.run_gui(sys.argv[1]))
    """
)


def test_sigterm_keeps_the_partial_reply(tmp_path: Path) -> None:
    session = SessionManager.create(str(tmp_path), session_dir=str(tmp_path / "sessions"))
    session.append_message({"role": "user", "content": "hi", "timestamp": 1})
    path = session.session_file
    assert path is not None
    session.close()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ARBOR_HOME=str(tmp_path / "home"))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )
    watchdog = threading.Timer(90, child.kill)  # a child that never streams (a modal error) fails, not hangs
    watchdog.start()
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.strip() == "streaming", child.stderr.read() if child.stderr else line
        child.send_signal(signal.SIGTERM)
        _, stderr = child.communicate(timeout=60)
    finally:
        watchdog.cancel()
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, stderr
    entries = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    last = entries[-1]
    assert last["type"] == "message" and last["message"]["role"] == "assistant"
    assert last["message"]["stopReason"] == "aborted"
    text = "".join(b.get("text", "") for b in last["message"]["content"] if b.get("type") == "text")
    assert text, "the text that had streamed is kept"
    assert entries[-2]["message"]["content"] in ("tell me a long story", [{"type": "text", "text": "tell me a long story"}])
