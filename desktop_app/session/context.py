"""What the model sees: ``build_session_context`` and ``convert_to_llm`` (pi-spec §4.1, §4.2).

The prefixes and suffixes around summaries are data: they end up in the model's context and in
token estimates, so they are pi's strings to the character.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .entries import Entry, Message, parse_date_ms
from .jsjson import js_string
from .tree import SessionIndex, key_of

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "</summary>"

_UNSET: Any = object()


class _Missing(str):
    """An absent key read in JavaScript: concatenates as ``"undefined"``."""


_MISSING = _Missing("undefined")


@dataclass
class SessionContext:
    """``{messages, thinkingLevel, model}`` of pi's ``buildSessionContext``."""

    messages: list[Message] = field(default_factory=list)
    thinking_level: str = "off"
    model: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"messages": self.messages, "thinkingLevel": self.thinking_level, "model": self.model}


# ------------------------------------------------------------------------------ entry → message


def _copy_keys(out: dict[str, Any], entry: Entry, keys: tuple[str, ...]) -> dict[str, Any]:
    for key in keys:
        if key in entry:
            out[key] = entry[key]
    return out


def custom_message_from_entry(entry: Entry) -> Message:
    """``createCustomMessage``: a ``custom_message`` entry as an in-memory ``custom`` message."""
    message: Message = {"role": "custom"}
    _copy_keys(message, entry, ("customType", "content", "display", "details"))
    message["timestamp"] = parse_date_ms(entry.get("timestamp"))
    return message


def branch_summary_message(entry: Entry) -> Message:
    """``createBranchSummaryMessage``."""
    message: Message = {"role": "branchSummary"}
    _copy_keys(message, entry, ("summary", "fromId"))
    message["timestamp"] = parse_date_ms(entry.get("timestamp"))
    return message


def compaction_summary_message(entry: Entry) -> Message:
    """``createCompactionSummaryMessage``."""
    message: Message = {"role": "compactionSummary"}
    _copy_keys(message, entry, ("summary", "tokensBefore"))
    message["timestamp"] = parse_date_ms(entry.get("timestamp"))
    return message


def _message_payload(entry: Entry) -> Message | None:
    """``entry.message`` when it is an object. pi would carry a string or a number along (and trip
    over it later); Arbor leaves such a broken payload out of the context instead."""
    message = entry.get("message")
    return message if isinstance(message, dict) else None


def context_message(entry: Entry) -> Message | None:
    """The message an entry contributes to ``buildSessionContext`` (``None`` for most bookkeeping)."""
    entry_type = entry.get("type")
    if entry_type == "message":
        return _message_payload(entry)
    if entry_type == "custom_message":
        return custom_message_from_entry(entry)
    if entry_type == "branch_summary" and entry.get("summary"):
        return branch_summary_message(entry)
    return None


def message_from_entry(entry: Entry) -> Message | None:
    """pi's ``getMessageFromEntry`` (compaction utils): every summary kind becomes a message.

    Unlike :func:`context_message`, an empty branch summary still yields a message and a
    compaction yields its ``compactionSummary``; what a caller then skips is its own rule.
    """
    entry_type = entry.get("type")
    if entry_type == "message":
        return _message_payload(entry)
    if entry_type == "custom_message":
        return custom_message_from_entry(entry)
    if entry_type == "branch_summary":
        return branch_summary_message(entry)
    if entry_type == "compaction":
        return compaction_summary_message(entry)
    return None


# ------------------------------------------------------------------------------ build


def build_session_context(
    entries: list[Entry], leaf_id: str | None = _UNSET, index: SessionIndex | None = None
) -> SessionContext:
    """Context of the path ending at ``leaf_id`` (pi-spec §4.1).

    ``leaf_id=None`` means "no leaf" (empty context); omitted or unknown means the last entry.
    ``index`` may be passed to reuse an existing id map (pi's ``byId``).
    """
    if leaf_id is None or not entries:
        return SessionContext()
    if index is None:
        index = SessionIndex.build(entries)
    leaf = index.by_id.get(key_of(leaf_id)) if leaf_id is not _UNSET else None
    if leaf is None:
        leaf = entries[-1]
    context = _context_walking_up(index, leaf)
    return context if context is not None else context_from_path(index.path_to(leaf))


