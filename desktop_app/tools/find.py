"""The ``find`` tool: files and folders matching a glob, relative to the search folder.

pi runs ``fd --glob --hidden --no-require-git --max-results L [--full-path]``; this walks the tree
in Python with the same matching (see :mod:`.globs`, :mod:`.walk`). Differences from fd: results come
in sorted pre-order instead of fd's parallel order, and only ``.gitignore``/``.ignore``/``.fdignore``
and ``.git/info/exclude`` are read (not the global git excludes file).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from .context import ToolContext
from .globs import GlobMatcher
from .limits import limit_notices
from .paths import check_allowed, resolve_path
from .results import ToolError, ToolOutput
from .truncate import DEFAULT_MAX_BYTES, UNLIMITED_LINES, truncate_head
from .walk import walk

__all__ = ["execute_find", "FIND_DEFAULT_LIMIT", "fd_pattern"]

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
