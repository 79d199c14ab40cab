"""Token accounting exactly as pi does it (pi-spec §5.1–§5.4).

pi never tokenizes for its decisions: it estimates ``ceil(chars / 4)`` where ``chars`` is a JavaScript
string length (UTF-16 code units), and it trusts the provider's reported usage where there is one. Cut
points, ``tokensBefore`` and the auto-compaction threshold all hang on these numbers, so they are
reproduced to the unit, including JavaScript's arithmetic on missing fields (``undefined + 1`` is
``NaN``; ``null + 1`` is ``1``). ``NaN`` is ``float("nan")`` here and ``None`` in reports.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from desktop_app.session.entries import Entry, Message
from desktop_app.session.jsjson import js_stringify, utf16_len

__all__ = [
    "CompactionSettings",
    "DEFAULT_COMPACTION_SETTINGS",
    "ContextEstimate",
    "estimate_tokens",
    "calculate_context_tokens",
    "get_assistant_usage",
    "get_last_assistant_usage",
    "estimate_context_tokens",
    "should_compact",
    "is_context_overflow",
    "nan_to_none",
    "IMAGE_CHARS",
]

NAN = float("nan")
IMAGE_CHARS = 4800
"""What one image block weighs in tool results and custom messages (≈1200 tokens); 0 in user messages."""

_MISSING: Any = object()


@dataclass(frozen=True)
class CompactionSettings:
    """``compaction`` settings with pi's defaults (pi-spec §5.1)."""

    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000

    def to_json(self) -> dict[str, Any]:
        """As pi prints the settings object (its own key names and order)."""
        return {
            "enabled": self.enabled,
            "reserveTokens": self.reserve_tokens,
            "keepRecentTokens": self.keep_recent_tokens,
        }


DEFAULT_COMPACTION_SETTINGS = CompactionSettings()


# ------------------------------------------------------------------------------------ JS arithmetic


def _length(value: Any) -> int | float:
    """``value.length`` in JavaScript: UTF-16 units for strings; ``undefined`` (NaN when added) else."""
    if isinstance(value, str):
        return utf16_len(value)
    if isinstance(value, list):
        return len(value)
    if value is None or value is _MISSING:
        raise TypeError("Cannot read properties of undefined (reading 'length')")
    return NAN


def _number(value: Any) -> int | float:
    """A value as JavaScript's ``+`` uses it in a numeric sum (``null`` → 0, ``undefined`` → NaN)."""
    if value is _MISSING:
        return NAN
    if value is None or value is False:
        return 0
    if value is True:
        return 1
    if isinstance(value, (int, float)):
        return value
    return NAN


