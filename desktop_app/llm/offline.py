"""The offline model: deterministic, no network, the default when no API key is configured.

A newcomer can explore branching, compaction and branch summaries without an account: a chat turn
answers with what the model would have received (message count, pi's token estimate, the last user
text), and summarization requests (known by their :class:`~desktop_app.llm.model.Purpose`, never by
their prompt text) get the extractive summary of :mod:`offline_summary`. Output is streamed in small
deltas like a real model, so progress and cancellation behave the same.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncGenerator, AsyncIterator

from desktop_app.session.entries import message_text as content_text
from desktop_app.session.jsjson import utf16_len

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
    UsageUpdate,
    usage_with_cost,
)

__all__ = ["OFFLINE_MODEL", "OfflineProvider", "offline_reply"]

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
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return None


def offline_reply(request: LLMRequest) -> str:
    """The full text the offline model answers ``request`` with (deterministic)."""
    last = _last_user_text(request) or ""
    if request.purpose is Purpose.TURN_PREFIX:
        return offline_turn_prefix_summary(last)
    if request.purpose in (Purpose.COMPACTION, Purpose.BRANCH_SUMMARY):
        return offline_summary(last)
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
