"""A fake Anthropic Messages API server for tests.

Why it exists: the provider must be tested through the *real* ``anthropic`` SDK (its SSE decoder, its
error classes, its headers), never against the internet. So this module speaks enough HTTP/1.1 and the
Messages API streaming protocol for the SDK to accept it:

* ``POST /v1/messages`` with ``stream: true`` answers ``text/event-stream`` with chunked transfer
  encoding (so a connection dropped mid-body is *detectable* as an incomplete chunked read, exactly as
  with the real API behind a proxy), keep-alive between requests.
* Every request is recorded (method, path, headers, raw body, parsed JSON) so tests assert on what the SDK
  actually sent.
* Replies are scripted per test with a FIFO queue of :class:`Scenario` objects (``text``, ``thinking``,
  ``tool_use``, ``slow_text``, ``never_ending``, ``http_error`` and its shortcuts, ``drop_mid_stream``,
  ``malformed_sse``, ``sse_error``, and the silent ones: ``stall_before_headers``, ``stall_mid_stream``;
  ``gated_text`` holds a reply midway until the test opens its gate). An empty queue answers 500 with a message saying so, which makes a
  test that forgot to script a reply fail loudly instead of hanging.

The server runs its own asyncio loop in a daemon thread. That keeps it independent of the test's event
loop (pytest-asyncio creates one per test; the app may run under qasync) and lets a slow or endless
stream keep going while the client-side loop is busy or cancelled, as a real server would.

It uses only the standard library (aiohttp is not a dependency of the project).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Drop",
    "ErrorReply",
    "FakeAnthropicServer",
    "Forever",
    "SilentReply",
    "Stall",
    "Wait",
    "Raw",
    "RecordedRequest",
    "Scenario",
    "Sleep",
    "Sse",
    "StreamReply",
    "api_error",
    "drop_mid_stream",
    "gated_text",
    "stall_before_headers",
    "stall_mid_stream",
    "http_error",
    "malformed_sse",
    "never_ending",
    "overloaded",
    "prompt_too_long",
    "rate_limited",
    "slow_text",
    "sse_error",
    "text",
    "thinking",
    "tool_use",
    "tool_uses",
    "unauthorized",
    "Usage",
]

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    413: "Request Entity Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    529: "Overloaded",
}


# ---------------------------------------------------------------------------------------------------------
# Steps of a streamed reply
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sse:
    """One well-formed SSE event: ``event: <name>`` + ``data: <json>``."""

    event: str
    data: dict[str, Any]

    def encode(self) -> bytes:
        return f"event: {self.event}\ndata: {json.dumps(self.data, separators=(',', ':'))}\n\n".encode()


@dataclass(frozen=True)
class Raw:
    """Bytes written as one chunk, unchecked: for malformed SSE."""

    data: bytes


@dataclass(frozen=True)
class Sleep:
    """Pause between two steps (slow streams)."""

    seconds: float


@dataclass(frozen=True)
class Drop:
    """Close the TCP connection without the terminating chunk: the client sees a truncated body."""


@dataclass(frozen=True)
class Forever:
    """Repeat ``steps`` every ``interval`` seconds until the client goes away (a stream that never ends)."""

    steps: tuple[Sse | Raw, ...]
    interval: float = 0.02


@dataclass(frozen=True)
class Wait:
    """Hold the reply until ``gate`` is set (by the test, from any thread), then go on.

    Lets a test do something at an exact point of a stream (another writer appends, the file is
    truncated) without racing the server.
    """

    gate: threading.Event
    timeout: float = 30.0


@dataclass(frozen=True)
class Stall:
    """Send nothing more, ever, and keep the connection open until the client gives up (a stalled stream)."""


Step = Sse | Raw | Sleep | Drop | Forever | Wait | Stall


@dataclass
class RecordedRequest:
    """What the client sent, as received on the wire."""

    method: str
    path: str
    headers: dict[str, str]  # lower-cased names; the last value wins for repeated names
    raw_body: bytes
    json: Any  # parsed body, or None when it was not JSON
    received_at: float
    disconnected: threading.Event = field(default_factory=threading.Event)
    """Set when the server noticed the client closed the connection during the reply."""
    completed: threading.Event = field(default_factory=threading.Event)
    """Set when the server finished writing its whole reply."""

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def non_auth_text(self) -> str:
        """Everything the client sent except the ``x-api-key`` / ``authorization`` header values.

        Tests grep this for the API key: it must only ever travel in the auth header.
        """
        parts = [self.method, self.path]
        for k, v in self.headers.items():
            if k in ("x-api-key", "authorization"):
                parts.append(k)
            else:
                parts.append(f"{k}: {v}")
        parts.append(self.raw_body.decode("utf-8", "replace"))
        return "\n".join(parts)


# ---------------------------------------------------------------------------------------------------------
# Scenarios
# ---------------------------------------------------------------------------------------------------------


class Scenario:
    """A scripted reply to one request."""

    def render(self, request: RecordedRequest, message_id: str) -> StreamReply | ErrorReply:
        raise NotImplementedError


@dataclass
class StreamReply(Scenario):
    """A 200 ``text/event-stream`` reply built from steps.

    ``steps`` may be a callable taking the recorded request and the message id, so scenarios can echo
    the requested model like the real API does.
    """

    steps: Sequence[Step] | Callable[[RecordedRequest, str], Sequence[Step]]
    headers: dict[str, str] = field(default_factory=dict)

    def render(self, request: RecordedRequest, message_id: str) -> StreamReply:
        return self

    def steps_for(self, request: RecordedRequest, message_id: str) -> Sequence[Step]:
        if callable(self.steps):
            return self.steps(request, message_id)
        return self.steps


@dataclass
class SilentReply(Scenario):
    """Read the request, then never answer (no status line, no headers) until the client gives up."""

    def render(self, request: RecordedRequest, message_id: str) -> SilentReply:
        return self


@dataclass
class ErrorReply(Scenario):
    """A non-2xx JSON reply shaped as the real API's: ``{"type":"error","error":{type,message}}``."""

    status: int
    error_type: str
    message: str
    headers: dict[str, str] = field(default_factory=dict)

    def render(self, request: RecordedRequest, message_id: str) -> ErrorReply:
        return self

    def body(self, request_id: str) -> bytes:
        return json.dumps(
            {
                "type": "error",
                "error": {"type": self.error_type, "message": self.message},
                "request_id": request_id,
            }
        ).encode()


