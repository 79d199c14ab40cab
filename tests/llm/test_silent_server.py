"""A silent server (issue 13 item 6): headers that never come and a stream that stalls end the attempt
as a retryable timeout after the idle timeout, instead of holding the turn for ten minutes."""

from __future__ import annotations

import re

import pytest

from desktop_app.llm.anthropic import AnthropicProvider
from desktop_app.llm.protocol import ErrorEvent, LLMRequest, StreamEvent, TextDelta, user_text_message
from tests.fakes import FakeAnthropicServer
from tests.fakes import anthropic_server as fa

from .test_anthropic_provider import RETRYABLE, track

pytestmark = pytest.mark.asyncio


def _request() -> LLMRequest:
    return LLMRequest(system_prompt="sys", messages=[user_text_message("Hello")])


async def _events(provider: AnthropicProvider) -> list[StreamEvent]:
    try:
        return [event async for event in provider.stream(_request())]
    finally:
        await provider.aclose()


async def test_headers_that_never_come_time_out(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    fake_anthropic.enqueue(fa.stall_before_headers())
    p = track(AnthropicProvider(api_key, base_url=fake_anthropic.base_url, idle_timeout=0.3))
    events = await _events(p)
    assert len(events) == 1 and isinstance(events[0], ErrorEvent)
    message = events[0].message
    assert message["stopReason"] == "error"
    assert re.search("timed out", message["errorMessage"]) and RETRYABLE.search(message["errorMessage"])
    assert fake_anthropic.requests[0].disconnected.wait(3)  # the client gave up and hung up


async def test_a_stream_that_stalls_times_out_and_keeps_what_came(
    fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    fake_anthropic.enqueue(fa.stall_mid_stream("The answer begins"))
    p = track(AnthropicProvider(api_key, base_url=fake_anthropic.base_url, idle_timeout=0.3))
    events = await _events(p)
    final = events[-1]
    assert isinstance(final, ErrorEvent) and final.message["stopReason"] == "error"
    assert RETRYABLE.search(final.message["errorMessage"])
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "The answer begins"
    assert final.message["content"] == [{"type": "text", "text": "The answer begins"}]


async def test_a_connection_that_cannot_be_opened_fails_fast(api_key: str) -> None:
    # 192.0.2.1 (TEST-NET-1) is never routed: the connect timeout, not the request timeout, ends it.
    p = track(AnthropicProvider(api_key, base_url="http://192.0.2.1:9", connect_timeout=0.2, timeout=600))
    events = await _events(p)
    message = events[-1].message
    assert message["stopReason"] == "error" and RETRYABLE.search(message["errorMessage"])
