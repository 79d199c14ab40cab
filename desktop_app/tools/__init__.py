"""pi 0.73.1's built-in tools (read, write, edit, bash, grep, find, ls) for Arbor's agent.

One module per tool (``read.py``, ``bash.py``, ...) holds all of it as a :class:`~.spec.ToolSpec`:
what the model is told, how it runs, its approval card, its chat and ``/tree`` texts, the file
operation pi's compaction lists, the offline model's command form. :mod:`.registry` lists them in
pi's order and answers by name for the other packages (compaction, llm, present, ui), which never
compare tool names themselves.

The turn loop's protocol is in :mod:`desktop_app.tools.batch` (append the assistant message,
``await run_tool_calls(...)``, append each ``result.to_message()`` in call order). The pieces:

* :func:`tool_definitions` — the ``tools`` of the LLM request (pi's names, texts and schemas);
* :class:`ToolContext` — cwd, path policy, abort signal, shared mutation queue, shell settings;
* :func:`run_tool` — one ``toolCall`` block to one :class:`ToolResult` (never raises except on
  task cancellation);
* :func:`describe_approval` / :class:`SessionApprovals` / :func:`denied_result` — the approval card;
* :meth:`ToolResult.to_message` — the ``toolResult`` message in pi's key order.
"""

from .approval import (
    ApprovalDecision,
    ApprovalRequest,
    SessionApprovals,
    denied_result,
    describe_approval,
)
from .bash import BashApproval
from .batch import ASK_DENIED_TEXT, Approver, aborted_result, run_tool_calls
from .context import AbortSignal, MutationQueue, PathPolicy, ToolContext, ToolUpdate
from .edit import EditApproval
from .registry import (
    ALL_TOOLS,
    APPROVAL_TOOLS,
    DEFAULT_TOOLS,
    READ_ONLY_TOOLS,
    TOOLS,
    ToolSpec,
    call_view,
    command_arguments,
    file_op,
    format_tool_call,
    get_tool,
    main_argument,
    needs_approval,
    tool_definitions,
)
from .results import ToolError, ToolOutput, ToolResult
from .run import ABORTED_TEXT, error_result, precheck, run_tool
from .spec import CallView, CardText, FileOp
from .write import WriteApproval

__all__ = [
    "ABORTED_TEXT",
    "ALL_TOOLS",
    "APPROVAL_TOOLS",
    "ASK_DENIED_TEXT",
    "DEFAULT_TOOLS",
    "READ_ONLY_TOOLS",
    "TOOLS",
    "AbortSignal",
    "ApprovalDecision",
    "ApprovalRequest",
    "Approver",
    "BashApproval",
    "CallView",
    "CardText",
    "EditApproval",
    "FileOp",
    "MutationQueue",
    "PathPolicy",
    "SessionApprovals",
    "ToolContext",
    "ToolError",
    "ToolOutput",
    "ToolResult",
    "ToolSpec",
    "ToolUpdate",
    "WriteApproval",
    "aborted_result",
    "call_view",
    "command_arguments",
    "denied_result",
    "describe_approval",
    "error_result",
    "file_op",
    "format_tool_call",
    "get_tool",
    "main_argument",
    "needs_approval",
    "precheck",
    "run_tool",
    "run_tool_calls",
    "tool_definitions",
]
