"""One assistant message's tool calls, run the way pi runs a batch, with Arbor's approval step.

This is the integration point for the turn loop (``agent/session.py``). When a streamed assistant
message ends with ``stopReason == "toolUse"``:

1. Append the assistant message (with its ``toolCall`` blocks) to the session **first**, as pi does.
2. ``results = await run_tool_calls(calls, context, approvals, approve)`` where ``calls`` are the
   message's ``toolCall`` blocks in order and ``context`` is the session's :class:`ToolContext`
   (``cwd`` = the header's cwd, a fresh ``signal`` per turn that Esc fires, the session's one
   ``mutation_queue``).
3. Append ``result.to_message()`` for each result, **in call order**, then send the next request
   with the results in context; repeat until a reply has no tool calls.

Inside :func:`run_tool_calls`: calls are prepared in order (unknown tool / bad arguments fail
without asking anyone); each remaining call to ``write``, ``edit`` or ``bash`` that is not already
allowed for the session is shown to ``approve`` one at a time, in call order (``approve=None``
denies them, as ``arbor ask`` without ``--yes`` must); then every approved call runs at once (pi's
``toolExecution: "parallel"``; same-file writes still apply in call order through the mutation
queue). An abort while a card is open answers the open and later cards with the aborted result.
``on_result`` is called with each result as it is known (refusals first, then runs in completion
order), for live display only: persistence is the caller's, in call order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from .approval import ApprovalDecision, ApprovalRequest, SessionApprovals, denied_result, describe_approval
from .context import ToolContext, unless_aborted
from .registry import TOOLS, get_tool
from .results import ToolResult
from .run import ABORTED_TEXT, error_result, precheck, run_tool

__all__ = ["Approver", "run_tool_calls", "aborted_result", "ASK_DENIED_TEXT"]

Approver = Callable[[ApprovalRequest], Awaitable[ApprovalDecision]]

ASK_DENIED_TEXT = (
    "Denied: `arbor ask` runs without --yes, so the {tool} tool is not allowed. "
    "Run `arbor ask --yes` to allow writing files and running commands."
)


def aborted_result(call: dict[str, Any]) -> ToolResult:
    """What a call that was stopped before it ran reports (the tool's own wording if it has one: bash's)."""
    spec = get_tool(call.get("name"))
    return error_result(call, spec.aborted_text if spec is not None and spec.aborted_text else ABORTED_TEXT)


async def _ask(approve: Approver, request: ApprovalRequest, context: ToolContext) -> ApprovalDecision | None:
    """The user's answer, or ``None`` if the turn was aborted while the card was open."""
    answered, decision = await unless_aborted(approve(request), context.signal)
    return decision if answered else None


async def run_tool_calls(
    calls: Sequence[dict[str, Any]],
    context: ToolContext,
    approvals: SessionApprovals,
    approve: Approver | None,
    on_result: Callable[[ToolResult], None] | None = None,
    deny_reason: str | None = None,
) -> list[ToolResult]:
    """Results for ``calls``, in call order (see the module docstring for the whole protocol).

    ``deny_reason`` replaces the default denial text (``{tool}`` is filled in); with
    ``approve=None`` the default is :data:`ASK_DENIED_TEXT`.
    """
    fixed: dict[int, ToolResult] = {}
    for index, call in enumerate(calls):
        failed = precheck(call, context)
        if failed is not None:
            fixed[index] = failed
            continue
        spec = TOOLS[str(call["name"])]
        if not spec.needs_approval or approvals.is_preapproved(spec.name):
            continue
        request = describe_approval(call, context)
        if request is None:
            continue
        if approve is None:
            reason = deny_reason or ASK_DENIED_TEXT
            fixed[index] = denied_result(call, reason.format(tool=spec.name))
            continue
        decision = await _ask(approve, request, context)
        if decision is None:
            fixed[index] = aborted_result(call)
            continue
        approvals.record(spec.name, decision)
        if decision is ApprovalDecision.DENY:
            text = deny_reason.format(tool=spec.name) if deny_reason else None
            fixed[index] = denied_result(call, text)

    async def one(call: dict[str, Any]) -> ToolResult:
        result = await run_tool(call, context)
        if on_result is not None:
            on_result(result)
        return result

    for index in sorted(fixed):
        if on_result is not None:
            on_result(fixed[index])
    pending = {i: asyncio.ensure_future(one(call)) for i, call in enumerate(calls) if i not in fixed}
    try:
        await asyncio.gather(*pending.values())
    except asyncio.CancelledError:
        for task in pending.values():
            task.cancel()
        await asyncio.gather(*pending.values(), return_exceptions=True)
        raise
    return [fixed[i] if i in fixed else pending[i].result() for i in range(len(calls))]
