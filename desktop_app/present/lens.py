"""The context lens: the exact messages the model receives at an entry, each with its token count.

For the active leaf or any selected entry, :func:`context_lens` takes
``build_session_context(entry)`` — the messages pi sends, after the latest compaction: its summary,
the kept entries from ``firstKeptEntryId``, and everything newer — pairs each message with the entry
it comes from, converts it as the provider will see it (``convert_to_llm``: summaries become user
messages) and estimates its tokens (pi's ``estimateTokens``, chars/4).

The total is pi's own ``estimateContextTokens``: the last reply's reported usage (which also
covers the system prompt and tool definitions) plus the estimates of every message after it. So the
lens says which rows the usage covers and which are estimated, and the gap between the usage and
the estimates of the rows it covers (system prompt, tools, estimate error) is shown as such,
instead of pretending the rows add up on their own.

pi 1.6.0's context is a projection (pi16-delta.md §4.1): after a compaction the replayed system
prompt (its ``systemMessage`` checkpoint) comes first, and the latest ``context_edit`` per entry
omits or replaces what that entry contributes. The rows follow the projection, so each still
names its entry; a replaced message is marked ``replaced`` and an omitted one is listed where it
was, marked ``omitted``, with no tokens (the model does not receive it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from desktop_app.compaction.tokens import estimate_context_tokens
from desktop_app.llm.estimate import estimate_tokens_lenient
from desktop_app.session import SessionView
from desktop_app.session.context import (
    active_edits,
    convert_message_to_llm,
    edit_key,
    entry_context_messages,
    project_path,
)
from desktop_app.session.entries import Entry, Message
from desktop_app.session.kinds import BlockKind, EntryKind, Role, block_kind, kind_of, role_of
from desktop_app.session.profile import PiProfile

from .chat_feed import session_profile
from .pi16_words import EDIT_OMITTED, EDIT_REPLACED, system_summary
from .text import summary_headline

__all__ = ["SECTIONS", "Lens", "LensRow", "context_lens", "heat"]

#: The parts of a context, in the order the model reads them.
SECTIONS = ("compaction summary", "kept", "newer")


@dataclass(frozen=True)
class LensRow:
    """One message of the context."""

    entry_id: str | None  #: the entry it comes from (``None`` if it cannot be told)
    section: str  #: one of :data:`SECTIONS` (``"newer"`` when nothing was compacted)
    role: str  #: the message's role before conversion (``compactionSummary``, ``toolResult``, …)
    llm_role: str  #: the role the provider receives (summaries and bash output arrive as ``user``)
    tokens: int  #: pi's estimate for this message
    covered_by_usage: bool  #: the last reported usage already counts it
    text: str  #: its first line
    edit: str = ""  #: ``"omitted"`` / ``"replaced"`` by a context edit (pi 1.6.0), else ``""``
    edit_id: str | None = None  #: the context edit that decided it

    @property
    def sent(self) -> bool:
        """The model receives this row (an omitted one is listed but not sent)."""
        return self.edit != EDIT_OMITTED


@dataclass(frozen=True)
class Lens:
    """The context at ``entry_id`` (see the module docstring)."""

    entry_id: str | None
    rows: tuple[LensRow, ...]
    total: int | float | None  #: ``estimateContextTokens`` (``None`` when pi's estimate would throw)
    usage_tokens: int | float  #: the last reported usage (0 without one)
    trailing_tokens: int | float  #: estimates of the messages after that usage
    compaction_id: str | None  #: the compaction the context starts from

    def section_tokens(self) -> dict[str, int]:
        """Estimated tokens per section."""
        out = dict.fromkeys(SECTIONS, 0)
        for row in self.rows:
            out[row.section] += row.tokens
        return out

    @property
    def estimated_covered(self) -> int:
        """The estimates of the rows the usage covers."""
        return sum(row.tokens for row in self.rows if row.covered_by_usage)

    @property
    def sent_rows(self) -> tuple[LensRow, ...]:
        """The rows the model receives (without the omitted ones)."""
        return tuple(row for row in self.rows if row.sent)

    def by_entry(self) -> dict[str, int]:
        """Tokens per entry (a compaction: its summary), for the heat strip on the graph."""
        out: dict[str, int] = {}
        for row in self.rows:
            if row.entry_id is not None:
                out[row.entry_id] = out.get(row.entry_id, 0) + row.tokens
        return out


def _first_line(message: Message) -> str:
    if not isinstance(message, dict):  # a compaction's odd ``systemMessage`` (a string, ``true``)
        return message if isinstance(message, str) else json.dumps(message)
    match role_of(message):
        case Role.COMPACTION_SUMMARY | Role.BRANCH_SUMMARY:
            summary = message.get("summary")
            return summary_headline(summary) if isinstance(summary, str) else ""
        case Role.BASH_EXECUTION:
            return "$ " + str(message.get("command", ""))
        case Role.SYSTEM:
            return system_summary(message, whole=None)
    return " ".join(_content_words(message.get("content")).split())[:160]


def _content_words(content: object) -> str:
    """A message's content in a line's words: its text, its tool calls as ``→ name``, and
    ``(thinking)`` for a reply that only thought so far."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        match block_kind(block):
            case BlockKind.TEXT if isinstance(block.get("text"), str):
                parts.append(block["text"])
            case BlockKind.TOOL_CALL:
                parts.append(f"→ {block.get('name', 'tool')}")
            case BlockKind.THINKING if not parts:
                parts.append("(thinking)")
    return " ".join(parts)


