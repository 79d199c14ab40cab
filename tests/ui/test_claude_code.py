"""A Claude Code transcript in the real window (issue 27 points 1–3): listed with its tag, opened
read-only with its compactions audited, and continued in Arbor by a click on the banner's button."""

from __future__ import annotations

import hashlib
import shutil
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel

from desktop_app.session.paths import arbor_sessions_root
from desktop_app.transcripts import claude_projects_root
from desktop_app.ui.testing import open_window

from .test_sessions_panel import wait_listed

SOURCE = Path(__file__).resolve().parent.parent / "fixtures" / "claude_code" / "compacted.jsonl"
AUTO_COMPACTION = "0d4e9b21-0017-4a1b-9c2d-000000000017"


def test_open_audit_and_continue_a_claude_code_transcript(qtbot: Any) -> None:
    folder = claude_projects_root() / "-home-kim-code-weather-app"
    folder.mkdir(parents=True)
    transcript = folder / SOURCE.name
    shutil.copyfile(SOURCE, transcript)
    before = hashlib.sha256(transcript.read_bytes()).hexdigest()

    window = open_window(transcript, size=(1400, 900))
    qtbot.addWidget(window)
    view = window.session
    assert view.read_only and view.report.foreign == "Claude Code"
    banner = window.continue_banner
    assert banner.isVisible() and "read-only" in banner.text()
    assert not window.status.findChild(QLabel, "statusFollowing").isVisible()  # nothing to follow: Claude Code's file

    panel = window.shell.panel
    wait_listed(panel)
    row = next(r for r in panel.rows() if r.path == str(transcript))
    assert row.source == "Claude Code" and row.title.startswith("Write a parser for the METAR")

    window.graph.reveal(AUTO_COMPACTION)
    QCoreApplication.processEvents()
    point = window.graph.node_center(AUTO_COMPACTION)
    assert point is not None
    QTest.mouseClick(window.graph.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    QCoreApplication.processEvents()
    audit = window.audit_panel.text()
    assert "Claude Code" in audit and "167,520" in audit

    QTest.mouseClick(banner.button, Qt.MouseButton.LeftButton)
    deadline = time.monotonic() + 5
    while window.session.read_only and time.monotonic() < deadline:
        QCoreApplication.processEvents()
    continued = window.session
    assert not continued.read_only and continued.session_file is not None
    assert Path(continued.session_file).parent.parent == arbor_sessions_root()
    assert not banner.isVisible()
    context = continued.build_session_context().messages
    assert context[0]["role"] == "compactionSummary" and "altimeter" in context[0]["summary"]
    assert hashlib.sha256(transcript.read_bytes()).hexdigest() == before  # the source is only read
    window.close()
