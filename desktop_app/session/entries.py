"""Entry and message shapes of pi's v3 session format: builders in pi's key order, ids, times, lines.

Entries stay plain dicts shaped exactly as in the file, so unknown types and fields survive a round
trip untouched (DESIGN.md §2, §4). The builders here are the only place that knows pi's write order
(pi-spec §2.2–§2.4); optional values passed as ``None`` are left out, as ``JSON.stringify`` leaves out
``undefined``.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable, Container, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from .jsdate import v8_date_parse
from .jsjson import _JS_WS as _JS_WS_CHARS
from .jsjson import _js_int, _reject_constant, js_string, js_stringify, js_trim

Entry = dict[str, Any]
Message = dict[str, Any]

CURRENT_SESSION_VERSION = 3
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")

# --------------------------------------------------------------------------------------------- ids

_uuid_source: Callable[[], str] = lambda: str(uuid.uuid4())  # noqa: E731
_uuid_lock = threading.Lock()


@contextmanager
def sequential_ids() -> Iterator[None]:
    """Replace the random UUID source by a counter, as pi's conformance harness does.

    The k-th call yields ``hex(k)`` padded to 8 digits, so entry ids become ``00000001``, ...
    (``conformance/README.md``: "counter reset before parse and before open"). Used by
    ``arbor inspect --sequential-ids`` so migrated files compare exactly.
    """
    global _uuid_source
    counter = 0

    def next_uuid() -> str:
        nonlocal counter
        counter += 1
        return f"{counter:08x}-0000-4000-8000-000000000000"

    with _uuid_lock:
        previous, _uuid_source = _uuid_source, next_uuid
    try:
        yield
    finally:
        _uuid_source = previous


def random_uuid() -> str:
    return _uuid_source()


def new_entry_id(existing: Container[str]) -> str:
    """8 hex characters unique within ``existing``; after 100 collisions a full UUID (as pi)."""
    for _ in range(100):
        candidate = random_uuid()[:8]
        if candidate not in existing:
            return candidate
    return random_uuid()


def uuid7(now_ms: int | None = None) -> str:
    """A UUID v7 (RFC 9562): 48-bit millisecond time, then random bits; what pi 0.73.1 uses for sessions."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= (rand >> 68 & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))


# --------------------------------------------------------------------------------------------- time


def iso_now() -> str:
    """``new Date().toISOString()``: UTC, milliseconds, ``Z``."""
    return iso_from_ms(int(time.time() * 1000))


def iso_from_ms(ms: int) -> str:
    dt = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def now_ms() -> int:
    return int(time.time() * 1000)


_MAX_TIME = 8_640_000_000_000_000  # ECMAScript TimeClip: +-100,000,000 days around 1970
_DAY = 86_400_000


def _time_clip(ms: int) -> int | None:
    return ms if -_MAX_TIME <= ms <= _MAX_TIME else None


_DAY_MS: dict[str, int] = {}


