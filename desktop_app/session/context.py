"""What the model sees: ``build_session_context`` and ``convert_to_llm`` (pi-spec §4.1, §4.2).

The prefixes and suffixes around summaries are data: they end up in the model's context and in
token estimates, so they are pi's strings to the character.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .entries import Entry, Message, entry_time_ms
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
        """pi's object; a level left ``undefined`` (a change without ``thinkingLevel``) is absent."""
        out: dict[str, Any] = {"messages": self.messages, "thinkingLevel": self.thinking_level, "model": self.model}
        if self.thinking_level is _MISSING:
            del out["thinkingLevel"]
        return out


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
    message["timestamp"] = entry_time_ms(entry)
    return message


def branch_summary_message(entry: Entry) -> Message:
    """``createBranchSummaryMessage``."""
    message: Message = {"role": "branchSummary"}
    _copy_keys(message, entry, ("summary", "fromId"))
    message["timestamp"] = entry_time_ms(entry)
    return message


def compaction_summary_message(entry: Entry) -> Message:
    """``createCompactionSummaryMessage``."""
    message: Message = {"role": "compactionSummary"}
    _copy_keys(message, entry, ("summary", "tokensBefore"))
    message["timestamp"] = entry_time_ms(entry)
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
#
# One core, three entry points. pi's ``buildSessionContext`` walks the root → leaf path; the rules it
# applies per entry and the way it assembles the result live here once:
#
# * :func:`_contribution`: what one entry adds (its message, or none) and whether it is the model source;
# * :class:`_Parts` / :meth:`_Parts.context`: latest compaction + kept range + tail + thinking level +
#   model source → ``SessionContext``.
#
# The entry points differ only in which entries they visit: :func:`context_from_path` walks a path
# root → leaf, :func:`build_session_context` walks leaf → root and stops once nothing further up can
# matter, :func:`extend_context` adds one entry to an existing context. A Hypothesis property
# (tests/session/test_context_core.py) checks that the three agree.


def _contribution(entry: Entry) -> tuple[Message | None, bool]:
    """(the message ``entry`` adds to the context or ``None``, whether it is a model source).

    A model source is a ``model_change`` or an assistant message; thinking levels and compactions
    are not messages and are recognised by their type where they matter.
    """
    entry_type = entry.get("type")
    if entry_type == "message":
        message = _message_payload(entry)
        return message, message is not None and message.get("role") == "assistant"
    if entry_type == "model_change":
        return None, True
    return context_message(entry), False


def _model_from(source: Entry) -> dict[str, Any]:
    """The ``model`` of a context whose latest model source is ``source`` (pi's two shapes)."""
    if source.get("type") == "model_change":
        return _copy_keys({}, source, ("provider", "modelId"))
    message = source["message"]
    model: dict[str, Any] = {}
    if "provider" in message:
        model["provider"] = message["provider"]
    if "model" in message:
        model["modelId"] = message["model"]
    return model


@dataclass
class _Parts:
    """What a context is made of, before assembly (messages in root → leaf order)."""

    compaction: Entry | None = None
    kept: list[Message] = field(default_factory=list)  # the compaction's kept range
    tail: list[Message] = field(default_factory=list)  # everything after the compaction (or all)
    thinking_entry: Entry | None = None
    model_entry: Entry | None = None

    def context(self) -> SessionContext:
        thinking_level: Any = self.thinking_entry.get("thinkingLevel", _MISSING) if self.thinking_entry is not None else "off"
        model = _model_from(self.model_entry) if self.model_entry is not None else None
        if self.compaction is None:
            return SessionContext(self.tail, thinking_level, model)
        messages = [compaction_summary_message(self.compaction), *self.kept, *self.tail]
        return SessionContext(messages, thinking_level, model)


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
    leaf = index.by_id.get(key_of(leaf_id)) if leaf_id is not _UNSET and leaf_id else None  # JS: `leafId ? ...`
    if leaf is None:
        leaf = entries[-1]
    parts = _parts_walking_up(index, leaf)
    return parts.context() if parts is not None else context_from_path(index.path_to(leaf))


