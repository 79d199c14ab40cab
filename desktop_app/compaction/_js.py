"""The few JavaScript string conversions pi's summaries rely on (``String(x)``, ``join``, ``slice``).

Summaries and file lists are built by string concatenation in pi; when a session holds an odd value
(a number where text was expected, a ``null`` in a list) JavaScript converts it in a specific way, and
the serialized conversation (hashed in the conformance data) depends on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from desktop_app.session.jsjson import js_number

__all__ = ["UNDEFINED_TEXT", "js_string", "js_join", "utf16_slice"]

UNDEFINED_TEXT = "undefined"


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
