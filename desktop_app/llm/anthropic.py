"""The Anthropic provider: pi-shaped context in, Messages API stream through the official SDK, pi-shaped
assistant message out.

Why this shape (pi-spec §4.3, DESIGN.md §6):

* **Request.** :func:`transform_messages` applies pi-ai's ``transformMessages`` (drop error/aborted
  assistants, synthesize ``"No result provided"`` results for dangling tool calls — also at the very end
  — replay thinking with signatures only to the same provider/api/model, replace images for text-only
  models, normalise foreign tool-call ids). :func:`convert_messages` then does pi's Anthropic
  ``convertMessages`` (tool results merged into one user message, blank text dropped, unsigned thinking
  sent as text, prompt caching on the conversation tail), and :func:`build_params` adds the cached system
  prompt, tools, ``max_tokens`` and the thinking budget.
* **Retries are not the SDK's.** The client is built with ``max_retries=0`` so every failed attempt comes
  back as an error message that the agent records and retries itself, as pi does (pi-spec §3.8).
* **Errors never raise.** Every failure ends the stream with an :class:`AnthropicErrorEvent` whose message
  has ``stopReason: "error"`` and an ``errorMessage`` worded so pi's retry and overflow matchers classify
  it (``"529 overloaded_error: Overloaded"``, ``"400 invalid_request_error: prompt is too long: …"``,
  ``"Connection lost: … terminated …"``). The event also carries the HTTP status and the server's
  ``retry-after`` in seconds (also kept as ``provider.last_error``) so the agent can honour it.
  The API key is redacted from every error text.
* **Cancellation.** When the task consuming the stream is cancelled while it waits for the next event,
  the HTTP response is closed (the server sees the disconnect) and the stream yields one final
  :class:`AnthropicErrorEvent` with ``stopReason: "aborted"``, ``errorMessage: "Request was aborted"``
  and the partial content received so far — the message pi persists on abort. A consumer that stops at
  that final event (as :func:`~desktop_app.llm.protocol.complete` does) gets the aborted message back
  instead of a ``CancelledError``; a consumer that asks for another event gets the ``CancelledError``
  re-raised, so the cancellation is never silently lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import email.utils
import importlib
import io
import json
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anthropic as sdk
import httpx2
from anthropic import types as wire
from anthropic.lib.streaming import AsyncMessageStreamManager

from desktop_app.session.kinds import BlockKind, Role, block_kind, role_of

from .accumulate import StreamState, guaranteed_stream, parse_partial_json
from .catalog import DEFAULT_MODEL_ID, cost, get_model
from .keys import InvalidApiKeyError, get_api_key, redact, validate_api_key
from .protocol import (
    Done,
    ErrorEvent,
    LLMRequest,
    ModelInfo,
    Provider,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
    empty_usage,
)

__all__ = [
    "AnthropicErrorEvent",
    "AnthropicProvider",
    "ProviderError",
    "THINKING_BUDGETS",
    "build_params",
    "convert_messages",
    "convert_tools",
    "thinking_config",
    "transform_messages",
    "warm_up",
]

Message = dict[str, Any]
Block = dict[str, Any]

# pi-ai's default thinking budgets (simple-options.ts). "xhigh" is clamped to "high", as pi's
# clampReasoning does for budget-based models.
THINKING_BUDGETS: Mapping[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
MIN_THINKING_BUDGET = 1024  # the API rejects smaller budgets
MIN_OUTPUT_TOKENS = 1024  # pi keeps at least this much room for the answer after thinking
DEFAULT_MAX_TOKENS = 32_000  # pi's buildBaseOptions: min(model.maxTokens, 32000)
# Adaptive-thinking models take an effort level instead of a budget (pi's mapThinkingLevelToEffort).
EFFORT: Mapping[str, str] = {
    "minimal": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "max",
}

CACHE_CONTROL: Mapping[str, str] = {"type": "ephemeral"}
NO_RESULT_TEXT = "No result provided"
IMAGE_OMITTED = "(image omitted: model does not support images)"
TOOL_IMAGE_OMITTED = "(tool image omitted: model does not support images)"
SEE_ATTACHED_IMAGE = "(see attached image)"
REDACTED_THINKING_TEXT = "[Reasoning redacted]"
DEFAULT_CONNECT_TIMEOUT = 10.0  # seconds to open the connection (settings: network.connectTimeoutMs)
DEFAULT_IDLE_TIMEOUT = 60.0  # seconds of silence between reads before the attempt fails (network.idleTimeoutMs)

# An SSE ``event: error`` arrives on a 200 response; give it the status the same error has as a reply.
_SSE_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}
_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",  # pi: "stop is good enough -> resubmit"
    "max_tokens": "length",
    "tool_use": "toolUse",
}
# The Messages API's own words, where Arbor reads back a request it built (not pi's kinds).
_API_USER = "user"
_CACHEABLE_BLOCKS = frozenset({"text", "image", "tool_result"})
_TEXT, _THINKING, _TOOL_CALL = BlockKind.TEXT, BlockKind.THINKING, BlockKind.TOOL_CALL
"""Request block types that may carry a ``cache_control`` breakpoint."""
_SURROGATE = re.compile("[\ud800-\udfff]")
_TOOL_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


# ==================================================================================== request building


def _sanitize(text: str) -> str:
    """Drop unpaired UTF-16 surrogates (pi's sanitizeSurrogates); they cannot be encoded as UTF-8."""
    return _SURROGATE.sub("", text) if _SURROGATE.search(text) else text


def normalize_tool_call_id(tool_call_id: str) -> str:
    """Anthropic requires ``^[a-zA-Z0-9_-]+$`` and at most 64 characters (pi's normalizeToolCallId)."""
    return _TOOL_ID_UNSAFE.sub("_", tool_call_id)[:64]


def _is_same_model(message: Mapping[str, Any], model: ModelInfo) -> bool:
    return (
        message.get("provider") == model.provider
        and message.get("api") == model.api
        and message.get("model") == model.id
    )


def _replace_images(content: Sequence[Block], placeholder: str) -> list[Block]:
    """Images → one text placeholder each, consecutive placeholders collapsed (pi-spec §4.3)."""
    out: list[Block] = []
    for block in content:
        if block_kind(block) is BlockKind.IMAGE:
            if out and block_kind(out[-1]) is BlockKind.TEXT and out[-1].get("text") == placeholder:
                continue
            out.append({"type": "text", "text": placeholder})
        else:
            out.append(block)
    return out


def _synthetic_result(tool_call: Mapping[str, Any]) -> Message:
    return {
        "role": "toolResult",
        "toolCallId": tool_call.get("id"),
        "toolName": tool_call.get("name"),
        "content": [{"type": "text", "text": NO_RESULT_TEXT}],
        "isError": True,
        "timestamp": int(time.time() * 1000),
    }


def transform_messages(messages: Iterable[Mapping[str, Any]], model: ModelInfo) -> list[Message]:
    """pi-ai's provider-level normalisation (pi-spec §4.3). Returns new dicts; the input is not changed."""
    id_map: dict[str, str] = {}
    normalized = [_normalize_message(original, model, id_map) for original in messages]
    return _close_tool_calls(normalized)


def _normalize_message(original: Mapping[str, Any], model: ModelInfo, id_map: dict[str, str]) -> Message:
    """First pass, one message: images replaced for text-only models, assistant content made safe
    for this model (``id_map`` collects renamed tool-call ids), tool results following the renames."""
    msg: Message = dict(original)
    supports_images = "image" in model.input
    role = role_of(msg)
    if role is Role.USER:
        if not supports_images and isinstance(msg.get("content"), list):
            msg["content"] = _replace_images(msg["content"], IMAGE_OMITTED)
    elif role is Role.TOOL_RESULT:
        mapped = id_map.get(str(msg.get("toolCallId")))
        if mapped is not None:
            msg["toolCallId"] = mapped
        if not supports_images and isinstance(msg.get("content"), list):
            msg["content"] = _replace_images(msg["content"], TOOL_IMAGE_OMITTED)
    elif role is Role.ASSISTANT:
        msg["content"] = _transform_assistant_content(msg, model, id_map)
    return msg


def _missing_results(calls: Sequence[Mapping[str, Any]], answered: set[str]) -> list[Message]:
    """Synthetic error results for the calls no result answered."""
    return [_synthetic_result(call) for call in calls if call.get("id") not in answered]


def _close_tool_calls(messages: list[Message]) -> list[Message]:
    """Second pass: synthetic results for tool calls left without one (before the next user or
    assistant message, and at the very end as pi 0.73.1 does), then error/aborted turns dropped."""
    result: list[Message] = []
    pending: list[Mapping[str, Any]] = []
    answered: set[str] = set()
    for msg in messages:
        role = role_of(msg)
        if role is Role.ASSISTANT or role is Role.USER:
            result += _missing_results(pending, answered)
            pending, answered = [], set()
        if role is Role.ASSISTANT:
            if msg.get("stopReason") in ("error", "aborted"):
                continue
            pending = [b for b in msg["content"] if block_kind(b) is BlockKind.TOOL_CALL]
        elif role is Role.TOOL_RESULT:
            answered.add(str(msg.get("toolCallId")))
        result.append(msg)
    result += _missing_results(pending, answered)
    return result


def _transform_assistant_content(
    msg: Mapping[str, Any], model: ModelInfo, id_map: dict[str, str]
) -> list[Block]:
    same = _is_same_model(msg, model)
    content = msg.get("content")
    out: list[Block] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, Mapping):
            continue
        kind = block_kind(block)
        if kind is BlockKind.THINKING:
            if block.get("redacted"):
                if same:
                    out.append(dict(block))
                continue
            if same:
                out.append(dict(block))
                continue
            thought = block.get("thinking")
            if isinstance(thought, str) and thought.strip():
                out.append({"type": "text", "text": thought})
        elif kind is BlockKind.TEXT:
            out.append(dict(block) if same else {"type": "text", "text": block.get("text", "")})
        elif kind is BlockKind.TOOL_CALL:
            call = dict(block)
            if not same:
                call.pop("thoughtSignature", None)
                new_id = normalize_tool_call_id(str(call.get("id", "")))
                if new_id != call.get("id"):
                    id_map[str(call.get("id"))] = new_id
                    call["id"] = new_id
            out.append(call)
        else:
            out.append(dict(block))
    return out