def _parts_walking_up(index: SessionIndex, leaf: Entry) -> _Parts | None:
    """The parts of the context at ``leaf`` without building the path: walk towards the root and stop
    as soon as nothing further up can matter.

    Only the latest compaction counts, so below it every message is collected; above it only the kept
    range (up to ``firstKeptEntryId``) and the nearest thinking level and model source are needed. On
    a long session that has been compacted this reads a few hundred entries instead of the whole
    path. ``None`` (the caller walks the careful way) on a cycle or an id that cannot be a key.
    """
    by_id = index.by_id.get
    parts = _Parts()
    kept: list[Message] = []  # nearest first
    tail: list[Message] = []  # leaf first
    first_kept: Any = None
    found_kept = False
    steps, limit = 0, len(index.entries)
    entry: Entry | None = leaf
    try:
        while entry is not None:
            steps += 1
            if steps > limit:
                return None
            entry_type = entry.get("type")
            if entry_type == "compaction" and parts.compaction is None:
                parts.compaction = entry
                first_kept = entry.get("firstKeptEntryId")
            else:
                if entry_type == "thinking_level_change" and parts.thinking_entry is None:
                    parts.thinking_entry = entry
                message, is_model_source = _contribution(entry)
                if is_model_source and parts.model_entry is None:
                    parts.model_entry = entry
                if parts.compaction is None:
                    if message is not None:
                        tail.append(message)
                elif not found_kept:
                    if message is not None:
                        kept.append(message)
                    found_kept = entry.get("id") == first_kept
                if (
                    found_kept
                    and parts.thinking_entry is not None
                    and parts.model_entry is not None
                ):
                    break
            parent = entry.get("parentId")
            entry = by_id(parent) if parent else None  # pi stops at a falsy parentId ("" included)
    except TypeError:  # an unhashable parentId
        return None
    if found_kept:
        kept.reverse()
        parts.kept = kept
    tail.reverse()
    parts.tail = tail
    return parts


def context_from_path(path: list[Entry]) -> SessionContext:
    """The context for a root → leaf path (steps 3–6 of pi-spec §4.1)."""
    parts = _Parts()
    compaction_at = -1
    for i, entry in enumerate(path):
        entry_type = entry.get("type")
        if entry_type == "compaction":
            parts.compaction, compaction_at = entry, i
            parts.tail = []
            continue
        if entry_type == "thinking_level_change":
            parts.thinking_entry = entry
        message, is_model_source = _contribution(entry)
        if is_model_source:
            parts.model_entry = entry
        if message is not None:
            parts.tail.append(message)
    if parts.compaction is not None:
        first_kept = parts.compaction.get("firstKeptEntryId")
        # Ids on a path are unique (it follows parentId through the id map), so searching back from
        # the compaction finds pi's "first entry with that id", usually a few steps away.
        kept_from = next(
            (i for i in range(compaction_at - 1, -1, -1) if path[i].get("id") == first_kept), compaction_at
        )
        parts.kept = [m for m in (_contribution(e)[0] for e in path[kept_from:compaction_at]) if m is not None]
    return parts.context()


def extend_context(context: SessionContext, entry: Entry) -> SessionContext | None:
    """The context one entry further down the path, or ``None`` when only a full rebuild can tell.

    Compactions and branch summaries reshape the context; everything else adds at most one message
    and may change the model or thinking level, exactly as one step of :func:`context_from_path`.
    """
    entry_type = entry.get("type")
    if entry_type in ("compaction", "branch_summary"):
        return None
    thinking_level: Any = (
        entry.get("thinkingLevel", _MISSING) if entry_type == "thinking_level_change" else context.thinking_level
    )
    message, is_model_source = _contribution(entry)
    model = _model_from(entry) if is_model_source else context.model
    messages = context.messages if message is None else [*context.messages, message]
    return SessionContext(messages, thinking_level, model)


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
