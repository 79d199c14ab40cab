"""The fake Anthropic server itself: HTTP/1.1 details, the SSE it writes, recording and scripting.

Most checks go through the real SDK's raw stream (``messages.create(stream=True)``) so they prove the
SDK accepts what the server writes; wire-level details use ``httpx2`` (the SDK's HTTP client) directly.
"""

from __future__ import annotations

import asyncio
import json
import time

import anthropic
import httpx2
import pytest

from tests.fakes import FakeAnthropicServer, Usage
from tests.fakes import anthropic_server as fa

BODY = {
    "model": "claude-haiku-4-5",
    "max_tokens": 64,
    "stream": True,
    "messages": [{"role": "user", "content": "hi"}],
}


def _client(server: FakeAnthropicServer, key: str) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(api_key=key, base_url=server.base_url, max_retries=0)


async def _raw_events(server: FakeAnthropicServer, key: str) -> list[object]:
    async with _client(server, key) as client:
        stream = await client.messages.create(
            model="claude-haiku-4-5", max_tokens=64, messages=[{"role": "user", "content": "hi"}], stream=True
        )
        return [event async for event in stream]


def _types(events: list[object]) -> list[str]:
    out = []
    for e in events:
        kind = e.type  # type: ignore[attr-defined]
        if kind == "content_block_delta":
            kind += ":" + e.delta.type  # type: ignore[attr-defined]
        elif kind == "content_block_start":
            kind += ":" + e.content_block.type  # type: ignore[attr-defined]
        out.append(kind)
    return out


