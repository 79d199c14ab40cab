"""pi's built-in tools (read, write, edit, bash, grep, find, ls) for Arbor's agent.

Integration (what the turn loop does with a finished assistant message whose ``stopReason`` is
``toolUse``) is described in :mod:`desktop_app.agent.tools.batch`; the pieces:

* :func:`tool_definitions` — the ``tools`` for the LLM request (pi's exact names, texts, schemas);
* :func:`run_tool` — run one ``toolCall`` block in a :class:`ToolContext`, get a :class:`ToolResult`;
* :meth:`ToolResult.to_message` — the ``toolResult`` message to append, in pi's key order.
"""

from .context import AbortSignal, MutationQueue, PathPolicy, ToolContext, ToolUpdate
from .registry import (
    ALL_TOOLS,
    APPROVAL_TOOLS,
    DEFAULT_TOOLS,
    READ_ONLY_TOOLS,
    TOOLS,
    ToolSpec,
    get_tool,
    needs_approval,
    tool_definitions,
)
from .results import ToolError, ToolOutput, ToolResult
from .run import ABORTED_TEXT, error_result, run_tool

__all__ = [
    "ABORTED_TEXT",
    "ALL_TOOLS",
    "APPROVAL_TOOLS",
    "DEFAULT_TOOLS",
    "READ_ONLY_TOOLS",
    "TOOLS",
    "AbortSignal",
    "MutationQueue",
    "PathPolicy",
    "ToolContext",
    "ToolError",
    "ToolOutput",
    "ToolResult",
    "ToolSpec",
    "ToolUpdate",
    "error_result",
    "get_tool",
    "needs_approval",
    "run_tool",
    "tool_definitions",
]
