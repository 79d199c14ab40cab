"""The ``find`` tool: files and folders matching a glob, relative to the search folder.

pi runs ``fd --glob --hidden --no-require-git --max-results L [--full-path]``; this walks the tree
in Python with the same matching (see :mod:`.globs`, :mod:`.walk`). Differences from fd: results come
in sorted pre-order instead of fd's parallel order, and only ``.gitignore``/``.ignore``/``.fdignore``
and ``.git/info/exclude`` are read (not the global git excludes file).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Any

from .context import ToolContext
from .display import command_rest, first_arg, shorten_path
from .globs import GlobMatcher
from .limits import limit_notices
from .paths import check_allowed, resolve_path
from .results import ToolError, ToolOutput
from .schema import object_schema, prop
from .spec import ToolSpec
from .truncate import DEFAULT_MAX_BYTES, UNLIMITED_LINES, truncate_head
from .walk import walk

__all__ = ["FIND", "execute_find", "FIND_DEFAULT_LIMIT", "fd_pattern"]

FIND_DEFAULT_LIMIT = 1000


def fd_pattern(pattern: str) -> GlobMatcher:
    """pi's rule: a pattern with ``/`` matches the full path, prefixed with ``**/`` when relative."""
    if "/" not in pattern:
        return GlobMatcher.compile(pattern, full_path=False)
    if not (pattern.startswith("/") or pattern.startswith("**/") or pattern == "**"):
        pattern = "**/" + pattern
    return GlobMatcher.compile(pattern, full_path=True)


async def execute_find(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    return await asyncio.to_thread(_find, args, ctx)


def _find(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    pattern = str(args["pattern"])
    target = resolve_path(str(args.get("path") or "."), ctx.cwd)
    check_allowed(target, ctx.cwd, ctx.policy)
    limit = int(args["limit"]) if args.get("limit") is not None else FIND_DEFAULT_LIMIT
    if not os.path.isdir(target):
        raise ToolError(
            f"[fd error]: Search path '{target}' is not a directory.\n[fd error]: No valid search paths given."
        )
    matcher = fd_pattern(pattern)
    results: list[str] = []
    for entry in walk(target, for_grep=False):
        ctx.signal.raise_if_aborted()
        if limit > 0 and len(results) >= limit:
            break
        if matcher.matches(entry.path if matcher.full_path else entry.rel):
            results.append(entry.rel + "/" if entry.is_dir else entry.rel)
    if not results:
        return ToolOutput.text("No files found matching pattern")
    cut = truncate_head("\n".join(results), UNLIMITED_LINES, DEFAULT_MAX_BYTES)
    notices: list[str] = []
    details: dict[str, Any] = {}
    if len(results) >= limit:
        notices.append(f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern")
        details["resultLimitReached"] = limit
    return limit_notices(cut, notices, details)


def format_find_call(args: Mapping[str, Any]) -> str:
    """``[find: *.py in ~/src]``."""
    return f"[find: {first_arg(args, 'pattern')} in {shorten_path(first_arg(args, 'path', default='.'))}]"


def _find_command(text: str) -> dict[str, Any] | None:
    """``find <pattern>``."""
    pattern = command_rest(text)
    return {"pattern": pattern} if pattern else None


FIND = ToolSpec(
    name="find",
    description=(
        "Search for files by glob pattern. Returns matching file paths relative to the search directory. "
        "Respects .gitignore. Output is truncated to 1000 results or 50KB (whichever is hit first)."
    ),
    parameters=object_schema(
        ["pattern"],
        {
            "pattern": prop(
                "string", "Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"
            ),
            "path": prop("string", "Directory to search in (default: current directory)"),
            "limit": prop("number", "Maximum number of results (default: 1000)"),
        },
    ),
    execute=execute_find,
    snippet="Find files by glob pattern (respects .gitignore)",
    main_argument="pattern",
    format_call=format_find_call,
    parse_command=_find_command,
)
