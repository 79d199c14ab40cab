"""One pure function from stream events to the partial assistant message, and the stream guarantee.

Why one function: the provider (to build its final message), the agent (to save an aborted reply) and
the chat (to draw the reply while it streams) all need "the message so far". Each stream is
accumulated once per consumer by :func:`accumulate`, so they can never disagree about what a delta
means. :func:`guaranteed_stream` is how a provider keeps the protocol's promise that every stream ends
with :class:`Done` or :class:`ErrorEvent` — a cancelled one with the partial message as ``aborted``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, assert_never

from desktop_app.session.kinds import BlockKind, block_kind

from .events import (
    Done,
    ErrorEvent,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
)
from .messages import ABORTED_MESSAGE, Message, empty_usage, make_assistant_message
from .model import ModelInfo

__all__ = [
    "STREAM_ENDED_MESSAGE",
    "StreamState",
    "accumulate",
    "finalize",
    "guaranteed_stream",
    "new_partial",
    "parse_partial_json",
]

STREAM_ENDED_MESSAGE = "The stream ended without a final message"
"""``errorMessage`` when a provider's stream stopped early (pi's retry matcher treats it as transient)."""

PARTIAL_JSON = "partialJson"
"""Key of a streaming tool call's argument text in the partial message (dropped from the final one)."""

Block = dict[str, Any]


def new_partial(model: ModelInfo, timestamp: int | None = None) -> Message:
    """The partial message before the first event: no content, zero usage, ``stopReason`` ``stop``."""
    return make_assistant_message(model, [], usage=empty_usage(), timestamp=timestamp)


