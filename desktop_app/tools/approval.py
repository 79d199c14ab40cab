"""What the user is asked before ``write``, ``edit`` or ``bash`` runs, and what a refusal returns.

:func:`describe_approval` turns a tool call into a plain dataclass for the approval card: for
``edit`` the unified diff pi would return (computed without writing anything), for ``write`` the
path and size, for ``bash`` the command and folder. :class:`SessionApprovals` remembers "Allow always
for this session" per tool name (it lives as long as the session object; nothing is persisted).
:func:`denied_result` is the ``isError`` result the model receives when the user says no.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .context import ToolContext
from .edit import plan_edit, prepare_edit_arguments, read_for_edit
from .paths import resolve_path
from .registry import TOOLS
from .results import ToolError, ToolResult
from .run import error_result
from .truncate import format_size
from .write import encode_like_node

__all__ = [
    "ApprovalDecision",
    "EditApproval",
    "WriteApproval",
    "BashApproval",
    "ApprovalRequest",
    "SessionApprovals",
    "describe_approval",
    "denied_result",
    "DENIED_TEXT",
]

DENIED_TEXT = "The user denied this {tool} call, so it was not run."


class ApprovalDecision(Enum):
    """The card's three buttons."""

    ALLOW_ONCE = "once"
    ALLOW_ALWAYS = "always"
    DENY = "deny"


@dataclass(frozen=True)
class EditApproval:
    tool_call_id: str
    path: str
    """As the model wrote it."""
    abs_path: str
    diff: str | None
    """pi's diff of the change (``details.diff``), or ``None`` when the edit would fail."""
    first_changed_line: int | None
    error: str | None
    """The error the edit would report (not found, not unique...), shown instead of a diff."""
    tool_name: str = field(default="edit", init=False)


@dataclass(frozen=True)
class WriteApproval:
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


@dataclass(frozen=True)
class BashApproval:
    tool_call_id: str
    command: str
    cwd: str
    timeout: float | None
    tool_name: str = field(default="bash", init=False)


ApprovalRequest = EditApproval | WriteApproval | BashApproval


class SessionApprovals:
    """Tools the user allowed for the rest of this session ("Allow always for this session")."""

    def __init__(self, always: frozenset[str] = frozenset()) -> None:
        self._always = set(always)

    def is_preapproved(self, tool_name: str) -> bool:
        return tool_name in self._always

    def record(self, tool_name: str, decision: ApprovalDecision) -> None:
        if decision is ApprovalDecision.ALLOW_ALWAYS:
            self._always.add(tool_name)

    @property
    def always(self) -> frozenset[str]:
        return frozenset(self._always)


def _args(call: dict[str, Any]) -> dict[str, Any]:
    arguments = call.get("arguments")
    return arguments if isinstance(arguments, dict) else {}


def _edit_request(call_id: str, args: dict[str, Any], ctx: ToolContext) -> EditApproval:
    args = prepare_edit_arguments(args)
    path = str(args.get("path", ""))
    abs_path = resolve_path(path, ctx.cwd)
    edits = args.get("edits")
    try:
        if not isinstance(edits, list) or not all(isinstance(e, dict) for e in edits):
            raise ToolError("The edits are not a list of {oldText, newText} objects.")
        plan = plan_edit(read_for_edit(path, abs_path), edits, path)
    except (ToolError, KeyError) as exc:
        return EditApproval(call_id, path, abs_path, None, None, str(exc))
    return EditApproval(call_id, path, abs_path, plan.diff, plan.first_changed_line, None)


def describe_approval(call: dict[str, Any], ctx: ToolContext) -> ApprovalRequest | None:
    """The card for a call that needs approval; ``None`` for tools that run at once (or unknown ones)."""
    name = str(call.get("name", ""))
    spec = TOOLS.get(name)
    if spec is None or not spec.needs_approval:
        return None
    call_id = str(call.get("id", ""))
    args = _args(call)
    if name == "edit":
        return _edit_request(call_id, args, ctx)
    if name == "write":
        path = str(args.get("path", ""))
        abs_path = resolve_path(path, ctx.cwd)
        content = str(args.get("content", ""))
        size = len(encode_like_node(content))
        return WriteApproval(
            call_id, path, abs_path, size, format_size(size), os.path.exists(abs_path), content
        )
    timeout = args.get("timeout")
    return BashApproval(
        call_id,
        str(args.get("command", "")),
        ctx.cwd,
        float(timeout) if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) else None,
    )


def denied_result(call: dict[str, Any], reason: str | None = None) -> ToolResult:
    """The result for a refused call: ``isError: true``, ``details: {}``, a text that says why."""
    name = str(call.get("name", ""))
    return error_result(call, reason if reason is not None else DENIED_TEXT.format(tool=name))
