"""The tool table: pi's names, descriptions and parameter schemas, default sets, and approval needs.

:func:`tool_definitions` gives what an :class:`~desktop_app.llm.protocol.LLMRequest` carries in
``tools`` (``{name, description, parameters}``, exactly the text pi sends); :data:`DEFAULT_TOOLS` is
pi's default active set (read, bash, edit, write), :data:`READ_ONLY_TOOLS` its read-only set, and
:data:`ALL_TOOLS` every built-in tool. ``needs_approval`` marks the tools that change files or run
commands (write, edit, bash): the turn loop asks the user before running them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .bash import execute_bash
from .context import ToolContext
from .edit import execute_edit, prepare_edit_arguments
from .find import execute_find
from .grep import execute_grep
from .ls import execute_ls
from .read import execute_read
from .results import ToolOutput
from .schema import Schema
from .write import execute_write

__all__ = [
    "ToolSpec",
    "TOOLS",
    "ALL_TOOLS",
    "DEFAULT_TOOLS",
    "READ_ONLY_TOOLS",
    "APPROVAL_TOOLS",
    "get_tool",
    "tool_definitions",
    "needs_approval",
]

Execute = Callable[[dict[str, Any], ToolContext], Awaitable[ToolOutput]]


@dataclass(frozen=True)
class ToolSpec:
    """One built-in tool: what the model is told, how it runs, and whether the user must agree first."""

    name: str
    description: str
    parameters: Schema
    execute: Execute
    needs_approval: bool
    snippet: str
    """pi's one-line summary in the system prompt's ``Available tools:`` list."""
    prepare: Callable[[Any], Any] | None = None
    """pi's ``prepareArguments``: repairs arguments before the schema check (edit only)."""

    def definition(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


def _prop(kind: str, description: str) -> Schema:
    return {"type": kind, "description": description}


def _object(required: list[str], properties: dict[str, Schema], closed: bool = False) -> Schema:
    schema: Schema = {"type": "object"}
    if required:
        schema["required"] = required
    schema["properties"] = properties
    if closed:
        schema["additionalProperties"] = False
    return schema


READ = ToolSpec(
    name="read",
    description=(
        "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are sent "
        "as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit first). "
        "Use offset/limit for large files. When you need the full file, continue with offset until complete."
    ),
    parameters=_object(
        ["path"],
        {
            "path": _prop("string", "Path to the file to read (relative or absolute)"),
            "offset": _prop("number", "Line number to start reading from (1-indexed)"),
            "limit": _prop("number", "Maximum number of lines to read"),
        },
    ),
    execute=execute_read,
    needs_approval=False,
    snippet="Read file contents",
)

GREP = ToolSpec(
    name="grep",
    description=(
        "Search file contents for a pattern. Returns matching lines with file paths and line numbers. "
        "Respects .gitignore. Output is truncated to 100 matches or 50KB (whichever is hit first). "
        "Long lines are truncated to 500 chars."
    ),
    parameters=_object(
        ["pattern"],
        {
            "pattern": _prop("string", "Search pattern (regex or literal string)"),
            "path": _prop("string", "Directory or file to search (default: current directory)"),
            "glob": _prop("string", "Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"),
            "ignoreCase": _prop("boolean", "Case-insensitive search (default: false)"),
            "literal": _prop("boolean", "Treat pattern as literal string instead of regex (default: false)"),
            "context": _prop("number", "Number of lines to show before and after each match (default: 0)"),
            "limit": _prop("number", "Maximum number of matches to return (default: 100)"),
        },
    ),
    execute=execute_grep,
    needs_approval=False,
    snippet="Search file contents for patterns (respects .gitignore)",
)

FIND = ToolSpec(
    name="find",
    description=(
        "Search for files by glob pattern. Returns matching file paths relative to the search directory. "
        "Respects .gitignore. Output is truncated to 1000 results or 50KB (whichever is hit first)."
    ),
    parameters=_object(
        ["pattern"],
        {
            "pattern": _prop(
                "string", "Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"
            ),
            "path": _prop("string", "Directory to search in (default: current directory)"),
            "limit": _prop("number", "Maximum number of results (default: 1000)"),
        },
    ),
    execute=execute_find,
    needs_approval=False,
    snippet="Find files by glob pattern (respects .gitignore)",
)

LS = ToolSpec(
    name="ls",
    description=(
        "List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. "
        "Includes dotfiles. Output is truncated to 500 entries or 50KB (whichever is hit first)."
    ),
    parameters=_object(
        [],
        {
            "path": _prop("string", "Directory to list (default: current directory)"),
            "limit": _prop("number", "Maximum number of entries to return (default: 500)"),
        },
    ),
    execute=execute_ls,
    needs_approval=False,
    snippet="List directory contents",
)

WRITE = ToolSpec(
    name="write",
    description=(
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. "
        "Automatically creates parent directories."
    ),
    parameters=_object(
        ["path", "content"],
        {
            "path": _prop("string", "Path to the file to write (relative or absolute)"),
            "content": _prop("string", "Content to write to the file"),
        },
    ),
    execute=execute_write,
    needs_approval=True,
    snippet="Create or overwrite files",
)

EDIT = ToolSpec(
    name="edit",
    description=(
        "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, "
        "non-overlapping region of the original file. If two changes affect the same block or nearby lines, "
        "merge them into one edit instead of emitting overlapping edits. Do not include large unchanged "
        "regions just to connect distant changes."
    ),
    parameters=_object(
        ["path", "edits"],
        {
            "path": _prop("string", "Path to the file to edit (relative or absolute)"),
            "edits": {
                "type": "array",
                "description": (
                    "One or more targeted replacements. Each edit is matched against the original file, not "
                    "incrementally. Do not include overlapping or nested edits. If two changes touch the same "
                    "block or nearby lines, merge them into one edit instead."
                ),
                "items": _object(
                    ["oldText", "newText"],
                    {
                        "oldText": _prop(
                            "string",
                            "Exact text for one targeted replacement. It must be unique in the original file "
                            "and must not overlap with any other edits[].oldText in the same call.",
                        ),
                        "newText": _prop("string", "Replacement text for this targeted edit."),
                    },
                    closed=True,
                ),
            },
        },
        closed=True,
    ),
    execute=execute_edit,
    needs_approval=True,
    snippet="Make precise file edits with exact text replacement, including multiple disjoint edits in one call",
    prepare=prepare_edit_arguments,
)

BASH = ToolSpec(
    name="bash",
    description=(
        "Execute a bash command in the current working directory. Returns stdout and stderr. Output is "
        "truncated to last 2000 lines or 50KB (whichever is hit first). If truncated, full output is saved "
        "to a temp file. Optionally provide a timeout in seconds."
    ),
    parameters=_object(
        ["command"],
        {
            "command": _prop("string", "Bash command to execute"),
            "timeout": _prop("number", "Timeout in seconds (optional, no default timeout)"),
        },
    ),
    execute=execute_bash,
    needs_approval=True,
    snippet="Execute bash commands (ls, grep, find, etc.)",
)

TOOLS: dict[str, ToolSpec] = {spec.name: spec for spec in (READ, BASH, EDIT, WRITE, GREP, FIND, LS)}

ALL_TOOLS: tuple[str, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")
DEFAULT_TOOLS: tuple[str, ...] = ("read", "bash", "edit", "write")
READ_ONLY_TOOLS: tuple[str, ...] = ("read", "grep", "find", "ls")
APPROVAL_TOOLS: frozenset[str] = frozenset({"write", "edit", "bash"})


def get_tool(name: str) -> ToolSpec | None:
    return TOOLS.get(name)


def needs_approval(name: str) -> bool:
    spec = TOOLS.get(name)
    return spec.needs_approval if spec is not None else False


def tool_definitions(names: Iterable[str] = DEFAULT_TOOLS) -> list[dict[str, Any]]:
    """``{name, description, parameters}`` for each known name, in the order given (pi's prompt order)."""
    return [TOOLS[name].definition() for name in names if name in TOOLS]
