"""The active path as Markdown: every message in order, tool calls and results in short, each
compaction and branch summary with its summary. Session text goes in as it is (it is Markdown
already); code and output go in fences longer than any run of backticks inside them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from desktop_app.present.chat_messages import (
    content_blocks,
    format_count,
    joined_text,
    message_kind,
    tool_call_summary,
)
from desktop_app.present.chat_render import clip
from desktop_app.present.text import entry_text
from desktop_app.session.context import message_from_entry
from desktop_app.session.entries import Entry
from desktop_app.session.kinds import BlockKind, EntryKind, Role, block_kind, kind_of
from desktop_app.tools.display import shown_text as as_text

__all__ = ["fenced", "path_markdown"]

_TICKS = re.compile(r"`{3,}")
_OUTPUT_LINES, _OUTPUT_CHARS = 40, 4_000
_WHOLE = "the session file has the whole text"


def fenced(text: str, language: str = "") -> str:
    """``text`` in a code fence no line of it can close."""
    longest = max((len(m.group()) for m in _TICKS.finditer(text)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}"


def _line(value: object) -> str:
    """A name, label or title written into the document's own markup (a heading, bold words) on one
    line: a line break in it would end that markup and start whatever follows (a heading, a list)."""
    return " ".join(as_text(value).split())


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.strip().split("\n"))


def _output(text: str) -> str:
    kept, note = clip(text, _OUTPUT_LINES, _OUTPUT_CHARS, _WHOLE)
    return fenced(kept) + (f"\n\n*{note}*" if note else "")


def _assistant(message: dict[str, Any]) -> list[str]:
    model = _line(message.get("model"))
    out = [f"## Assistant{f' · {model}' if model else ''}"]
    for block in content_blocks(message):
        match block_kind(block):
            case BlockKind.TEXT:
                out.append(as_text(block.get("text")).strip())
            case BlockKind.THINKING:
                thinking = as_text(block.get("thinking")).strip()
                if thinking and not block.get("redacted"):
                    out.append("*Thinking:*\n\n" + _quoted(thinking))
            case BlockKind.TOOL_CALL:
                name, summary = tool_call_summary(block)
                name, summary = _line(name), _line(summary)
                out.append(f"**→ {name}** `{summary.replace('`', ' ')}`" if summary else f"**→ {name}**")
            case BlockKind.IMAGE:
                out.append("*[image]*")
            case BlockKind.UNKNOWN:
                pass
    error = as_text(message.get("errorMessage"))
    if error:
        out.append(f"*Error: {error}*")
    return out


def _message(message: dict[str, Any]) -> list[str]:
    match message_kind(message):
        case Role.USER:
            return ["## You", joined_text(message).strip()]
        case Role.ASSISTANT:
            return _assistant(message)
        case Role.TOOL_RESULT:
            failed = bool(message.get("isError"))
            name = _line(message.get("toolName")) or "tool"
            text = joined_text(message).rstrip("\n")
            head = f"**{'✗' if failed else '✓'} {name} {'failed' if failed else 'result'}**"
            return [head, _output(text)] if text else [head + " (no output)"]
        case Role.BASH_EXECUTION:
            return ["## Shell", fenced("$ " + as_text(message.get("command")), "sh"), _output(as_text(message.get("output")))]
        case Role.COMPACTION_SUMMARY:
            return [
                f"## ◆ Compaction · {format_count(message.get('tokensBefore'))} tokens before",
                _quoted(as_text(message.get("summary"))),
            ]
        case Role.BRANCH_SUMMARY:
            return ["## ↩ Branch summary", _quoted(as_text(message.get("summary")))]
        case Role.CUSTOM:
            return [f"## {_line(message.get('customType')) or 'Custom message'}", joined_text(message).strip()]
        case Role.SYSTEM:
            return ["## System prompt", _output(joined_text(message))]
        case Role.HOOK_MESSAGE | Role.UNKNOWN:
            return []
    return []


def path_markdown(path: Sequence[Entry], title: str, preface: str, labels: dict[Any, str]) -> str:
    """The Markdown of ``path`` (root → leaf) under ``title``, ``preface`` in italics below it."""
    out = [f"# {_line(title)}", f"*{_line(preface)}*"]
    for entry in path:
        label = _line(labels.get(entry.get("id")))
        if label:
            out.append(f"**⚑ {label}**")
        message = message_from_entry(entry)
        if message is not None:
            out.extend(part for part in _message(message) if part)
        elif kind_of(entry) in (EntryKind.MODEL_CHANGE, EntryKind.THINKING_LEVEL_CHANGE):
            out.append(f"*{entry_text(entry)}*")
    return "\n\n".join(out) + "\n"
