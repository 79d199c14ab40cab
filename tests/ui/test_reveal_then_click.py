"""``window.graph.reveal`` takes the view away from the leaf as a search jump does (DESIGN.md §7.1):
the canvas stops following, so the node revealed and then clicked stays on screen (issue 22, Found 1
and 5: a click on a far compaction of a real pi session relaid the canvas out and following pulled
the view back to the leaf, the compaction off the left edge while the status bar said "following")."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from desktop_app.session.entries import make_header
from desktop_app.settings import Settings
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump
from tests.present.builders import msg
from tests.ui.driving import compactions_in


@pytest.fixture
def window(real_window: MainWindow) -> MainWindow:
    return real_window


def test_a_revealed_and_clicked_compaction_stays_in_view(window: MainWindow) -> None:
    viewport = window.graph.viewport().rect()
    for compaction in compactions_in(window.session.session_file or ""):
        assert window.graph.reveal(compaction)
        point = window.graph.node_center(compaction)
        assert point is not None and viewport.contains(point)
        QTest.mouseClick(window.graph.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
        pump(50)
        after = window.graph.node_center(compaction)
        assert after is not None and viewport.contains(after), (compaction, point, after)
        pin = window.graph.pin_center()
        leaf_shown = pin is not None and viewport.contains(pin)
        assert window.graph.following == leaf_shown  # never "following" with the leaf out of sight


def test_reveal_near_the_leaf_keeps_following(window: MainWindow) -> None:
    viewport = window.graph.viewport().rect()
    near = [e["id"] for e in reversed(window.session.get_branch()) if window.graph.reveal(e["id"])][:3]
    assert near
    for entry_id in near:
        window.graph.jump_to_leaf()
        pump(20)
        assert window.graph.following
        assert window.graph.reveal(entry_id)
        pin = window.graph.pin_center()
        assert pin is not None and viewport.contains(pin)  # the leaf still shows: nothing to stop
        assert window.graph.following


def test_the_compaction_preview_shows_its_cut_and_the_compaction_lands_in_view(tmp_path: Path) -> None:
    """The preview brings the cut line into view (here far above the leaf); that is the window's own
    doing, not the user looking away: once Compact writes it, the compaction (the new leaf) is in view."""
    Settings.load().save_value(("compaction", "keepRecentTokens"), 2000)
    path = tmp_path / "long.jsonl"
    lines: list[dict[str, Any]] = [make_header("long", str(tmp_path), "2025-01-01T00:00:00.000Z")]
    parent: str | None = None
    for i in range(30):
        lines.append(msg(f"u{i}", parent, "user", f"question {i} " + "word " * 60))
        lines.append(msg(f"a{i}", f"u{i}", "assistant", f"answer {i} " + "word " * 60))
        parent = f"a{i}"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    window = open_window(path, size=(1280, 800))
    try:
        window.graph.set_use_dot(False)
        window.graph.set_folding(False)
        viewport = window.graph.viewport().rect()
        dialog = window.steering.compact()
        pump(50)
        first_kept = window.graph.node_center(dialog.preview.first_kept_entry_id or "")
        assert first_kept is not None and viewport.contains(first_kept)  # the cut in view
        pin = window.graph.pin_center()
        assert pin is not None and not viewport.contains(pin)  # far from the leaf: the case at hand
        dialog.compact_button.click()
        deadline = time.monotonic() + 10
        while (window.steering.compaction_dialog is not None or window.agent.busy) and time.monotonic() < deadline:
            pump(20)
        pump(200)
        assert window.session.get_entry(window.session.leaf_id or "")["type"] == "compaction"  # type: ignore[index]
        pin = window.graph.pin_center()
        assert pin is not None and viewport.contains(pin) and window.graph.following
    finally:
        window.close()
        pump(50)


def test_the_compaction_preview_hides_a_selected_compactions_audit_and_brings_it_back(window: MainWindow) -> None:
    """Found while looking at the loop: with a compaction selected, Compact's preview drew its own bands
    on the canvas while the audit beside it still described the selected compaction (77 entries
    against the preview's 20). The preview's facts are in its dialog; the stale audit steps aside
    and comes back when the dialog closes."""
    compaction = compactions_in(window.session.session_file or "")[0]
    assert window.graph.reveal(compaction)
    QTest.mouseClick(
        window.graph.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
        window.graph.node_center(compaction),
    )
    pump(50)
    reader = window.steering.reader
    assert reader.detail_shown()
    dialog = window.steering.compact()
    pump(50)
    assert dialog.preview.runnable
    assert not reader.detail_shown()
    dialog.reject()
    pump(100)
    assert window.graph.selected_entry() == compaction and reader.detail_shown()