def _image_block(block: Mapping[str, Any]) -> Block:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": block.get("mimeType"), "data": block.get("data")},
    }


def _tool_result_content(content: Any) -> str | list[Block]:
    """pi's convertContentBlocks: text only → one string; with images → blocks (text placeholder first
    when there is no text at all)."""
    if isinstance(content, str):
        return _sanitize(content)
    blocks = [b for b in content if isinstance(b, Mapping)] if isinstance(content, list) else []
    kinds = [block_kind(b) for b in blocks]
    if BlockKind.IMAGE not in kinds:
        return _sanitize("\n".join(str(b.get("text", "")) for b, k in zip(blocks, kinds, strict=True) if k is BlockKind.TEXT))
    out: list[Block] = []
    for b, kind in zip(blocks, kinds, strict=True):
        if kind is BlockKind.TEXT:
            out.append({"type": "text", "text": _sanitize(str(b.get("text", "")))})
        elif kind is BlockKind.IMAGE:
            out.append(_image_block(b))
    if BlockKind.TEXT not in kinds:
        out.insert(0, {"type": "text", "text": SEE_ATTACHED_IMAGE})
    return out


def _convert_user(msg: Mapping[str, Any]) -> Message | None:
    content = msg.get("content")
    if isinstance(content, str):
        return {"role": "user", "content": _sanitize(content)} if content.strip() else None
    blocks: list[Block] = []
    for b in content if isinstance(content, list) else []:
        kind = block_kind(b)
        if kind is BlockKind.TEXT:
            text = str(b.get("text", ""))
            if text.strip():
                blocks.append({"type": "text", "text": _sanitize(text)})
        elif kind is BlockKind.IMAGE:
            blocks.append(_image_block(b))
    return {"role": "user", "content": blocks} if blocks else None


