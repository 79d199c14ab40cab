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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from desktop_app.session.jsjson import utf16_len, utf16_slice

from .context import ToolContext
from .display import command_rest, first_arg, shorten_path
from .globs import glob_to_regex
from .limits import limit_notices
from .paths import check_allowed, resolve_path
from .results import ToolError, ToolOutput
from .schema import object_schema, prop
from .spec import ToolSpec
from .truncate import DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH, UNLIMITED_LINES, truncate_head
from .walk import walk

__all__ = ["GREP", "execute_grep", "GREP_DEFAULT_LIMIT"]

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


def _files(target: str, is_dir: bool, ctx: ToolContext) -> list[tuple[str, str]]:
    """``(path, path shown)`` of the files to search: a folder's walk (no links, as rg without ``-L``)
    or the one file named."""
    if not is_dir:
        return [(target, os.path.basename(target))]
    files = []
    for entry in walk(target, for_grep=True):
        ctx.signal.raise_if_aborted()
        if not entry.is_dir and not entry.is_symlink:
            files.append((entry.path, entry.rel))
    return files


def _read_named_file(path: str) -> list[str]:
    """A file named directly is searched even if binary; failing to read it is the call's error."""
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace").split("\n")
    except OSError as exc:
        raise ToolError(f"{path}: {exc.strerror}") from exc


@dataclass
class _Found:
    """The output lines so far, counted against the match limit."""

    limit: int
    context: int
    out: list[str] = field(default_factory=list)
    matches: int = 0
    lines_truncated: bool = False

    @property
    def full(self) -> bool:
        return self.matches >= self.limit

    def search(self, rel: str, lines: list[str], regex: re.Pattern[str]) -> None:
        """Add each matching line of one file with its context, until the limit."""
        for index, line in enumerate(lines):
            if self.full:
                break
            if regex.search(line) is not None:
                self.matches += 1
                self._add(rel, lines, index)

    def _add(self, rel: str, lines: list[str], index: int) -> None:
        """``rel:N: text`` for the match, ``rel-N- text`` for the context lines around it."""
        first = max(0, index - self.context)
        last = min(len(lines) - 1, index + self.context)
        for number in range(first, last + 1):
            text, cut = _clean(lines[number])
            self.lines_truncated = self.lines_truncated or cut
            sep = ":" if number == index else "-"
            self.out.append(f"{rel}{sep}{number + 1}{sep} {text}")

    def output(self) -> ToolOutput:
        """pi's text: the lines cut at 50 KB, then the limit and long-line notices."""
        if self.matches == 0:
            return ToolOutput.text("No matches found")
        cut_output = truncate_head("\n".join(self.out), UNLIMITED_LINES, DEFAULT_MAX_BYTES)
        notices: list[str] = []
        details: dict[str, Any] = {}
        if self.full:
            limit = self.limit
            notices.append(f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern")
            details["matchLimitReached"] = limit
        trailing: list[tuple[str, str, Any]] = []
        if self.lines_truncated:
            notice = f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
            trailing.append((notice, "linesTruncated", True))
        return limit_notices(cut_output, notices, details, trailing)


def _grep(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    target = resolve_path(str(args.get("path") or "."), ctx.cwd)
    check_allowed(target, ctx.cwd, ctx.policy)
    if not os.path.exists(target):
        raise ToolError(f"Path not found: {target}")
    regex = _compile(str(args["pattern"]), bool(args.get("ignoreCase")), bool(args.get("literal")))
    glob = _glob_filter(str(args["glob"]) if args.get("glob") else None)
    limit = max(1, int(args["limit"]) if args.get("limit") is not None else GREP_DEFAULT_LIMIT)
    found = _Found(limit, max(0, int(args.get("context") or 0)))
    is_dir = os.path.isdir(target)
    for path, rel in _files(target, is_dir, ctx):
        ctx.signal.raise_if_aborted()
        if found.full:
            break
        if glob is not None and is_dir and glob.fullmatch(rel) is None:
            continue
        lines = _read_lines(path) if is_dir else _read_named_file(path)
        if lines is None:
            continue
        if lines and lines[-1] == "":
            lines.pop()  # the text after a final newline is not a line to rg
        found.search(rel, lines, regex)
    return found.output()


def format_grep_call(args: Mapping[str, Any]) -> str:
    """``[grep: /TODO/ in ~/src]``."""
    return f"[grep: /{first_arg(args, 'pattern')}/ in {shorten_path(first_arg(args, 'path', default='.'))}]"


def _grep_command(text: str) -> dict[str, Any] | None:
    """``grep <pattern>``."""
    pattern = command_rest(text)
    return {"pattern": pattern} if pattern else None


GREP = ToolSpec(
    name="grep",
    description=(
        "Search file contents for a pattern. Returns matching lines with file paths and line numbers. "
        "Respects .gitignore. Output is truncated to 100 matches or 50KB (whichever is hit first). "
        "Long lines are truncated to 500 chars."
    ),
    parameters=object_schema(
        ["pattern"],
        {
            "pattern": prop("string", "Search pattern (regex or literal string)"),
            "path": prop("string", "Directory or file to search (default: current directory)"),
            "glob": prop("string", "Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"),
            "ignoreCase": prop("boolean", "Case-insensitive search (default: false)"),
            "literal": prop("boolean", "Treat pattern as literal string instead of regex (default: false)"),
            "context": prop("number", "Number of lines to show before and after each match (default: 0)"),
            "limit": prop("number", "Maximum number of matches to return (default: 100)"),
        },
    ),
    execute=execute_grep,
    snippet="Search file contents for patterns (respects .gitignore)",
    main_argument="pattern",
    format_call=format_grep_call,
    parse_command=_grep_command,
)
