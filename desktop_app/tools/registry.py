"""The built-in tools in pi's order, and what the rest of Arbor asks about a tool by its name.

Each tool is one module holding its :class:`~.spec.ToolSpec`; this is the one list of them.
:data:`ALL_TOOLS` is every built-in tool in pi's order, :data:`DEFAULT_TOOLS` pi's default active set
(read, bash, edit, write), :data:`READ_ONLY_TOOLS` its read-only set, :data:`APPROVAL_TOOLS` those
that ask the user first (they change files or run commands). The look-ups below answer for any
name a session file may hold (``None``/the generic answer for a tool Arbor does not know), so no
other package compares a tool's name with a string.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .bash import BASH
from .display import format_other_call
from .edit import EDIT
from .find import FIND
from .grep import GREP
from .ls import LS
from .read import READ
from .spec import CallView, FileOp, ToolSpec
from .write import WRITE

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
    "file_op",
    "main_argument",
    "format_tool_call",
    "call_view",
    "command_arguments",
]

TOOLS: dict[str, ToolSpec] = {spec.name: spec for spec in (READ, BASH, EDIT, WRITE, GREP, FIND, LS)}
"""Every built-in tool by name, in pi's order."""

ALL_TOOLS: tuple[str, ...] = tuple(TOOLS)
DEFAULT_TOOLS: tuple[str, ...] = tuple(spec.name for spec in (READ, BASH, EDIT, WRITE))
READ_ONLY_TOOLS: tuple[str, ...] = tuple(spec.name for spec in (READ, GREP, FIND, LS))
APPROVAL_TOOLS: frozenset[str] = frozenset(name for name, spec in TOOLS.items() if spec.needs_approval)


def get_tool(name: object) -> ToolSpec | None:
    """The built-in tool called ``name`` (any JSON value a file may hold), or ``None``."""
    return TOOLS.get(name) if isinstance(name, str) else None


def needs_approval(name: str) -> bool:
    spec = get_tool(name)
    return spec.needs_approval if spec is not None else False


def tool_definitions(names: Iterable[str] = DEFAULT_TOOLS) -> list[dict[str, Any]]:
    """``{name, description, parameters}`` for each known name, in the order given (pi's prompt order)."""
    return [TOOLS[name].definition() for name in names if name in TOOLS]


def file_op(name: object) -> FileOp | None:
    """What pi's compaction records for a call named ``name`` with a string ``path`` (pi applies it
    to any call by its name: read, write, edit)."""
    spec = get_tool(name)
    return spec.file_op if spec is not None else None


def main_argument(name: object) -> str | None:
    """The argument a chat row shows after a call's name (``None``: an unknown tool, shown as JSON)."""
    spec = get_tool(name)
    return spec.main_argument if spec is not None else None


def format_tool_call(name: str, arguments: Any) -> str:
    """pi's ``formatToolCall``: ``[read: ~/p/file.ts:10-29]``, ``[bash: cmd...]``, ..."""
    spec = get_tool(name)
    if spec is None:
        return format_other_call(name, arguments)
    return spec.format_call(arguments if isinstance(arguments, Mapping) else {})


def call_view(name: object, arguments: dict[str, Any]) -> CallView | None:
    """How the chat shows a call's arguments opened, or ``None`` for pretty-printed JSON."""
    spec = get_tool(name)
    if spec is None or spec.call_view is None:
        return None
    return spec.call_view(arguments)


def command_arguments(name: str, rest: str) -> dict[str, Any] | None:
    """The offline model's command form: the arguments ``<name> <rest>`` asks for (``read src/app.py``),
    or ``None`` when it asks for nothing or the tool has no command form (edit)."""
    spec = get_tool(name)
    if spec is None or spec.parse_command is None:
        return None
    return spec.parse_command(rest)