def _convert_assistant(msg: Mapping[str, Any]) -> Message | None:
    blocks: list[Block] = []
    for b in msg.get("content") or []:
        kind = block_kind(b)
        if kind is BlockKind.TEXT:
            text = str(b.get("text", ""))
            if text.strip():
                blocks.append({"type": "text", "text": _sanitize(text)})
        elif kind is BlockKind.THINKING:
            signature = b.get("thinkingSignature")
            if b.get("redacted"):
                if isinstance(signature, str) and signature:
                    blocks.append({"type": "redacted_thinking", "data": signature})
                continue
            thought = str(b.get("thinking", ""))
            if not thought.strip():
                continue
            if not isinstance(signature, str) or not signature.strip():
                # No signature (e.g. an aborted stream): the API would reject it as thinking.
                blocks.append({"type": "text", "text": _sanitize(thought)})
            else:
                blocks.append({"type": "thinking", "thinking": _sanitize(thought), "signature": signature})
        elif kind is BlockKind.TOOL_CALL:
            args = b.get("arguments")
            blocks.append(
                {
                    "type": "tool_use",
                    "id": b.get("id"),
                    "name": b.get("name"),
                    "input": args if isinstance(args, Mapping) else {},
                }
            )
    return {"role": "assistant", "content": blocks} if blocks else None


def convert_messages(
    messages: Iterable[Mapping[str, Any]], model: ModelInfo, *, cache: bool = True
) -> list[Message]:
    """LLM messages (user/assistant/toolResult) → Messages API ``messages`` (pi's convertMessages)."""
    transformed = transform_messages(messages, model)
    params: list[Message] = []
    i = 0
    while i < len(transformed):
        msg = transformed[i]
        role = role_of(msg)
        converted: Message | None = None
        if role is Role.USER:
            converted = _convert_user(msg)
        elif role is Role.ASSISTANT:
            converted = _convert_assistant(msg)
        elif role is Role.TOOL_RESULT:
            converted, i = _convert_tool_results(transformed, i)
            params.append(converted)
            continue
        if converted is not None:
            params.append(converted)
        i += 1
    if cache and params and params[-1]["role"] == _API_USER:
        _cache_tail(params[-1])
    return params


def _convert_tool_results(messages: Sequence[Message], start: int) -> tuple[Message, int]:
    """The run of tool results from ``start`` as one user message of ``tool_result`` blocks, and the
    index after the run."""
    results: list[Block] = []
    i = start
    while i < len(messages) and role_of(messages[i]) is Role.TOOL_RESULT:
        tr = messages[i]
        results.append(
            {
                "type": "tool_result",
                "tool_use_id": tr.get("toolCallId"),
                "content": _tool_result_content(tr.get("content")),
                "is_error": bool(tr.get("isError", False)),
            }
        )
        i += 1
    return {"role": "user", "content": results}, i


def _cache_tail(message: Message) -> None:
    """Mark the last block of the last user message as a cache breakpoint (the conversation tail)."""
    content = message["content"]
    if isinstance(content, str):
        message["content"] = [{"type": "text", "text": content, "cache_control": dict(CACHE_CONTROL)}]
    elif content and content[-1].get("type") in _CACHEABLE_BLOCKS:
        content[-1]["cache_control"] = dict(CACHE_CONTROL)