# --- building blocks for message streams -----------------------------------------------------------------


def _model_of(request: RecordedRequest) -> str:
    body = request.json if isinstance(request.json, dict) else {}
    return str(body.get("model", "claude-sonnet-4-5"))


def _message_start(
    request: RecordedRequest,
    message_id: str,
    *,
    input_tokens: int,
    cache_read: int,
    cache_write: int,
    model: str | None = None,
) -> Sse:
    return Sse(
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model or _model_of(request),
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": input_tokens,
                    "cache_creation_input_tokens": cache_write,
                    "cache_read_input_tokens": cache_read,
                    "output_tokens": 1,
                },
            },
        },
    )


def _split(s: str, chunk: int) -> list[str]:
    if not s:
        return [""]
    return [s[i : i + chunk] for i in range(0, len(s), chunk)]


def _text_block(index: int, content: str, chunk: int, delay: float) -> list[Step]:
    steps: list[Step] = [
        Sse(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
        )
    ]
    for piece in _split(content, chunk):
        if delay:
            steps.append(Sleep(delay))
        steps.append(
            Sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": piece},
                },
            )
        )
    steps.append(Sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    return steps


def _thinking_block(index: int, content: str, signature: str, chunk: int) -> list[Step]:
    steps: list[Step] = [
        Sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            },
        )
    ]
    for piece in _split(content, chunk):
        steps.append(
            Sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "thinking_delta", "thinking": piece},
                },
            )
        )
    steps.append(
        Sse(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "signature_delta", "signature": signature},
            },
        )
    )
    steps.append(Sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    return steps


def _tool_block(index: int, tool_id: str, name: str, arguments: dict[str, Any], chunk: int) -> list[Step]:
    steps: list[Step] = [
        Sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "tool_use", "id": tool_id, "name": name, "input": {}},
            },
        )
    ]
    payload = json.dumps(arguments, separators=(",", ":"))
    # The real API starts with an empty partial_json delta; keep that quirk.
    for piece in ["", *_split(payload, chunk)]:
        steps.append(
            Sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                },
            )
        )
    steps.append(Sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    return steps


def _message_end(stop_reason: str, output_tokens: int) -> list[Step]:
    return [
        Sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
        ),
        Sse("message_stop", {"type": "message_stop"}),
    ]


