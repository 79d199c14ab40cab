"""The ``grep`` tool: matching lines as ``path:line: text``, at most 100 matches or 50 KB.

pi runs ``rg --json --line-number --hidden [--ignore-case] [--fixed-strings] [--glob G]``; this
searches in Python with the same output. Differences from ripgrep, documented for the lead:

* The pattern is a Python ``re`` pattern, which agrees with Rust's regex on the common syntax
  (classes, groups, ``\\b``, ``\\d``, ``\\s``, ``{m,n}``, non-greedy, ``(?i)``); a bad pattern gives
  ripgrep's ``regex parse error:`` layout with Python's reason.
* Files are searched in sorted order (ripgrep's order varies from run to run).
* Binary files (a NUL byte) found while walking are skipped, as ripgrep does; a file named
  directly is searched anyway.
"""

from __future__ import annotations

import asyncio
import os
import re
from typing import Any

from desktop_app.session.jsjson import utf16_len, utf16_slice

from .context import ToolContext
from .globs import glob_to_regex
from .limits import limit_notices
from .paths import check_allowed, resolve_path
from .results import ToolError, ToolOutput
from .truncate import DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH, UNLIMITED_LINES, truncate_head
from .walk import walk

__all__ = ["execute_grep", "GREP_DEFAULT_LIMIT"]

GREP_DEFAULT_LIMIT = 100

_RUST_REASONS = {
    "missing ), unterminated subpattern": "unclosed group",
    "unbalanced parenthesis": "unopened group",
    "unterminated character set": "unclosed character class",
    "nothing to repeat": "repetition operator missing expression",
    "multiple repeat": "repetition operator missing expression",
}


def _compile(pattern: str, ignore_case: bool, literal: bool) -> re.Pattern[str]:
    source = re.escape(pattern) if literal else pattern
    try:
        return re.compile(source, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        reason = _RUST_REASONS.get(exc.msg, exc.msg)
        caret = " " * (exc.pos or 0) + "^"
        raise ToolError(f"regex parse error:\n    {pattern}\n    {caret}\nerror: {reason}") from exc


def _glob_filter(glob: str | None) -> re.Pattern[str] | None:
    """rg ``--glob``: gitignore-style: without ``/`` it matches a base name at any depth."""
    if not glob:
        return None
    anchored = "/" in glob.rstrip("/")
    body = glob_to_regex(glob.lstrip("/"))
    return re.compile(body if anchored else "(?:.*/)?" + body, re.DOTALL)


def _read_lines(path: str) -> list[str] | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", "replace").split("\n")


def _clean(line: str) -> tuple[str, bool]:
    """Strip the CR of CRLF files and cut lines over 500 UTF-16 units, as pi does."""
    if line.endswith("\r"):
        line = line[:-1]
    if utf16_len(line) > GREP_MAX_LINE_LENGTH:
        return utf16_slice(line, 0, GREP_MAX_LINE_LENGTH) + "... [truncated]", True
    return line, False


async def execute_grep(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    return await asyncio.to_thread(_grep, args, ctx)


def _grep(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    target = resolve_path(str(args.get("path") or "."), ctx.cwd)
    check_allowed(target, ctx.cwd, ctx.policy)
    if not os.path.exists(target):
        raise ToolError(f"Path not found: {target}")
    regex = _compile(str(args["pattern"]), bool(args.get("ignoreCase")), bool(args.get("literal")))
    glob = _glob_filter(str(args["glob"]) if args.get("glob") else None)
    limit = max(1, int(args["limit"]) if args.get("limit") is not None else GREP_DEFAULT_LIMIT)
    context = max(0, int(args.get("context") or 0))
    is_dir = os.path.isdir(target)
    if is_dir:
        files = []
        for entry in walk(target, for_grep=True):
            ctx.signal.raise_if_aborted()
            if not entry.is_dir and not entry.is_symlink:  # rg does not follow links without -L
                files.append((entry.path, entry.rel))
    else:
        files = [(target, os.path.basename(target))]

    out: list[str] = []
    matches = 0
    lines_truncated = False
    for path, rel in files:
        ctx.signal.raise_if_aborted()
        if matches >= limit:
            break
        if glob is not None and is_dir and glob.fullmatch(rel) is None:
            continue
        if is_dir:
            lines = _read_lines(path)
        else:
            try:
                with open(path, "rb") as handle:
                    lines = handle.read().decode("utf-8", "replace").split("\n")
            except OSError as exc:
                raise ToolError(f"{path}: {exc.strerror}") from exc
        if lines is None:
            continue
        if lines and lines[-1] == "":
            lines.pop()  # the text after a final newline is not a line to rg
        for index, line in enumerate(lines):
            if matches >= limit:
                break
            if regex.search(line) is None:
                continue
            matches += 1
            first = max(0, index - context)
            last = min(len(lines) - 1, index + context)
            for number in range(first, last + 1):
                text, cut = _clean(lines[number])
                lines_truncated = lines_truncated or cut
                sep = ":" if number == index else "-"
                out.append(f"{rel}{sep}{number + 1}{sep} {text}")
    if matches == 0:
        return ToolOutput.text("No matches found")
    cut_output = truncate_head("\n".join(out), UNLIMITED_LINES, DEFAULT_MAX_BYTES)
    notices: list[str] = []
    details: dict[str, Any] = {}
    if matches >= limit:
        notices.append(f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern")
        details["matchLimitReached"] = limit
    trailing: list[tuple[str, str, Any]] = []
    if lines_truncated:
        notice = f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
        trailing.append((notice, "linesTruncated", True))
    return limit_notices(cut_output, notices, details, trailing)