def _ceil_quarter(chars: int | float) -> int | float:
    if isinstance(chars, float) and math.isnan(chars):
        return NAN
    return -(-int(chars) // 4) if isinstance(chars, int) else math.ceil(chars / 4)


def _truthy(value: Any) -> bool:
    """JavaScript truthiness for JSON values (NaN is falsy)."""
    if isinstance(value, float) and math.isnan(value):
        return False
    if isinstance(value, (dict, list)):
        return True
    return bool(value) and value is not _MISSING


def nan_to_none(value: Any) -> Any:
    """NaN as JSON writes it (``null``); everything else unchanged."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


# ------------------------------------------------------------------------------------ estimate


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, list):
        return content
    if content is None or content is _MISSING:
        raise TypeError("content is not iterable")
    return []  # a string iterates as characters whose `.type` is undefined: nothing counts


def _text_and_images(content: Any, image_chars: int) -> int | float:
    if isinstance(content, str):
        return utf16_len(content)
    chars: int | float = 0
    for block in _blocks(content):
        if not isinstance(block, dict):
            continue
        block_type = block.get("type")
        if block_type == "text" and _truthy(block.get("text", _MISSING)):
            chars += _length(block["text"])
        if block_type == "image":
            chars += image_chars
    return chars


def estimate_tokens(message: Message) -> int | float:
    """pi's ``estimateTokens``: ``ceil(chars / 4)`` with per-role rules (pi-spec §5.2).

    User images count nothing (pi's choice), tool-result and custom images 4800 chars; a tool call is
    its name plus its arguments as ``JSON.stringify`` prints them; unknown roles weigh 0. Where
    JavaScript would throw (a ``null`` summary, say) this raises ``TypeError`` too, so reports can
    record pi's failure; the app uses :func:`estimate_tokens_lenient`.
    """
    if not isinstance(message, dict):
        if message is None:
            raise TypeError("Cannot read properties of null (reading 'role')")
        return 0  # a string or number has no `.role`
    role = message.get("role")
    chars: int | float = 0
    if role == "user":
        chars = _text_and_images(message.get("content", _MISSING), 0)
    elif role == "assistant":
        for block in _blocks(message.get("content", _MISSING)):
            if not isinstance(block, dict):
                continue
            block_type = block.get("type")
            if block_type == "text":
                chars += _length(block.get("text", _MISSING))
            elif block_type == "thinking":
                chars += _length(block.get("thinking", _MISSING))
            elif block_type == "toolCall":
                arguments = block.get("arguments", _MISSING)
                if arguments is _MISSING:
                    raise TypeError("Cannot read properties of undefined (reading 'length')")
                chars += _length(block.get("name", _MISSING)) + utf16_len(js_stringify(arguments))
    elif role in ("custom", "toolResult"):
        chars = _text_and_images(message.get("content", _MISSING), IMAGE_CHARS)
    elif role == "bashExecution":
        chars = _length(message.get("command", _MISSING)) + _length(message.get("output", _MISSING))
    elif role in ("branchSummary", "compactionSummary"):
        chars = _length(message.get("summary", _MISSING))
    else:
        return 0
    return _ceil_quarter(chars)


# ------------------------------------------------------------------------------------ usage


def estimate_tokens_lenient(message: Any) -> int:
    """:func:`estimate_tokens` for the app: a malformed message (where pi would throw) counts 0."""
    try:
        tokens = estimate_tokens(message)
    except (TypeError, ValueError):
        return 0
    return int(tokens) if isinstance(tokens, int) or (isinstance(tokens, float) and math.isfinite(tokens)) else 0


def calculate_context_tokens(usage: dict[str, Any]) -> int | float:
    """``usage.totalTokens || input + output + cacheRead + cacheWrite`` (NaN if a field is missing)."""
    if not isinstance(usage, dict):
        if usage is None:
            raise TypeError("Cannot read properties of null (reading 'totalTokens')")
        return NAN
    total = usage.get("totalTokens", _MISSING)
    if isinstance(total, str):
        return NAN  # JS would concatenate; no count can come of it
    if _truthy(total):
        return total  # type: ignore[no-any-return]
    result: int | float = 0
    for key in ("input", "output", "cacheRead", "cacheWrite"):
        result = result + _number(usage.get(key, _MISSING))
    return result


def get_assistant_usage(message: Any) -> dict[str, Any] | None:
    """The usage of an assistant that finished normally (aborted and error stops don't count)."""
    if not isinstance(message, dict) or message.get("role") != "assistant" or "usage" not in message:
        return None
    if message.get("stopReason") in ("aborted", "error"):
        return None
    usage = message.get("usage")
    return usage if _truthy(usage) else None


def get_last_assistant_usage(entries: list[Entry]) -> dict[str, Any] | None:
    """Usage of the last valid assistant message among ``entries`` (file/path order)."""
    for entry in reversed(entries):
        if entry.get("type") == "message":
            usage = get_assistant_usage(entry.get("message"))
            if usage is not None:
                return usage
    return None


@dataclass(frozen=True)
class ContextEstimate:
    """``estimateContextTokens``: last real usage plus estimates of what came after it."""

    tokens: int | float
    usage_tokens: int | float
    trailing_tokens: int | float
    last_usage_index: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens": nan_to_none(self.tokens),
            "usageTokens": nan_to_none(self.usage_tokens),
            "trailingTokens": nan_to_none(self.trailing_tokens),
            "lastUsageIndex": self.last_usage_index,
        }


def estimate_context_tokens(messages: list[Message]) -> ContextEstimate:
    """Context size: the last valid usage, plus ``estimate_tokens`` of every later message (§5.3)."""
    last_index: int | None = None
    usage: dict[str, Any] | None = None
    for i in range(len(messages) - 1, -1, -1):
        usage = get_assistant_usage(messages[i])
        if usage is not None:
            last_index = i
            break
    if last_index is None or usage is None:
        total: int | float = 0
        for message in messages:
            total += estimate_tokens(message)
        return ContextEstimate(total, 0, total, None)
    usage_tokens = calculate_context_tokens(usage)
    trailing: int | float = 0
    for message in messages[last_index + 1 :]:
        trailing += estimate_tokens(message)
    return ContextEstimate(usage_tokens + trailing, usage_tokens, trailing, last_index)


def should_compact(
    context_tokens: int | float, context_window: int | float, settings: CompactionSettings
) -> bool:
    """Auto-compaction threshold: enabled and above ``window - reserve`` (NaN never triggers)."""
    if not settings.enabled:
        return False
    return bool(context_tokens > context_window - settings.reserve_tokens)


# ------------------------------------------------------------------------------------ overflow

_OVERFLOW_PATTERNS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"prompt is too long",
        r"request_too_large",
        r"input is too long for requested model",
        r"exceeds the context window",
        r"input token count.*exceeds the maximum",
        r"maximum prompt length is \d+",
        r"reduce the length of the messages",
        r"maximum context length is \d+ tokens",
        r"exceeds the limit of \d+",
        r"exceeds the available context size",
        r"greater than the context length",
        r"context window exceeds limit",
        r"exceeded model token limit",
        r"too large for model with \d+ maximum context length",
        r"model_context_window_exceeded",
        r"prompt too long; exceeded (?:max )?context length",
        r"context[_ ]length[_ ]exceeded",
        r"too many tokens",
        r"token limit exceeded",
    )
]
_NO_BODY = re.compile(r"^4(00|13)\s*(status code)?\s*\(no body\)", re.IGNORECASE)
_NOT_OVERFLOW = [
    re.compile(p, re.IGNORECASE)
    for p in (r"^(Throttling error|Service unavailable):", r"rate limit", r"too many requests")
]


