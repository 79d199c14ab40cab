"""pi-shaped assistant and user messages: the one place their keys, order and usage object are spelled.

Providers, the accumulator and the summarizers all build messages here, so what goes into a session
file has the same shape whichever model produced it.
"""

from __future__ import annotations

import time
from typing import Any

from desktop_app.session.entries import message_text as content_text

from .model import ModelInfo

__all__ = [
    "ABORTED_MESSAGE",
    "Message",
    "combine_usage",
    "empty_usage",
    "make_assistant_message",
    "message_text",
    "usage_with_cost",
    "user_text_message",
]

Message = dict[str, Any]

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


def combine_usage(usages: list[Any]) -> dict[str, Any] | None:
    """Several replies' usage added up (pi 1.6.0's ``combineUsage``): counts and costs key by key, in
    the usage object's key order; ``None`` when no reply reported any."""
    objects = [u for u in usages if isinstance(u, dict)]
    if not objects:
        return None
    total = empty_usage()
    for usage in objects:
        for key in ("input", "output", "cacheRead", "cacheWrite", "totalTokens"):
            value = usage.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                total[key] += value
        cost = usage.get("cost")
        for key in total["cost"]:
            value = cost.get(key) if isinstance(cost, dict) else None
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                total["cost"][key] += value
    return total


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
