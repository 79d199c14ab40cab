"""What one built-in tool is, in one value: :class:`ToolSpec`, and the plain data its parts return.

Each tool's module (``read.py``, ``bash.py``, ...) ends with its ``ToolSpec``: what the model is told
(name, description, schema, prompt snippet and guidelines), how it runs, and how Arbor shows it — the
approval card, the chat row, pi's ``/tree`` text, the file operation a summary lists, the offline
model's command form. Everything that needs to know about a particular tool asks its spec through
:mod:`.registry`, so no other package compares tool names. No Qt: ``ui/`` draws what these return.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from .context import ToolContext
from .results import ToolOutput
from .schema import Schema

__all__ = ["ToolSpec", "FileOp", "CardText", "CallView", "Approval", "Execute", "Describe"]


class FileOp(Enum):
    """What pi's compaction records for a call of the tool with a string ``path`` (pi-spec §5.7)."""

    READ = "read"
    WRITTEN = "written"
    EDITED = "edited"


@dataclass(frozen=True)
class CardText:
    """What an approval card says; ``present/`` adds the buttons and ``ui/`` draws it."""

    title: str
    facts: tuple[str, ...]
    body: str
    language: str | None
    """The body's highlighting: ``"diff"``, ``"bash"`` or ``None`` (plain)."""
    warning: str | None = None
    """Shown in the error colour: the edit would fail, a write overwrites a file."""


class Approval(Protocol):
    """A call waiting for the user's answer (each tool that asks has its own frozen dataclass)."""

    @property
    def tool_call_id(self) -> str: ...

    @property
    def tool_name(self) -> str: ...

    def card(self) -> CardText:
        """The card the user answers."""
        ...


@dataclass(frozen=True)
class CallView:
    """A call's arguments shown opened in the chat: an optional path line above one code block."""

    code: str
    language: str | None
    """The code's highlighting; ``None``: guessed from ``path``'s extension."""
    path: str | None = None
    """The file the call is about, shown above the code (``None``: no line)."""


Execute = Callable[[dict[str, Any], ToolContext], Awaitable[ToolOutput]]
Describe = Callable[[str, dict[str, Any], ToolContext], Approval]
"""``(tool_call_id, arguments, context)`` → the approval request for that call."""


@dataclass(frozen=True)
class ToolSpec:
    """One built-in tool: what the model is told, how it runs, and how Arbor shows it."""

    name: str
    description: str
    parameters: Schema
    execute: Execute
    snippet: str
    """pi's one-line summary in the system prompt's ``Available tools:`` list."""
    main_argument: str
    """The argument a chat row shows after the tool's name (``path``, ``command``, ``pattern``)."""
    format_call: Callable[[Mapping[str, Any]], str]
    """pi's ``formatToolCall`` for this tool: ``[read: ~/p/file.ts:10-29]`` (pi-spec §6.2)."""
    guidelines: tuple[str, ...] = ()
    """pi's ``Guidelines:`` lines of the system prompt that this tool adds when active."""
    prepare: Callable[[Any], Any] | None = None
    """pi's ``prepareArguments``: repairs arguments before the schema check (edit only)."""
    describe: Describe | None = None
    """The approval request for a call; ``None``: the tool runs without asking."""
    handles_abort: bool = False
    """The tool watches the abort signal itself (bash: it kills its process group, keeps its output)."""
    aborted_text: str | None = None
    """What a call stopped before it ran reports, when not pi's ``Operation aborted``."""
    missing_cwd_line: str | None = None
    """The second line of the error when the working folder is gone, when not ``Cannot run the <name> tool.``"""
    file_op: FileOp | None = None
    """What pi's compaction lists for a call with a string ``path`` (by name, whatever ran it)."""
    call_view: Callable[[dict[str, Any]], CallView | None] | None = None
    """How the chat shows the arguments opened (``None`` or a ``None`` result: as JSON)."""
    parse_command: Callable[[str], dict[str, Any] | None] | None = None
    """The offline model's command form: the arguments for the text after ``<name>`` in a user
    message (``read src/app.py``), or ``None`` when it asks for nothing; ``None``: no command form."""

    @property
    def needs_approval(self) -> bool:
        """The user is asked before the tool runs (it changes files or runs commands)."""
        return self.describe is not None

    def definition(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}
