"""pi's token estimate of one message: ``ceil(chars / 4)`` with JavaScript's arithmetic (pi-spec §5.2).

It lives in ``llm`` because it is a property of LLM messages that both the offline model (which says
how big its input was) and compaction (cut points, thresholds) need; ``compaction.tokens`` re-exports
it. pi never tokenizes for its decisions: ``chars`` is a JavaScript string length (UTF-16 code units),
and missing fields follow JavaScript (``undefined + 1`` is ``NaN``; ``null + 1`` is ``1``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from desktop_app.session.jsjson import js_string, js_stringify, utf16_len
from desktop_app.session.kinds import BlockKind, Role, block_kind, role_of
from desktop_app.session.profile import PI_1_6_0, PiProfile

__all__ = [
    "IMAGE_CHARS",
    "MISSING",
    "NAN",
    "estimate_message_tokens",
    "estimate_tokens",
    "estimate_tokens_lenient",
    "estimates_remembered",
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


def _length(value: Any) -> Any:
    """``value.length`` in JavaScript: UTF-16 units of a string, an array's size, an object's own
    ``length`` property, ``undefined`` (:data:`MISSING`) for numbers and booleans; ``TypeError`` on
    ``null``/``undefined``, with V8's message."""
    if isinstance(value, str):
        return utf16_len(value)
    if isinstance(value, list):
        return len(value)
    if isinstance(value, dict):
        return value.get("length", MISSING)
    if value is None:
        raise TypeError("Cannot read properties of null (reading 'length')")
    if value is MISSING:
        raise TypeError("Cannot read properties of undefined (reading 'length')")
    return MISSING


def _add(total: Any, value: Any) -> Any:
    """``total + value`` as JavaScript adds a number and any JSON value (strings concatenate)."""
    if type(value) is int and type(total) is int:  # the common case, first
        return total + value
    if isinstance(total, str) or isinstance(value, (str, list, dict)):
        return _primitive_text(total) + _primitive_text(value)
    return _number(total) + _number(value)


def _primitive_text(value: Any) -> str:
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if value is MISSING:
        return "undefined"
    return js_string(value)


def _to_number(value: Any) -> int | float:
    """``Number(value)`` for what a sum of lengths can be: a number or a concatenated string."""
    if not isinstance(value, str):
        result: int | float = _number(value)
        return result
    text = value.strip(" \t\n\r\v\f")
    if text == "":
        return 0
    try:
        number = float(text)
    except ValueError:
        return NAN
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?Infinity", text):
        return NAN  # Python accepts "nan", "1_000", ... that JavaScript does not
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def _iterate(value: Any, expression: str) -> Any:
    """``for (const x of value)``: an array's items, a string's code points; V8's ``TypeError``
    (``"<expression> is not iterable"``) for anything else."""
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return value  # characters: their `.type` is undefined, so nothing in them counts
    raise TypeError(f"{expression} is not iterable")


def _prop(value: Any, key: str) -> Any:
    """``value[key]`` for a JSON value (``MISSING`` for undefined); ``TypeError`` on null."""
    if isinstance(value, dict):
        return value.get(key, MISSING)
    if value is None:
        raise TypeError(f"Cannot read properties of null (reading '{key}')")
    if isinstance(value, str) and key == "length":
        return utf16_len(value)
    if isinstance(value, list) and key == "length":
        return len(value)
    return MISSING


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