def _context_walking_up(index: SessionIndex, leaf: Entry) -> SessionContext | None:
    """:func:`context_from_path` without building the path: walk from the leaf towards the root and
    stop as soon as nothing further up can matter.

    Only the latest compaction counts, so below it every message is collected; above it only the kept
    range (up to ``firstKeptEntryId``) and the nearest thinking level and model source are needed. On
    a long session that has been compacted this reads a few hundred entries instead of the whole
    path. ``None`` (the caller walks the careful way) on a cycle or an id that cannot be a key.
    """
    by_id = index.by_id.get
    field = dict.get
    tail: list[Message] = []  # messages below the latest compaction, leaf first
    kept: list[Message] = []  # the compaction's kept range, nearest first
    compaction: Entry | None = None
    first_kept: Any = None
    found_kept = False
    thinking_entry: Entry | None = None
    model_entry: Entry | None = None
    steps, limit = 0, len(index.entries)
    entry: Entry | None = leaf
    try:
        while entry is not None:
            steps += 1
            if steps > limit:
                return None
            entry_type = field(entry, "type")
            message: Any = None
            if entry_type == "message":
                message = field(entry, "message")
                if message.__class__ is not dict and not isinstance(message, dict):
                    message = None
                elif model_entry is None and message.get("role") == "assistant":
                    model_entry = entry
            elif entry_type == "thinking_level_change":
                if thinking_entry is None:
                    thinking_entry = entry
            elif entry_type == "model_change":
                if model_entry is None:
                    model_entry = entry
            elif entry_type == "compaction":
                if compaction is None:
                    compaction = entry
                    first_kept = field(entry, "firstKeptEntryId")
                    entry = _parent(entry, by_id)
                    continue
            else:
                message = context_message(entry)
            if compaction is None:
                if message is not None:
                    tail.append(message)
            elif not found_kept:
                if message is not None:
                    kept.append(message)
                if field(entry, "id") == first_kept:
                    found_kept = True
            if compaction is not None and found_kept and thinking_entry is not None and model_entry is not None:
                break
            entry = _parent(entry, by_id)
    except TypeError:
        return None
    messages: list[Message] = []
    if compaction is not None:
        messages.append(compaction_summary_message(compaction))
        if found_kept:
            kept.reverse()
            messages.extend(kept)
    tail.reverse()
    messages.extend(tail)
    thinking_level: Any = thinking_entry.get("thinkingLevel") if thinking_entry is not None else "off"
    model: dict[str, Any] | None = None
    if model_entry is not None:
        if model_entry.get("type") == "model_change":
            model = _copy_keys({}, model_entry, ("provider", "modelId"))
        else:
            source = model_entry["message"]
            model = {}
            if "provider" in source:
                model["provider"] = source["provider"]
            if "model" in source:
                model["modelId"] = source["model"]
    return SessionContext(messages, thinking_level, model)


def _parent(entry: Entry, by_id: Any) -> Entry | None:
    parent = entry.get("parentId")
    return by_id(parent) if parent is not None else None


def extend_context(context: SessionContext, entry: Entry) -> SessionContext | None:
    """The context one entry further down the path, or ``None`` when only a full rebuild can tell.

    Compactions and branch summaries reshape the context; everything else adds at most one message
    and may change the model or thinking level, exactly as step 3 of :func:`context_from_path` does.
    """
    entry_type = entry.get("type")
    if entry_type in ("compaction", "branch_summary"):
        return None
    thinking_level: Any = context.thinking_level
    model = context.model
    if entry_type == "thinking_level_change":
        thinking_level = entry.get("thinkingLevel")
    elif entry_type == "model_change":
        model = _copy_keys({}, entry, ("provider", "modelId"))
    message = context_message(entry)
    if isinstance(message, dict) and message.get("role") == "assistant":
        model = {}
        if "provider" in message:
            model["provider"] = message["provider"]
        if "model" in message:
            model["modelId"] = message["model"]
    messages = context.messages if message is None else [*context.messages, message]
    return SessionContext(messages, thinking_level, model)


