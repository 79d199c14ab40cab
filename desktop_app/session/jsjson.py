"""JSON exactly as JavaScript's ``JSON.parse`` / ``JSON.stringify`` see it.

pi is a Node program: the bytes it writes, the string lengths it counts and the numbers it keeps are
JavaScript's. Python's ``json`` differs in small ways that matter for byte-compatible files and for
token estimates (pi-spec §2.1, §5.2): number formatting (``1.0`` → ``1``, ``1e-7`` not ``1e-07``,
``1e+21``), integers above 2**53 (JS rounds them to doubles), ``NaN``/``Infinity`` (JS rejects them on
parse and writes ``null``), integer-like object keys (JS lists them first, ascending) and lone
surrogates (JS escapes them). Everything in the engine that reads or writes JSON goes through here.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

import orjson

__all__ = [
    "js_truthy",
    "UNDEFINED",
    "JSONParseError",
    "js_join",
    "js_number",
    "js_parse",
    "js_same",
    "js_string",
    "js_stringify",
    "js_trim",
    "utf16_len",
    "utf16_slice",
]

_MAX_SAFE = 2**53
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_encode_str = json.encoder.encode_basestring  # the ensure_ascii=False flavour (C-accelerated)


class JSONParseError(ValueError):
    """A line that ``JSON.parse`` would reject."""


def _reject_constant(name: str) -> Any:
    raise JSONParseError(f"{name} is not JSON")


def _js_int(text: str) -> int | float:
    value = int(text)
    if -_MAX_SAFE <= value <= _MAX_SAFE:
        return value
    return float(value)  # JS keeps only a double


def _js_float(text: str) -> float | int:
    value = float(text)
    if math.isinf(value):
        return value  # JSON.parse("1e999") is Infinity; stringify writes null
    return value


_decoder = json.JSONDecoder(parse_int=_js_int, parse_float=_js_float, parse_constant=_reject_constant)


def js_parse(text: str) -> Any:
    """Parse one JSON text as ``JSON.parse`` would (raises :class:`JSONParseError`)."""
    try:
        return _decoder.decode(text)
    except JSONParseError:
        raise
    except (ValueError, RecursionError) as exc:
        raise JSONParseError(str(exc)) from exc


def js_number(value: float | int) -> str:
    """Format a number as JavaScript's ``Number.prototype.toString`` (and JSON.stringify) does."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if -_MAX_SAFE <= value <= _MAX_SAFE:
            return str(value)
        value = float(value)
    if math.isnan(value) or math.isinf(value):
        return "null"
    if value == 0:
        return "0"  # also -0
    if value.is_integer() and abs(value) < 1e21:
        digits_exp = repr(value)
        if "e" not in digits_exp and "E" not in digits_exp:
            return str(int(value))
    sign = "-" if value < 0 else ""
    mantissa, _, exp_text = f"{abs(value)!r}".partition("e")
    exp = int(exp_text) if exp_text else 0
    int_part, _, frac_part = mantissa.partition(".")
    digits = (int_part + frac_part).lstrip("0")
    # position of the decimal point relative to the start of `digits`
    lead_zeros = len(int_part + frac_part) - len((int_part + frac_part).lstrip("0"))
    n = len(int_part) - lead_zeros + exp
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + out


def _js_string(value: str) -> str:
    encoded: str = _encode_str(value)
    if _LONE_SURROGATE.search(value):
        encoded = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded)
    return encoded


def _ordered_items(obj: dict[str, Any]) -> list[tuple[str, Any]]:
    items = list(obj.items())
    index_keys = [(k, v) for k, v in items if _ARRAY_INDEX.fullmatch(k) and int(k) < 2**32 - 1]
    if not index_keys:
        return items
    index_keys.sort(key=lambda kv: int(kv[0]))
    return index_keys + [(k, v) for k, v in items if not (_ARRAY_INDEX.fullmatch(k) and int(k) < 2**32 - 1)]


def _stringify(value: Any, out: list[str]) -> bool:
    """Append JSON of ``value`` to ``out``; False means "undefined" (the key or value is omitted)."""
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_js_string(value))
    elif isinstance(value, (int, float)):
        out.append(js_number(value))
    elif isinstance(value, dict):
        out.append("{")
        first = True
        for key, item in _ordered_items(value):
            if item is _UNDEFINED:
                continue
            mark = len(out)
            if not first:
                out.append(",")
            out.append(_js_string(str(key)))
            out.append(":")
            if not _stringify(item, out):
                del out[mark:]
                continue
            first = False
        out.append("}")
    elif isinstance(value, (list, tuple)):
        _stringify_array(value, out)
    elif value is _UNDEFINED:
        return False
    else:
        raise TypeError(f"cannot serialize {type(value).__name__}")
    return True


