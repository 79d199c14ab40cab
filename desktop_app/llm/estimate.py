"""pi's token estimate of one message: ``ceil(chars / 4)`` with JavaScript's arithmetic (pi-spec §5.2).

It lives in ``llm`` because it is a property of LLM messages that both the offline model (which says
how big its input was) and compaction (cut points, thresholds) need; ``compaction.tokens`` re-exports
it. pi never tokenizes for its decisions: ``chars`` is a JavaScript string length (UTF-16 code units),
and missing fields follow JavaScript (``undefined + 1`` is ``NaN``; ``null + 1`` is ``1``).
"""

from __future__ import annotations

import math
from typing import Any

from desktop_app.session.jsjson import js_stringify, utf16_len
from desktop_app.session.profile import PI_1_6_0, PiProfile

__all__ = [
    "IMAGE_CHARS",
    "MISSING",
    "NAN",
    "estimate_message_tokens",
    "estimate_tokens",
    "estimate_tokens_lenient",
    "js_number",
    "js_truthy",
]

Message = dict[str, Any]

NAN = float("nan")
IMAGE_CHARS = 4800
"""What one image block weighs in tool results and custom messages (≈1200 tokens); in user messages
it is the profile's ``user_image_chars`` (0 in pi 0.73.1)."""

MISSING: Any = object()
"""JavaScript's ``undefined`` (a key that is absent)."""


# ------------------------------------------------------------------------------------ JS arithmetic


def _length(value: Any) -> int | float:
    """``value.length`` in JavaScript: UTF-16 units for strings; ``undefined`` (NaN when added) else."""
    if isinstance(value, str):
        return utf16_len(value)
    if isinstance(value, list):
        return len(value)
    if value is None:
        raise TypeError("Cannot read properties of null (reading 'length')")
    if value is MISSING:
        raise TypeError("Cannot read properties of undefined (reading 'length')")
    return NAN


def _number(value: Any) -> int | float:
    """A value as JavaScript's ``+`` uses it in a numeric sum (``null`` → 0, ``undefined`` → NaN)."""
    if value is MISSING:
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
    return bool(value) and value is not MISSING


# ------------------------------------------------------------------------------------ estimate


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, list):
        return content
    if content is None or content is MISSING:
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
        if block_type == "text" and _truthy(block.get("text", MISSING)):
            chars += _length(block["text"])
        if block_type == "image":
            chars += image_chars
    return chars


def _system_chars(message: Message) -> int | float:
    """pi 1.6.0's weight of a ``system`` message: its text, each truthy section and the added tools
    as ``JSON.stringify`` prints them (removed tools are names only and count nothing)."""
    chars = _text_and_images(message.get("content", MISSING), IMAGE_CHARS)
    sections = message.get("sections")
    if isinstance(sections, dict):
        for value in sections.values():
            if _truthy(value):
                chars += _length(value)
    if "toolsAdded" in message and message["toolsAdded"] is not None:
        chars += utf16_len(js_stringify(message["toolsAdded"]))
    return chars


def estimate_tokens(message: Message, profile: PiProfile = PI_1_6_0) -> int | float:
    """pi's ``estimateTokens``: ``ceil(chars / 4)`` with per-role rules (pi-spec §5.2, pi16-delta §5.2).

    Tool-result and custom images weigh 4800 chars, user images the profile's ``user_image_chars``
    (nothing in 0.73.1); a tool call is its name plus its arguments as ``JSON.stringify`` prints
    them; a system message counts only where the profile says so; unknown roles weigh 0. Where
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
        content = message.get("content", MISSING)
        chars = 0 if content is None else _text_and_images(content, profile.user_image_chars)  # null weighs 0
    elif role == "assistant":
        for block in _blocks(message.get("content", MISSING)):
            if not isinstance(block, dict):
                continue
            block_type = block.get("type")
            if block_type == "text":
                chars += _length(block.get("text", MISSING))
            elif block_type == "thinking":
                chars += _length(block.get("thinking", MISSING))
            elif block_type == "toolCall":
                arguments = block.get("arguments", MISSING)
                if arguments is MISSING:
                    raise TypeError("Cannot read properties of undefined (reading 'length')")
                chars += _length(block.get("name", MISSING)) + utf16_len(js_stringify(arguments))
    elif role in ("custom", "toolResult"):
        chars = _text_and_images(message.get("content", MISSING), IMAGE_CHARS)
    elif role == "bashExecution":
        chars = _length(message.get("command", MISSING)) + _length(message.get("output", MISSING))
    elif role in ("branchSummary", "compactionSummary"):
        chars = _length(message.get("summary", MISSING))
    elif role == "system" and profile.count_system_messages:
        chars = _system_chars(message)
    else:
        return 0
    return _ceil_quarter(chars)


def estimate_tokens_lenient(message: Any, profile: PiProfile = PI_1_6_0) -> int:
    """:func:`estimate_tokens` for the app: a malformed message (where pi would throw) counts 0."""
    try:
        tokens = estimate_tokens(message, profile)
    except (TypeError, ValueError):
        return 0
    return int(tokens) if isinstance(tokens, int) or (isinstance(tokens, float) and math.isfinite(tokens)) else 0


estimate_message_tokens = estimate_tokens_lenient

js_number = _number
js_truthy = _truthy