def parse_partial_json(text: str) -> dict[str, Any]:
    """Arguments of a tool call still streaming (pi's parseStreamingJson): best effort, ``{}`` if none."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        try:
            from jiter import from_json
        except ImportError:  # pragma: no cover - jiter ships with the anthropic SDK
            return {}
        try:
            value = from_json(text.encode(), partial_mode=True)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def _with_content(partial: Message, content: list[Block]) -> Message:
    updated = dict(partial)
    updated["content"] = content
    return updated


def _extend(partial: Message, index: int | None, kind: str, field: str, text: str, extra: Block) -> Message:
    """Add ``text`` to the block at ``index`` (or the last block of ``kind``), creating it if needed."""
    content: list[Block] = list(partial.get("content") or [])
    position: int | None
    if index is None:
        position = len(content) - 1 if content and content[-1].get("type") == kind else None
    else:
        position = index if index < len(content) and content[index].get("type") == kind else None
    if position is None:
        block: Block = {"type": kind, field: text}
        content.append(block)
    else:
        block = dict(content[position])
        block[field] = str(block.get(field) or "") + text
        content[position] = block
    for key, value in extra.items():
        if key == "thinkingSignature":
            block[key] = str(block.get(key) or "") + str(value)
        else:
            block[key] = value
    return _with_content(partial, content)


def accumulate(event: StreamEvent, partial: Message) -> Message:
    """The partial assistant message after ``event`` (pi shape). Pure: ``partial`` is not changed.

    Text and thinking extend their block; a tool call keeps its argument text in ``partialJson`` and
    its best-effort parsed ``arguments`` while it streams, and is replaced by the finished block at its
    end; usage replaces usage; a final event's message is the answer.
    """
    match event:
        case TextDelta(text=text, index=index):
            return _extend(partial, index, "text", "text", text, {})
        case ThinkingDelta(text=text, index=index, signature=signature, redacted=redacted):
            extra: Block = {}
            if signature is not None:
                extra["thinkingSignature"] = signature
            if redacted:
                extra["redacted"] = True
            return _extend(partial, index, "thinking", "thinking", text, extra)
        case ToolCallStart(index=index, id=call_id, name=name):
            content = list(partial.get("content") or [])
            block: Block = {"type": "toolCall", "id": call_id, "name": name, "arguments": {}}
            if index < len(content):
                content[index] = block
            else:
                content.append(block)
            return _with_content(partial, content)
        case ToolCallDelta(index=index, arguments_json=fragment):
            content = list(partial.get("content") or [])
            if not (0 <= index < len(content)) or block_kind(content[index]) is not BlockKind.TOOL_CALL:
                return partial  # a delta for a call that never started: nothing to attach it to
            call = dict(content[index])
            call[PARTIAL_JSON] = str(call.get(PARTIAL_JSON) or "") + fragment
            call["arguments"] = parse_partial_json(call[PARTIAL_JSON])
            content[index] = call
            return _with_content(partial, content)
        case ToolCallEnd(index=index, tool_call=tool_call):
            content = list(partial.get("content") or [])
            finished = {k: v for k, v in tool_call.items() if k != PARTIAL_JSON}
            if index < len(content):
                content[index] = finished
            else:
                content.append(finished)
            return _with_content(partial, content)
        case UsageUpdate(usage=usage):
            updated = dict(partial)
            updated["usage"] = usage
            return updated
        case Done(message=message) | ErrorEvent(message=message):
            return message
        case _:
            assert_never(event)


def finalize(
    partial: Message,
    stop_reason: str,
    error_message: str | None = None,
    extra: dict[str, Any] | None = None,
) -> Message:
    """The final message from a partial one: streaming-only keys dropped, stop reason and error set.

    ``extra`` keys (e.g. Anthropic's ``responseId``) are added after pi's own keys.
    """
    content: list[Block] = []
    for block in partial.get("content") or []:
        if block_kind(block) is BlockKind.TOOL_CALL and PARTIAL_JSON in block:
            block = {k: v for k, v in block.items() if k != PARTIAL_JSON}
        content.append(dict(block))
    message: Message = {
        "role": "assistant",
        "content": content,
        "api": partial.get("api"),
        "provider": partial.get("provider"),
        "model": partial.get("model"),
        "usage": partial.get("usage") or empty_usage(),
        "stopReason": stop_reason,
        "timestamp": partial.get("timestamp"),
    }
    if error_message is not None:
        message["errorMessage"] = error_message
    message.update(extra or {})
    return message


class StreamState:
    """A provider's view of the stream it is producing: the accumulated partial message.

    :func:`guaranteed_stream` feeds it every event; the producer reads :attr:`partial` (or calls
    :meth:`final`) to build its final message, and may set :attr:`extra` keys for that message.
    """

    def __init__(self, model: ModelInfo, timestamp: int | None = None) -> None:
        self.partial: Message = new_partial(model, timestamp)
        self.extra: dict[str, Any] = {}

    def add(self, event: StreamEvent) -> None:
        self.partial = accumulate(event, self.partial)

    def final(self, stop_reason: str, error_message: str | None = None) -> Message:
        return finalize(self.partial, stop_reason, error_message, self.extra)


async def guaranteed_stream(
    model: ModelInfo,
    produce: Callable[[StreamState], AsyncIterator[StreamEvent]],
    *,
    timestamp: int | None = None,
) -> AsyncGenerator[StreamEvent, None]:
    """Run ``produce`` and keep the protocol's promise: the last event is ``Done`` or ``ErrorEvent``.

    Every event is accumulated once into the :class:`StreamState` the producer sees. If the consuming
    task is cancelled while waiting for an event, the stream yields one final ``ErrorEvent`` with the
    partial message as ``aborted`` (pi's "Request was aborted"); a consumer that asks for another event
    after it gets the ``CancelledError`` re-raised, so a cancellation is never silently lost. A producer
    that stops without a final event ends with an ``error`` message (retryable, as pi's "ended without").
    """
    state = StreamState(model, timestamp)
    source = produce(state)
    try:
        async for event in source:
            state.add(event)
            yield event
            if isinstance(event, (Done, ErrorEvent)):
                return
    except asyncio.CancelledError:
        yield ErrorEvent(state.final("aborted", ABORTED_MESSAGE))
        raise
    finally:
        if isinstance(source, AsyncGenerator):
            await source.aclose()
    yield ErrorEvent(state.final("error", STREAM_ENDED_MESSAGE))