def _stringify_array(value: list[Any] | tuple[Any, ...], out: list[str]) -> None:
    """Append JSON of an array: an ``undefined`` element is written ``null``, as JavaScript does. (Its
    own step, not :func:`_stringify`'s: arrays are fewer than objects in an entry, so the extra call
    costs least here.)"""
    out.append("[")
    for i, item in enumerate(value):
        if i:
            out.append(",")
        if not _stringify(item, out):
            out.append("null")
    out.append("]")


class _Undefined:
    """JavaScript's ``undefined``: keys holding it are omitted by :func:`js_stringify`."""

    def __repr__(self) -> str:
        return "undefined"


_UNDEFINED = _Undefined()
UNDEFINED: Any = _UNDEFINED


def js_stringify(value: Any) -> str:
    """``JSON.stringify(value)`` without indentation, byte for byte as Node prints it.

    Any depth: a value nested deeper than Python's recursion allows (JSON.parse takes ~1000 levels
    and so does the line parser) is written by :func:`_stringify_deep` instead.
    """
    out: list[str] = []
    try:
        if not _stringify(value, out):
            return "undefined"
    except RecursionError:
        return _stringify_deep(value)
    return "".join(out)


def js_same(a: Any, b: Any) -> bool:
    """``JSON.stringify(a) === JSON.stringify(b)``, asked of whole entry lists by ``arbor inspect``.

    orjson keeps insertion order and Python's types, so equal orjson bytes mean the same JS text; only
    when they differ (or orjson refuses a value: an integer past 64 bits, a lone surrogate, undefined)
    does the exact, ~10x slower :func:`js_stringify` decide.
    """
    try:
        if orjson.dumps(a) == orjson.dumps(b):
            return True
    except (TypeError, orjson.JSONEncodeError):
        pass
    return js_stringify(a) == js_stringify(b)


def _stringify_deep(value: Any) -> str:
    """:func:`_stringify` with an explicit stack instead of recursion (same output)."""
    out: list[str] = []
    stack: list[list[Any]] = []  # [is_dict, item iterator, nothing written yet]

    def write(item: Any) -> None:
        if isinstance(item, dict):
            out.append("{")
            stack.append([True, iter(_ordered_items(item)), True])
        elif isinstance(item, (list, tuple)):
            out.append("[")
            stack.append([False, iter(item), True])
        else:
            _stringify(item, out)

    if value is _UNDEFINED:
        return "undefined"
    write(value)
    while stack:
        frame = stack[-1]
        try:
            item = next(frame[1])
        except StopIteration:
            out.append("}" if frame[0] else "]")
            stack.pop()
            continue
        if frame[0]:
            key, item = item
            if item is _UNDEFINED:
                continue
            if not frame[2]:
                out.append(",")
            out.append(_js_string(str(key)))
            out.append(":")
        else:
            if not frame[2]:
                out.append(",")
            if item is _UNDEFINED:
                item = None
        frame[2] = False
        write(item)
    return "".join(out)


def utf16_len(text: str) -> int:
    """``text.length`` in JavaScript: UTF-16 code units (astral characters count 2)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


# JavaScript's String.prototype.trim whitespace: WhiteSpace + LineTerminator.
_JS_WS = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """``String.prototype.trim``: strips JS whitespace, including the BOM (U+FEFF)."""
    return text.strip(_JS_WS)


# --------------------------------------------------------------------- string conversions
# pi builds summaries and file lists by concatenation; an odd value (a number where text was expected,
# a null in a list) converts the JavaScript way, and serialized conversations depend on it.

def js_string(value: Any) -> str:
    """``String(value)`` / template-literal conversion for JSON values."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, list):
        return js_join(value, ",")
    return "[object Object]"


def js_join(values: Iterable[Any], separator: str) -> str:
    """``array.join(separator)``: ``null`` and ``undefined`` elements join as empty strings."""
    return separator.join("" if value is None else js_string(value) for value in values)


def utf16_slice(text: str, start: int, end: int | None = None) -> str:
    """``text.slice(start, end)`` in UTF-16 code units; may leave a lone surrogate, as JavaScript does."""
    if text.isascii():
        return text[start:end]
    units = text.encode("utf-16-le", "surrogatepass")
    stop = None if end is None else 2 * end
    return units[2 * start : stop].decode("utf-16-le", "surrogatepass")


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness (``if (value)``): ``null``, ``false``, ``0``, ``NaN`` and ``""`` are false;
    every object and array, even an empty one, is true."""
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0 and value == value  # NaN != NaN
    if isinstance(value, str):
        return value != ""
    return True
