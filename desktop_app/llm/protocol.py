"""The one way Arbor talks to a language model: a provider streams events ending in a pi-shaped message.

Every model call (a chat turn, a compaction summary, a branch summary) goes through
:class:`Provider.stream`, so the agent, the summarizers and the UI handle Anthropic, the offline model
and test doubles alike. The stream is an async iterator; its last event (:class:`Done` or
:class:`ErrorEvent`) carries the complete assistant message in pi's shape (``api``, ``provider``,
``model``, ``usage`` with ``cost``, ``stopReason``, ``errorMessage``, ``timestamp``), which is exactly
what goes into the session file. Cancelling the consuming task cancels the stream (plain asyncio).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from desktop_app.session.entries import message_text as content_text

__all__ = [
    "ModelInfo",
    "LLMRequest",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallStart",
    "ToolCallDelta",
    "ToolCallEnd",
    "UsageUpdate",
    "Done",
    "ErrorEvent",
    "StreamEvent",
    "Provider",
    "ProgressCallback",
    "StreamEndedError",
    "empty_usage",
    "usage_with_cost",
    "make_assistant_message",
    "user_text_message",
    "message_text",
    "complete",
]

Message = dict[str, Any]
ProgressCallback = Callable[[int], None]
"""Called with the number of characters (text, thinking, tool-call arguments) received so far."""


@dataclass(frozen=True)
class ModelInfo:
    """What the engine needs to know about a model (pi's ``Model``, trimmed).

    Costs are US dollars per million tokens; ``reasoning`` says whether the model accepts a thinking
    level (compaction passes the session's level only to such models, pi-spec §5.8).
    """

    id: str
    provider: str
    api: str
    context_window: int = 200_000
    max_tokens: int = 32_000
    reasoning: bool = False
    input: tuple[str, ...] = ("text",)
    cost_input: float = 0.0
    cost_output: float = 0.0
    cost_cache_read: float = 0.0
    cost_cache_write: float = 0.0


@dataclass
class LLMRequest:
    """One model call: a system prompt, LLM-shaped messages (user/assistant/toolResult) and options.

    ``reasoning`` is a thinking level (``"minimal"`` … ``"xhigh"``) or ``None`` for no thinking;
    ``tools`` are tool definitions (``{name, description, parameters}``) or ``None``.
    """

    system_prompt: str | None
    messages: list[Message]
    max_tokens: int | None = None
    reasoning: str | None = None
    tools: list[dict[str, Any]] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------------------------------ events


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ThinkingDelta:
    text: str


@dataclass(frozen=True)
class ToolCallStart:
    index: int
    id: str
    name: str


@dataclass(frozen=True)
class ToolCallDelta:
    index: int
    arguments_json: str
    """A fragment of the arguments' JSON text, as the model streams it."""


@dataclass(frozen=True)
class ToolCallEnd:
    index: int
    tool_call: dict[str, Any]
    """The finished block: ``{type: "toolCall", id, name, arguments}``."""


@dataclass(frozen=True)
class UsageUpdate:
    usage: dict[str, Any]


@dataclass(frozen=True)
class Done:
    """The stream finished; ``message.stopReason`` is ``stop``, ``length`` or ``toolUse``."""

    message: Message


@dataclass(frozen=True)
class ErrorEvent:
    """The stream failed or was aborted; ``message.stopReason`` is ``error`` or ``aborted``."""

    message: Message


StreamEvent = (
    TextDelta | ThinkingDelta | ToolCallStart | ToolCallDelta | ToolCallEnd | UsageUpdate | Done | ErrorEvent
)


@runtime_checkable
class Provider(Protocol):
    """A model behind a streaming interface.

    ``stream`` is an async generator (``async def stream(self, request): ... yield event``), so
    calling it returns an ``AsyncIterator``; the last event is :class:`Done` or :class:`ErrorEvent`.
    """

    @property
    def model(self) -> ModelInfo: ...

    def stream(self, request: LLMRequest) -> AsyncIterator[StreamEvent]: ...


class StreamEndedError(RuntimeError):
    """A provider's stream ended without a final message (a provider bug, not a model error)."""


# ------------------------------------------------------------------------------------------ helpers


ABORTED_MESSAGE = "Request was aborted"
"""``errorMessage`` of a reply the user stopped (pi's wording)."""


def empty_usage() -> dict[str, Any]:
    """pi's usage object with every count and cost at zero."""
    return {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def usage_with_cost(
    model: ModelInfo, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0
) -> dict[str, Any]:
    """A usage object with ``totalTokens`` and cost filled in from the model's prices."""
    cost = {
        "input": model.cost_input * input_tokens / 1e6,
        "output": model.cost_output * output_tokens / 1e6,
        "cacheRead": model.cost_cache_read * cache_read / 1e6,
        "cacheWrite": model.cost_cache_write * cache_write / 1e6,
    }
    cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
    return {
        "input": input_tokens,
        "output": output_tokens,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "totalTokens": input_tokens + output_tokens + cache_read + cache_write,
        "cost": cost,
    }


def make_assistant_message(
    model: ModelInfo,
    content: list[dict[str, Any]],
    *,
    usage: dict[str, Any] | None = None,
    stop_reason: str = "stop",
    error_message: str | None = None,
    timestamp: int | None = None,
) -> Message:
    """An assistant message in pi's key order (``errorMessage`` only when there is one)."""
    message: Message = {
        "role": "assistant",
        "content": content,
        "api": model.api,
        "provider": model.provider,
        "model": model.id,
        "usage": usage if usage is not None else empty_usage(),
        "stopReason": stop_reason,
        "timestamp": timestamp if timestamp is not None else int(time.time() * 1000),
    }
    if error_message is not None:
        message["errorMessage"] = error_message
    return message


def user_text_message(text: str, timestamp: int | None = None) -> Message:
    """A user message with one text block (what summarizers send)."""
    return {
        "role": "user",
        "content": [{"type": "text", "text": text}],
        "timestamp": timestamp if timestamp is not None else int(time.time() * 1000),
    }


def message_text(message: Message, joiner: str = "\n") -> str:
    """The text blocks of an assistant message joined with ``joiner`` (pi joins summaries with ``\\n``)."""
    return content_text(message.get("content"), joiner)


async def complete(
    provider: Provider, request: LLMRequest, on_progress: ProgressCallback | None = None
) -> Message:
    """Run one request to the end and return the final assistant message.

    Errors and aborts reported by the provider come back as messages (``stopReason`` ``error`` /
    ``aborted``), as pi's ``completeSimple`` does; cancelling the awaiting task raises
    ``CancelledError`` and closes the provider's stream.
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
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
    raise StreamEndedError("the provider's stream ended without a final message")
