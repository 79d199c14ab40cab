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

__all__ = ["current_system_message", "content_text", "system_prompt_update"]


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


def system_prompt_update(
    current: Message | None, sections: dict[str, str], tools: list[dict[str, Any]], timestamp: int
) -> Message | None:
    """The ``system`` message pi 1.6.0 would append so that the replayed prompt becomes ``sections``
    and ``tools``, or ``None`` when the replay ``current`` already says that.

    The first record is the whole prompt (``content: ""``, the sections, every tool declaration);
    later ones carry only what changed: changed sections, ``null`` for a section that is gone, the
    declarations of added or changed tools and the names of removed ones.
    """
    old_sections = current.get("sections") if current is not None else None
    old_sections = old_sections if isinstance(old_sections, dict) else {}
    old_tools = current.get("toolsAdded") if current is not None else None
    by_name = {t.get("name"): t for t in old_tools if isinstance(t, dict)} if isinstance(old_tools, list) else {}
    changed: dict[str, Any] = {name: text for name, text in sections.items() if old_sections.get(name) != text}
    changed.update({name: None for name in old_sections if name not in sections})
    names = {t.get("name") for t in tools}
    added = [t for t in tools if by_name.get(t.get("name")) != t]
    removed = [{"name": name} for name in by_name if name not in names]
    if current is not None and not changed and not added and not removed:
        return None
    update: Message = {"role": "system", "content": ""}
    if changed:
        update["sections"] = changed
    if added:
        update["toolsAdded"] = added
    if removed:
        update["toolsRemoved"] = removed
    update["timestamp"] = timestamp
    return update