@dataclass(frozen=True)
class _Source:
    """One message of the projection (or an omitted one) with where it comes from."""

    entry_id: str | None
    section: str
    message: Message
    edit: str = ""
    edit_id: str | None = None


def _sourced(path: list[Entry], profile: PiProfile) -> list[_Source]:
    """The messages of pi's projection at the end of ``path``, each with its entry and section,
    and the messages an edit omitted, in their places (pi16-delta.md §4.1)."""
    projected = project_path(path, profile=profile)
    compaction = EntryKind.COMPACTION
    compaction_at = max((i for i, e in enumerate(path) if kind_of(e) is compaction), default=-1)
    after = len(path) - compaction_at - 1 if compaction_at >= 0 else len(path)
    edits = active_edits(path, profile)
    out: list[_Source] = []
    for i, entry in enumerate(projected):
        source = entry.source
        entry_id = source.get("id")
        named = entry_id if isinstance(entry_id, str) else None
        if compaction_at >= 0 and i == 0:
            section = "compaction summary"
        elif compaction_at >= 0 and i < len(projected) - after:
            section = "kept"
        else:
            section = "newer"
        edit = edits.get(edit_key(entry_id)) if edits else None
        if edit is None:
            out.extend(_Source(named, section, m) for m in entry.messages)
            continue
        edit_id = edit.get("id") if isinstance(edit.get("id"), str) else None
        raw = entry_context_messages(source, profile=profile)
        if not entry.messages:
            out.extend(_Source(named, section, m, EDIT_OMITTED, edit_id) for m in raw)
        else:
            state = EDIT_REPLACED if entry.messages != raw else ""
            out.extend(_Source(named, section, m, state, edit_id if state else None) for m in entry.messages)
    return out


def context_lens(session: SessionView, entry_id: str | None = None) -> Lens:
    """The lens at ``entry_id`` (the session's leaf when ``None``)."""
    target = entry_id if entry_id is not None else session.leaf_id
    if target is None or session.get_entry(target) is None:
        return Lens(None, (), 0, 0, 0, None)
    profile = session_profile(session)
    messages = session.build_session_context(target).messages
    sourced = _sourced(session.get_branch(target), profile)
    if [s.message for s in sourced if s.edit != EDIT_OMITTED] != messages:
        sourced = [_Source(None, "newer", m) for m in messages]  # the path and pi's context disagree: keep pi's
    try:
        estimate = estimate_context_tokens(messages, profile)
        total: int | float | None = estimate.tokens
        usage, trailing, last = estimate.usage_tokens, estimate.trailing_tokens, estimate.last_usage_index
    except TypeError:  # a malformed message: pi's estimate throws; rows still get lenient counts
        total, usage, trailing, last = None, 0, 0, None
    rows = []
    sent = -1  # index of the row's message in ``messages`` (omitted rows have none)
    for item in sourced:
        message = item.message
        omitted = item.edit == EDIT_OMITTED
        if not omitted:
            sent += 1
        converted = convert_message_to_llm(message, profile)
        rows.append(
            LensRow(
                entry_id=item.entry_id,
                section=item.section,
                role=str(message.get("role", "")) if isinstance(message, dict) else "",
                llm_role="" if omitted else str(converted.get("role", "")) if converted is not None else "",
                tokens=0 if omitted else estimate_tokens_lenient(message, profile),
                covered_by_usage=not omitted and last is not None and sent <= last,
                text=_first_line(message),
                edit=item.edit,
                edit_id=item.edit_id,
            )
        )
    compaction = sourced[0].entry_id if sourced and sourced[0].section == "compaction summary" else None
    return Lens(target, tuple(rows), total, usage, trailing, compaction)


def heat(tokens: int, hottest: int) -> float:
    """0..1 on a square-root scale: a 40k-token tool result glows, a 50-token reply barely shows."""
    if tokens <= 0 or hottest <= 0:
        return 0.0
    return min(1.0, float((tokens / hottest) ** 0.5))