def context_from_path(path: list[Entry]) -> SessionContext:
    """The context for a root → leaf path (steps 3–6 of pi-spec §4.1)."""
    # One pass: messages after the latest compaction are collected as we go (restarting at each
    # compaction), and where the last thinking level and model source are is noted; the model dict is
    # built once at the end (a long path has thousands of assistants).
    thinking_at = model_at = compaction_at = -1
    tail: list[Message] = []
    append = tail.append
    get = dict.get  # unbound: saves a method lookup per entry on paths of tens of thousands
    for i, entry in enumerate(path):
        entry_type = get(entry, "type")
        if entry_type == "message":
            message = get(entry, "message")
            if message.__class__ is dict:
                append(message)
                if get(message, "role") == "assistant":
                    model_at = i
            elif isinstance(message, dict):
                append(message)
                if message.get("role") == "assistant":
                    model_at = i
        elif entry_type == "thinking_level_change":
            thinking_at = i
        elif entry_type == "model_change":
            model_at = i
        elif entry_type == "compaction":
            compaction_at = i
            tail = []
            append = tail.append
        else:
            message = context_message(entry)
            if message is not None:
                append(message)
    thinking_level: Any = path[thinking_at].get("thinkingLevel") if thinking_at >= 0 else "off"
    model: dict[str, Any] | None = None
    if model_at >= 0:
        source = path[model_at]
        if source.get("type") == "model_change":
            model = _copy_keys({}, source, ("provider", "modelId"))
        else:
            message = source["message"]
            model = {}
            if "provider" in message:
                model["provider"] = message["provider"]
            if "model" in message:
                model["modelId"] = message["model"]
    if compaction_at < 0:
        return SessionContext(tail, thinking_level, model)
    compaction = path[compaction_at]
    messages: list[Message] = [compaction_summary_message(compaction)]
    first_kept = compaction.get("firstKeptEntryId")
    # Ids on a path are unique (it follows parentId through the id map), so searching back from the
    # compaction finds pi's "first entry with that id", usually a few steps away.
    kept_from = next((i for i in range(compaction_at - 1, -1, -1) if path[i].get("id") == first_kept), compaction_at)
    _emit_messages(path[kept_from:compaction_at], messages)
    messages.extend(tail)
    return SessionContext(messages, thinking_level, model)


def _emit_messages(entries: list[Entry], out: list[Message]) -> None:
    append = out.append
    for entry in entries:
        if entry.get("type") == "message":  # the common case, inlined
            message = entry.get("message")
            if message.__class__ is dict or isinstance(message, dict):
                append(message)
        else:
            message = context_message(entry)
            if message is not None:
                append(message)


# ------------------------------------------------------------------------------ convert_to_llm


def _bash_text(message: Message) -> str:
    text = "Ran `" + js_string(message.get("command", _MISSING)) + "`\n"
    output = message.get("output")
    text += "```\n" + js_string(output) + "\n```" if output else "(no output)"
    exit_code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif isinstance(exit_code, (int, float)) and not isinstance(exit_code, bool) and exit_code != 0:
        text += "\n\nCommand exited with code " + js_string(exit_code)
    if message.get("truncated") and message.get("fullOutputPath"):
        text += "\n\n[Output truncated. Full output: " + js_string(message["fullOutputPath"]) + "]"
    return text


def _user(text: str, timestamp: Any) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": timestamp}


def convert_message_to_llm(message: Message) -> Message | None:
    """One agent message in the LLM's vocabulary (user/assistant/toolResult), or ``None`` if dropped."""
    role = message.get("role")
    if role in ("user", "assistant", "toolResult"):
        return message
    if role == "bashExecution":
        if message.get("excludeFromContext"):
            return None
        return _user(_bash_text(message), message.get("timestamp"))
    if role == "custom":
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        return {"role": "user", "content": blocks, "timestamp": message.get("timestamp")}
    if role == "branchSummary":
        text = BRANCH_SUMMARY_PREFIX + js_string(message.get("summary", _MISSING)) + BRANCH_SUMMARY_SUFFIX
        return _user(text, message.get("timestamp"))
    if role == "compactionSummary":
        text = COMPACTION_SUMMARY_PREFIX + js_string(message.get("summary", _MISSING)) + COMPACTION_SUMMARY_SUFFIX
        return _user(text, message.get("timestamp"))
    return None


def convert_to_llm(messages: list[Message]) -> list[Message]:
    """pi's ``convertToLlm``: summaries, custom and bash messages become user messages."""
    out: list[Message] = []
    for message in messages:
        converted = convert_message_to_llm(message)
        if converted is not None:
            out.append(converted)
    return out
