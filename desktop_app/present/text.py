"""What an entry *is* and what it *says*, in the words of pi's ``/tree`` selector (pi-spec §6.2).

Pure Python, no Qt: the graph model, the search and the tooltips all read from here, so a node
shows the same one-liner a pi user sees in ``/tree`` and a search matches what pi's search matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, assert_never

from desktop_app.compaction.prompts import BRANCH_SUMMARY_PREAMBLE
from desktop_app.session.entries import Entry
from desktop_app.session.jsjson import js_trim
from desktop_app.session.kinds import BlockKind, EntryKind, Role, block_kind, kind_of, message_of, role_of
from desktop_app.tools.display import js_text as _js_string
from desktop_app.tools.display import one_line as _normalize
from desktop_app.tools.registry import format_tool_call

from .pi16_words import edit_text, system_summary, system_text, usage_text

__all__ = [
    "KIND_TITLES",
    "NodeKind",
    "ToolCalls",
    "entry_kind",
    "entry_text",
    "has_text_content",
    "searchable_text",
    "tool_calls_of",
    "full_text",
    "summary_headline",
]


class NodeKind(StrEnum):
    """What a node of the tree stands for, in pi's ``/tree`` words: the role of a message entry's
    message, the type of any other entry, or a folded run (:attr:`SEGMENT`, the graph model's own).

    Views key shapes, colours and tags by these; the values are the strings they always were, so a
    view that still compares with ``"user"`` sees no change."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL_RESULT = "toolResult"
    BASH_EXECUTION = "bashExecution"
    CUSTOM_MESSAGE = "custom_message"
    CUSTOM = "custom"
    MODEL_CHANGE = "model_change"
    THINKING_LEVEL_CHANGE = "thinking_level_change"
    COMPACTION = "compaction"
    BRANCH_SUMMARY = "branch_summary"
    LABEL = "label"
    SESSION_INFO = "session_info"
    SYSTEM = "system"
    CONTEXT_EDIT = "context_edit"
    USAGE = "usage"
    UNKNOWN = "unknown"
    SEGMENT = "segment"


#: Short names shown in the small tag on each node.
KIND_TITLES: dict[str, str] = {
    NodeKind.USER: "user",
    NodeKind.ASSISTANT: "assistant",
    NodeKind.TOOL_RESULT: "tool result",
    NodeKind.BASH_EXECUTION: "bash",
    NodeKind.CUSTOM_MESSAGE: "custom message",
    NodeKind.CUSTOM: "custom",
    NodeKind.MODEL_CHANGE: "model",
    NodeKind.THINKING_LEVEL_CHANGE: "thinking",
    NodeKind.COMPACTION: "COMPACTION",
    NodeKind.BRANCH_SUMMARY: "BRANCH SUMMARY",
    NodeKind.LABEL: "label",
    NodeKind.SESSION_INFO: "title",
    NodeKind.SYSTEM: "SYSTEM",
    NodeKind.CONTEXT_EDIT: "CONTEXT EDIT",
    NodeKind.USAGE: "usage",
    NodeKind.UNKNOWN: "entry",
    NodeKind.SEGMENT: "folded",
}

#: The node of a message entry, by its message's role; roles not here (pi's summary and hook
#: messages, which entries do not store) are :attr:`NodeKind.UNKNOWN`.
_ROLE_NODES: dict[Role, NodeKind] = {
    Role.USER: NodeKind.USER,
    Role.ASSISTANT: NodeKind.ASSISTANT,
    Role.TOOL_RESULT: NodeKind.TOOL_RESULT,
    Role.BASH_EXECUTION: NodeKind.BASH_EXECUTION,
    Role.CUSTOM: NodeKind.CUSTOM_MESSAGE,  # v2-migrated hook messages and direct appendMessage calls
    Role.SYSTEM: NodeKind.SYSTEM,  # pi 1.6.0: the system prompt and tool set, and changes to them
}
#: The node of every other entry, by its kind; the header and unknown types are :attr:`NodeKind.UNKNOWN`.
_ENTRY_NODES: dict[EntryKind, NodeKind] = {
    EntryKind.CUSTOM_MESSAGE: NodeKind.CUSTOM_MESSAGE,
    EntryKind.CUSTOM: NodeKind.CUSTOM,
    EntryKind.MODEL_CHANGE: NodeKind.MODEL_CHANGE,
    EntryKind.THINKING_LEVEL_CHANGE: NodeKind.THINKING_LEVEL_CHANGE,
    EntryKind.COMPACTION: NodeKind.COMPACTION,
    EntryKind.BRANCH_SUMMARY: NodeKind.BRANCH_SUMMARY,
    EntryKind.LABEL: NodeKind.LABEL,
    EntryKind.SESSION_INFO: NodeKind.SESSION_INFO,
    EntryKind.CONTEXT_EDIT: NodeKind.CONTEXT_EDIT,  # pi 1.6.0
    EntryKind.USAGE: NodeKind.USAGE,  # pi 1.6.0
}

#: toolCallId → the ``toolCall`` block (its ``name`` and ``arguments``), collected from assistant
#: messages (pi's ``toolCallMap``). The entries' own blocks: a tuple of its own for each call was
#: ~3 MB at 100,000 entries.
ToolCalls = dict[str, dict[str, Any]]

_CONTENT_MAX = 200  # pi's extractContent limit, shared by the display line and the search text

# Python 3.11 reads an enum member through its metaclass, several times slower than a global: the
# helpers below run once per entry or block of a 100,000-entry file, so they compare with these.
_MESSAGE, _ASSISTANT, _TEXT, _TOOL_CALL = EntryKind.MESSAGE, Role.ASSISTANT, BlockKind.TEXT, BlockKind.TOOL_CALL
_USER = Role.USER
# Members read once: in Python 3.11 reading one off its enum costs ~100 ns, as much as the rest of a lookup.
_UNKNOWN_NODE = NodeKind.UNKNOWN


def entry_kind(entry: Entry) -> NodeKind:
    """The node kind: the message role for ``message`` entries, else the entry type."""
    kind = kind_of(entry)
    if kind is _MESSAGE:
        return _ROLE_NODES.get(role_of(entry.get("message")), _UNKNOWN_NODE)
    return _ENTRY_NODES.get(kind, _UNKNOWN_NODE)


def _extract_content(content: Any, limit: int | None = _CONTENT_MAX) -> str:
    """pi's ``extractContent``: the string, or text blocks concatenated, cut at ``limit`` chars."""
    if isinstance(content, str):
        return content if limit is None else content[:limit]
    if not isinstance(content, list):
        return ""
    out = ""
    for block in content:
        if block_kind(block) is _TEXT:
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
            if block_kind(block) is _TEXT:
                text = block.get("text")
                if isinstance(text, str) and js_trim(text):
                    return True
    return False


def tool_calls_of(entry: Entry) -> list[dict[str, Any]]:
    """The ``toolCall`` blocks with a string ``id`` in an assistant entry (empty otherwise)."""
    message = message_of(entry)
    if message is None or role_of(message) is not _ASSISTANT:
        return []
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [
        block
        for block in content
        if block_kind(block) is _TOOL_CALL and isinstance(block.get("id"), str)
    ]


def _format_call(call: Mapping[str, Any]) -> str:
    """:func:`format_tool_call` of a ``toolCall`` block."""
    return format_tool_call(str(call.get("name", "")), call.get("arguments"))


def entry_text(entry: Entry, tool_calls: Mapping[str, dict[str, Any]] | None = None) -> str:
    """The one-line text pi's ``/tree`` shows for an entry, without the ``user: `` style prefix.

    The role is what the node's shape and colour say; the text is what the entry says.
    """
    kind = kind_of(entry)
    if kind is _MESSAGE:  # most entries: before the match, whose value patterns each read an enum member
        return _message_entry_text(entry, tool_calls)
    match kind:
        case EntryKind.MESSAGE:
            return _message_entry_text(entry, tool_calls)
        case EntryKind.CUSTOM_MESSAGE:
            return f"[{_js_string(entry.get('customType'))}]: {_normalize(_extract_content(entry.get('content'), None))}"
        case EntryKind.COMPACTION:
            tokens = entry.get("tokensBefore")
            if isinstance(tokens, (int, float)) and not isinstance(tokens, bool):
                return f"[compaction: {round(tokens / 1000)}k tokens]"
            return "[compaction]"
        case EntryKind.BRANCH_SUMMARY:
            return f"[branch summary]: {_normalize(_js_string(entry.get('summary')))}"
        case EntryKind.MODEL_CHANGE:
            return f"[model: {_js_string(entry.get('modelId'))}]"
        case EntryKind.THINKING_LEVEL_CHANGE:
            return f"[thinking: {_js_string(entry.get('thinkingLevel'))}]"
        case EntryKind.CUSTOM:
            return f"[custom: {_js_string(entry.get('customType'))}]"
        case EntryKind.LABEL:
            label = entry.get("label")
            return f"[label: {label if label is not None else '(cleared)'}]"
        case EntryKind.SESSION_INFO:
            name = entry.get("name")
            name = js_trim(name) if isinstance(name, str) else ""
            return f"[title: {name}]" if name else "[title: empty]"
        case EntryKind.CONTEXT_EDIT:
            return edit_text(entry, None)
        case EntryKind.USAGE:
            return usage_text(entry)
        case EntryKind.HEADER | EntryKind.UNKNOWN:
            return f"[{_js_string(entry.get('type')) or 'unknown'}]"
        case _ as unreachable:
            assert_never(unreachable)


def _message_entry_text(entry: Entry, tool_calls: Mapping[str, dict[str, Any]] | None) -> str:
    message = entry.get("message")
    return _message_text(entry, message, tool_calls) if isinstance(message, dict) else "[message]"


def _message_text(entry: Entry, message: dict[str, Any], tool_calls: Mapping[str, dict[str, Any]] | None) -> str:
    """:func:`entry_text` of a message entry, by its message's role."""
    role = role_of(message)
    if role is _USER or role is _ASSISTANT:  # the common roles before the match: see entry_text
        return _user_or_assistant_text(entry, message, role)
    match role:
        case Role.USER | Role.ASSISTANT:
            return _user_or_assistant_text(entry, message, role)
        case Role.TOOL_RESULT:
            call_id = message.get("toolCallId")  # a list or object finds no call (and cannot be looked up)
            call = None if isinstance(call_id, (list, dict)) else (tool_calls or {}).get(call_id)  # type: ignore[arg-type]
            if call is not None:
                return _format_call(call)
            return f"[{message.get('toolName') or 'tool'}]"
        case Role.BASH_EXECUTION:
            return f"[bash]: {_normalize(_js_string(message.get('command')))}"
        case Role.CUSTOM:
            return f"[{_js_string(message.get('customType'))}]: {_normalize(_extract_content(message.get('content')))}"
        case Role.SYSTEM:
            return system_summary(message, whole=None)
        case Role.HOOK_MESSAGE | Role.BRANCH_SUMMARY | Role.COMPACTION_SUMMARY | Role.UNKNOWN:
            return f"[{_js_string(message.get('role'))}]"  # messages entries do not store: named as they are
        case _ as unreachable:
            assert_never(unreachable)


def _user_or_assistant_text(entry: Entry, message: dict[str, Any], role: Role) -> str:
    if role is _USER:
        return _normalize(_extract_content(message.get("content")))
    return _assistant_text(entry, message)


def _assistant_text(entry: Entry, message: dict[str, Any]) -> str:
    """An assistant message's line: its text, else why it has none (aborted, an error), else its calls."""
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


#: The word and the field pi's ``getSearchableText`` adds for the entries that are one setting.
_SEARCH_WORDS: dict[EntryKind, tuple[str, str]] = {
    EntryKind.BRANCH_SUMMARY: ("branch summary", "summary"),
    EntryKind.MODEL_CHANGE: ("model", "modelId"),
    EntryKind.THINKING_LEVEL_CHANGE: ("thinking", "thinkingLevel"),
    EntryKind.CUSTOM: ("custom", "customType"),
    EntryKind.LABEL: ("label", "label"),
    EntryKind.SESSION_INFO: ("title", "name"),
}


def searchable_text(entry: Entry, label: str | None = None) -> str:
    """pi's ``getSearchableText``: label + role/type words + content; matched lower-cased."""
    parts: list[str] = []
    if label:
        parts.append(label)
    match kind := kind_of(entry):
        case EntryKind.MESSAGE:
            message = entry.get("message")
            if isinstance(message, dict):
                parts.append(_js_string(message.get("role")))
                if message.get("content"):
                    parts.append(_extract_content(message.get("content")))
                if role_of(message) is Role.BASH_EXECUTION and message.get("command"):
                    parts.append(_js_string(message.get("command")))
        case EntryKind.CUSTOM_MESSAGE:
            parts.append(_js_string(entry.get("customType")))
            parts.append(_extract_content(entry.get("content")))
        case EntryKind.COMPACTION:
            parts.append("compaction")
        case (
            EntryKind.BRANCH_SUMMARY
            | EntryKind.MODEL_CHANGE
            | EntryKind.THINKING_LEVEL_CHANGE
            | EntryKind.CUSTOM
            | EntryKind.LABEL
            | EntryKind.SESSION_INFO
        ):
            word, field = _SEARCH_WORDS[kind]
            parts += [word, _js_string(entry.get(field))]
        case EntryKind.HEADER | EntryKind.CONTEXT_EDIT | EntryKind.USAGE | EntryKind.UNKNOWN:
            pass  # pi's search has no words for them
        case _ as unreachable:
            assert_never(unreachable)
    return " ".join(parts)


def full_text(entry: Entry, limit: int = 1200) -> str:
    """A longer preview for tooltips: the whole text of the entry, cut at ``limit`` characters."""
    match kind_of(entry):
        case EntryKind.MESSAGE:
            message = entry.get("message")
            text = _message_full_text(entry, message) if isinstance(message, dict) else ""
        case EntryKind.COMPACTION | EntryKind.BRANCH_SUMMARY:
            text = _js_string(entry.get("summary"))
        case EntryKind.CUSTOM_MESSAGE:
            text = _extract_content(entry.get("content"), None)
        case _:
            text = entry_text(entry)
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _message_full_text(entry: Entry, message: dict[str, Any]) -> str:
    """:func:`full_text` of a message entry: a command and its output, a system prompt, or the
    content (an assistant's with its tool calls, or its error when it has nothing else)."""
    role = role_of(message)
    if role is Role.BASH_EXECUTION:
        return f"$ {_js_string(message.get('command'))}\n{_js_string(message.get('output'))}"
    if role is Role.SYSTEM:
        return system_text(message)
    text = _extract_content(message.get("content"), None)
    if role is Role.ASSISTANT:
        calls = tool_calls_of(entry)
        if calls:
            text += "".join(f"\n→ {_format_call(call)}" for call in calls)
        if not text and message.get("errorMessage"):
            text = _js_string(message.get("errorMessage"))
    return text


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
