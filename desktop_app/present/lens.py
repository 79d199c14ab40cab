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
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.compaction.tokens import estimate_context_tokens
from desktop_app.llm.estimate import estimate_tokens_lenient
from desktop_app.session import SessionView
from desktop_app.session.context import compaction_summary_message, context_message, convert_message_to_llm
from desktop_app.session.entries import Entry, Message

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

    def by_entry(self) -> dict[str, int]:
        """Tokens per entry (a compaction: its summary), for the heat strip on the graph."""
        out: dict[str, int] = {}
        for row in self.rows:
            if row.entry_id is not None:
                out[row.entry_id] = out.get(row.entry_id, 0) + row.tokens
        return out


def _first_line(message: Message) -> str:
    role = message.get("role")
    if role in ("compactionSummary", "branchSummary"):
        summary = message.get("summary")
        return summary_headline(summary) if isinstance(summary, str) else ""
    if role == "bashExecution":
        return "$ " + str(message.get("command", ""))
    content = message.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts: list[str] = []
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif kind == "toolCall":
                parts.append(f"→ {block.get('name', 'tool')}")
            elif kind == "thinking" and not parts:
                parts.append("(thinking)")
        text = " ".join(parts)
    else:
        text = ""
    text = " ".join(text.split())
    return text[:160]


def _sourced(path: list[Entry]) -> list[tuple[str | None, str, Message]]:
    """(entry id, section, message) for the context at the end of ``path`` (pi-spec §4.1)."""
    compaction_at = max((i for i, e in enumerate(path) if e.get("type") == "compaction"), default=-1)
    out: list[tuple[str | None, str, Message]] = []

    def add(entries: list[Entry], section: str) -> None:
        for entry in entries:
            message = context_message(entry)
            if message is not None:
                entry_id = entry.get("id")
                out.append((entry_id if isinstance(entry_id, str) else None, section, message))

    if compaction_at < 0:
        add(path, "newer")
        return out
    compaction = path[compaction_at]
    first_kept = compaction.get("firstKeptEntryId")
    kept_from = next(
        (i for i in range(compaction_at - 1, -1, -1) if path[i].get("id") == first_kept), compaction_at
    )
    compaction_id = compaction.get("id")
    out.append(
        (compaction_id if isinstance(compaction_id, str) else None, "compaction summary", compaction_summary_message(compaction))
    )
    add(path[kept_from:compaction_at], "kept")
    add(path[compaction_at + 1 :], "newer")
    return out


def context_lens(session: SessionView, entry_id: str | None = None) -> Lens:
    """The lens at ``entry_id`` (the session's leaf when ``None``)."""
    target = entry_id if entry_id is not None else session.leaf_id
    if target is None or session.get_entry(target) is None:
        return Lens(None, (), 0, 0, 0, None)
    messages = session.build_session_context(target).messages
    sourced = _sourced(session.get_branch(target))
    if [m for _, _, m in sourced] != messages:  # the path and pi's context disagree: keep pi's messages
        sourced = [(None, "newer", m) for m in messages]
    try:
        estimate = estimate_context_tokens(messages)
        total: int | float | None = estimate.tokens
        usage, trailing, last = estimate.usage_tokens, estimate.trailing_tokens, estimate.last_usage_index
    except TypeError:  # a malformed message: pi's estimate throws; rows still get lenient counts
        total, usage, trailing, last = None, 0, 0, None
    rows = []
    for i, (source, section, message) in enumerate(sourced):
        converted = convert_message_to_llm(message)
        rows.append(
            LensRow(
                entry_id=source,
                section=section,
                role=str(message.get("role", "")),
                llm_role=str(converted.get("role", "")) if converted is not None else "",
                tokens=estimate_tokens_lenient(message),
                covered_by_usage=last is not None and i <= last,
                text=_first_line(message),
            )
        )
    compaction = sourced[0][0] if sourced and sourced[0][1] == "compaction summary" else None
    return Lens(target, tuple(rows), total, usage, trailing, compaction)


def heat(tokens: int, hottest: int) -> float:
    """0..1 on a square-root scale: a 40k-token tool result glows, a 50-token reply barely shows."""
    if tokens <= 0 or hottest <= 0:
        return 0.0
    return min(1.0, float((tokens / hottest) ** 0.5))
