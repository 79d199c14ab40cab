"""``accumulate``: the one fold from stream events to the partial message, and the stream guarantee."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator

import pytest

from desktop_app.llm.accumulate import StreamState, accumulate, finalize, guaranteed_stream, new_partial
from desktop_app.llm.protocol import (
    Done,
    ErrorEvent,
    ModelInfo,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
    empty_usage,
)

MODEL = ModelInfo(id="m", provider="p", api="a")


def fold(events: list[StreamEvent]) -> dict[str, object]:
    partial = new_partial(MODEL, timestamp=7)
    for event in events:
        before = copy.deepcopy(partial)
        partial_next = accumulate(event, partial)
        assert partial == before  # pure: the previous partial is never changed
        partial = partial_next
    return partial


def test_text_thinking_and_tool_calls_fold_into_pi_content() -> None:
    call = {"type": "toolCall", "id": "t1", "name": "ls", "arguments": {"path": "."}}
    partial = fold(
        [
            ThinkingDelta("hm", 0, signature=""),
            ThinkingDelta(" ok", 0),
            ThinkingDelta("", 0, signature="sig"),
            TextDelta("Hel", 1),
            TextDelta("lo", 1),
            ToolCallStart(2, "t1", "ls"),
            ToolCallDelta(2, '{"pa'),
            ToolCallDelta(2, 'th": "."}'),
            ToolCallEnd(2, call),
            UsageUpdate({**empty_usage(), "output": 5}),
        ]
    )
    assert partial["content"] == [
        {"type": "thinking", "thinking": "hm ok", "thinkingSignature": "sig"},
        {"type": "text", "text": "Hello"},
        call,
    ]
    assert partial["usage"]["output"] == 5 and partial["timestamp"] == 7


def test_a_streaming_tool_call_has_partial_arguments_and_keeps_its_json_text() -> None:
    partial = fold([ToolCallStart(0, "t1", "read"), ToolCallDelta(0, '{"path": "src/main.py", "li')])
    block = partial["content"][0]
    assert block["partialJson"] == '{"path": "src/main.py", "li'
    assert block["arguments"] == {"path": "src/main.py"}
    final = finalize(partial, "aborted", "Request was aborted")
    assert final["content"] == [
        {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "src/main.py"}}
    ]
    assert final["stopReason"] == "aborted" and list(final)[-1] == "errorMessage"


def test_deltas_without_index_continue_the_last_block_of_their_kind() -> None:
    partial = fold([TextDelta("a"), TextDelta("b"), ThinkingDelta("t"), TextDelta("c")])
    assert partial["content"] == [
        {"type": "text", "text": "ab"},
        {"type": "thinking", "thinking": "t"},
        {"type": "text", "text": "c"},
    ]


def test_the_final_event_is_the_answer() -> None:
    message = {"role": "assistant", "content": [], "stopReason": "stop"}
    assert accumulate(Done(message), new_partial(MODEL)) is message
    assert accumulate(ErrorEvent(message), new_partial(MODEL)) is message


async def _consume(stream: AsyncIterator[StreamEvent], until: asyncio.Event) -> list[StreamEvent]:
    seen: list[StreamEvent] = []
    async for event in stream:
        seen.append(event)
        if isinstance(event, TextDelta):
            until.set()
        if isinstance(event, (Done, ErrorEvent)):
            break
    return seen


@pytest.mark.asyncio
async def test_a_cancelled_stream_ends_with_the_partial_reply_as_aborted() -> None:
    async def produce(state: StreamState) -> AsyncIterator[StreamEvent]:
        yield TextDelta("partial ")
        await asyncio.sleep(30)
        yield Done(state.final("stop"))

    first = asyncio.Event()
    task = asyncio.create_task(_consume(guaranteed_stream(MODEL, produce), first))
    await first.wait()
    task.cancel()
    seen = await task
    last = seen[-1]
    assert isinstance(last, ErrorEvent) and last.message["stopReason"] == "aborted"
    assert last.message["content"] == [{"type": "text", "text": "partial "}]


@pytest.mark.asyncio
async def test_asking_for_more_after_the_aborted_event_reraises_the_cancellation() -> None:
    async def produce(state: StreamState) -> AsyncIterator[StreamEvent]:
        yield TextDelta("x")
        await asyncio.sleep(30)
        yield Done(state.final("stop"))

    stream = guaranteed_stream(MODEL, produce)
    received: list[StreamEvent] = []

    async def greedy() -> None:
        async for event in stream:
            received.append(event)

    task = asyncio.create_task(greedy())
    while not received:
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert isinstance(received[-1], ErrorEvent) and received[-1].message["stopReason"] == "aborted"


@pytest.mark.asyncio
async def test_a_producer_that_stops_early_still_ends_with_a_final_message() -> None:
    async def produce(state: StreamState) -> AsyncIterator[StreamEvent]:
        yield TextDelta("cut")

    events = [e async for e in guaranteed_stream(MODEL, produce)]
    last = events[-1]
    assert isinstance(last, ErrorEvent) and last.message["stopReason"] == "error"
    assert "ended without" in last.message["errorMessage"]  # pi's retry matcher treats it as transient
    assert last.message["content"] == [{"type": "text", "text": "cut"}]
