"""What an entry *is* and what it *says*, in the words of pi's ``/tree`` selector (pi-spec §6.2).

Pure Python, no Qt: the graph model, the search and the tooltips all read from here, so a node
shows the same one-liner a pi user sees in ``/tree`` and a search matches what pi's search matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from desktop_app.compaction.prompts import BRANCH_SUMMARY_PREAMBLE
from desktop_app.session.entries import Entry
from desktop_app.session.jsjson import js_trim
from desktop_app.tools.display import js_text as _js_string
from desktop_app.tools.display import one_line as _normalize
from desktop_app.tools.registry import format_tool_call

from .pi16_words import edit_text, system_summary, system_text, usage_text

__all__ = [
    "KINDS",
    "KIND_TITLES",
    "ToolCalls",
    "entry_kind",
    "entry_text",
    "has_text_content",
    "searchable_text",
    "tool_calls_of",
    "full_text",
    "summary_headline",
]


#: Short names shown in the small tag on each node.
KIND_TITLES = {
    "user": "user",
    "assistant": "assistant",
    "toolResult": "tool result",
    "bashExecution": "bash",
    "custom_message": "custom message",
    "custom": "custom",
    "model_change": "model",
    "thinking_level_change": "thinking",
    "compaction": "COMPACTION",
    "branch_summary": "BRANCH SUMMARY",
    "label": "label",
    "session_info": "title",
    "system": "SYSTEM",
    "context_edit": "CONTEXT EDIT",
    "usage": "usage",
    "unknown": "entry",
    "segment": "folded",
}

#: Every value :func:`entry_kind` can return (``"segment"``, a folded run, is the model's own).
KINDS = tuple(kind for kind in KIND_TITLES if kind != "segment")


_MESSAGE_ROLES = {
    "user": "user",
    "assistant": "assistant",
    "toolResult": "toolResult",
    "bashExecution": "bashExecution",
    "custom": "custom_message",  # v2-migrated hook messages and direct appendMessage calls
    "system": "system",  # pi 1.6.0: the system prompt and tool set, and changes to them
}
_PLAIN_TYPES = frozenset(
    {
        "custom_message",
        "custom",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "label",
        "session_info",
        "context_edit",  # pi 1.6.0
        "usage",  # pi 1.6.0
    }
)

#: toolCallId → the ``toolCall`` block (its ``name`` and ``arguments``), collected from assistant
#: messages (pi's ``toolCallMap``). The entries' own blocks: a tuple of its own for each call was
#: ~3 MB at 100,000 entries.
ToolCalls = dict[str, dict[str, Any]]

_CONTENT_MAX = 200  # pi's extractContent limit, shared by the display line and the search text


def entry_kind(entry: Entry) -> str:
    """The node kind: the message role for ``message`` entries, else the entry type."""
    entry_type = entry.get("type")
    if entry_type == "message":
        message = entry.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        return _MESSAGE_ROLES.get(role, "unknown") if isinstance(role, str) else "unknown"
    if isinstance(entry_type, str) and entry_type in _PLAIN_TYPES:
        return entry_type
    return "unknown"


def _extract_content(content: Any, limit: int | None = _CONTENT_MAX) -> str:
    """pi's ``extractContent``: the string, or text blocks concatenated, cut at ``limit`` chars."""
    if isinstance(content, str):
        return content if limit is None else content[:limit]
    if not isinstance(content, list):
        return ""
    out = ""
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            out += text if isinstance(text, str) else ""
            if limit is not None and len(out) >= limit:
                return out[:limit]
    return out


def has_text_content(content: Any) -> bool:
    """pi's ``hasTextContent``: some text block (or the string itself) is not blank."""
    if isinstance(content, str):
        return bool(js_trim(content))
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str) and js_trim(text):
                    return True
    return False


def tool_calls_of(entry: Entry) -> list[dict[str, Any]]:
    """The ``toolCall`` blocks with a string ``id`` in an assistant entry (empty otherwise)."""
    if entry.get("type") != "message":
        return []
    message = entry.get("message")
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return []
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [
        block
        for block in content
        if isinstance(block, dict) and block.get("type") == "toolCall" and isinstance(block.get("id"), str)
    ]


def _format_call(call: Mapping[str, Any]) -> str:
    """:func:`format_tool_call` of a ``toolCall`` block."""
    return format_tool_call(str(call.get("name", "")), call.get("arguments"))