def _ceil_quarter(chars: Any) -> int | float:
    """``Math.ceil(chars / 4)``."""
    if type(chars) is int:
        return -(-chars // 4)
    number = _to_number(chars)
    if math.isnan(number) or math.isinf(number):
        return number
    return math.ceil(number / 4)


def _truthy(value: Any) -> bool:
    """JavaScript truthiness for JSON values (NaN is falsy)."""
    if isinstance(value, float) and math.isnan(value):
        return False
    if isinstance(value, (dict, list)):
        return True
    return bool(value) and value is not MISSING


# ---------------------------------------------------------------------------------- kinds, fast

# The members the loops below compare, read once: in Python 3.11 reading an enum member off its class
# costs as much as a dict lookup, and it happened for every block.
_TEXT_BLOCK, _IMAGE_BLOCK, _TOOL_CALL_BLOCK = BlockKind.TEXT, BlockKind.IMAGE, BlockKind.TOOL_CALL


# ------------------------------------------------------------------------------------ estimate


def _text_and_images(content: Any, image_chars: int, expression: str, images: bool = True) -> Any:
    """Characters of a string or of a list's text blocks (images weigh ``image_chars``). pi reads
    ``block.type`` of every item (``null`` throws) and ``block.text.length`` of truthy texts."""
    if isinstance(content, str):
        return utf16_len(content)
    chars: Any = 0
    for block in _iterate(content, expression):
        if type(block) is dict:
            kind = block_kind(block)
            if kind is _TEXT_BLOCK:
                text = block.get("text", MISSING)
                if type(text) is str:
                    if text and type(chars) is int:  # nearly always: no JS arithmetic needed
                        chars += utf16_len(text)
                    elif text:
                        chars = _add(chars, utf16_len(text))
                elif _truthy(text):
                    chars = _add(chars, _length(text))
            elif kind is _IMAGE_BLOCK and images:
                chars = _add(chars, image_chars)
        elif block is None:
            raise TypeError("Cannot read properties of null (reading 'type')")
    return chars


def _system_chars(message: Message) -> Any:
    """pi 1.6.0's weight of a ``system`` message: its text, each truthy section and the added tools
    as ``JSON.stringify`` prints them (removed tools are names only and count nothing)."""
    chars = _text_and_images(message.get("content", MISSING), IMAGE_CHARS, "content")
    sections = message.get("sections", MISSING)
    if _truthy(sections):
        values = sections.values() if isinstance(sections, dict) else sections if isinstance(sections, (list, str)) else ()
        for value in values:
            if _truthy(value):
                chars = _add(chars, _length(value))
    tools = message.get("toolsAdded", MISSING)
    if _truthy(tools):
        chars = _add(chars, utf16_len(js_stringify(tools)))
    return chars


_WORDS_FIELD = {BlockKind.TEXT: "text", BlockKind.THINKING: "thinking"}
"""Where an assistant's text and thinking blocks keep their words (the only blocks counted as text)."""


def _user_chars(message: Message, profile: PiProfile) -> Any:
    """A user message: 1.6.0 reads every content as text and images; 0.73.1 only a string or an
    array (anything else weighs 0) and only its text blocks."""
    content = message.get("content", MISSING)
    if profile.one_content_reader or isinstance(content, (str, list)):
        return _text_and_images(content, profile.user_image_chars, "content", profile.one_content_reader)
    return 0


def _assistant_chars(message: Message, profile: PiProfile) -> Any:
    """An assistant message: its texts and thoughts, and each tool call's name plus its arguments
    as ``JSON.stringify`` prints them."""
    chars: Any = 0
    for block in _iterate(message.get("content", MISSING), "assistant.content"):
        if type(block) is not dict:
            if block is None:
                raise TypeError("Cannot read properties of null (reading 'type')")
            continue
        kind = block_kind(block)
        field = _WORDS_FIELD.get(kind)
        if field is not None:
            text = block.get(field, MISSING)
            if type(text) is str and type(chars) is int:  # nearly always: no JS arithmetic needed
                chars += utf16_len(text)
            else:
                chars = _add(chars, _length(text))
        elif kind is _TOOL_CALL_BLOCK:
            name = _length(block.get("name", MISSING))
            arguments = block.get("arguments", MISSING)
            if arguments is MISSING:  # JSON.stringify(undefined) is undefined
                raise TypeError("Cannot read properties of undefined (reading 'length')")
            size = utf16_len(js_stringify(arguments))
            if type(name) is int and type(chars) is int:  # a string name: no JS arithmetic needed
                chars += name + size
            else:
                chars = _add(chars, _add(name, size))
    return chars


def _tool_result_chars(message: Message, profile: PiProfile) -> Any:
    """A tool result's or custom message's text and images (images weigh :data:`IMAGE_CHARS`)."""
    expression = "content" if profile.one_content_reader else "message.content"
    return _text_and_images(message.get("content", MISSING), IMAGE_CHARS, expression)


def _bash_chars(message: Message, profile: PiProfile) -> Any:
    """A ``!command`` run: its command and its output."""
    return _add(_length(message.get("command", MISSING)), _length(message.get("output", MISSING)))


def _summary_chars(message: Message, profile: PiProfile) -> Any:
    """A branch or compaction summary: its summary."""
    return _length(message.get("summary", MISSING))


def _counted_system_chars(message: Message, profile: PiProfile) -> Any:
    """A system message, where the profile counts them (pi 1.6.0)."""
    return _system_chars(message) if profile.count_system_messages else 0


def _no_chars(message: Message, profile: PiProfile) -> Any:
    """A role pi's estimate has no rule for."""
    return 0


_CHARS_BY_ROLE: dict[Role, Callable[[Message, PiProfile], Any]] = {
    Role.ASSISTANT: _assistant_chars,
    Role.TOOL_RESULT: _tool_result_chars,
    Role.CUSTOM: _tool_result_chars,
    Role.USER: _user_chars,
    Role.BASH_EXECUTION: _bash_chars,
    Role.BRANCH_SUMMARY: _summary_chars,
    Role.COMPACTION_SUMMARY: _summary_chars,
    Role.SYSTEM: _counted_system_chars,
    Role.HOOK_MESSAGE: _no_chars,
    Role.UNKNOWN: _no_chars,
}
"""Every role's weight (a test holds that every :class:`Role` has one): one lookup per message, where
a ``match`` on the enum paid an enum attribute read per case in this hot loop."""


_remembered: ContextVar[dict[tuple[int, str], tuple[Message, int | float]] | None] = ContextVar(
    "arbor_remembered_estimates", default=None
)


@contextmanager
def estimates_remembered() -> Iterator[None]:
    """Within the block, each message object's estimate is worked out once (by identity) and then
    remembered. For a caller that asks about the same unchanging messages many times: ``arbor
    inspect`` estimates every message of a path at five budgets for every compaction target and
    navigation pair. The messages must not change inside the block (they are kept alive, so an id is
    never another message's)."""
    token = _remembered.set({})
    try:
        yield
    finally:
        _remembered.reset(token)


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
    remembered = _remembered.get()
    if remembered is None:
        return _ceil_quarter(_CHARS_BY_ROLE[role_of(message)](message, profile))
    key = (id(message), profile.version)
    found = remembered.get(key)
    if found is None:
        found = remembered[key] = (message, _ceil_quarter(_CHARS_BY_ROLE[role_of(message)](message, profile)))
    return found[1]


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
