"""The one way Arbor talks to a language model: a provider streams events ending in a pi-shaped message.

Every model call (a chat turn, a compaction summary, a branch summary) goes through
:class:`Provider.stream`, so the agent, the summarizers and the UI handle Anthropic, the offline model
and test doubles alike. The stream is an async generator; its last event (:class:`Done` or
:class:`ErrorEvent`) carries the complete assistant message in pi's shape (``api``, ``provider``,
``model``, ``usage`` with ``cost``, ``stopReason``, ``errorMessage``, ``timestamp``), which is exactly
what goes into the session file. That last event is guaranteed for every stream, a cancelled one
included (it then carries the partial reply as ``aborted``); providers keep the promise with
:func:`~desktop_app.llm.accumulate.guaranteed_stream`. Consumers that want "the message so far" fold
the events with :func:`~desktop_app.llm.accumulate.accumulate`.

This module re-exports the pieces (events, messages, the accumulator) so callers import one place.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from typing import Protocol, runtime_checkable

from .accumulate import (
    STREAM_ENDED_MESSAGE,
    StreamState,
    accumulate,
    finalize,
    guaranteed_stream,
    new_partial,
)
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
from .messages import (
    ABORTED_MESSAGE,
    Message,
    empty_usage,
    make_assistant_message,
    message_text,
    usage_with_cost,
    user_text_message,
)
from .model import LLMRequest, ModelInfo, Purpose

__all__ = [
    "ABORTED_MESSAGE",
    "STREAM_ENDED_MESSAGE",
    "Message",
    "ModelInfo",
    "LLMRequest",
    "Purpose",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallStart",
    "ToolCallDelta",
    "ToolCallEnd",
    "UsageUpdate",
    "Done",
    "ErrorEvent",
    "StreamEvent",
    "StreamState",
    "Provider",
    "ProgressCallback",
    "StreamEndedError",
    "cancellation_requested",
    "accumulate",
    "finalize",
    "guaranteed_stream",
    "new_partial",
    "empty_usage",
    "usage_with_cost",
    "make_assistant_message",
    "user_text_message",
    "message_text",
    "complete",
]

ProgressCallback = Callable[[int], None]
"""Called with the number of characters (text, thinking, tool-call arguments) received so far."""


@runtime_checkable
class Provider(Protocol):
    """A model behind a streaming interface.

    ``stream`` is an async generator (``async def stream(self, request): ... yield event``); the last
    event is :class:`Done` or :class:`ErrorEvent`. The other members are optional for a provider: a
    class that subclasses ``Provider`` inherits these defaults, so callers never probe with ``getattr``.
    """

    @property
    def model(self) -> ModelInfo: ...

    def stream(self, request: LLMRequest) -> AsyncGenerator[StreamEvent, None]: ...

    @property
    def is_offline(self) -> bool:
        """True for a model that never leaves the process (the window says so)."""
        return False

    async def warm_up(self) -> None:
        """Pay one-time costs (SDK import, client, connection pool) before the first request."""
        return None

    async def aclose(self) -> None:
        """Release connections; called on the loop that used the provider."""
        return None


def cancellation_requested() -> bool:
    """The running task has been asked to stop (``Task.cancel``), even if the provider caught it.

    A provider turns a cancellation into a final ``aborted`` message; callers that must not go on
    after a cancellation (a compaction that would write its summary) check this and re-raise.
    """
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


class StreamEndedError(RuntimeError):
    """A provider's stream ended without a final message (a provider bug, not a model error)."""


async def complete(
    provider: Provider, request: LLMRequest, on_progress: ProgressCallback | None = None
) -> Message:
    """Run one request to the end and return the final assistant message.

    Errors and aborts reported by the provider come back as messages (``stopReason`` ``error`` /
    ``aborted``), as pi's ``completeSimple`` does: cancelling the awaiting task makes the provider end
    its stream with the aborted message, which is returned. The stream is always closed.
    """
    received = 0
    stream = provider.stream(request)
    try:
        async for event in stream:
            if isinstance(event, (TextDelta, ThinkingDelta)):
                received += len(event.text)
            elif isinstance(event, ToolCallDelta):
                received += len(event.arguments_json)
            elif isinstance(event, (Done, ErrorEvent)):
                return event.message
            else:
                continue
            if on_progress is not None:
                on_progress(received)
    finally:
        await stream.aclose()
    raise StreamEndedError("the provider's stream ended without a final message")
