"""A scripted provider that records every request: the test double for anything that calls a model.

Tests assert on what Arbor *sends* (system prompt, exact user text, ``max_tokens``, reasoning) and
script what the model *answers* (text, an error, an abort, or a stream that waits on an event so a
test can cancel it midway). Shipped in the package so the agent and UI test suites can use it too.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field

from desktop_app.session.kinds import BlockKind, block_kind

from .accumulate import StreamState, guaranteed_stream
from .protocol import (
    Done,
    ErrorEvent,
    LLMRequest,
    ModelInfo,
    Provider,
    StreamEvent,
    TextDelta,
    UsageUpdate,
    usage_with_cost,
)

__all__ = ["TEST_MODEL", "Reply", "RecordingProvider"]

TEST_MODEL = ModelInfo(
    id="test-model", provider="test", api="test-api", context_window=200_000, reasoning=True
)


@dataclass
class Reply:
    """One scripted answer.

    ``text`` is streamed in ``chunk_chars`` pieces; ``stop_reason`` ``"error"``/``"aborted"`` ends with an
    :class:`ErrorEvent` carrying ``error_message``. If ``gate`` is set, the stream pauses after
    ``pause_after_chunks`` deltas until the gate is set (``started`` is set when it pauses), which lets
    a test cancel a call while it is streaming.
    """

    text: str = ""
    stop_reason: str = "stop"
    error_message: str | None = None
    chunk_chars: int = 8
    gate: asyncio.Event | None = None
    pause_after_chunks: int = 1
    started: asyncio.Event = field(default_factory=asyncio.Event)


class RecordingProvider(Provider):
    """Answers from a script (``Reply`` or plain strings, in order) and keeps a deep copy of each request.

    When the script runs out, ``default`` answers (or an ``AssertionError`` is raised if ``default`` is
    ``None``). ``requests`` lists every request received, in the order the calls started.
    """

    def __init__(
        self,
        script: list[Reply | str] | None = None,
        *,
        model: ModelInfo = TEST_MODEL,
        default: str | None = "ok",
    ) -> None:
        self._model = model
        self.script: list[Reply | str] = list(script or [])
        self.default = default
        self.requests: list[LLMRequest] = []
        self.completed = 0
        self.cancelled = 0

    @property
    def model(self) -> ModelInfo:
        return self._model

    def _next(self) -> Reply:
        if self.script:
            item = self.script.pop(0)
            return Reply(text=item) if isinstance(item, str) else item
        if self.default is None:
            raise AssertionError("RecordingProvider: unexpected request (script exhausted)")
        return Reply(text=self.default)

    def stream(self, request: LLMRequest) -> AsyncGenerator[StreamEvent, None]:
        self.requests.append(copy.deepcopy(request))
        reply = self._next()
        return guaranteed_stream(self._model, lambda state: self._produce(reply, state))

    async def _produce(self, reply: Reply, state: StreamState) -> AsyncIterator[StreamEvent]:
        try:
            chunks = [
                reply.text[i : i + reply.chunk_chars] for i in range(0, len(reply.text), reply.chunk_chars)
            ]
            for n, chunk in enumerate(chunks):
                if reply.gate is not None and n == reply.pause_after_chunks:
                    reply.started.set()
                    await reply.gate.wait()
                await asyncio.sleep(0)
                yield TextDelta(chunk)
            if reply.gate is not None and len(chunks) <= reply.pause_after_chunks:
                reply.started.set()
                await reply.gate.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        yield UsageUpdate(usage_with_cost(self._model, 100, max(1, len(reply.text) // 4)))
        self.completed += 1
        if reply.stop_reason in ("error", "aborted"):
            yield ErrorEvent(state.final(reply.stop_reason, reply.error_message))
        else:
            yield Done(state.final(reply.stop_reason, reply.error_message))

    # ------------------------------------------------------------------ conveniences for assertions

    def user_texts(self) -> list[str]:
        """The text of the (single) user message of each recorded request."""
        texts: list[str] = []
        for request in self.requests:
            blocks = request.messages[-1]["content"]
            texts.append("".join(b["text"] for b in blocks if block_kind(b) is BlockKind.TEXT))
        return texts