def _usage_number(usage: Any, key: str) -> int | float:
    if not isinstance(usage, dict):
        raise TypeError(f"Cannot read properties of undefined (reading '{key}')")
    return _number(usage.get(key, _MISSING))


def is_context_overflow(message: Message, context_window: int | float | None = None) -> bool:
    """pi-ai's ``isContextOverflow`` (pi-spec §5.4): error texts, silent overflow, length stop.

    Rate-limit and throttling texts are excluded first: a throttling error that mentions "too many
    tokens" is not an overflow, and compacting would not help it.
    """
    stop = message.get("stopReason")
    if stop == "error":
        error = message.get("errorMessage")
        if isinstance(error, str) and error:
            if any(p.search(error) for p in _NOT_OVERFLOW):
                return False
            if any(p.search(error) for p in _OVERFLOW_PATTERNS) or _NO_BODY.search(error):
                return True
    if context_window and stop == "stop":
        usage = message.get("usage")
        if usage is not None:
            used = _usage_number(usage, "input") + _usage_number(usage, "cacheRead")
            if used > context_window:
                return True
    if context_window and stop == "length":
        usage = message.get("usage")
        if usage is not None and _usage_number(usage, "output") == 0:
            used = _usage_number(usage, "input") + _usage_number(usage, "cacheRead")
            if used >= 0.99 * context_window:
                return True
    return False
