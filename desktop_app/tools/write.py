"""The ``write`` tool: create or overwrite a file (parents made), reporting JavaScript's length."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from desktop_app.session.jsjson import utf16_len

from .context import ToolContext
from .display import command_rest, first_arg, shorten_path, shown_text
from .paths import check_allowed, resolve_path
from .results import ToolError, ToolOutput, node_error_message
from .schema import object_schema, prop
from .spec import CallView, CardText, FileOp, ToolSpec
from .truncate import format_size

__all__ = ["WRITE", "WriteApproval", "execute_write", "encode_like_node", "write_message", "WRITE_PREVIEW_LINES"]

#: Lines of a write's content shown on its approval card (the file may be large; the size is always given).
WRITE_PREVIEW_LINES = 40

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


@dataclass(frozen=True)
class WriteApproval:
    """A write waiting for the user: where, how much, and whether it replaces a file."""

    tool_call_id: str
    path: str
    abs_path: str
    size_bytes: int
    """UTF-8 bytes that will be written."""
    size_text: str
    """``size_bytes`` as pi formats sizes (``1.2KB``)."""
    exists: bool
    """The file is already there and would be overwritten."""
    content: str
    tool_name: str = field(default="write", init=False)

    def card(self) -> CardText:
        """The path, the size in bytes and lines, the first lines of the content; a warning if it overwrites."""
        content = self.content
        lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        size = f"{self.size_text} ({self.size_bytes:,} bytes, {lines:,} line{'s' if lines != 1 else ''})"
        warning = "The file exists and will be overwritten." if self.exists else None
        return CardText(f"Write {self.path}?", (self.abs_path, size), _preview(content), None, warning)


def _preview(content: str, limit: int = WRITE_PREVIEW_LINES) -> str:
    lines = content.split("\n")
    if len(lines) <= limit:
        return content
    return "\n".join(lines[:limit]) + f"\n… {len(lines) - limit:,} more lines"


def describe_write(call_id: str, args: dict[str, Any], ctx: ToolContext) -> WriteApproval:
    """The card for a write (nothing is written)."""
    path = str(args.get("path", ""))
    abs_path = resolve_path(path, ctx.cwd)
    content = str(args.get("content", ""))
    size = len(encode_like_node(content))
    return WriteApproval(call_id, path, abs_path, size, format_size(size), os.path.exists(abs_path), content)


def format_write_call(args: Mapping[str, Any]) -> str:
    """``[write: ~/notes.md]``."""
    return f"[write: {shorten_path(first_arg(args, 'path', 'file_path'))}]"


def _write_view(args: dict[str, Any]) -> CallView | None:
    """The path, then the content highlighted by the file's extension."""
    content = args.get("content")
    if not isinstance(content, str):
        return None
    return CallView(content, None, shown_text(args.get("path")))


def _write_command(text: str) -> dict[str, Any] | None:
    """``write <path>`` with the content on the lines below."""
    path = command_rest(text)
    return {"path": path, "content": text.partition("\n")[2]} if path else None


WRITE = ToolSpec(
    name="write",
    description=(
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. "
        "Automatically creates parent directories."
    ),
    parameters=object_schema(
        ["path", "content"],
        {
            "path": prop("string", "Path to the file to write (relative or absolute)"),
            "content": prop("string", "Content to write to the file"),
        },
    ),
    execute=execute_write,
    snippet="Create or overwrite files",
    main_argument="path",
    format_call=format_write_call,
    guidelines=("Use write only for new files or complete rewrites.",),
    describe=describe_write,
    file_op=FileOp.WRITTEN,
    call_view=_write_view,
    parse_command=_write_command,
)