def convert_tools(tools: Iterable[Mapping[str, Any]] | None) -> list[Block]:
    """pi tool definitions ``{name, description, parameters}`` → Messages API tools."""
    out: list[Block] = []
    for tool in tools or []:
        schema = tool.get("parameters") or {}
        out.append(
            {
                "name": tool.get("name"),
                "description": tool.get("description", ""),
                "input_schema": {
                    "type": "object",
                    "properties": schema.get("properties") or {},
                    "required": schema.get("required") or [],
                },
            }
        )
    return out


def thinking_config(
    reasoning: str | None, max_tokens: int, model: ModelInfo, *, adaptive: bool = False
) -> tuple[int, dict[str, Any] | None, dict[str, Any] | None]:
    """``(max_tokens, thinking, output_config)`` for a thinking level (pi's adjustMaxTokensForThinking).

    ``off``/``None`` or a model without reasoning → no thinking parameter. Budget models get
    ``{type: "enabled", budget_tokens}`` with the budget *added* to the requested output room, capped at
    the model's output limit; when the cap leaves no room, the budget shrinks to keep 1024 tokens for
    the answer, and thinking is left off if that drops it under the API's 1024 minimum. Adaptive models
    get ``{type: "adaptive"}`` and ``output_config.effort``.
    """
    if not reasoning or reasoning == "off" or not model.reasoning:
        return max_tokens, None, None
    if adaptive:
        return max_tokens, {"type": "adaptive"}, {"effort": EFFORT.get(reasoning, "high")}
    level = "high" if reasoning == "xhigh" else reasoning
    budget = THINKING_BUDGETS.get(level, THINKING_BUDGETS["medium"])
    total = min(max_tokens + budget, model.max_tokens)
    if total <= budget:
        budget = max(0, total - MIN_OUTPUT_TOKENS)
    if budget < MIN_THINKING_BUDGET:
        return max_tokens, None, None
    return total, {"type": "enabled", "budget_tokens": budget}, None


def build_params(
    request: LLMRequest, model: ModelInfo, *, adaptive: bool = False, cache: bool = True
) -> dict[str, Any]:
    """Keyword arguments for ``client.messages.stream(...)``."""
    base_max = request.max_tokens or min(model.max_tokens, DEFAULT_MAX_TOKENS)
    max_tokens, thinking, output_config = thinking_config(
        request.reasoning, base_max, model, adaptive=adaptive
    )
    params: dict[str, Any] = {
        "model": model.id,
        "max_tokens": max_tokens,
        "messages": convert_messages(request.messages, model, cache=cache),
    }
    if request.system_prompt:
        system: Block = {"type": "text", "text": _sanitize(request.system_prompt)}
        if cache:
            system["cache_control"] = dict(CACHE_CONTROL)
        params["system"] = [system]
    if request.tools:
        params["tools"] = convert_tools(request.tools)
    if thinking is not None:
        params["thinking"] = thinking
    if output_config is not None:
        params["output_config"] = output_config
    return params


# The order of the keys in the body ``messages.stream`` sends (the SDK's own), then ``stream: true``.
_BODY_KEYS = ("max_tokens", "messages", "model", "output_config", "system", "tools", "thinking")
_STREAM_HEADERS = {"X-Stainless-Helper-Method": "stream", "X-Stainless-Stream-Helper": "messages"}
"""The headers ``messages.stream`` adds, so a pre-encoded request looks like any other."""


def _json_text(text: str) -> str:
    """``text`` as the SDK's encoder writes it inside a JSON string (``ensure_ascii=False``), unquoted."""
    return json.encoder.encode_basestring(text)[1:-1]


_BODY_CHUNK = 1 << 20


class _Chunks:
    """A body a megabyte at a time. Given whole, the HTTP layer (h11) copies it into one buffer with
    the headers before writing it: another 44 MB at a first compaction of 100,000 entries. The
    ``Content-Length`` is set by the caller, so the body is not sent chunked; an object, not a
    generator, so the HTTP layer could send it again."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for start in range(0, len(self._body), _BODY_CHUNK):
            yield self._body[start : start + _BODY_CHUNK]


def build_body(
    request: LLMRequest, model: ModelInfo, *, adaptive: bool = False, cache: bool = True
) -> bytes | None:
    """The UTF-8 JSON body ``messages.stream(**build_params(...))`` sends, for a request given as
    ``text_pieces`` (a summarizer's); ``None`` for any other request (sent the ordinary way).

    Byte for byte the SDK's body (the fake server's tests compare them), made without the whole text
    ever existing: the body is built with a placeholder for the text, and each piece is sanitized,
    escaped and encoded on its own into one buffer. The SDK's way (``json.dumps`` of the parameters,
    then ``.encode()``) holds the text, its escaped copy, the joined JSON and the bytes at once: at a
    first compaction of 100,000 entries (43.6 million characters) ~290 MB over the session (issue 28).
    """
    pieces = request.text_pieces
    if pieces is None:
        return None
    marker = f"\ue000arbor-text-{id(request):x}\ue000"
    shaped = LLMRequest(
        request.system_prompt,
        [{"role": "user", "content": [{"type": "text", "text": marker}]}],
        request.max_tokens,
        request.reasoning,
        request.tools,
        purpose=request.purpose,
    )
    params = build_params(shaped, model, adaptive=adaptive, cache=cache)
    body = {key: params[key] for key in _BODY_KEYS if key in params}
    body["stream"] = True
    head, found, tail = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).partition(
        _json_text(marker)
    )
    if not found or _json_text(marker) in tail:
        raise ValueError("the request's text placeholder is not where it was put")
    out = io.BytesIO()
    out.write(head.encode())
    blank = True
    for piece in pieces:  # each piece made, written and let go in turn
        blank = blank and (not piece or piece.isspace())
        out.write(_json_text(_sanitize(piece)).encode())
    if blank:
        return None  # a blank text is dropped from the request: the ordinary way says what follows
    out.write(tail.encode())
    return out.getvalue()  # the buffer itself, not a copy


# ==================================================================================== stream handling


@dataclass(frozen=True)
class ProviderError:
    """What went wrong, for the agent's retry logic (the message text is already in ``errorMessage``)."""

    message: str
    status: int | None = None
    error_type: str | None = None
    retry_after: float | None = None
    """Seconds the server asked us to wait (``retry-after-ms`` / ``retry-after``), if it said."""


