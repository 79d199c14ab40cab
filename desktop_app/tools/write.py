"""The ``write`` tool: create or overwrite a file (parents made), reporting JavaScript's length."""

from __future__ import annotations

import asyncio
import os
import re
from typing import Any

from desktop_app.session.jsjson import utf16_len

from .context import ToolContext
from .paths import check_allowed, resolve_path
from .results import ToolError, ToolOutput, node_error_message

__all__ = ["execute_write", "encode_like_node", "write_message"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def encode_like_node(text: str) -> bytes:
    """UTF-8 as Node writes a JS string: a lone surrogate becomes U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


def write_message(path: str, content: str) -> str:
    """pi's success text; the count is ``content.length`` (UTF-16 units), not bytes, as in pi."""
    return f"Successfully wrote {utf16_len(content)} bytes to {path}"


def write_file(abs_path: str, content: str) -> None:
    """mkdir -p the parent, then write; errors worded as Node's."""
    parent = os.path.dirname(abs_path)
    try:
        os.makedirs(parent, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        raise ToolError(node_error_message(FileExistsError(17, "exists"), "mkdir", parent)) from exc
    except OSError as exc:
        raise ToolError(node_error_message(exc, "mkdir", parent)) from exc
    try:
        with open(abs_path, "wb") as handle:
            handle.write(encode_like_node(content))
    except OSError as exc:
        raise ToolError(node_error_message(exc, "open", abs_path)) from exc


async def execute_write(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    path = str(args["path"])
    content = str(args["content"])
    abs_path = resolve_path(path, ctx.cwd)
    check_allowed(abs_path, ctx.cwd, ctx.policy)
    async with ctx.mutation_queue.hold(abs_path):
        await asyncio.to_thread(write_file, abs_path, content)
    return ToolOutput.text(write_message(path, content))