_PING = Sse("ping", {"type": "ping"})


@dataclass(frozen=True)
class Usage:
    """Token counts a scripted reply reports (input and cache at message_start, output at message_delta)."""

    input: int = 25
    output: int = 12
    cache_read: int = 0
    cache_write: int = 0


def _message(
    blocks: Callable[[], list[list[Step]]],
    *,
    stop_reason: str,
    usage: Usage,
    model: str | None = None,
) -> StreamReply:
    def steps(request: RecordedRequest, message_id: str) -> list[Step]:
        out: list[Step] = [
            _message_start(
                request,
                message_id,
                input_tokens=usage.input,
                cache_read=usage.cache_read,
                cache_write=usage.cache_write,
                model=model,
            ),
            _PING,
        ]
        for block in blocks():
            out.extend(block)
        out.extend(_message_end(stop_reason, usage.output))
        return out

    return StreamReply(steps)


# --- public scenario constructors --------------------------------------------------------------------


def text(
    content: str = "Hello from the fake server.",
    *,
    chunk: int = 8,
    stop_reason: str = "end_turn",
    usage: Usage | None = None,
    model: str | None = None,
    delay: float = 0.0,
) -> StreamReply:
    """A plain text answer streamed in ``chunk``-character deltas."""
    return _message(
        lambda: [_text_block(0, content, chunk, delay)],
        stop_reason=stop_reason,
        usage=usage or Usage(),
        model=model,
    )


def slow_text(content: str = "slow and steady wins", *, delay: float = 0.05, chunk: int = 4) -> StreamReply:
    """Text with ``delay`` seconds before each delta."""
    return text(content, chunk=chunk, delay=delay)


def thinking(
    thought: str = "Let me think about this.",
    answer: str = "The answer is 42.",
    *,
    signature: str = "sig_EqQBCkYIBRgCKkA_fake_signature==",
    usage: Usage | None = None,
    chunk: int = 10,
) -> StreamReply:
    """A thinking block (thinking_delta then signature_delta) followed by a text block."""
    return _message(
        lambda: [_thinking_block(0, thought, signature, chunk), _text_block(1, answer, chunk, 0.0)],
        stop_reason="end_turn",
        usage=usage or Usage(),
    )


def tool_use(
    name: str = "read",
    arguments: dict[str, Any] | None = None,
    *,
    tool_id: str = "toolu_01FakeToolCall000000001",
    preamble: str | None = "Let me look.",
    usage: Usage | None = None,
    chunk: int = 7,
) -> StreamReply:
    """Optional text, then one tool_use block whose input arrives as input_json_delta chunks."""
    args = arguments if arguments is not None else {"path": "README.md"}
    return tool_uses((tool_id, name, args), preamble=preamble, usage=usage, chunk=chunk)


def tool_uses(
    *calls: tuple[str, str, dict[str, Any]],
    preamble: str | None = None,
    usage: Usage | None = None,
    chunk: int = 7,
) -> StreamReply:
    """Several tool_use blocks in one message (``(id, name, input)`` each), as parallel calls arrive."""

    def blocks() -> list[list[Step]]:
        out: list[list[Step]] = []
        if preamble is not None:
            out.append(_text_block(0, preamble, chunk, 0.0))
        for tool_id, name, arguments in calls:
            out.append(_tool_block(len(out), tool_id, name, arguments, chunk))
        return out

    return _message(blocks, stop_reason="tool_use", usage=usage or Usage())


