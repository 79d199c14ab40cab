"""File work runs off the event loop, stops at an abort, and same-file calls keep call order."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from desktop_app.tools import ToolContext, run_tool
from desktop_app.tools.walk import Entry
from tests.tools.conftest import tool_call


@pytest.mark.asyncio
async def test_a_read_batched_after_a_write_sees_the_written_file(project: Path) -> None:
    (project / "f").write_text("old")
    ctx = ToolContext(cwd=str(project))
    write, read = await asyncio.gather(
        run_tool(tool_call("write", path="f", content="new"), ctx), run_tool(tool_call("read", path="f"), ctx)
    )
    assert write.text == "Successfully wrote 3 bytes to f" and read.text == "new"


@pytest.mark.asyncio
async def test_grep_walk_stops_when_aborted(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk runs in a worker thread; the loop stays free, and the abort ends the walk."""
    ctx = ToolContext(cwd=str(project))
    in_walk = threading.Event()
    visited: list[int] = []

    def endless(root: str, for_grep: bool):  # type: ignore[no-untyped-def]
        index = 0
        while True:
            in_walk.set()
            visited.append(index)
            yield Entry(f"{root}/f{index}", f"f{index}", True)
            index += 1
            if index % 1000 == 0:
                threading.Event().wait(0.001)

    monkeypatch.setattr("desktop_app.tools.grep.walk", endless)
    task = asyncio.create_task(run_tool(tool_call("grep", pattern="x"), ctx))
    while not in_walk.is_set():
        await asyncio.sleep(0.01)  # the event loop keeps turning while grep walks
    ctx.signal.abort()
    result = await task
    assert result.text == "Operation aborted" and result.is_error
    # The worker notices the abort at its next entry and stops walking; on a loaded machine that
    # can take a while, so look for a quiet 0.2 s within 10 s instead of trusting one fixed wait.
    deadline = time.monotonic() + 10
    seen = -1
    while len(visited) != seen and time.monotonic() < deadline:
        seen = len(visited)
        await asyncio.sleep(0.2)
    assert len(visited) == seen  # ... and has stopped walking
