"""How the window names pi 1.6.0's new kinds: system messages, context edits, usage entries.

One place for the words, so the chat card, the graph node, the reader and the lens say the same
thing. A ``system`` message is either the prompt itself (the first one, or a compaction's
``systemMessage`` checkpoint, which is the whole replayed prompt) or a change to it (more
instructions, sections replaced or removed with ``null``, tools added or removed); its one-line
summary says which and names what changed (pi16-delta.md §2.5). A ``context_edit`` omits
(``replacement: null``) or replaces the content of one earlier entry (§2.4); a ``usage`` entry is a
model call outside the context (a cache warm-up, a classifier).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from desktop_app.session.entries import Entry
from desktop_app.session.system_prompt import content_text

__all__ = [
    "EDIT_OMITTED",
    "EDIT_REPLACED",
    "edit_state",
    "edit_text",
    "system_summary",
    "system_text",
    "tool_names",
    "usage_text",
]

EDIT_OMITTED = "omitted"
EDIT_REPLACED = "replaced"
_NAMES_SHOWN = 8


def tool_names(tools: Any) -> list[str]:
    """The ``name`` of each tool declaration or reference (``toolsAdded`` / ``toolsRemoved``)."""
    if not isinstance(tools, list):
        return []
    return [str(t.get("name")) for t in tools if isinstance(t, dict) and t.get("name") is not None]


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:_NAMES_SHOWN])
    return shown + (f" +{len(names) - _NAMES_SHOWN} more" if len(names) > _NAMES_SHOWN else "")


def system_summary(message: Mapping[str, Any], *, whole: bool | None) -> str:
    """One line for a ``system`` message: ``"System prompt · sections: preamble, tools · tools added:
    read, bash"`` for the prompt (``whole``: the first one or a checkpoint), ``"System prompt changed ·
    instructions added · sections: rules · sections removed: plan_mode · tools removed: ls"`` for a
    change, plain ``"System · …"`` when the caller cannot tell (``None``)."""
    parts = ["System" if whole is None else "System prompt" if whole else "System prompt changed"]
    text = content_text(message.get("content"))
    sections = message.get("sections")
    changed = [str(k) for k, v in sections.items() if v is not None] if isinstance(sections, dict) else []
    dropped = [str(k) for k, v in sections.items() if v is None] if isinstance(sections, dict) else []
    if text:
        parts.append(f"instructions: {len(text):,} characters" if whole else "instructions added")
    if changed:
        parts.append(f"sections: {_names(changed)}")
    if dropped:
        parts.append(f"sections removed: {_names(dropped)}")
    added = tool_names(message.get("toolsAdded"))
    removed = tool_names(message.get("toolsRemoved"))
    if added:
        parts.append(f"tools added: {_names(added)}")
    if removed:
        parts.append(f"tools removed: {_names(removed)}")
    if len(parts) == 1:
        parts.append("no change" if not whole else "empty")
    return " · ".join(parts)


def system_text(message: Mapping[str, Any]) -> str:
    """The whole text of a ``system`` message, as the expanded card and the reader show it:
    the instructions, each section as ``<name>`` … ``</name>`` (pi stores them wrapped so; one that
    is not gets wrapped here, a removed one reads ``<name> removed``), then the tools added and
    removed."""
    out: list[str] = []
    text = content_text(message.get("content"))
    if text:
        out.append(text)
    sections = message.get("sections")
    if isinstance(sections, dict):
        for name, value in sections.items():
            text = str(value) if value is not None else ""
            if value is None:
                out.append(f"<{name}> removed")
            elif name == "preamble" or text.startswith(f"<{name}>"):  # pi stores sections wrapped
                out.append(text)
            else:
                out.append(f"<{name}>\n{text}\n</{name}>")
    added = message.get("toolsAdded")
    if isinstance(added, list) and added:
        lines = ["Tools added:"]
        for tool in added:
            if isinstance(tool, dict):
                description = " ".join(str(tool.get("description") or "").split())
                lines.append(f"• {tool.get('name')}" + (f": {description}" if description else ""))
        out.append("\n".join(lines))
    removed = tool_names(message.get("toolsRemoved"))
    if removed:
        out.append("Tools removed: " + ", ".join(removed))
    return "\n\n".join(out)


def edit_state(edit: Entry) -> str:
    """:data:`EDIT_OMITTED` for ``replacement: null``, else :data:`EDIT_REPLACED`."""
    return EDIT_OMITTED if edit.get("replacement") is None else EDIT_REPLACED


def edit_text(edit: Entry, target_text: str | None) -> str:
    """A context edit's one line: ``omits: “<target>”`` or ``replaces: “<target>” with “<new text>”``
    (``target_text`` ``None``: the target is named by its id)."""
    what = f"“{target_text}”" if target_text is not None else f"entry {edit.get('targetId')}"
    if edit_state(edit) == EDIT_OMITTED:
        return f"omits: {what}"
    replacement = edit.get("replacement")
    content = replacement.get("content") if isinstance(replacement, dict) else None
    new = " ".join(content_text(content).split())
    return f"replaces: {what}" + (f" with “{new[:80]}”" if new else "")


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _compact(n: float) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else f"{n:.0f}"


def usage_text(entry: Entry) -> str:
    """A usage entry's line: ``"cache_warm · claude-x · 1.2k tokens"`` (what it cost, not in the context)."""
    parts: list[str] = [str(entry.get("kind") or "usage")]
    if entry.get("model"):
        parts.append(str(entry.get("model")))
    usage = entry.get("usage")
    if isinstance(usage, dict):
        total = _number(usage.get("totalTokens"))
        if total is None:
            total = sum(_number(usage.get(k)) or 0.0 for k in ("input", "output", "cacheRead", "cacheWrite"))
        parts.append(f"{_compact(total)} tokens")
    note = entry.get("note")
    if isinstance(note, str) and note:
        parts.append(note)
    return " · ".join(parts)