def never_ending(*, interval: float = 0.02, first_text: str = "Thinking out loud") -> StreamReply:
    """Starts a text block, then sends a delta + ping every ``interval`` seconds until the client leaves."""

    def steps(request: RecordedRequest, message_id: str) -> list[Step]:
        return [
            _message_start(request, message_id, input_tokens=25, cache_read=0, cache_write=0),
            *_text_block(0, first_text, 64, 0.0)[:-1],  # no content_block_stop
            Forever(
                (
                    Sse(
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": 0,
                            "delta": {"type": "text_delta", "text": "."},
                        },
                    ),
                    _PING,
                ),
                interval,
            ),
        ]

    return StreamReply(steps)


def gated_text(content: str, gate: threading.Event, *, chunk: int = 4) -> StreamReply:
    """A text reply whose first chunk is sent at once and the rest only after ``gate`` is set."""

    def steps(request: RecordedRequest, message_id: str) -> list[Step]:
        block = _text_block(0, content, chunk, 0.0)
        head = block[:2]  # content_block_start and the first delta
        return [
            _message_start(request, message_id, input_tokens=25, cache_read=0, cache_write=0),
            *head,
            Wait(gate),
            *block[2:],
            *_message_end("end_turn", max(1, len(content) // 4)),
        ]

    return StreamReply(steps)


def stall_before_headers() -> SilentReply:
    """The server accepts the request and then says nothing at all (headers never come)."""
    return SilentReply()


def stall_mid_stream(partial: str = "The answer begins") -> StreamReply:
    """Part of a text block, then silence with the connection held open (a stream that stalls)."""

    def steps(request: RecordedRequest, message_id: str) -> list[Step]:
        return [
            _message_start(request, message_id, input_tokens=25, cache_read=0, cache_write=0),
            *_text_block(0, partial, 8, 0.0)[:-1],
            Stall(),
        ]

    return StreamReply(steps)


def drop_mid_stream(partial: str = "This answer will be cut") -> StreamReply:
    """Sends part of a text block, then closes the connection without finishing the chunked body."""

    def steps(request: RecordedRequest, message_id: str) -> list[Step]:
        return [
            _message_start(request, message_id, input_tokens=25, cache_read=0, cache_write=0),
            *_text_block(0, partial, 8, 0.0)[:-1],
            Drop(),
        ]

    return StreamReply(steps)


def malformed_sse() -> StreamReply:
    """A valid message_start, then an event whose data is not JSON."""

    def steps(request: RecordedRequest, message_id: str) -> list[Step]:
        return [
            _message_start(request, message_id, input_tokens=25, cache_read=0, cache_write=0),
            Raw(b'event: content_block_start\ndata: {"type":"content_block_start","index":0,\n\n'),
            Sse("message_stop", {"type": "message_stop"}),
        ]

    return StreamReply(steps)


def sse_error(
    error_type: str = "overloaded_error", message: str = "Overloaded", partial: str = "Par"
) -> StreamReply:
    """A 200 stream that fails midway with an ``event: error`` (how the API reports overload mid-stream)."""

    def steps(request: RecordedRequest, message_id: str) -> list[Step]:
        return [
            _message_start(request, message_id, input_tokens=25, cache_read=0, cache_write=0),
            *_text_block(0, partial, 8, 0.0)[:-1],
            Sse("error", {"type": "error", "error": {"type": error_type, "message": message}}),
        ]

    return StreamReply(steps)


def http_error(
    status: int, error_type: str, message: str, headers: dict[str, str] | None = None
) -> ErrorReply:
    return ErrorReply(status, error_type, message, dict(headers or {}))


def unauthorized() -> ErrorReply:
    return http_error(401, "authentication_error", "invalid x-api-key")


def rate_limited(retry_after: float | int = 7) -> ErrorReply:
    return http_error(
        429,
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit",
        {"retry-after": str(retry_after)},
    )


def overloaded(retry_after: float | int | None = None) -> ErrorReply:
    headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
    return http_error(529, "overloaded_error", "Overloaded", headers)


def api_error() -> ErrorReply:
    return http_error(500, "api_error", "Internal server error")


def prompt_too_long(tokens: int = 210000, maximum: int = 200000) -> ErrorReply:
    return http_error(
        400, "invalid_request_error", f"prompt is too long: {tokens} tokens > {maximum} maximum"
    )


# ---------------------------------------------------------------------------------------------------------
# The server
# ---------------------------------------------------------------------------------------------------------


class _ClientGone(Exception):
    pass


class FakeAnthropicServer:
    """The server. ``start()`` binds 127.0.0.1 on a free port; ``base_url`` is what the SDK is given."""

    def __init__(self) -> None:
        self._scenarios: deque[Scenario] = deque()
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._request_cond = threading.Condition(self._lock)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.base_events.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._ids = itertools.count(1)
        self.port: int = 0
        self.connections: int = 0
        """How many TCP connections were accepted (keep-alive reuse keeps this below the request count)."""

    # --- lifecycle -----------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeAnthropicServer:
        ready = threading.Event()
        errors: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                self._server = loop.run_until_complete(
                    asyncio.start_server(self._on_connection, "127.0.0.1", 0)
                )
                self.port = self._server.sockets[0].getsockname()[1]
            except BaseException as exc:  # pragma: no cover - bind failure
                errors.append(exc)
                ready.set()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()

        self._thread = threading.Thread(target=run, name="fake-anthropic", daemon=True)
        self._thread.start()
        ready.wait(10)
        if errors:
            raise errors[0]
        return self

    def stop(self) -> None:
        loop = self._loop
        if loop is None or self._thread is None:
            return

        async def shutdown() -> None:
            if self._server is not None:
                self._server.close()
            for task in list(self._handlers):
                task.cancel()
            if self._handlers:
                await asyncio.gather(*self._handlers, return_exceptions=True)
            if self._server is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self._server.wait_closed(), 2)

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(shutdown(), loop).result(5)
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(5)
        self._thread = None
        self._loop = None

    def __enter__(self) -> FakeAnthropicServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- scripting and inspection ----------------------------------------------------------------------

    def enqueue(self, *scenarios: Scenario) -> FakeAnthropicServer:
        """Queue replies; each request takes the next one."""
        with self._lock:
            self._scenarios.extend(scenarios)
        return self

    script = enqueue

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._scenarios)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def last_request(self) -> RecordedRequest:
        reqs = self.requests
        assert reqs, "the fake server received no request"
        return reqs[-1]

    def message_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.split("?")[0] == "/v1/messages"]

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[RecordedRequest]:
        deadline = time.monotonic() + timeout
        with self._request_cond:
            while len(self._requests) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"expected {count} requests, got {len(self._requests)}")
                self._request_cond.wait(remaining)
            return list(self._requests)

    def all_non_auth_text(self) -> str:
        return "\n".join(r.non_auth_text() for r in self.requests)

    # --- HTTP ----------------------------------------------------------------------------------------------

    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        self.connections += 1
        try:
            while True:
                request = await self._read_request(reader)
                if request is None:
                    break
                keep_alive = await self._respond(request, reader, writer)
                if not keep_alive:
                    break
        except (_ClientGone, ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            self._handlers.discard(task)
            with contextlib.suppress(Exception):
                writer.close()

    async def _read_request(self, reader: asyncio.StreamReader) -> RecordedRequest | None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return None  # client closed an idle keep-alive connection
        except asyncio.LimitOverrunError:
            return None
        lines = head.decode("latin-1").split("\r\n")
        method, target, _version = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if not line:
                continue
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = await self._read_chunked(reader)
        else:
            length = int(headers.get("content-length", "0") or 0)
            body = await reader.readexactly(length) if length else b""
        try:
            parsed: Any = json.loads(body) if body else None
        except ValueError:
            parsed = None
        request = RecordedRequest(method, target, headers, body, parsed, time.time())
        with self._request_cond:
            self._requests.append(request)
            self._request_cond.notify_all()
        return request

    @staticmethod
    async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
        out = bytearray()
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";")[0].strip(), 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return bytes(out)
            out += await reader.readexactly(size)
            await reader.readexactly(2)

    def _next_scenario(self) -> Scenario | None:
        with self._lock:
            return self._scenarios.popleft() if self._scenarios else None

    async def _respond(
        self, request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        n = next(self._ids)
        request_id = f"req_fake{n:06d}"
        message_id = f"msg_fake{n:06d}"
        if request.method != "POST" or request.path.split("?")[0] != "/v1/messages":
            reply: StreamReply | ErrorReply = ErrorReply(404, "not_found_error", f"Not found: {request.path}")
        elif not (isinstance(request.json, dict) and request.json.get("stream") is True):
            reply = ErrorReply(400, "invalid_request_error", "fake server: only stream=true is implemented")
        else:
            scenario = self._next_scenario()
            if scenario is None:
                reply = ErrorReply(500, "api_error", "fake server: no scenario queued for this request")
            else:
                reply = scenario.render(request, message_id)

        if isinstance(reply, SilentReply):
            await self._until_client_leaves(reader, request)
            return False
        if isinstance(reply, ErrorReply):
            body = reply.body(request_id)
            head = self._head(
                reply.status,
                {
                    "content-type": "application/json",
                    "content-length": str(len(body)),
                    "request-id": request_id,
                    **reply.headers,
                },
            )
            writer.write(head + body)
            await writer.drain()
            request.completed.set()
            return True

        head = self._head(
            200,
            {
                "content-type": "text/event-stream; charset=utf-8",
                "cache-control": "no-cache",
                "transfer-encoding": "chunked",
                "request-id": request_id,
                **reply.headers,
            },
        )
        writer.write(head)
        await writer.drain()
        for step in reply.steps_for(request, message_id):
            if isinstance(step, Drop):
                writer.transport.abort()
                request.disconnected.set()
                return False
            if isinstance(step, Sleep):
                await asyncio.sleep(step.seconds)
                continue
            if isinstance(step, Forever):
                await self._forever(step, reader, writer, request)
                return False
            if isinstance(step, Wait):
                deadline = time.monotonic() + step.timeout
                while not step.gate.is_set() and time.monotonic() < deadline:
                    await asyncio.sleep(0.005)
                continue
            if isinstance(step, Stall):
                await self._until_client_leaves(reader, request)
                return False
            await self._chunk(writer, request, step.encode() if isinstance(step, Sse) else step.data)
        await self._write(writer, request, b"0\r\n\r\n")
        request.completed.set()
        return True

    @staticmethod
    async def _until_client_leaves(reader: asyncio.StreamReader, request: RecordedRequest) -> None:
        """Say nothing until the client closes the connection (then the connection is dropped)."""
        while True:
            try:
                data = await reader.read(65536)
            except ConnectionError:
                data = b""
            if not data:
                request.disconnected.set()
                raise _ClientGone

    async def _forever(
        self,
        step: Forever,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        request: RecordedRequest,
    ) -> None:
        for item in _cycle(step.steps):
            if reader.at_eof():  # the client closed its side: it went away
                request.disconnected.set()
                raise _ClientGone
            await self._chunk(writer, request, item.encode() if isinstance(item, Sse) else item.data)
            await asyncio.sleep(step.interval)

    async def _chunk(self, writer: asyncio.StreamWriter, request: RecordedRequest, payload: bytes) -> None:
        await self._write(writer, request, f"{len(payload):x}\r\n".encode() + payload + b"\r\n")

    @staticmethod
    async def _write(writer: asyncio.StreamWriter, request: RecordedRequest, data: bytes) -> None:
        if writer.is_closing():
            request.disconnected.set()
            raise _ClientGone
        try:
            writer.write(data)
            await writer.drain()
        except (ConnectionError, RuntimeError) as exc:
            request.disconnected.set()
            raise _ClientGone from exc

    @staticmethod
    def _head(status: int, headers: dict[str, str]) -> bytes:
        lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        lines.append("date: " + time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime()))
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _cycle(items: Iterable[Sse | Raw]) -> Iterator[Sse | Raw]:
    return itertools.cycle(tuple(items))