@dataclass(frozen=True)
class AnthropicErrorEvent(ErrorEvent):
    """An :class:`ErrorEvent` that also says the HTTP status and the server's requested retry delay."""

    status: int | None = None
    error_type: str | None = None


class _Translator:
    """Turns the SDK's raw stream events into Arbor's stream events (content positions as indices).

    It keeps only what the events themselves do not carry (block positions, the stop reason, the
    response id, the running usage); the message is accumulated from the emitted events by
    :func:`~desktop_app.llm.accumulate.accumulate`, like every other consumer does.
    """

    def __init__(self, model: ModelInfo, state: StreamState) -> None:
        self.model = model
        self.state = state
        self.usage: dict[str, Any] = empty_usage()
        self.stop_reason: str | None = None
        self.saw_message_stop = False
        self._positions: dict[int, int] = {}  # SDK block index → position in content
        self._pending: dict[int, BlockKind] = {}  # SDK block index → a text or thinking block not yet placed
        self._blocks = 0

    def _usage_event(self) -> UsageUpdate:
        u = self.usage
        u["totalTokens"] = u["input"] + u["output"] + u["cacheRead"] + u["cacheWrite"]
        cost(u, self.model)
        return UsageUpdate(copy.deepcopy(u))

    def handle(self, event: Any) -> list[StreamEvent]:
        """One SDK stream event → Arbor's stream events, by the SDK's own event classes."""
        match event:
            case wire.RawMessageStartEvent(message=message):
                self.state.extra["responseId"] = message.id
                usage = message.usage
                self.usage["input"] = usage.input_tokens or 0
                self.usage["output"] = usage.output_tokens or 0
                self.usage["cacheRead"] = usage.cache_read_input_tokens or 0
                self.usage["cacheWrite"] = usage.cache_creation_input_tokens or 0
                return [self._usage_event()]
            case wire.RawContentBlockStartEvent(index=index, content_block=block):
                return self._block_start(index, block)
            case wire.RawContentBlockDeltaEvent(index=index, delta=delta):
                return self._block_delta(index, delta)
            case wire.RawContentBlockStopEvent(index=index):
                return self._block_stop(index)
            case wire.RawMessageDeltaEvent():
                return self._message_delta(event)
            case wire.RawMessageStopEvent():
                self.saw_message_stop = True
        return []  # ping and the SDK's derived events (text, thinking, input_json, signature, …)

    def _message_delta(self, event: Any) -> list[StreamEvent]:
        if event.delta.stop_reason:
            self.stop_reason = event.delta.stop_reason
        usage = event.usage
        for key, attr in (
            ("input", "input_tokens"),
            ("output", "output_tokens"),
            ("cacheRead", "cache_read_input_tokens"),
            ("cacheWrite", "cache_creation_input_tokens"),
        ):
            value = getattr(usage, attr, None)
            if value is not None:
                self.usage[key] = value
        return [self._usage_event()]

    def _block_start(self, index: int, block: Any) -> list[StreamEvent]:
        out: StreamEvent
        position = self._blocks
        match block:
            case wire.TextBlock() | wire.ThinkingBlock():
                # Placed at its first delta (or its end, if it stays empty), so every delta event carries
                # content; blocks arrive one after another, so no other block can take the place meanwhile.
                self._pending[index] = _TEXT if isinstance(block, wire.TextBlock) else _THINKING
                return []
            case wire.RedactedThinkingBlock():
                out = ThinkingDelta(REDACTED_THINKING_TEXT, position, signature=block.data, redacted=True)
            case wire.ToolUseBlock():
                out = ToolCallStart(position, block.id, block.name)
            case _:
                return []  # server tools and other block types are not part of pi's content
        self._positions[index] = position
        self._blocks += 1
        return [out]

    def _place(self, index: int) -> int | None:
        """The content position of SDK block ``index``, giving a pending text/thinking block its place."""
        if index in self._pending:
            del self._pending[index]
            self._positions[index] = self._blocks
            self._blocks += 1
        return self._positions.get(index)

    def _block_kind(self, position: int) -> BlockKind:
        """The kind of the partial message's block at ``position`` (UNKNOWN past its end)."""
        content = self.state.partial["content"]
        return block_kind(content[position]) if position < len(content) else BlockKind.UNKNOWN

    def _block_delta(self, index: int, delta: Any) -> list[StreamEvent]:
        pending = self._pending.get(index)
        if pending is not None:
            return self._first_delta(index, pending, delta)
        position = self._positions.get(index)
        if position is None:
            return []
        block = self._block_kind(position)
        match delta:
            case wire.TextDelta(text=text) if block is _TEXT:
                return [TextDelta(text, position)] if text else []
            case wire.ThinkingDelta(thinking=thinking) if block is _THINKING:
                return [ThinkingDelta(thinking, position)] if thinking else []
            case wire.SignatureDelta(signature=signature) if block is _THINKING:
                return [ThinkingDelta("", position, signature=signature)] if signature else []
            case wire.InputJSONDelta(partial_json=partial) if block is _TOOL_CALL:
                return [ToolCallDelta(position, partial)] if partial else []
        return []

    def _first_delta(self, index: int, pending: BlockKind, delta: Any) -> list[StreamEvent]:
        """The first delta of a text or thinking block: it takes its place now (an empty one does not)."""
        text = delta.text if isinstance(delta, wire.TextDelta) and pending is _TEXT else None
        thought = delta.thinking if isinstance(delta, wire.ThinkingDelta) and pending is _THINKING else None
        signature = delta.signature if isinstance(delta, wire.SignatureDelta) and pending is _THINKING else None
        if not (text or thought or signature):
            return []
        position = self._place(index)
        assert position is not None
        if pending is _TEXT:
            return [TextDelta(str(text), position)]
        return [ThinkingDelta(thought or "", position, signature=signature or "")]

    def _block_stop(self, index: int) -> list[StreamEvent]:
        pending = self._pending.get(index)
        if pending is not None:  # a block that stayed empty still takes its place, as in the API's reply
            position = self._place(index)
            assert position is not None
            return [TextDelta("", position) if pending is _TEXT else ThinkingDelta("", position, signature="")]
        position = self._positions.get(index)
        if position is None or self._block_kind(position) is not BlockKind.TOOL_CALL:
            return []
        block = self.state.partial["content"][position]
        call = {
            "type": "toolCall",
            "id": block.get("id"),
            "name": block.get("name"),
            "arguments": parse_partial_json(str(block.get("partialJson") or "")),
        }
        return [ToolCallEnd(position, call)]


