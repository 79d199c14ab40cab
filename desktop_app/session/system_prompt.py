"""The system prompt as pi 1.6.0 replays it from ``system`` messages (pi16-delta.md §4.1, §2.5).

pi 1.6.0 records the prompt in the session: the first ``system`` message is the prompt (plain
``content``, or named ``sections`` with pi's own prompt), later ones change it (more content, sections
replaced or removed with ``null``, tools added and removed). A compaction stores the replayed result as
its ``systemMessage`` checkpoint, and ``tokensBefore`` counts it, so the replay must give pi's object
key for key.
"""

from __future__ import annotations

from typing import Any

from .entries import Message
from .jsjson import js_join

__all__ = ["current_system_message", "content_text"]


def content_text(content: Any) -> str:
    """``contentText``: a string as is, an array's text blocks joined with ``"\\n"``."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return js_join((b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"), "\n")


def current_system_message(messages: list[Message]) -> Message | None:
    """pi's ``getCurrentSystemMessage``: the prompt after every ``system`` message in ``messages``.

    ``None`` when no system message had a timestamp and no tool is declared.
    """
    timestamp: Any = None
    texts: list[str] = []
    sections: dict[str, Any] = {}
    tools: dict[Any, Any] = {}
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "system":
            continue
        if timestamp is None:
            timestamp = message.get("timestamp")
        text = content_text(message.get("content"))
        if text:
            texts.append(text)
        changes = message.get("sections")
        if isinstance(changes, dict):
            for name, value in changes.items():
                if value is None:
                    sections.pop(name, None)
                else:
                    sections[name] = value
        removed = message.get("toolsRemoved")
        for tool in removed if isinstance(removed, list) else []:
            if isinstance(tool, dict):
                _pop(tools, tool.get("name"))
        added = message.get("toolsAdded")
        for tool in added if isinstance(added, list) else []:
            if isinstance(tool, dict):
                _set(tools, tool.get("name"), tool)
    if timestamp is None and not tools:
        return None
    out: Message = {"role": "system", "content": "\n\n".join(texts)}
    if sections:
        out["sections"] = sections
    if tools:
        out["toolsAdded"] = list(tools.values())
    out["timestamp"] = timestamp if timestamp is not None else 0
    return out


def _pop(tools: dict[Any, Any], name: Any) -> None:
    try:
        tools.pop(name, None)
    except TypeError:  # an unhashable name in a hand-edited file: nothing to remove
        pass


def _set(tools: dict[Any, Any], name: Any, tool: Any) -> None:
    try:
        tools[name] = tool
    except TypeError:
        pass
