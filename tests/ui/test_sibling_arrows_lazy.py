"""Sibling arrows are widgets only for rows that came on screen (issue 10 item 8: at 100,000 entries
the path branches ~2,700 times and making every strip up front took most of a second)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop_app.session.entries import make_header
from desktop_app.ui.testing import open_window, pump
from tests.present.builders import msg

TURNS = 60


def wait_until(condition: Callable[[], Any], timeout_ms: int = 5000) -> bool:
    deadline = time.monotonic() + timeout_ms / 1000
    while not condition() and time.monotonic() < deadline:
        pump(20)
    return bool(condition())


def branchy_session(path: Path) -> None:
    """60 turns; before every question after the first, another question was asked and abandoned
    (written first, so the active one is sibling 2 of 2)."""
    lines: list[dict[str, Any]] = [make_header("lazy-arrows", "/tmp", "2025-01-01T00:00:00.000Z")]
    parent: str | None = None
    for i in range(TURNS):
        if parent is not None:
            lines.append(msg(f"x{i}", parent, "user", f"an abandoned question {i}"))
        lines.append(msg(f"u{i}", parent, "user", f"question {i}: " + "words " * 30))
        lines.append(msg(f"a{i}", f"u{i}", "assistant", f"answer {i}: " + "more words " * 40))
        parent = f"a{i}"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_arrows_are_made_for_rows_on_screen_only(tmp_path: Path) -> None:
    path = tmp_path / "branchy.jsonl"
    branchy_session(path)
    window = open_window(path, size=(1200, 800))
    try:
        chat = window.chat
        assert wait_until(lambda: len(chat.sibling_switches) == TURNS - 1)
        assert wait_until(lambda: any(a.isVisible() for a in chat.sibling_arrows))
        made = {a.switch.entry_id for a in chat.sibling_arrows}
        assert 0 < len(made) < 15 < TURNS - 1  # the rows at the bottom of the chat, not all 59
        assert "u1" not in made
        chat.view.verticalScrollBar().setValue(0)  # the top of the chat comes on screen
        assert wait_until(lambda: any(a.switch.entry_id == "u1" and a.isVisible() for a in chat.sibling_arrows))
        assert len(chat.sibling_arrows) < TURNS - 1
        top = next(a for a in chat.sibling_arrows if a.switch.entry_id == "u1")
        assert top.label.text() == "2/2" and top.switch.previous_leaf == "x1"
    finally:
        window.close()
        pump(50)


def test_arrows_are_found_a_slice_per_turn_and_again_when_the_chat_changes_meanwhile(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Issue 28: the search behind the arrows (0.45 s at 100,000 entries) runs a few milliseconds
    per event-loop turn; the chat changing while it runs starts it again, and its answer is the
    one for the chat as it is then."""
    import desktop_app.present.siblings as siblings
    import desktop_app.ui.steering as steering

    monkeypatch.setattr(siblings, "STEP", 3)  # a slice every 3 entries walked ...
    monkeypatch.setattr(steering, "_SIBLING_BUDGET", 1e-9)  # ... and one slice a turn
    path = tmp_path / "branchy.jsonl"
    branchy_session(path)
    window = open_window(path, size=(1200, 800))
    try:
        chat, steer = window.chat, window.steering
        assert wait_until(lambda: len(chat.sibling_switches) == TURNS - 1)
        assert steer.sibling_turns > 3 * TURNS // 3  # the path alone is 3 entries a turn
        steer._sibling_cache_view = None  # a search from scratch (a new cache) ...
        steer._show_siblings()
        assert steer._sibling_steps is not None  # ... under way after its first slice
        steer._show_siblings()  # the chat changed again while the search runs: it is redone
        assert steer._siblings_again
        assert wait_until(lambda: steer._sibling_steps is None and not steer._siblings_again)
        assert len(chat.sibling_switches) == TURNS - 1
        assert {s.entry_id for s in chat.sibling_switches} == {f"u{i}" for i in range(1, TURNS)}
    finally:
        window.close()
        pump(50)