def _retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    if not headers:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _describe_status_error(exc: sdk.APIStatusError) -> ProviderError:
    status: int | None = exc.status_code
    error_type = exc.type if isinstance(exc.type, str) else None
    api_message = exc.api_message if isinstance(exc.api_message, str) else None
    if status == 200 or status is None:  # an SSE "event: error" inside a successful response
        status = _SSE_ERROR_STATUS.get(error_type or "", status)
    if error_type and api_message:
        text = f"{status} {error_type}: {api_message}"
    elif api_message:
        text = f"{status} {api_message}"
    else:
        body = exc.body
        if isinstance(body, str) and body.strip():
            text = f"{status} {body.strip()[:500]}"
        elif body:
            text = f"{status} {json.dumps(body)[:500]}"
        else:
            text = f"{status} status code (no body)"
    headers = exc.response.headers if exc.response is not None else None
    return ProviderError(text, status, error_type, _retry_after(headers))


def _exception_text(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _describe_exception(exc: Exception, *, streaming: bool) -> ProviderError:
    """Words every failure so pi's retry matcher (pi-spec §3.8) classifies it as pi would."""
    if isinstance(exc, sdk.APIStatusError):
        return _describe_status_error(exc)
    if isinstance(exc, sdk.APITimeoutError) or isinstance(exc, httpx2.TimeoutException):
        return ProviderError(f"Request timed out ({_exception_text(exc)})")
    if isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = _exception_text(cause) if cause is not None else "could not reach the server"
        return ProviderError(f"Connection error: {detail}")
    if isinstance(exc, httpx2.TransportError):
        if streaming:
            return ProviderError(
                f"Connection lost: the response stream was terminated before the message was complete "
                f"({_exception_text(exc)})"
            )
        return ProviderError(f"Connection error: {_exception_text(exc)}")
    if isinstance(exc, json.JSONDecodeError):
        return ProviderError(f"Malformed server-sent event from the API: {exc}")
    return ProviderError(_exception_text(exc))


# ==================================================================================== the provider


class AnthropicProvider(Provider):
    """A :class:`~desktop_app.llm.protocol.Provider` on ``anthropic.AsyncAnthropic().messages.stream``.

    ``api_key`` defaults to :func:`~desktop_app.llm.keys.get_api_key` (environment, then keyring),
    resolved at each request so a key saved later is picked up. ``base_url`` points the SDK at an
    Anthropic-compatible server. ``adaptive_thinking`` forces the thinking style; by default (as pi)
    adaptive thinking is used only for catalog models that want it and only on Anthropic's own API.
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        model_id: str = DEFAULT_MODEL_ID,
        *,
        model: ModelInfo | None = None,
        timeout: float | None = 600.0,
        adaptive_thinking: bool | None = None,
        cache: bool = True,
        connect_timeout: float | None = DEFAULT_CONNECT_TIMEOUT,
        idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
    ) -> None:
        self._api_key = api_key
        self._base_url = base_url
        self._model: ModelInfo = model if model is not None else get_model(model_id)
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        self._idle_timeout = idle_timeout
        self._adaptive_override = adaptive_thinking
        self._cache = cache
        self._client_entry: tuple[asyncio.AbstractEventLoop, str, sdk.AsyncAnthropic] | None = None
        self.last_error: ProviderError | None = None
        """The error that ended the most recent stream, or ``None`` after a success or an abort."""

    # --- Provider protocol ----------------------------------------------------------------------

    @property
    def model(self) -> ModelInfo:
        return self._model

    @property
    def base_url(self) -> str | None:
        return self._base_url

    def with_model(self, model_id: str) -> AnthropicProvider:
        """The same account and endpoint with another model."""
        return AnthropicProvider(
            self._api_key,
            self._base_url,
            model_id,
            timeout=self._timeout,
            adaptive_thinking=self._adaptive_override,
            cache=self._cache,
            connect_timeout=self._connect_timeout,
            idle_timeout=self._idle_timeout,
        )

    def uses_adaptive_thinking(self) -> bool:
        if self._adaptive_override is not None:
            return self._adaptive_override
        wants = bool(getattr(self._model, "adaptive_thinking", False))
        return wants and (self._base_url is None or "api.anthropic.com" in self._base_url)

    def build_params(self, request: LLMRequest) -> dict[str, Any]:
        """The keyword arguments this provider passes to ``messages.stream`` for ``request``."""
        return build_params(request, self._model, adaptive=self.uses_adaptive_thinking(), cache=self._cache)

    def stream(self, request: LLMRequest) -> AsyncGenerator[StreamEvent, None]:
        return guaranteed_stream(
            self._model, lambda state: self._produce(request, state), timestamp=int(time.time() * 1000)
        )

    async def _produce(self, request: LLMRequest, state: StreamState) -> AsyncIterator[StreamEvent]:
        translator = _Translator(self._model, state)
        self.last_error = None
        try:
            key = validate_api_key(self._api_key, "the provider's settings") if self._api_key else get_api_key()
        except InvalidApiKeyError as exc:  # never sent: the HTTP layer would quote it in its error
            yield self._error(state, ProviderError(str(exc)), self._api_key)
            return
        if not key:
            yield self._error(state, ProviderError("No API key for provider: anthropic"), key)
            return
        try:
            body = build_body(request, self._model, adaptive=self.uses_adaptive_thinking(), cache=self._cache)
            params = self.build_params(request) if body is None else {}
        except Exception as exc:  # a malformed context is a failed turn, not a crash
            yield self._error(state, ProviderError(f"Invalid request: {_exception_text(exc)}"), key)
            return

        failure: ProviderError | None = None
        headers_received = False
        try:
            # A cancellation while waiting raises out of here (closing the response, so the server
            # sees the disconnect); guaranteed_stream turns it into the final aborted message.
            async with self._open_stream(key, params, body) as sdk_stream:
                headers_received = True
                async for event in sdk_stream:
                    for out in translator.handle(event):
                        yield out
        except Exception as exc:
            failure = _describe_exception(exc, streaming=headers_received)

        if failure is None:
            failure = self._check_end(translator)
        if failure is not None:
            yield self._error(state, failure, key)
            return
        yield Done(state.final(_STOP_REASONS[translator.stop_reason or "end_turn"]))

    # --- helpers ------------------------------------------------------------------------------------

    @staticmethod
    def _check_end(acc: _Translator) -> ProviderError | None:
        """A stream that closed cleanly but incompletely, or a stop reason pi treats as an error."""
        if not acc.saw_message_stop and acc.stop_reason is None:
            return ProviderError(
                "Connection lost: the response stream was terminated before message_stop "
                "(ended without a stop reason)"
            )
        reason = acc.stop_reason or "end_turn"
        if reason in _STOP_REASONS:
            return None
        if reason == "refusal":
            return ProviderError("The model refused to answer (stop_reason: refusal)")
        if reason == "model_context_window_exceeded":
            return ProviderError("model_context_window_exceeded: the request exceeds the context window")
        return ProviderError(f"Unhandled stop reason: {reason}")

    def _error(self, state: StreamState, failure: ProviderError, key: str | None) -> AnthropicErrorEvent:
        failure = ProviderError(
            redact(failure.message, key), failure.status, failure.error_type, failure.retry_after
        )
        self.last_error = failure
        return AnthropicErrorEvent(
            state.final("error", failure.message),
            retry_after=failure.retry_after,
            status=failure.status,
            error_type=failure.error_type,
        )

    def _open_stream(
        self, key: str, params: dict[str, Any], body: bytes | None
    ) -> AsyncMessageStreamManager[None]:
        """``messages.stream(**params)``, or the same stream for a body already encoded
        (:func:`build_body`): the SDK's ``post`` with ``content=`` (sent a megabyte at a time with its
        length) and the stream helper's headers, so the events, the errors and the connection handling
        are the SDK's either way."""
        client = self._client(key)
        if body is None:
            return client.messages.stream(**params)
        return AsyncMessageStreamManager(
            client.post(
                "/v1/messages",
                content=_Chunks(body),
                cast_to=wire.Message,
                stream=True,
                stream_cls=sdk.AsyncStream[wire.RawMessageStreamEvent],
                options={"headers": {**_STREAM_HEADERS, "Content-Length": str(len(body))}},
            )
        )

    def _client(self, key: str) -> sdk.AsyncAnthropic:
        """The SDK client for the running loop and key, made once and reused (keep-alive connections).

        Its connection pool belongs to the loop it ran on, so another loop (a test's, qasync's) gets a
        fresh client. The loop object itself is held, not its id, so a new loop can never be mistaken
        for a finished one that had the same id.
        """
        loop = asyncio.get_running_loop()
        entry = self._client_entry
        if entry is not None and entry[0] is loop and entry[1] == key:
            return entry[2]
        # ``read`` bounds each wait for bytes: headers that never come and a stream that stalls both
        # end as a (retryable) timeout instead of holding the turn for the whole request timeout.
        timeout = httpx2.Timeout(
            self._timeout, connect=self._connect_timeout, read=self._idle_timeout, pool=self._connect_timeout
        )
        client = sdk.AsyncAnthropic(api_key=key, base_url=self._base_url, max_retries=0, timeout=timeout)
        self._client_entry = (loop, key, client)
        return client

    async def prepare(self) -> None:
        """Make the SDK client (HTTP pool, TLS context) now, so the first turn does not pay for it."""
        try:
            key = validate_api_key(self._api_key, "the provider's settings") if self._api_key else get_api_key()
        except InvalidApiKeyError:
            return  # the first turn reports it
        if key:
            self._client(key)

    async def warm_up(self) -> None:
        """Build the SDK's models (one canned in-memory stream) and the client, before the first turn."""
        await warm_up()
        await self.prepare()

    async def aclose(self) -> None:
        """Close the HTTP connections of the current client (if it was made on the running loop)."""
        entry = self._client_entry
        self._client_entry = None
        if entry is not None and entry[0] is asyncio.get_running_loop():
            await entry[2].close()

    def __repr__(self) -> str:  # never shows the key
        return f"AnthropicProvider(model={self._model.id!r}, base_url={self._base_url!r})"


