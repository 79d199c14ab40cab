"""A replaced graph model is let go on a worker thread after a delay; a teardown (or anything that must
not wait) can let the waiting releases go at once."""

from __future__ import annotations

import time

from desktop_app.ui.graph.whole_graph import _release_elsewhere, release_waiting_now


def test_a_waiting_release_goes_at_once_when_asked() -> None:
    holder: list[object] = [object()]
    _release_elsewhere(holder, delay=30.0)
    time.sleep(0.05)
    assert holder  # still waiting for its delay
    release_waiting_now()
    deadline = time.monotonic() + 5
    while holder and time.monotonic() < deadline:
        time.sleep(0.01)
    assert holder == []


def test_a_release_goes_by_itself_after_its_delay() -> None:
    holder: list[object] = [object()]
    _release_elsewhere(holder, delay=0.05)
    deadline = time.monotonic() + 5
    while holder and time.monotonic() < deadline:
        time.sleep(0.01)
    assert holder == []
