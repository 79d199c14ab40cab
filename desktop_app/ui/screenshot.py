"""``arbor screenshot``: the real main window, rendered offscreen, saved as a PNG of an exact size.

For docs, bug reports and for looking at the UI in tests. The session is opened like any other,
but only read: the window runs on the offline model and nothing is appended.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from desktop_app.agent import AgentSession
from desktop_app.agent.providers import make_provider
from desktop_app.session import SessionManager
from desktop_app.settings import Settings
from desktop_app.transcripts import is_claude_code_transcript, open_transcript

#: How long a shot of a big session waits at most for its whole graph (it opens on the leaf's
#: neighbourhood; the whole graph took ~4-5 s at 100,000 entries on a loaded machine). ``dot``'s
#: own wait (``wait_for_dot``) begins once it is in: a shot is never of the neighbourhood alone.
WHOLE_GRAPH_WAIT_S = 120.0


def _wait_for_layout(window: Any, wait_for_dot: float) -> None:
    """Run the event loop until the graph's layout is in: a big session's whole graph (at most
    :data:`WHOLE_GRAPH_WAIT_S`; its build and swap take a slice per pass, so no sleep between
    passes), then ``dot``'s positions (at most ``wait_for_dot`` seconds more; ``dot`` runs in a
    child process, so a short sleep between passes)."""
    from PySide6.QtCore import QCoreApplication

    applied: list[str] = []
    window.graph.layout_applied.connect(applied.append)
    deadline = time.monotonic() + wait_for_dot
    whole_deadline = time.monotonic() + WHOLE_GRAPH_WAIT_S
    while "dot" not in applied and window.graph.layout_busy:
        now = time.monotonic()
        if window.graph.partial:
            if now >= whole_deadline:
                return
            deadline = now + wait_for_dot  # `dot`'s wait begins once the whole graph is in
            QCoreApplication.processEvents()
            continue
        if now >= deadline:
            return
        QCoreApplication.processEvents()
        time.sleep(0.01)


def parse_size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    w, h = int(width), int(height)
    if not (100 <= w <= 8000 and 100 <= h <= 8000):
        raise ValueError("size must be between 100x100 and 8000x8000")
    return w, h


def take_screenshot(
    path: str, out: str, *, leaf: str | None = None, select: str | None = None, size: tuple[int, int] = (1600, 1000),
    wait_for_dot: float = 6.0, sessions: bool = False, theme: str | None = None, settings_dialog: bool = False,
) -> None:
    """Render the window for ``path`` and write ``out``: exactly ``size`` pixels, device pixel ratio 1.

    ``theme`` (``light``, ``dark``, ``system``) is applied first, as the setting would be; with
    ``settings_dialog`` the Settings dialog is open and drawn centred over the window (it is a window
    of its own, which a grab of the main window leaves out).
    """
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("QT_SCALE_FACTOR", "1")
    from PySide6.QtCore import QCoreApplication, Qt
    from PySide6.QtWidgets import QApplication

    from .gui_gc import install_gui_gc
    from .main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    install_gui_gc(app)  # the graph's build thread must not collect the window's Qt objects
    if theme is not None:
        from .theme import apply_theme

        apply_theme(theme)  # before the widgets are built, as `arbor` does
    source = Path(path)
    if not source.is_file():
        raise OSError(f"{path}: no such session file")
    # A snapshot: opening a v1/v2 file migrates it, and a screenshot must never write or lock it.
    # A Claude Code transcript is converted in memory: read, never written (DESIGN.md §14).
    manager = open_transcript(source) if is_claude_code_transcript(source) else SessionManager.open_snapshot(source)
    settings = Settings()
    if theme is not None:
        settings.theme = theme  # the Settings dialog shows the theme the shot is in
    agent = AgentSession(manager, make_provider(settings, model_id="offline"), settings)
    if leaf:
        if agent.view.get_entry(leaf) is None:
            raise ValueError(f"no entry {leaf!r} in {path}")
        agent.restore_leaf(leaf)  # moves the leaf without writing
    window = MainWindow(agent, settings, follow_interval_ms=3_600_000)
    window.shell.set_panel_visible(sessions)
    window.resize(*size)
    window.show()
    _wait_for_layout(window, wait_for_dot)
    panel_deadline = time.monotonic() + 5.0  # the sessions panel lists on a worker thread
    while sessions and window.shell.panel.listing_pending and time.monotonic() < panel_deadline:
        QCoreApplication.processEvents()
        time.sleep(0.01)
    window.graph.fit_all()
    if select:
        window.graph.select(select, center=True, notify=True)
    elif leaf:
        window.graph.center_on_leaf()
    dialog = window.shell.open_settings() if settings_dialog else None
    for _ in range(5):
        QCoreApplication.processEvents()
    image = window.grab().toImage()
    if dialog is not None:
        from PySide6.QtCore import QPoint, QRect
        from PySide6.QtGui import QColor, QPainter, QPalette

        painter = QPainter(image)
        painter.fillRect(image.rect(), QColor(0, 0, 0, 60))  # the window behind a window-modal dialog
        card = dialog.grab().toImage()
        caption = painter.fontMetrics().height() + 10  # the title bar a window manager would draw
        left = (image.width() - card.width()) // 2
        top = max(caption, (image.height() - card.height()) // 3)
        palette = dialog.palette()
        bar = QRect(left, top - caption, card.width(), caption)
        painter.fillRect(bar, palette.color(QPalette.ColorRole.Mid))
        painter.setPen(palette.color(QPalette.ColorRole.WindowText))
        painter.drawText(bar, Qt.AlignmentFlag.AlignCenter, dialog.windowTitle())
        painter.drawImage(QPoint(left, top), card)
        painter.setPen(palette.color(QPalette.ColorRole.Shadow))
        painter.drawRect(bar.united(QRect(left, top, card.width(), card.height())).adjusted(0, 0, -1, -1))
        painter.end()
        dialog.reject()
    if image.width() != size[0] or image.height() != size[1]:
        image = image.scaled(size[0], size[1], Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation)
    image.setDevicePixelRatio(1.0)
    if not image.save(str(out), "PNG"):  # type: ignore[call-overload]  # the stub says bytes; run time wants str
        raise OSError(f"cannot write {out}")
    window.close()
    app.processEvents()


def run(path: str, out: str, leaf: str | None, select: str | None, size: str, *, sessions: bool = False,
        theme: str | None = None, settings_dialog: bool = False) -> int:
    try:
        take_screenshot(path, out, leaf=leaf, select=select, size=parse_size(size), sessions=sessions, theme=theme,
                        settings_dialog=settings_dialog)
    except (OSError, ValueError) as exc:
        print(f"arbor screenshot: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - one clear line, never a traceback
        print(f"arbor screenshot: {exc}", file=sys.stderr)
        return 1
    return 0
