"""The ``ls`` tool: one folder's entries, ICU-sorted, ``/`` after directories, at most 500."""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Mapping
from typing import Any

from .collate import collation_key
from .context import ToolContext
from .display import command_rest, first_arg, shorten_path
from .limits import limit_notices
from .paths import check_allowed, resolve_path
from .results import ToolError, ToolOutput, node_error_message
from .schema import object_schema, prop
from .spec import ToolSpec
from .truncate import DEFAULT_MAX_BYTES, UNLIMITED_LINES, truncate_head

__all__ = ["LS", "execute_ls", "LS_DEFAULT_LIMIT"]

LS_DEFAULT_LIMIT = 500


async def execute_ls(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    return await asyncio.to_thread(_ls, args, ctx)


def _ls(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    target = resolve_path(str(args.get("path") or "."), ctx.cwd)
    check_allowed(target, ctx.cwd, ctx.policy)
    limit = int(args["limit"]) if args.get("limit") is not None else LS_DEFAULT_LIMIT
    if not os.path.exists(target):
        raise ToolError(f"Path not found: {target}")
    if not os.path.isdir(target):
        raise ToolError(f"Not a directory: {target}")
    try:
        names = os.listdir(target)
    except OSError as exc:
        raise ToolError(f"Cannot read directory: {node_error_message(exc, 'scandir', target)}") from exc
    names.sort(key=collation_key)
    lines: list[str] = []
    limit_reached: int | None = None
    for name in names:
        if len(lines) >= limit:
            limit_reached = limit
            break
        full = os.path.join(target, name)
        try:
            mode = os.stat(full).st_mode
        except OSError:
            continue  # a broken link: pi skips entries it cannot stat
        lines.append(name + "/" if stat.S_ISDIR(mode) else name)
    if not lines:
        return ToolOutput.text("(empty directory)")
    cut = truncate_head("\n".join(lines), UNLIMITED_LINES, DEFAULT_MAX_BYTES)
    notices: list[str] = []
    details: dict[str, Any] = {}
    if limit_reached is not None:
        notices.append(f"{limit_reached} entries limit reached. Use limit={limit_reached * 2} for more")
        details["entryLimitReached"] = limit_reached
    return limit_notices(cut, notices, details)


def format_ls_call(args: Mapping[str, Any]) -> str:
    """``[ls: ~/src]``."""
    return f"[ls: {shorten_path(first_arg(args, 'path', default='.'))}]"


def _ls_command(text: str) -> dict[str, Any]:
    """``ls [path]``: without a path, the working folder."""
    path = command_rest(text)
    return {"path": path} if path else {}


LS = ToolSpec(
    name="ls",
    description=(
        "List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. "
        "Includes dotfiles. Output is truncated to 500 entries or 50KB (whichever is hit first)."
    ),
    parameters=object_schema(
        [],
        {
            "path": prop("string", "Directory to list (default: current directory)"),
            "limit": prop("number", "Maximum number of entries to return (default: 500)"),
        },
    ),
    execute=execute_ls,
    snippet="List directory contents",
    main_argument="path",
    format_call=format_ls_call,
    parse_command=_ls_command,
)
