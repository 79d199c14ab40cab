"""What the user is asked before ``write``, ``edit`` or ``bash`` runs, and what a refusal returns.

:func:`describe_approval` turns a tool call into the tool's own plain dataclass for the approval
card (its ``describe``, in the tool's module): for ``edit`` the unified diff pi would return
(computed without writing anything), for ``write`` the path and size, for ``bash`` the command and
folder; its ``card()`` is what the card says. :class:`SessionApprovals` remembers "Allow always
for this session" per tool name (it lives as long as the session object; nothing is persisted).
:func:`denied_result` is the ``isError`` result the model receives when the user says no.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from .context import ToolContext
from .registry import get_tool
from .results import ToolResult
from .run import error_result
from .spec import Approval

__all__ = [
    "ApprovalDecision",
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


ApprovalRequest = Approval
"""A call waiting for the user: the tool's own dataclass (``EditApproval``, ``WriteApproval``,
``BashApproval``), which says what its card shows."""


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


def describe_approval(call: dict[str, Any], ctx: ToolContext) -> ApprovalRequest | None:
    """The card for a call that needs approval; ``None`` for tools that run at once (or unknown ones)."""
    spec = get_tool(call.get("name", ""))
    if spec is None or spec.describe is None:
        return None
    arguments = call.get("arguments")
    return spec.describe(str(call.get("id", "")), arguments if isinstance(arguments, dict) else {}, ctx)


def denied_result(call: dict[str, Any], reason: str | None = None) -> ToolResult:
    """The result for a refused call: ``isError: true``, ``details: {}``, a text that says why."""
    name = str(call.get("name", ""))
    return error_result(call, reason if reason is not None else DENIED_TEXT.format(tool=name))