@pytest.mark.asyncio
async def test_text_stream_is_the_real_event_sequence(
    fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    fake_anthropic.enqueue(
        fa.text("Hello world!", chunk=5, usage=Usage(input=11, output=3, cache_read=7, cache_write=2))
    )
    events = await _raw_events(fake_anthropic, api_key)
    assert _types(events) == [
        "message_start",
        "content_block_start:text",
        "content_block_delta:text_delta",
        "content_block_delta:text_delta",
        "content_block_delta:text_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]  # the ping is sent but the SDK drops it
    start = events[0]
    assert start.message.id.startswith("msg_")  # type: ignore[attr-defined]
    assert start.message.model == "claude-haiku-4-5"  # echoes the requested model
    assert start.message.usage.input_tokens == 11  # type: ignore[attr-defined]
    assert start.message.usage.cache_read_input_tokens == 7  # type: ignore[attr-defined]
    assert start.message.usage.cache_creation_input_tokens == 2  # type: ignore[attr-defined]
    assert "".join(e.delta.text for e in events if e.type == "content_block_delta") == "Hello world!"  # type: ignore[attr-defined]
    assert events[-2].delta.stop_reason == "end_turn"  # type: ignore[attr-defined]
    assert events[-2].usage.output_tokens == 3  # type: ignore[attr-defined]


@pytest.mark.asyncio
async def test_thinking_and_tool_use_sequences(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    fake_anthropic.enqueue(
        fa.thinking("abc", "done", signature="SIG"), fa.tool_use("bash", {"command": "ls -la"})
    )
    thinking = _types(await _raw_events(fake_anthropic, api_key))
    assert thinking[:4] == [
        "message_start",
        "content_block_start:thinking",
        "content_block_delta:thinking_delta",
        "content_block_delta:signature_delta",
    ]
    assert "content_block_start:text" in thinking
    events = await _raw_events(fake_anthropic, api_key)
    kinds = _types(events)
    assert "content_block_start:tool_use" in kinds
    partial = "".join(
        e.delta.partial_json
        for e in events
        if e.type == "content_block_delta" and e.delta.type == "input_json_delta"  # type: ignore[attr-defined]
    )
    assert json.loads(partial) == {"command": "ls -la"}
    assert kinds.count("content_block_delta:input_json_delta") > 2  # really chunked
    assert events[-2].delta.stop_reason == "tool_use"  # type: ignore[attr-defined]


@pytest.mark.asyncio
async def test_records_requests_and_reuses_connections(
    fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    fake_anthropic.enqueue(fa.text("one"), fa.text("two"), fa.text("three"))
    async with _client(fake_anthropic, api_key) as client:
        for _ in range(3):
            stream = await client.messages.create(
                model="claude-haiku-4-5",
                max_tokens=64,
                messages=[{"role": "user", "content": "hi"}],
                stream=True,
            )
            [e async for e in stream]
    requests = fake_anthropic.requests
    assert len(requests) == 3
    first = requests[0]
    assert (first.method, first.path) == ("POST", "/v1/messages")
    assert first.json["stream"] is True and first.json["model"] == "claude-haiku-4-5"
    assert first.header("anthropic-version")
    assert fake_anthropic.connections == 1  # keep-alive: one TCP connection for all three
    # The server thread marks a reply complete just after its last byte, which the client may read first.
    assert all(await asyncio.gather(*(asyncio.to_thread(r.completed.wait, 5) for r in requests)))
    assert fake_anthropic.pending == 0


@pytest.mark.asyncio
async def test_error_replies_are_shaped_like_the_api(fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.rate_limited(12), fa.overloaded(), fa.prompt_too_long())
    async with httpx2.AsyncClient(base_url=fake_anthropic.base_url) as client:
        r429 = await client.post("/v1/messages", json=BODY)
        r529 = await client.post("/v1/messages", json=BODY)
        r400 = await client.post("/v1/messages", json=BODY)
    assert r429.status_code == 429 and r429.headers["retry-after"] == "12"
    assert r429.json()["type"] == "error" and r429.json()["error"]["type"] == "rate_limit_error"
    assert r529.status_code == 529 and r529.json()["error"] == {
        "type": "overloaded_error",
        "message": "Overloaded",
    }
    assert r400.json()["error"]["message"] == "prompt is too long: 210000 tokens > 200000 maximum"
    assert r400.headers["request-id"].startswith("req_")


@pytest.mark.asyncio
async def test_sdk_raises_its_own_error_classes(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    cases = [
        (fa.unauthorized(), anthropic.AuthenticationError),
        (fa.rate_limited(), anthropic.RateLimitError),
        (fa.overloaded(), anthropic.OverloadedError),
        (fa.api_error(), anthropic.InternalServerError),
        (fa.prompt_too_long(), anthropic.BadRequestError),
    ]
    for scenario, error_class in cases:
        fake_anthropic.enqueue(scenario)
        with pytest.raises(error_class):
            await _raw_events(fake_anthropic, api_key)
    assert len(fake_anthropic.requests) == len(cases)  # max_retries=0: no hidden retries


@pytest.mark.asyncio
async def test_unscripted_and_unsupported_requests_fail_loudly(fake_anthropic: FakeAnthropicServer) -> None:
    async with httpx2.AsyncClient(base_url=fake_anthropic.base_url) as client:
        empty = await client.post("/v1/messages", json=BODY)
        not_stream = await client.post("/v1/messages", json={**BODY, "stream": False})
        wrong_path = await client.get("/v1/models")
    assert empty.status_code == 500 and "no scenario queued" in empty.json()["error"]["message"]
    assert not_stream.status_code == 400
    assert wrong_path.status_code == 404
    assert len(fake_anthropic.requests) == 3


@pytest.mark.asyncio
async def test_slow_stream_spaces_its_deltas(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    fake_anthropic.enqueue(fa.slow_text("abcdefgh", delay=0.05, chunk=2))
    arrivals: list[float] = []
    async with _client(fake_anthropic, api_key) as client:
        stream = await client.messages.create(
            model="claude-haiku-4-5", max_tokens=64, messages=[{"role": "user", "content": "hi"}], stream=True
        )
        async for event in stream:
            if event.type == "content_block_delta":
                arrivals.append(time.monotonic())
    assert len(arrivals) == 4
    assert arrivals[-1] - arrivals[0] >= 0.12  # three gaps of ~50 ms: the deltas were not buffered


@pytest.mark.asyncio
async def test_never_ending_stream_runs_until_the_client_leaves(
    fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    fake_anthropic.enqueue(fa.never_ending(interval=0.01))
    seen = 0
    async with _client(fake_anthropic, api_key) as client:
        stream = await client.messages.create(
            model="claude-haiku-4-5", max_tokens=64, messages=[{"role": "user", "content": "hi"}], stream=True
        )
        async for event in stream:
            if event.type == "content_block_delta":
                seen += 1
            if seen >= 20:
                break
        await stream.close()
    request = fake_anthropic.last_request
    assert await asyncio.to_thread(request.disconnected.wait, 3)
    assert not request.completed.is_set()


@pytest.mark.asyncio
async def test_dropped_connection_is_an_incomplete_body(fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.drop_mid_stream("partial answer"))
    received = b""
    async with httpx2.AsyncClient(base_url=fake_anthropic.base_url) as client:
        async with client.stream("POST", "/v1/messages", json=BODY) as response:
            assert response.status_code == 200
            assert response.headers["transfer-encoding"] == "chunked"
            with pytest.raises(httpx2.TransportError):
                async for chunk in response.aiter_bytes():
                    received += chunk
    assert b"text_delta" in received and b"message_stop" not in received


@pytest.mark.asyncio
async def test_malformed_sse_is_sent_verbatim(fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.malformed_sse())
    async with httpx2.AsyncClient(base_url=fake_anthropic.base_url) as client:
        response = await client.post("/v1/messages", json=BODY)
    assert b'"index":0,\n\n' in response.content  # truncated JSON in a data line


def test_server_stops_with_an_idle_keep_alive_connection(api_key: str) -> None:
    server = FakeAnthropicServer().start()
    server.enqueue(fa.text("hi"))

    async def one() -> float:
        client = _client(server, api_key)
        stream = await client.messages.create(
            model="m", max_tokens=8, messages=[{"role": "user", "content": "x"}], stream=True
        )
        [e async for e in stream]
        # The client's idle keep-alive connection is still open: it must not block stop().
        started = time.monotonic()
        await asyncio.to_thread(server.stop)
        elapsed = time.monotonic() - started
        await client.close()
        return elapsed

    assert asyncio.run(one()) < 3
    assert server.wait_for_requests(1)[0].json["model"] == "m"


def test_non_auth_text_excludes_only_auth_header_values(
    fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    fake_anthropic.enqueue(fa.text())

    async def go() -> None:
        await _raw_events(fake_anthropic, api_key)

    asyncio.run(go())
    request = fake_anthropic.last_request
    auth = request.header("authorization") or request.header("x-api-key") or ""
    assert api_key in auth
    text = request.non_auth_text()
    assert api_key not in text
    assert "anthropic-version" in text and '"messages"' in text
