"""The streaming protocol's ``complete`` helper and the recording test provider."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from desktop_app.llm.protocol import (
    Done,
    LLMRequest,
    ModelInfo,
    Provider,
    StreamEndedError,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    complete,
    make_assistant_message,
    message_text,
    usage_with_cost,
    user_text_message,
)
from desktop_app.llm.testing import RecordingProvider, Reply

pytestmark = pytest.mark.asyncio

MODEL = ModelInfo(id="m", provider="p", api="a", cost_input=3.0, cost_output=15.0)


class ScriptedStream(Provider):
    """A provider yielding a fixed list of events (and noting whether its stream was closed)."""

    def __init__(self, events: list[StreamEvent]) -> None:
        self.events = events
        self.closed = False

    @property
    def model(self) -> ModelInfo:
        return MODEL

    async def stream(self, request: LLMRequest) -> AsyncIterator[StreamEvent]:
        try:
            for event in self.events:
                await asyncio.sleep(0)
                yield event
        finally:
            self.closed = True


def _request() -> LLMRequest:
    return LLMRequest(system_prompt="sys", messages=[user_text_message("hi")])


async def test_complete_returns_the_final_message_and_reports_progress() -> None:
    call = {"type": "toolCall", "id": "t1", "name": "ls", "arguments": {}}
    final = make_assistant_message(MODEL, [{"type": "text", "text": "hello"}, call], stop_reason="toolUse")
    provider = ScriptedStream(
        [
            ThinkingDelta("hm"),
            TextDelta("hel"),
            TextDelta("lo"),
            ToolCallStart(0, "t1", "ls"),
            ToolCallDelta(0, "{}"),
            ToolCallEnd(0, call),
            Done(final),
        ]
    )
    assert isinstance(provider, Provider)
    progress: list[int] = []
    message = await complete(provider, _request(), progress.append)
    assert message is final
    assert progress == [2, 5, 7, 9]
    assert provider.closed


async def test_a_stream_without_final_message_is_a_provider_bug() -> None:
    with pytest.raises(StreamEndedError):
        await complete(ScriptedStream([TextDelta("x")]), _request())


async def test_cancelling_complete_closes_the_stream_with_the_aborted_partial() -> None:
    reply = Reply("x" * 40, gate=asyncio.Event(), pause_after_chunks=1, chunk_chars=8)
    provider = RecordingProvider([reply])
    task = asyncio.create_task(complete(provider, _request()))
    await asyncio.wait_for(reply.started.wait(), 5)
    task.cancel()
    message = await task  # the protocol's promise: a cancelled stream still ends with its final message
    assert message["stopReason"] == "aborted" and message["errorMessage"] == "Request was aborted"
    assert message["content"] == [{"type": "text", "text": "x" * 8}]
    assert provider.cancelled == 1 and provider.completed == 0


async def test_assistant_message_shape_and_cost() -> None:
    usage = usage_with_cost(MODEL, 1_000_000, 2_000)
    assert usage["totalTokens"] == 1_002_000
    assert usage["cost"]["input"] == 3.0 and usage["cost"]["output"] == 0.03
    message = make_assistant_message(
        MODEL, [], usage=usage, stop_reason="error", error_message="x", timestamp=5
    )
    assert list(message) == [
        "role",
        "content",
        "api",
        "provider",
        "model",
        "usage",
        "stopReason",
        "timestamp",
        "errorMessage",
    ]
    assert (
        message_text(
            {"content": [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]}
        )
        == "a\nb"
    )


async def test_recording_provider_records_and_scripts() -> None:
    provider = RecordingProvider(["one", Reply(stop_reason="error", error_message="bad")], default=None)
    first = await complete(provider, _request())
    second = await complete(provider, _request())
    assert message_text(first) == "one" and first["stopReason"] == "stop"
    assert second["stopReason"] == "error" and second["errorMessage"] == "bad"
    assert provider.user_texts() == ["hi", "hi"]
    with pytest.raises(AssertionError, match="script exhausted"):
        await complete(provider, _request())