def _day_ms(date: str) -> int:
    """Milliseconds of ``YYYY-MM-DD`` at 00:00 UTC, or -1 when it is not a plain valid date after 1970."""
    try:
        day = datetime.strptime(date, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        return -1
    delta = day - datetime(1970, 1, 1, tzinfo=UTC)
    return -1 if delta.days < 0 else delta.days * _DAY


def js_date_ms(value: Any) -> int | None:
    """``new Date(value).getTime()`` for a JSON value; ``None`` where JavaScript gives ``NaN``.

    pi orders children and stamps summary messages with it: a number is taken as milliseconds, ``null``
    is 0, a boolean 0 or 1, a string goes through ``Date.parse``, an array through its ``String()``.
    An absent timestamp (``undefined``) is NaN: see :func:`entry_time_ms`.
    """
    if isinstance(value, str):
        return parse_date_ms(value)
    if value is None:
        return 0
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return _time_clip(value)
    if isinstance(value, float):
        return _time_clip(int(value)) if math.isfinite(value) else None  # int() truncates like TimeClip
    if isinstance(value, list):
        return parse_date_ms(js_string(value))
    return None  # an object: "[object Object]"


def entry_time_ms(entry: Entry) -> int | None:
    """``new Date(entry.timestamp).getTime()``, an absent key being ``undefined`` (NaN)."""
    return js_date_ms(entry["timestamp"]) if "timestamp" in entry else None


def parse_date_ms(text: Any) -> int | None:
    """``Date.parse(text)`` for a string in a UTC process; ``None`` where JS gives ``NaN``.

    Date-only forms are UTC; date-times without an offset are local time, which is UTC in pi's
    conformance harness and in Arbor (the file's timestamps are always written with ``Z``). Anything
    but pi's own ``toISOString`` form goes through V8's reader (:mod:`.jsdate`), legacy forms included.
    """
    if not isinstance(text, str):
        return None
    if (
        len(text) == 24
        and text[23] == "Z"
        and text[10] == "T"
        and text[4] == text[7] == "-"
        and text[13] == text[16] == ":"
        and text[19] == "."
        and text.isascii()
        and (text[:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16] + text[17:19] + text[20:23]).isdigit()
    ):
        # pi's own format (toISOString), nearly every timestamp in a file: no regex, cached days
        day_ms = _DAY_MS.get(text[:10])
        if day_ms is None:
            day_ms = _DAY_MS[text[:10]] = _day_ms(text[:10])
        rest = text[11:23]
        if day_ms >= 0:
            hour, minute, sec = int(rest[0:2]), int(rest[3:5]), int(rest[6:8])
            if hour < 24 and minute < 60 and sec < 60:
                return day_ms + ((hour * 60 + minute) * 60 + sec) * 1000 + int(rest[9:12])
    return v8_date_parse(text)


# --------------------------------------------------------------------------------------------- lines


def serialize_line(obj: Any) -> str:
    """One JSONL line as pi writes it (``JSON.stringify`` + ``\\n``)."""
    return js_stringify(obj) + "\n"


def is_header(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("type") == "session"


def is_valid_header(obj: Any) -> bool:
    """pi accepts a file only if its first parsed line is ``{type:"session", id:<string>}``."""
    return is_header(obj) and isinstance(obj.get("id"), str)


# --------------------------------------------------------------------------------------------- builders


def _put(d: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        d[key] = value


def make_header(session_id: str, cwd: str, timestamp: str, parent_session: str | None = None) -> Entry:
    header: Entry = {
        "type": "session",
        "version": CURRENT_SESSION_VERSION,
        "id": session_id,
        "timestamp": timestamp,
        "cwd": cwd,
    }
    _put(header, "parentSession", parent_session)
    return header


def _base(entry_type: str, entry_id: str, parent_id: str | None, timestamp: str) -> Entry:
    return {"type": entry_type, "id": entry_id, "parentId": parent_id, "timestamp": timestamp}


ASSISTANT_KEY_ORDER_1_6 = (
    "role", "content", "api", "provider", "model", "responseId", "responseModel", "thinkingLevel",
    "providerThinkingLevel", "usage", "stopReason", "deferred", "errorMessage", "timestamp", "durationMs",
)
"""The order pi 1.6.0 writes an assistant message's keys in (keys it does not know follow)."""


def in_1_6_key_order(message: Message) -> Message:
    """An assistant message with its keys in pi 1.6.0's order (a copy; other messages as they are)."""
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return message
    ordered = {key: message[key] for key in ASSISTANT_KEY_ORDER_1_6 if key in message}
    ordered.update((key, value) for key, value in message.items() if key not in ordered)
    return ordered


def make_message_entry(entry_id: str, parent_id: str | None, timestamp: str, message: Message) -> Entry:
    entry = _base("message", entry_id, parent_id, timestamp)
    entry["message"] = message
    return entry


def make_thinking_level_entry(entry_id: str, parent_id: str | None, timestamp: str, level: str) -> Entry:
    entry = _base("thinking_level_change", entry_id, parent_id, timestamp)
    entry["thinkingLevel"] = level
    return entry


def make_model_change_entry(
    entry_id: str, parent_id: str | None, timestamp: str, provider: str, model_id: str
) -> Entry:
    entry = _base("model_change", entry_id, parent_id, timestamp)
    entry["provider"] = provider
    entry["modelId"] = model_id
    return entry


def make_compaction_entry(
    entry_id: str,
    parent_id: str | None,
    timestamp: str,
    summary: str,
    first_kept_entry_id: str | None,
    tokens_before: int | float,
    details: Any = None,
    from_hook: bool | None = None,
    usage: Any = None,
    system_message: Message | None = None,
) -> Entry:
    """A compaction in pi's key order; ``usage`` (the summarizer's) and ``systemMessage`` (the replayed
    prompt, pi 1.6.0's checkpoint) only when given."""
    entry = _base("compaction", entry_id, parent_id, timestamp)
    entry["summary"] = summary
    _put(entry, "firstKeptEntryId", first_kept_entry_id)
    entry["tokensBefore"] = tokens_before
    _put(entry, "details", details)
    _put(entry, "usage", usage)
    _put(entry, "fromHook", from_hook)
    _put(entry, "systemMessage", system_message)
    return entry


def make_branch_summary_entry(
    entry_id: str,
    parent_id: str | None,
    timestamp: str,
    from_id: str,
    summary: str,
    details: Any = None,
    from_hook: bool | None = None,
    usage: Any = None,
) -> Entry:
    entry = _base("branch_summary", entry_id, parent_id, timestamp)
    entry["fromId"] = from_id
    entry["summary"] = summary
    _put(entry, "details", details)
    _put(entry, "usage", usage)
    _put(entry, "fromHook", from_hook)
    return entry


def make_custom_entry(
    entry_id: str, parent_id: str | None, timestamp: str, custom_type: str, data: Any = None
) -> Entry:
    entry: Entry = {"type": "custom", "customType": custom_type}
    _put(entry, "data", data)
    entry.update(id=entry_id, parentId=parent_id, timestamp=timestamp)
    return entry


def make_custom_message_entry(
    entry_id: str,
    parent_id: str | None,
    timestamp: str,
    custom_type: str,
    content: str | list[Any],
    display: bool,
    details: Any = None,
) -> Entry:
    entry: Entry = {"type": "custom_message", "customType": custom_type, "content": content, "display": display}
    _put(entry, "details", details)
    entry.update(id=entry_id, parentId=parent_id, timestamp=timestamp)
    return entry


def make_label_entry(
    entry_id: str, parent_id: str | None, timestamp: str, target_id: str, label: str | None
) -> Entry:
    entry = _base("label", entry_id, parent_id, timestamp)
    entry["targetId"] = target_id
    if label:
        entry["label"] = label
    return entry


def make_context_edit_entry(
    entry_id: str, parent_id: str | None, timestamp: str, target_id: str, replacement: dict[str, Any] | None
) -> Entry:
    """pi 1.6.0's ``context_edit``: ``replacement`` ``None`` omits the target, ``{content}`` replaces it."""
    entry = _base("context_edit", entry_id, parent_id, timestamp)
    entry["targetId"] = target_id
    entry["replacement"] = replacement
    return entry


def make_usage_entry(
    entry_id: str,
    parent_id: str | None,
    timestamp: str,
    kind: str,
    provider: str,
    model: str,
    usage: Any,
    note: str | None = None,
) -> Entry:
    """pi 1.6.0's ``usage`` entry: usage outside the context (cache warming); ``note`` only when truthy."""
    entry = _base("usage", entry_id, parent_id, timestamp)
    entry.update(kind=kind, provider=provider, model=model, usage=usage)
    if note:
        entry["note"] = note
    return entry


def make_session_info_entry(entry_id: str, parent_id: str | None, timestamp: str, name: str) -> Entry:
    entry = _base("session_info", entry_id, parent_id, timestamp)
    entry["name"] = name
    return entry


# --------------------------------------------------------------------------------------------- helpers


def message_text(content: Any, joiner: str = "") -> str:
    """Text of a message's content: the string itself, or its text blocks joined with ``joiner``."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return joiner.join(
            block.get("text", "")
            for block in content
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
        )
    return ""


# --------------------------------------------------------------------------------------------- parsing

# One decoder for every line: integers beyond 2**53 become doubles as in JS, NaN/Infinity are refused.
_line_decoder = json.JSONDecoder(parse_int=_js_int, parse_constant=_reject_constant)


@dataclass(frozen=True)
class ParsedText:
    """What pi's tolerant reader makes of a file's text (pi-spec §2.1).

    ``objects`` holds every line ``JSON.parse`` accepts, in order (any JSON value, as pi keeps them);
    ``malformed`` the 1-based line numbers it silently drops, which Arbor reports instead.
    """

    objects: list[Any]
    line_numbers: list[int]
    malformed: list[int]


_JSON_WS = " \t\r\n"


_DIGITS_TO_ZERO = bytes.maketrans(b"0123456789", b"0000000000")
_SIXTEEN_DIGITS = b"0" * 16


def _fast_parse(raw: bytes) -> Any:
    """orjson for the common line (an object, valid UTF-8, no integer that JS would round).

    Anything unusual raises, and the caller takes the exact ``JSON.parse`` path instead: lone
    surrogates, invalid UTF-8, NaN, and runs of 16+ digits (integers above 2**53 become doubles in
    JS but stay exact in orjson) all fall back. About twice as fast as the stdlib on large files.
    """
    if raw[:1] != b"{" or _has_long_integer(raw):
        raise ValueError("not for the fast path")
    return orjson.loads(raw)


_intern = sys.intern
#: Fields of a message whose values repeat across a session ("assistant", "anthropic-messages", a
#: model's name, "stop", a tool's name ...).
_MESSAGE_WORDS = ("role", "api", "provider", "model", "stopReason", "toolName")


def share_strings(obj: Any, previous_id: Any, calls: dict[str, str] | None = None) -> Any:
    """Make the strings a session repeats one object each, in place; returns ``obj``'s ``id``.

    A parser makes a new string for every value: at 100,000 entries "message", "assistant",
    "toolCall", a model's name and the like are some 700,000 copies (~40 MB, issue 10). Here the
    values of the fields that repeat are replaced by an interned copy, and a ``parentId`` equal to the
    previous line's ``id`` (``previous_id``: nearly always) by that id's own object. Values stay
    equal and keys keep their order, so the entry is the same dict and serializes to the same bytes.
    Done line by line as the file is parsed, so the copies are freed before the next line needs room.
    ``calls`` (kept by the caller across lines): the ids of recent tool calls, so a tool result's
    ``toolCallId`` becomes its call's own ``id`` object (~3 MB at 100,000 entries).
    """
    if obj.__class__ is not dict:
        return None
    value = obj.get("type")
    if value.__class__ is str:
        obj["type"] = _intern(value)
    value = obj.get("parentId")
    if value.__class__ is str and value == previous_id:
        obj["parentId"] = previous_id
    message = obj.get("message")
    if message.__class__ is dict:
        for key in _MESSAGE_WORDS:
            value = message.get(key)
            if value.__class__ is str:
                message[key] = _intern(value)
        content = message.get("content")
        if content.__class__ is list:
            for block in content:
                if block.__class__ is dict:
                    value = block.get("type")
                    if value.__class__ is str:
                        block["type"] = _intern(value)
                    value = block.get("name")
                    if value.__class__ is str:
                        block["name"] = _intern(value)
                    value = block.get("id")
                    if calls is not None and value.__class__ is str:
                        if len(calls) >= _CALLS_KEPT:
                            calls.clear()
                        calls[value] = value
        value = message.get("toolCallId")
        if calls is not None and value.__class__ is str:
            message["toolCallId"] = calls.get(value, value)
    return obj.get("id")


#: Tool-call ids :func:`share_strings` remembers (a result follows its call closely).
_CALLS_KEPT = 256


def _has_long_integer(raw: bytes) -> bool:
    """A run of 16+ digits that is not a fraction (``0.00039183999999999996`` is fine)."""
    digits = raw.translate(_DIGITS_TO_ZERO)
    at = digits.find(_SIXTEEN_DIGITS)
    while at >= 0:
        start = at
        while start > 0 and digits[start - 1] == 0x30:
            start -= 1
        if start == 0 or digits[start - 1] != 0x2E:  # not right after "."
            return True
        end = at + 16
        while end < len(digits) and digits[end] == 0x30:
            end += 1
        at = digits.find(_SIXTEEN_DIGITS, end)
    return False


MAX_NESTING = 1024
"""How deeply a line may nest arrays and objects; a deeper line is malformed (reported, left out).

orjson stops at this depth and Python's own parser near 1,000 levels, below it when the stack is
already deep, so without a fixed rule the same line could be kept on one path (opening) and lost on
another (following, a worker thread). pi's ``JSON.parse`` keeps deeper lines, but its
``JSON.stringify`` overflows V8's stack near 4,500 levels, so pi can neither send nor rewrite them.
"""

_BRACKETS = re.compile(r"[\[\]{}]")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_deep_parse = threading.Lock()


def nesting_depth(text: str, stop_above: int = MAX_NESTING) -> int:
    """How deeply ``text`` (one JSON value) nests arrays and objects, counting up to ``stop_above + 1``."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_JSON_STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop_above:
                    break
        else:
            depth -= 1
    return deepest


def _scan_line(scan: Callable[[str, int], tuple[Any, int]], text: str) -> tuple[Any, int]:
    """``scan(text, 0)``, for a line nested up to :data:`MAX_NESTING` levels wherever it is called from.

    Python's parser recurses once per level: a line it cannot finish on the stack at hand is parsed
    again with room for :data:`MAX_NESTING` more levels, unless it nests deeper than that (then it is
    malformed, without parsing it again). Raises ``ValueError`` or ``RecursionError`` for a bad line.
    """
    try:
        return scan(text, 0)
    except RecursionError:
        if nesting_depth(text) > MAX_NESTING:
            raise ValueError(f"nested more than {MAX_NESTING} levels deep") from None
    with _deep_parse:  # the limit is the process's: one raise at a time, always undone
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(limit + MAX_NESTING + 100)
        try:
            return scan(text, 0)
        finally:
            sys.setrecursionlimit(limit)


def parse_session_lines(lines: Iterable[bytes | str], *, trim_end: bool = True) -> ParsedText:
    """pi's reader over lines already split on ``\n`` (without the ``\n``): see :func:`parse_session_text`.

    pi 0.73.1 trims the whole file before splitting, which matters only at its two ends: leading
    JavaScript whitespace (a BOM, say) before the first non-blank line and trailing whitespace after
    the last one are ignored; anywhere else such characters make the line malformed, as in pi.
    pi 1.6.0 no longer trims the text (``trim_end=False``): JavaScript whitespace after the last
    line's JSON (U+00A0, U+2028, a BOM) makes that line malformed too. Leading whitespace is ignored
    either way: pi 1.6.0 refuses such a file, Arbor opens it (README, loading stays lenient).
    Working line by line keeps a large file from being held as one string (and copied by ``trim``).
    """
    objects: list[Any] = []
    numbers: list[int] = []
    malformed: list[int] = []
    scan = _line_decoder.scan_once  # type: ignore[attr-defined]  # the C scanner, without decode()'s wrapper
    started = False
    last_bad: tuple[int, str] | None = None  # the last non-blank line, if it failed to parse
    number = 0
    previous_id: Any = None
    calls: dict[str, str] = {}
    for number, item in enumerate(lines, 1):  # noqa: B007 - `number` is used after the loop
        if isinstance(item, bytes):
            if started:
                try:
                    obj = _fast_parse(item)
                    previous_id = share_strings(obj, previous_id, calls)
                    objects.append(obj)
                    numbers.append(number)
                    last_bad = None
                    continue
                except ValueError:
                    pass
            raw = item.decode("utf-8", errors="replace")  # Node's readFileSync("utf8") does the same
        else:
            raw = item
        line = raw if started else raw.lstrip(_JS_WS_CHARS)
        if not line or not js_trim(line):  # JS trim: "\x1c" or "\x85" alone is not blank
            continue
        started = True
        text = line.strip(_JSON_WS)
        try:
            obj, end = _scan_line(scan, text)
            if end != len(text):
                raise ValueError("extra data")
        except (ValueError, StopIteration, RecursionError):
            malformed.append(number)
            last_bad = (number, line)
            continue
        last_bad = None
        previous_id = share_strings(obj, previous_id, calls)
        objects.append(obj)
        numbers.append(number)
    if last_bad is not None and trim_end:
        # the file's final trim also removes trailing JS whitespace (e.g. U+00A0) from the last line
        bad_number, bad_line = last_bad
        trimmed = bad_line.rstrip(_JS_WS_CHARS).strip(_JSON_WS)
        if trimmed != bad_line.strip(_JSON_WS):
            try:
                obj, end = _scan_line(scan, trimmed)
                if end == len(trimmed):
                    malformed.remove(bad_number)
                    objects.append(obj)
                    numbers.append(bad_number)
            except (ValueError, StopIteration, RecursionError):
                pass
    return ParsedText(objects, numbers, malformed)


def parse_session_text(text: str, *, trim_end: bool = True) -> ParsedText:
    """Trim, split on ``\n``, skip blank lines, ``JSON.parse`` the rest, drop what fails (pi-spec §2.1).

    ``trim_end=False``: the end of the text is not trimmed, as pi 1.6.0's loader reads a file.
    """
    return parse_session_lines(text.split("\n"), trim_end=trim_end)
