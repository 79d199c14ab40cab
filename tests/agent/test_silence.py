"""``SilenceWatch``: "waiting for the server" only after real silence, repeated while it lasts."""

from __future__ import annotations

import asyncio

import pytest

from desktop_app.agent import AgentEvent, WaitingForServer
from desktop_app.agent.silence import SilenceWatch


@pytest.mark.asyncio
async def test_no_notice_while_events_flow_then_notices_during_silence() -> None:
    seen: list[AgentEvent] = []
    watch = SilenceWatch(0.3, seen.append, repeat=0.15)
    for _ in range(30):  # 0.3 s of steady events, longer than the threshold
        await asyncio.sleep(0.01)
        watch.heard()
    assert seen == []
    for _ in range(1000):  # then silence until two notices came (the first, then a repeat)
        if len(seen) >= 2:
            break
        await asyncio.sleep(0.01)
    watch.stop()
    assert len(seen) >= 2 and all(isinstance(e, WaitingForServer) for e in seen)
    first, second = seen[0], seen[1]
    assert isinstance(first, WaitingForServer) and isinstance(second, WaitingForServer)
    assert first.seconds >= 0.3 and second.seconds > first.seconds  # the silence keeps growing
    count = len(seen)
    await asyncio.sleep(0.4)
    assert len(seen) == count  # stopped: no more notices
