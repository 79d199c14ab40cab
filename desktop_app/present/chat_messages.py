"""Reading pi-shaped messages for display: kinds, plain text, status, one-line summaries.

Pure Python (no Qt), so the rules are testable on their own and shared by the model (roles), the
renderer (HTML) and the delegate (height estimates). Session files are untrusted JSON: every
accessor tolerates missing keys and odd types (a number where a string was expected, ``null``
content, a message that is not an object) instead of raising while painting.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from desktop_app.present.chat_feed import EDIT_MARK, SYSTEM_MARK
from desktop_app.present.pi16_words import system_summary, system_text
from desktop_app.session.jsjson import js_truthy
from desktop_app.session.kinds import BlockKind, Role, block_kind, role_of
from desktop_app.tools.display import shown_text as as_text
from desktop_app.tools.registry import main_argument

Message = dict[str, Any]

KNOWN_KINDS = frozenset(
    {Role.USER, Role.ASSISTANT, Role.TOOL_RESULT, Role.BASH_EXECUTION, Role.CUSTOM, Role.BRANCH_SUMMARY,
     Role.COMPACTION_SUMMARY, Role.SYSTEM}
)
"""The roles the chat draws a row of its own for (``hookMessage`` and unknown roles: "unrecognised")."""
#: Kinds whose whole row is one collapsible section (section 0), collapsed by default.
SINGLE_SECTION_KINDS = frozenset(
    {Role.TOOL_RESULT, Role.BASH_EXECUTION, Role.BRANCH_SUMMARY, Role.COMPACTION_SUMMARY, Role.SYSTEM}
)
#: Kinds painted as summary cards (pi 1.6.0's system prompt records too).
CARD_KINDS = frozenset({Role.BRANCH_SUMMARY, Role.COMPACTION_SUMMARY, Role.SYSTEM})


def message_kind(message: Any) -> Role:
    """The row kind: the message role when the chat draws it, else :attr:`Role.UNKNOWN`."""
    role = role_of(message)
    return role if role in KNOWN_KINDS else Role.UNKNOWN


def is_displayed(message: Any) -> bool:
    """Whether the chat shows a context message (pi-spec §4.5: custom only when ``display``)."""
    return message_kind(message) is not Role.CUSTOM or js_truthy(message.get("display"))


def content_blocks(message: Message) -> list[Any]:
    """``content`` as a list of blocks (a string becomes one text block)."""
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": BlockKind.TEXT.value, "text": content}]
    if isinstance(content, list):
        return content
    return []


def joined_text(message: Message) -> str:
    """The ``text`` blocks of ``content`` joined with newlines (images and the rest left out)."""
    return "\n".join(as_text(b.get("text")) for b in content_blocks(message) if block_kind(b) is BlockKind.TEXT)


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def hard_line_breaks(text: str) -> str:
    """Markdown where every line break the user typed stays a line break (Shift+Enter).

    In markdown a single newline is a soft break, shown as a space: a user's two-line message
    appeared as one line in the bubble although the file holds the newline (issue 9, Found item
    4). Two trailing spaces make it a hard break; fenced code is left as it is.
    """
    lines = text.split("\n")
    fence: str | None = None
    for i, line in enumerate(lines[:-1]):
        opened = _FENCE.match(line)
        if opened is not None:
            marker = opened.group(1)
            if fence is None:
                fence = marker[0] * 3
            elif marker.startswith(fence):
                fence = None
            continue
        if fence is None and line.strip() and lines[i + 1].strip():
            lines[i] = line + "  "
    return "\n".join(lines)


def message_text(message: Any) -> str:
    """The plain text a row stands for (its ``TextRole``, and what "Copy" copies).

    user, custom, toolResult, assistant: their text blocks (an assistant's thinking and tool calls
    are sections of their own); bashExecution: ``$ command`` and the output; summaries: the summary.
    """
    kind = message_kind(message)
    if kind in (Role.USER, Role.ASSISTANT, Role.TOOL_RESULT, Role.CUSTOM):
        return joined_text(message)
    if kind is Role.BASH_EXECUTION:
        output = as_text(message.get("output"))
        return f"$ {as_text(message.get('command'))}" + (f"\n{output}" if output else "")
    if kind is Role.SYSTEM:
        return system_text(message)
    if kind in CARD_KINDS:
        return as_text(message.get("summary"))
    return ""


def edit_mark(message: Any) -> dict[str, Any] | None:
    """The context-edit mark of a row (``present.chat_feed.EDIT_MARK``), or ``None``."""
    mark = message.get(EDIT_MARK) if isinstance(message, dict) else None
    return mark if isinstance(mark, dict) else None


def system_line(message: Message) -> str:
    """A system row's one-line summary: its mark's, or worked out from the message alone."""
    mark = message.get(SYSTEM_MARK)
    if isinstance(mark, dict) and isinstance(mark.get("summary"), str):
        return str(mark["summary"])
    return system_summary(message, whole=None)


def message_status(message: Any) -> str:
    """``"error"``, ``"aborted"`` or ``"ok"`` (assistants only carry the first two)."""
    if message_kind(message) is Role.ASSISTANT:
        reason = message.get("stopReason")
        if reason in ("error", "aborted"):
            return str(reason)
    return "ok"


def collapsible_sections(message: Any) -> tuple[int, ...]:
    """Indices of the sections a click can expand (thinking and tool-call blocks, or the whole row)."""
    kind = message_kind(message)
    if kind in SINGLE_SECTION_KINDS:
        return (0,)
    if kind is Role.ASSISTANT:
        return tuple(
            i for i, b in enumerate(content_blocks(message)) if block_kind(b) in (BlockKind.THINKING, BlockKind.TOOL_CALL)
        )
    return ()


def first_line(text: str, limit: int = 120) -> str:
    """The first non-empty line, shortened to ``limit`` characters with an ellipsis."""
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


_MARKUP = re.compile(r"[*_`#>]+")


def plain_preview(text: str, limit: int = 120) -> str:
    """A one-line preview of markdown with the emphasis markers taken out (``**Plan**`` → ``Plan``)."""
    return first_line(_MARKUP.sub("", text[: limit * 4]), limit)


def tool_call_summary(block: dict[str, Any]) -> tuple[str, str]:
    """``(name, one-line argument summary)`` for a tool-call block: ``("read", "src/app.py")``."""
    name = as_text(block.get("name")) or "tool"
    arguments = block.get("arguments")
    if not isinstance(arguments, dict):
        return name, first_line(as_text(block.get("partialJson") or arguments), 100)
    key = main_argument(name)
    if key and key in arguments:
        return name, first_line(as_text(arguments[key]), 100)
    return name, first_line(as_text(arguments), 100)


def pretty_json(value: Any) -> str:
    """Indented JSON for expanded tool-call arguments (never raises)."""
    try:
        return json.dumps(value, ensure_ascii=False, indent=2, default=str)
    except (TypeError, ValueError):
        return repr(value)


def format_count(value: Any) -> str:
    """``12345`` → ``"12,345"`` (pi's ``toLocaleString``); non-numbers as text, ``?`` when missing."""
    if isinstance(value, bool) or value is None:
        return "?"
    if isinstance(value, (int, float)) and math.isfinite(value):
        return f"{value:,.0f}"
    return as_text(value)
