"""Running one tool call: lookup, argument preparation and checking, the run, abort, the result.

This is pi's ``executeToolCall`` for Arbor: whatever happens (unknown tool, bad arguments, missing
folder, refused path, an exception in the tool, an abort), the caller gets a :class:`ToolResult` to
append; only a cancelled task raises (``CancelledError``), and even then bash's process group is
killed on the way out.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from desktop_app.session.entries import now_ms

from .context import ABORTED_TEXT, ToolContext, unless_aborted
from .paths import missing_cwd_message
from .registry import TOOLS, ToolSpec
from .results import ToolError, ToolOutput, ToolResult, text_block
from .schema import validate_arguments

__all__ = ["run_tool", "precheck", "error_result", "ABORTED_TEXT"]


def error_result(call: dict[str, Any], text: str) -> ToolResult:
    """A failed call as pi records a throw: one text block, ``details: {}``, ``isError: true``."""
    return ToolResult(
        tool_call_id=str(call.get("id", "")),
        tool_name=str(call.get("name", "")),
        content=[text_block(text)],
        is_error=True,
        timestamp=now_ms(),
        details={},
    )


def _prepare(call: dict[str, Any], ctx: ToolContext) -> tuple[ToolSpec, dict[str, Any]]:
    """pi's preparation: lookup (``Tool <name> not found``), ``prepareArguments``, schema check."""
    name = str(call.get("name", ""))
    spec = TOOLS.get(name)
    if spec is None or (ctx.enabled is not None and name not in ctx.enabled):
        raise ToolError(f"Tool {name} not found")
    arguments = call.get("arguments", {})
    prepared = spec.prepare(arguments) if spec.prepare is not None else arguments
    return spec, validate_arguments(spec.name, spec.parameters, prepared)


def precheck(call: dict[str, Any], context: ToolContext) -> ToolResult | None:
    """The result a call will fail with before running (unknown tool, bad arguments), else ``None``.

    The turn loop uses it to skip asking the user about a call that cannot run anyway.
    """
    try:
        _prepare(call, context)
    except ToolError as exc:
        return error_result(call, str(exc))
    return None


async def _run_until_abort(spec: ToolSpec, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    """Run the tool; if the signal fires first, cancel it and report pi's aborted text.

    A tool that handles the signal itself (bash: it must kill its process group and keep the
    partial output) is awaited directly.
    """
    if spec.handles_abort:
        return await spec.execute(args, ctx)
    finished, output = await unless_aborted(spec.execute(args, ctx), ctx.signal)
    if not finished or output is None:
        raise ToolError(ABORTED_TEXT)
    return output


async def run_tool(call: dict[str, Any], context: ToolContext) -> ToolResult:
    """Run pi's ``toolCall`` block ``{type, id, name, arguments}`` and return its result.

    The call's ``arguments`` are not modified (the session keeps the model's original arguments).
    """
    try:
        spec, args = _prepare(call, context)
        if not os.path.isdir(context.cwd):
            raise ToolError(missing_cwd_message(context.cwd, spec.name, spec.missing_cwd_line))
        output = await _run_until_abort(spec, args, context.for_call(str(call.get("id", ""))))
    except ToolError as exc:
        return error_result(call, str(exc))
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a bug or an OS error the tool did not word: still a result, as in pi
        return error_result(call, str(exc) or type(exc).__name__)
    return ToolResult(
        tool_call_id=str(call.get("id", "")),
        tool_name=spec.name,
        content=output.content,
        is_error=False,
        timestamp=now_ms(),
        details=output.details,
    )