# ==================================================================================== warm-up

_WARM = False
_WARM_SSE = b"".join(
    f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
    for name, data in [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_warm",
                    "type": "message",
                    "role": "assistant",
                    "model": "warm-up",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                },
            },
        ),
        ("ping", {"type": "ping"}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            },
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "."}},
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "signature_delta", "signature": "s"},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "."}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 2,
                "content_block": {"type": "tool_use", "id": "t", "name": "n", "input": {}},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 2,
                "delta": {"type": "input_json_delta", "partial_json": "{}"},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 2}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 1},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
)


async def warm_up() -> float:
    """Run one canned stream through the SDK's whole pipeline (request building, SSE decoding, model
    construction, accumulation) against an in-memory transport, so the one-time 40–140 ms the SDK
    spends building its pydantic models is paid at startup, not on the user's first turn (DESIGN.md §8).
    No network. Returns the seconds spent (0 when already warm)."""
    global _WARM
    if _WARM:
        return 0.0
    started = time.perf_counter()

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=_WARM_SSE)

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as http_client:
        client = sdk.AsyncAnthropic(
            api_key="warm-up", base_url="http://warm-up.invalid", max_retries=0, http_client=http_client
        )
        model = get_model(DEFAULT_MODEL_ID)
        request = LLMRequest(
            system_prompt="warm-up",
            messages=[{"role": "user", "content": "warm-up", "timestamp": 0}],
            max_tokens=16,
            tools=[{"name": "n", "description": "d", "parameters": {"type": "object", "properties": {}}}],
        )
        translator = _Translator(model, StreamState(model))
        async with client.messages.stream(**build_params(request, model)) as stream:
            async for event in stream:
                for out in translator.handle(event):
                    translator.state.add(out)
    for name in _REAL_TRANSPORT_MODULES:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    _WARM = True
    return time.perf_counter() - started


#: What the first real connection imports that the in-memory stream above does not: anyio's asyncio
#: backend, sockets and streams. Imported on the user's first turn they took ~10 ms of one event-loop
#: turn (PySide's import hook reads each module's source). A name a newer anyio lacks is skipped.
_REAL_TRANSPORT_MODULES = (
    "anyio._backends._asyncio",
    "anyio._core._sockets",
    "anyio._core._streams",
    "anyio.abc._eventloop",
    "anyio.abc._sockets",
    "anyio.streams.memory",
    "anyio.streams.stapled",
)
