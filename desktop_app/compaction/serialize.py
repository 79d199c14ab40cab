"""``serializeConversation``: the conversation as plain text for a summarizer (pi-spec §5.8).

The summarizer gets the history as a transcript inside ``<conversation>`` tags rather than as chat
turns, so the model reads it as material to summarize instead of a conversation to continue. Long tool
results are cut to 2000 UTF-16 units: they are the bulk of a coding session and rarely matter verbatim.
The text is pi's to the character (its hash is part of the conformance data).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, assert_never

from desktop_app.session.entries import Message
from desktop_app.session.jsjson import js_join, js_string, js_stringify, utf16_len, utf16_slice
from desktop_app.session.kinds import BlockKind, Role, block_kind, role_of
from desktop_app.session.profile import PI_1_6_0, PiProfile

__all__ = ["TOOL_RESULT_MAX_CHARS", "serialize_conversation", "serialized_pieces", "truncate_for_summary"]

TOOL_RESULT_MAX_CHARS = 2000


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS, whole_pairs: bool = True) -> str:
    """Keep the first ``max_chars`` UTF-16 units and say how many were dropped.

    ``whole_pairs`` (pi 1.6.0's ``sliceHead``): a surrogate pair the limit would split is left out
    whole; the count in the note is not adjusted for it, as pi's is not.
    """
    length = utf16_len(text)
    if length <= max_chars:
        return text
    head = utf16_slice(text, 0, max_chars)
    if whole_pairs and head and 0xD800 <= ord(head[-1]) <= 0xDBFF:
        following = utf16_slice(text, max_chars, max_chars + 1)
        if following and 0xDC00 <= ord(following) <= 0xDFFF:
            head = head[:-1]
    return head + f"\n\n[... {length - max_chars} more characters truncated]"


def _text_blocks(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return js_join((b.get("text") for b in content if block_kind(b) is BlockKind.TEXT), "")


def _arguments_text(arguments: Any) -> str:
    """``Object.entries(args)`` as ``k=JSON`` pairs: an array or a string gives its indices (a string
    one per UTF-16 unit), a number or boolean nothing."""
    if isinstance(arguments, dict):
        pairs = _entries(arguments)
    elif isinstance(arguments, list):
        pairs = [(str(i), v) for i, v in enumerate(arguments)]
    elif isinstance(arguments, str):
        pairs = [(str(i), utf16_slice(arguments, i, i + 1)) for i in range(utf16_len(arguments))]
    else:
        return ""
    return ", ".join(f"{key}={js_stringify(value)}" for key, value in pairs)


def _entries(obj: dict[str, Any]) -> list[tuple[str, Any]]:
    """``Object.entries`` order (the same as ``JSON.stringify``'s): integer-like keys first, ascending."""
    index_keys = [(k, v) for k, v in obj.items() if _is_array_index(k)]
    if not index_keys:
        return list(obj.items())
    index_keys.sort(key=lambda kv: int(kv[0]))
    return index_keys + [(k, v) for k, v in obj.items() if not _is_array_index(k)]


def _is_array_index(key: str) -> bool:
    return key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and int(key) < 2**32 - 1


def _assistant_parts(message: Message, with_thinking: bool) -> list[tuple[str, str]]:
    texts: list[Any] = []
    thinkings: list[Any] = []
    calls: list[str] = []
    content = message.get("content")
    for block in content if isinstance(content, list) else []:
        match block_kind(block):
            case BlockKind.TEXT:
                texts.append(block.get("text"))
            case BlockKind.THINKING:
                thinkings.append(block.get("thinking"))
            case BlockKind.TOOL_CALL:
                name = js_string(block["name"]) if "name" in block else "undefined"
                calls.append(f"{name}({_arguments_text(block.get('arguments'))})")
            case BlockKind.IMAGE | BlockKind.UNKNOWN:
                pass  # an assistant's image or an odd block: nothing a summarizer reads
            case _ as unreachable:
                assert_never(unreachable)
    parts: list[tuple[str, str]] = []
    if thinkings and with_thinking:
        parts.append(("[Assistant thinking]: ", js_join(thinkings, "\n")))
    if texts:
        parts.append(("[Assistant]: ", js_join(texts, "\n")))
    if calls:
        parts.append(("[Assistant tool calls]: ", "; ".join(calls)))
    return parts


def _message_parts(message: Message, profile: PiProfile, whole_pairs: bool) -> list[tuple[str, str]]:
    """One message's parts of the transcript, each a label and its text."""
    match role_of(message):
        case Role.USER:
            text = _text_blocks(message.get("content"))
            return [("[User]: ", text)] if text else []
        case Role.ASSISTANT:
            return _assistant_parts(message, profile.serialize_thinking)
        case Role.TOOL_RESULT:
            text = _text_blocks(message.get("content"))
            return [("[Tool result]: ", truncate_for_summary(text, whole_pairs=whole_pairs))] if text else []
        case (
            Role.SYSTEM | Role.BASH_EXECUTION | Role.CUSTOM | Role.HOOK_MESSAGE | Role.BRANCH_SUMMARY
            | Role.COMPACTION_SUMMARY | Role.UNKNOWN
        ):
            return []  # system prompts give nothing; the others are user messages after convert_to_llm
        case _ as unreachable:
            assert_never(unreachable)


def serialized_pieces(messages: list[Message], profile: PiProfile = PI_1_6_0) -> Iterator[str]:
    """:func:`serialize_conversation`'s text in pieces, which ``"".join`` makes into it: labels,
    separators and the messages' own strings (a text block's string itself, not a copy of it).

    A first compaction at 100,000 entries summarizes a ~44-million-character transcript (issue 28):
    joined once with the request's other pieces, it is made once, where building each part
    (``"[User]: " + text``), then the transcript, then the request by concatenation held three or
    four copies at a time.
    """
    whole_pairs = not profile.serialize_thinking
    first = True
    for message in messages:
        for label, text in _message_parts(message, profile, whole_pairs):
            if not first:
                yield "\n\n"
            first = False
            yield label
            yield text


def serialize_conversation(messages: list[Message], profile: PiProfile = PI_1_6_0) -> str:
    """LLM messages (after ``convert_to_llm``) as ``[User]:`` / ``[Assistant]:`` / ``[Tool result]:`` text.

    Thinking is written only where the profile says so (pi 1.6.0 leaves it out); system messages
    give nothing.
    """
    return "".join(serialized_pieces(messages, profile))
