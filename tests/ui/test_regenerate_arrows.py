"""A regenerated reply gets its "‹ 2/2 ›" at once (found by the day-in-the-life test): the chat shows a
streamed reply as an equal copy of the saved message, and the arrows looked for the same object."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_app.llm.offline import OfflineProvider
from desktop_app.ui.app import SAMPLE_SESSION
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.testing import open_window, pump


def until(done: Callable[[], Any], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        pump(10)
    return bool(done())


@pytest.fixture
def window(tmp_path: Path) -> Iterator[MainWindow]:
    path = tmp_path / "sample.jsonl"
    shutil.copyfile(SAMPLE_SESSION, path)
    opened = open_window(path, size=(1400, 900))
    yield opened
    opened.close()
    pump(50)


def test_a_regenerated_reply_shows_its_sibling_arrows(window: MainWindow) -> None:
    window.chat.send_requested.emit("hello there")
    assert until(lambda: window.agent.busy) and until(lambda: not window.agent.busy)
    first = window.session.leaf_id or ""
    assert until(lambda: window.chat.card_actions(first) == ["Regenerate", "Copy"])
    window.chat.trigger(first, "Regenerate")
    assert until(lambda: window.session.leaf_id != first and not window.agent.busy)
    second = window.session.leaf_id
    assert until(lambda: any(s.entry_id == second for s in window.chat.sibling_switches))
    [switch] = [s for s in window.chat.sibling_switches if s.entry_id == second]
    assert (switch.index, switch.count, switch.previous_leaf) == (2, 2, first)
    assert until(lambda: any(a.isVisible() and a.label.text() == "2/2" and a.previous.isEnabled() for a in window.chat.sibling_arrows))



def test_a_regenerated_reply_that_streams_a_while_gets_its_arrows_once_saved(window: MainWindow) -> None:
    """The arrows are searched a moment after the chat changes; a regenerated reply still streaming
    then is not in the session yet (no branch point on the path). Its save (the live row becoming
    the entry's message) changes the chat too, so they are searched again: they were missing
    whenever the reply took longer than that moment (every real one; in the suite, on a loaded
    machine: the flaky test above)."""
    import asyncio

    provider = window.agent.provider
    assert isinstance(provider, OfflineProvider)
    gate = asyncio.Event()
    produce = provider._produce

    async def gated(request: Any, state: Any) -> Any:
        await gate.wait()
        async for event in produce(request, state):
            yield event

    window.chat.send_requested.emit("hello there")
    assert until(lambda: window.agent.busy) and until(lambda: not window.agent.busy)
    first = window.session.leaf_id or ""
    assert until(lambda: window.chat.card_actions(first) == ["Regenerate", "Copy"])
    provider._produce = gated  # type: ignore[method-assign]
    steering = window.steering
    asked = (steering._session_state()[0], window.session.get_entry(first)["parentId"])
    window.chat.trigger(first, "Regenerate")
    # the search the regenerate's chat change asked for (the leaf on the question) is done
    assert until(lambda: steering._sibling_steps is None and steering._sibling_state == asked)
    assert window.agent.busy  # the reply waits at the gate
    gate.set()
    assert until(lambda: not window.agent.busy and window.session.leaf_id != first)
    second = window.session.leaf_id
    assert until(lambda: any(s.entry_id == second for s in window.chat.sibling_switches), 3.0)
    [switch] = [s for s in window.chat.sibling_switches if s.entry_id == second]
    assert (switch.index, switch.count, switch.previous_leaf) == (2, 2, first)