def entry_text(entry: Entry, tool_calls: Mapping[str, dict[str, Any]] | None = None) -> str:
    """The one-line text pi's ``/tree`` shows for an entry, without the ``user: `` style prefix.

    The role is what the node's shape and colour say; the text is what the entry says.
    """
    entry_type = entry.get("type")
    if entry_type == "message":
        message = entry.get("message")
        if not isinstance(message, dict):
            return "[message]"
        role = message.get("role")
        if role == "user":
            return _normalize(_extract_content(message.get("content")))
        if role == "assistant":
            text = _normalize(_extract_content(message.get("content")))
            if text:
                return text
            if message.get("stopReason") == "aborted":
                return "(aborted)"
            error = message.get("errorMessage")
            if error:
                return _normalize(_js_string(error))[:80]
            calls = tool_calls_of(entry)
            if calls:  # pi shows "(no content)"; the graph names the calls instead, they are the content
                return "→ " + ", ".join(str(call.get("name", "")) for call in calls)
            return "(no content)"
        if role == "toolResult":
            call = (tool_calls or {}).get(message.get("toolCallId"))  # type: ignore[arg-type]
            if call is not None:
                return _format_call(call)
            return f"[{message.get('toolName') or 'tool'}]"
        if role == "bashExecution":
            return f"[bash]: {_normalize(_js_string(message.get('command')))}"
        if role == "custom":
            return f"[{_js_string(message.get('customType'))}]: {_normalize(_extract_content(message.get('content')))}"
        if role == "system":
            return system_summary(message, whole=None)
        return f"[{_js_string(role)}]"
    if entry_type == "custom_message":
        return f"[{_js_string(entry.get('customType'))}]: {_normalize(_extract_content(entry.get('content'), None))}"
    if entry_type == "compaction":
        tokens = entry.get("tokensBefore")
        if isinstance(tokens, (int, float)) and not isinstance(tokens, bool):
            return f"[compaction: {round(tokens / 1000)}k tokens]"
        return "[compaction]"
    if entry_type == "branch_summary":
        return f"[branch summary]: {_normalize(_js_string(entry.get('summary')))}"
    if entry_type == "model_change":
        return f"[model: {_js_string(entry.get('modelId'))}]"
    if entry_type == "thinking_level_change":
        return f"[thinking: {_js_string(entry.get('thinkingLevel'))}]"
    if entry_type == "custom":
        return f"[custom: {_js_string(entry.get('customType'))}]"
    if entry_type == "label":
        label = entry.get("label")
        return f"[label: {label if label is not None else '(cleared)'}]"
    if entry_type == "session_info":
        name = entry.get("name")
        name = js_trim(name) if isinstance(name, str) else ""
        return f"[title: {name}]" if name else "[title: empty]"
    if entry_type == "context_edit":
        return edit_text(entry, None)
    if entry_type == "usage":
        return usage_text(entry)
    return f"[{_js_string(entry_type) or 'unknown'}]"


def searchable_text(entry: Entry, label: str | None = None) -> str:
    """pi's ``getSearchableText``: label + role/type words + content; matched lower-cased."""
    parts: list[str] = []
    if label:
        parts.append(label)
    entry_type = entry.get("type")
    if entry_type == "message":
        message = entry.get("message")
        if isinstance(message, dict):
            parts.append(_js_string(message.get("role")))
            if message.get("content"):
                parts.append(_extract_content(message.get("content")))
            if message.get("role") == "bashExecution" and message.get("command"):
                parts.append(_js_string(message.get("command")))
    elif entry_type == "custom_message":
        parts.append(_js_string(entry.get("customType")))
        parts.append(_extract_content(entry.get("content")))
    elif entry_type == "compaction":
        parts.append("compaction")
    elif entry_type == "branch_summary":
        parts += ["branch summary", _js_string(entry.get("summary"))]
    elif entry_type == "model_change":
        parts += ["model", _js_string(entry.get("modelId"))]
    elif entry_type == "thinking_level_change":
        parts += ["thinking", _js_string(entry.get("thinkingLevel"))]
    elif entry_type == "custom":
        parts += ["custom", _js_string(entry.get("customType"))]
    elif entry_type == "label":
        parts += ["label", _js_string(entry.get("label"))]
    elif entry_type == "session_info":
        parts += ["title", _js_string(entry.get("name"))]
    return " ".join(parts)


def full_text(entry: Entry, limit: int = 1200) -> str:
    """A longer preview for tooltips: the whole text of the entry, cut at ``limit`` characters."""
    entry_type = entry.get("type")
    text = ""
    if entry_type == "message":
        message = entry.get("message")
        if isinstance(message, dict):
            role = message.get("role")
            if role == "bashExecution":
                text = f"$ {_js_string(message.get('command'))}\n{_js_string(message.get('output'))}"
            elif role == "system":
                text = system_text(message)
            else:
                text = _extract_content(message.get("content"), None)
                if role == "assistant":
                    calls = tool_calls_of(entry)
                    if calls:
                        text += "".join(f"\n→ {_format_call(call)}" for call in calls)
                    if not text and message.get("errorMessage"):
                        text = _js_string(message.get("errorMessage"))
    elif entry_type in ("compaction", "branch_summary"):
        text = _js_string(entry.get("summary"))
    elif entry_type == "custom_message":
        text = _extract_content(entry.get("content"), None)
    else:
        text = entry_text(entry)
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summary_headline(summary: str) -> str:
    """The first line of a summary that says something: no preamble, headings or list markers."""
    text = summary.removeprefix(BRANCH_SUMMARY_PREAMBLE)
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line in ("---", "***"):
            continue
        for marker in ("- [x] ", "- [ ] ", "- ", "* ", "> "):
            if line.startswith(marker):
                line = line[len(marker) :]
                break
        line = line.strip("*_ ")
        if line:
            return line
    return text.strip()
