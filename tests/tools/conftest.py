"""Helpers for the tool tests: a working folder and a one-line way to run a call in it."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from desktop_app.tools import ToolContext, ToolResult, run_tool

_ids = itertools.count(1)

Runner = Callable[..., Awaitable[ToolResult]]


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    """A pi ``toolCall`` block as the model sends it."""
    return {"type": "toolCall", "id": f"toolu_{next(_ids):02d}", "name": name, "arguments": arguments}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def ctx(project: Path) -> ToolContext:
    return ToolContext(cwd=str(project))


@pytest.fixture
def run(ctx: ToolContext) -> Runner:
    async def _run(name: str, **arguments: Any) -> ToolResult:
        return await run_tool(tool_call(name, **arguments), ctx)

    return _run
