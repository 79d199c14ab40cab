"""Text helpers for showing a tool call: pi's ``formatToolCall`` pieces and the chat's argument text.

Each tool's ``format_call`` (its line in pi's ``/tree``, pi-spec §6.2) is built from these, and
:func:`format_other_call` is pi's text for a tool Arbor does not know. ``present/`` uses the same
:func:`js_text` and :func:`one_line` for the other entries' lines, so every line converts values alike.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from desktop_app.session.jsjson import js_trim

__all__ = [
    "js_text", "one_line", "shorten_path", "first_arg", "shown_text", "format_other_call", "command_rest",
]


def js_text(value: Any) -> str:
    """A value in a ``/tree`` line: ``None`` as empty, booleans as JavaScript spells them."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def one_line(text: str) -> str:
    """Newlines and tabs as spaces, trimmed as JavaScript trims."""
    return js_trim(text.replace("\n", " ").replace("\t", " "))


def shorten_path(path: str) -> str:
    """A path under the home folder as ``~/...``."""
    home = os.path.expanduser("~")
    if home and home != "~" and path.startswith(home):
        return "~" + path[len(home) :]
    return path


def first_arg(args: Mapping[str, Any], *keys: str, default: str = "") -> str:
    """``String(args.a || args.b || default)``: the first truthy value."""
    for key in keys:
        value = args.get(key)
        if value:
            return js_text(value)
    return default


def shown_text(value: Any) -> str:
    """A value shown as text in the chat: strings as-is, ``None`` as empty, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def format_other_call(name: str, arguments: Any) -> str:
    """pi's ``formatToolCall`` for a tool it has no words for: ``[name: <first 40 chars of JSON>...]``."""
    try:
        text = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = ""
    return f"[{name}: {text[:40]}{'...' if len(text) > 40 else ''}]"


def command_rest(text: str) -> str:
    """The offline model's command form: what follows the tool's name on the first line, trimmed."""
    return text.partition("\n")[0].strip()
