"""The offline model: deterministic, no network, the default when no API key is configured.

A newcomer can explore branching, compaction and branch summaries without an account: a chat turn
answers with what the model would have received (message count, pi's token estimate, the last user
text), and summarization requests (known by their :class:`~desktop_app.llm.model.Purpose`, never by
their prompt text) get the extractive summary of :mod:`offline_summary`. Output is streamed in small
deltas like a real model, so progress and cancellation behave the same.

It also calls tools, deterministically, so the agent's tool loop can be seen (and tested) without a
key: a user message whose first word names an offered tool with a command form (``read <path>``,
``ls [path]``, ``grep <pattern>``, ``find <pattern>``, ``bash <command>``, ``write <path>`` with the
content on the following lines; each tool's module parses its own) is answered with that
``toolCall`` (``stopReason: "toolUse"``); once the results come back, the reply describes them.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from desktop_app.session.entries import message_text as content_text
from desktop_app.session.jsjson import utf16_len
from desktop_app.session.kinds import Role, role_of
from desktop_app.tools.registry import command_arguments

from .accumulate import StreamState, guaranteed_stream
from .estimate import estimate_message_tokens
from .offline_summary import offline_summary, offline_turn_prefix_summary
from .protocol import (
    Done,
    LLMRequest,
    ModelInfo,
    Provider,
    Purpose,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
    usage_with_cost,
)

__all__ = ["OFFLINE_MODEL", "OfflineProvider", "offline_reply", "offline_tool_call"]

OFFLINE_MODEL = ModelInfo(
    id="offline",
    provider="arbor",
    api="arbor-offline",
    context_window=200_000,
    max_tokens=32_000,
    reasoning=False,
    input=("text", "image"),
)

_CHAT_NOTICE = "(Offline model — no language model is configured; this reply describes what it received.)"


def _estimate(request: LLMRequest) -> int:
    """pi's estimate of the request's messages (a message JavaScript would count as NaN adds 0)."""
    return sum(estimate_message_tokens(message) for message in request.messages)


def _last_user_text(request: LLMRequest) -> str | None:
    for message in reversed(request.messages):
        if role_of(message) is Role.USER:
            return content_text(message.get("content"))
    return None


_QUOTED_LINES = 20


def offline_tool_call(request: LLMRequest) -> dict[str, Any] | None:
    """The ``toolCall`` block the offline model answers ``request`` with, if any (deterministic).

    Only for a chat request whose last message is the user's and whose first word names a tool
    the request offers; the id depends on the conversation's length, so it is unique along a path.
    """
    if request.purpose is not Purpose.CHAT or not request.tools or not request.messages:
        return None
    last = request.messages[-1]
    if role_of(last) is not Role.USER:
        return None
    text = content_text(last.get("content")).strip()
    name = text.split(None, 1)[0] if text else ""
    offered = {str(tool.get("name")) for tool in request.tools}
    arguments = command_arguments(name, text[len(name) :]) if name in offered else None
    if arguments is None:
        return None
    call_id = f"offline_call_{len(request.messages):04d}"
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def _trailing_results(request: LLMRequest) -> list[dict[str, Any]]:
    """The tool results after the last assistant message (what the model was just given)."""
    results: list[dict[str, Any]] = []
    for message in reversed(request.messages):
        if role_of(message) is not Role.TOOL_RESULT:
            break
        results.append(message)
    return results[::-1]


def _describe_results(results: list[dict[str, Any]]) -> str:
    parts = [_CHAT_NOTICE]
    for result in results:
        text = content_text(result.get("content"))
        lines = text.split("\n")
        shown = "\n".join("> " + line for line in lines[:_QUOTED_LINES])
        more = len(lines) - _QUOTED_LINES
        if more > 0:
            shown += f"\n> … ({more} more line{'s' if more != 1 else ''})"
        outcome = "failed" if result.get("isError") else "returned"
        size = f"{len(lines)} line{'s' if len(lines) != 1 else ''}, {len(text):,} characters"
        parts.append(f"The {result.get('toolName')} tool {outcome} ({size}):\n\n{shown}")
    return "\n\n".join(parts)


def offline_reply(request: LLMRequest) -> str:
    """The full text the offline model answers ``request`` with (deterministic)."""
    last = _last_user_text(request) or ""
    if request.purpose is Purpose.TURN_PREFIX:
        return offline_turn_prefix_summary(last)
    if request.purpose in (Purpose.COMPACTION, Purpose.BRANCH_SUMMARY):
        return offline_summary(last)
    results = _trailing_results(request)
    if results:
        return _describe_results(results)
    count = len(request.messages)
    tokens = _estimate(request)
    quoted = "\n".join("> " + line for line in last.splitlines()) if last else "> (no user text)"
    return (
        f"{_CHAT_NOTICE}\n\n"
        f"I received {count} message{'s' if count != 1 else ''} "
        f"(about {tokens:,} tokens by pi's chars/4 estimate). Your last message was:\n\n{quoted}"
    )


class OfflineProvider(Provider):
    """A :class:`~desktop_app.llm.protocol.Provider` that never leaves the process.

    ``chunk_chars`` sets the size of text deltas; ``delay`` (seconds) is slept between deltas, which a
    demo or a cancellation test can use to make the stream observable. ``max_tokens`` is honoured
    (output is cut at ``4 × max_tokens`` characters with ``stopReason: "length"``).
    """

    def __init__(self, chunk_chars: int = 24, delay: float = 0.0, model: ModelInfo = OFFLINE_MODEL) -> None:
        self._model = model
        self.chunk_chars = max(1, chunk_chars)
        self.delay = delay

    @property
    def model(self) -> ModelInfo:
        return self._model

    @property
    def is_offline(self) -> bool:
        return True

    def stream(self, request: LLMRequest) -> AsyncGenerator[StreamEvent, None]:
        return guaranteed_stream(self._model, lambda state: self._produce(request, state))

    async def _produce(self, request: LLMRequest, state: StreamState) -> AsyncIterator[StreamEvent]:
        call = offline_tool_call(request)
        if call is not None:
            async for event in self._call_tool(request, call, state):
                yield event
            return
        text = offline_reply(request)
        stop_reason = "stop"
        if request.max_tokens is not None and len(text) > 4 * request.max_tokens:
            text = text[: 4 * request.max_tokens]
            stop_reason = "length"
        for start in range(0, len(text), self.chunk_chars):
            await asyncio.sleep(self.delay)
            yield TextDelta(text[start : start + self.chunk_chars])
        input_tokens = _estimate(request)
        if request.system_prompt:
            input_tokens += math.ceil(utf16_len(request.system_prompt) / 4)
        yield UsageUpdate(usage_with_cost(self._model, input_tokens, math.ceil(utf16_len(text) / 4)))
        yield Done(state.final(stop_reason))

    async def _call_tool(
        self, request: LLMRequest, call: dict[str, Any], state: StreamState
    ) -> AsyncIterator[StreamEvent]:
        """A short sentence, then the tool call with its arguments streamed as JSON text."""
        text = f"Offline model: calling the {call['name']} tool."
        await asyncio.sleep(self.delay)
        yield TextDelta(text)
        yield ToolCallStart(1, call["id"], call["name"])
        payload = json.dumps(call["arguments"], ensure_ascii=False)
        for start in range(0, len(payload), self.chunk_chars):
            await asyncio.sleep(self.delay)
            yield ToolCallDelta(1, payload[start : start + self.chunk_chars])
        yield ToolCallEnd(1, call)
        input_tokens = _estimate(request)
        if request.system_prompt:
            input_tokens += math.ceil(utf16_len(request.system_prompt) / 4)
        output_tokens = math.ceil((utf16_len(text) + utf16_len(payload)) / 4)
        yield UsageUpdate(usage_with_cost(self._model, input_tokens, output_tokens))
        yield Done(state.final("toolUse"))
