"""A deterministic, extractive summarizer: pi's structured summary format filled from the transcript.

Used by the offline provider when no model is configured, so compaction and branch summaries work (and
can be audited) without a network. It reads the serialized conversation a summarization request carries
(``[User]:`` / ``[Assistant]:`` / ``[Assistant tool calls]:`` / ``[Tool result]:`` parts) and copies
sentences into the headings: the first request as the goal, requirement-like user sentences as
constraints, tool calls as done items, failing tool results as blockers, the last request as the next
step, file paths as critical context. It never invents anything, and it says it is an offline summary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "OFFLINE_SUMMARY_NOTICE",
    "SECTION_HEADINGS",
    "ParsedRequest",
    "parse_summary_request",
    "offline_summary",
    "offline_turn_prefix_summary",
]

OFFLINE_SUMMARY_NOTICE = "(Offline summary — generated without a language model.)"
SECTION_HEADINGS = (
    "## Goal",
    "## Constraints & Preferences",
    "## Progress",
    "### Done",
    "### In Progress",
    "### Blocked",
    "## Key Decisions",
    "## Next Steps",
    "## Critical Context",
)

_PART = re.compile(
    r"(?:^|\n\n)\[(User|Assistant|Assistant thinking|Assistant tool calls|Tool result)\]: ", re.MULTILINE
)
_CONSTRAINT = re.compile(
    r"\b(must|should|shouldn't|don't|do not|never|always|prefer|avoid|only|need to|make sure)\b", re.I
)
_DECISION = re.compile(
    r"\b(decided|decide|chose|choose|instead|switch(?:ed)? to|going with|we'll use|I'll use)\b", re.I
)
_FAILURE = re.compile(r"\b(error|failed|failure|exception|traceback|not found|denied|cannot|can't)\b", re.I)
_PATH = re.compile(
    r"(?<![\w@:/.-])((?:\.{0,2}/|~/)?(?:[\w.-]+/)+[\w.-]+|[\w-]+\.(?:py|ts|tsx|js|jsx|mjs|json|"
    r"md|rs|go|java|c|h|cpp|hpp|css|html|toml|yaml|yml|txt|sh|sql|rb|kt|swift|lock|cfg|ini|"
    r"jsonl|png|jpg|svg))(?![\w/])"
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_CALL = re.compile(r"(\w[\w.-]*)\((.*)\)$", re.S)
_SUMMARY_PREFIXES = (
    "The conversation history before this point was compacted into the following summary:",
    "The following is a summary of a branch that this conversation came back from:",
)
_MAX_ITEM = 200


_MD_CONVERSATION = "# Conversation\n"
_MD_INSTRUCTIONS = "\n\n# Instructions\n"


@dataclass
class ParsedRequest:
    """The pieces of a summarization request's user text."""

    conversation: str = ""
    previous_summary: str | None = None
    instructions: str = ""
    parts: list[tuple[str, str]] = field(default_factory=list)


def parse_summary_request(text: str) -> ParsedRequest:
    """Split ``<conversation>…</conversation>``, ``<previous-summary>…</previous-summary>`` and the rest
    (or pi 1.6.0's turn-prefix layout, ``# Conversation\n…\n\n# Instructions\n…``)."""
    parsed = ParsedRequest(instructions=text)
    if text.startswith(_MD_CONVERSATION) and _MD_INSTRUCTIONS in text:
        end = text.rfind(_MD_INSTRUCTIONS)
        parsed.conversation = text[len(_MD_CONVERSATION) : end]
        parsed.instructions = text[end + len(_MD_INSTRUCTIONS) :]
        parsed.parts = split_parts(parsed.conversation)
        return parsed
    start = text.find("<conversation>\n")
    end = text.rfind("\n</conversation>")
    if start != -1 and end >= start:
        parsed.conversation = text[start + len("<conversation>\n") : end]
        rest = text[end + len("\n</conversation>") :].lstrip("\n")
        prev_start = rest.find("<previous-summary>\n")
        prev_end = rest.find("\n</previous-summary>")
        if prev_start == 0 and prev_end != -1:
            parsed.previous_summary = rest[len("<previous-summary>\n") : prev_end]
            rest = rest[prev_end + len("\n</previous-summary>") :].lstrip("\n")
        parsed.instructions = rest
    parsed.parts = split_parts(parsed.conversation)
    return parsed


def split_parts(conversation: str) -> list[tuple[str, str]]:
    """``[(kind, text)]`` for each serialized part, in order."""
    matches = list(_PART.finditer(conversation))
    parts: list[tuple[str, str]] = []
    for i, match in enumerate(matches):
        stop = matches[i + 1].start() if i + 1 < len(matches) else len(conversation)
        parts.append((match.group(1), conversation[match.end() : stop]))
    return parts


# ------------------------------------------------------------------------------------------ helpers


def _clip(text: str, limit: int = _MAX_ITEM) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return _clip(line)
    return ""


def _unique(items: list[str], limit: int) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if item and item not in seen:
            seen.add(item)
            out.append(item)
    return out[limit:] if limit < 0 else out[:limit]


def _is_summary(text: str) -> bool:
    return text.startswith(_SUMMARY_PREFIXES)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def _tool_calls(text: str) -> list[str]:
    """``name(k=v, …); name(…)`` → short readable items (``read src/a.ts``, ``bash: ls -la``)."""
    items: list[str] = []
    for call in text.split("; "):
        match = _CALL.match(call.strip())
        if not match:
            items.append(_clip(call, 120))
            continue
        name, args = match.groups()
        path = re.search(r'\bpath="((?:[^"\\]|\\.)*)"', args)
        command = re.search(r'\bcommand="((?:[^"\\]|\\.)*)"', args)
        if path:
            items.append(f"{name} `{path.group(1)}`")
        elif command:
            items.append(f"{name}: `{_clip(command.group(1), 100)}`")
        else:
            items.append(_clip(f"{name}({args})", 120))
    return items


def _bullets(items: list[str], empty: str = "(none)") -> list[str]:
    return [f"- {item}" for item in items] if items else [f"- {empty}"]


@dataclass
class _Extract:
    requests: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    last_assistant: str = ""
    earlier_summaries: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


def _extract(parts: list[tuple[str, str]]) -> _Extract:
    ex = _Extract()
    for kind, text in parts:
        ex.counts[kind] = ex.counts.get(kind, 0) + 1
        ex.paths.extend(m.group(1).rstrip(".,:;") for m in _PATH.finditer(text))
        if kind == "User":
            if _is_summary(text):
                ex.earlier_summaries.append(text)
                continue
            ex.requests.append(_first_line(text))
            ex.constraints.extend(_clip(s) for s in _sentences(text) if _CONSTRAINT.search(s))
        elif kind == "Assistant":
            ex.last_assistant = _first_line(text)
            ex.decisions.extend(_clip(s) for s in _sentences(text) if _DECISION.search(s))
        elif kind == "Assistant tool calls":
            ex.done.extend(_tool_calls(text))
        elif kind == "Tool result":
            first = _first_line(text)
            if _FAILURE.search(first):
                ex.blocked.append(first)
    return ex


def _previous_sections(summary: str | None) -> dict[str, list[str]]:
    """Lines under each heading of a previous structured summary (to preserve them on update)."""
    sections: dict[str, list[str]] = {}
    if not summary:
        return sections
    current: str | None = None
    for line in summary.splitlines():
        stripped = line.strip()
        if stripped in SECTION_HEADINGS:
            current = stripped
            sections.setdefault(current, [])
        elif current and stripped and not stripped.startswith("<") and stripped != OFFLINE_SUMMARY_NOTICE:
            sections[current].append(stripped)
    return sections


def _merge(previous: list[str], new: list[str]) -> list[str]:
    placeholders = {"- (none)", "(none)", "- [ ] (none)", "1. (none)"}
    return _unique(
        [p for p in previous if p not in placeholders] + [n for n in new if n not in placeholders], 40
    )


# ------------------------------------------------------------------------------------------ summaries


def offline_summary(request_text: str) -> str:
    """The structured summary (all nine headings) for a compaction, update or branch request."""
    parsed = parse_summary_request(request_text)
    ex = _extract(parsed.parts)
    prev = _previous_sections(parsed.previous_summary)
    if parsed.previous_summary and not prev:
        ex.earlier_summaries.insert(0, parsed.previous_summary)

    goal = _merge(prev.get("## Goal", []), [ex.requests[0]] if ex.requests else [])
    constraints = _merge(
        prev.get("## Constraints & Preferences", []), [f"- {c}" for c in _unique(ex.constraints, 8)]
    )
    done = _merge(prev.get("### Done", []), [f"- [x] {d}" for d in _unique(ex.done, -15)])
    in_progress_new = [f"- [ ] {ex.requests[-1]}"] if len(ex.requests) > 1 else []
    if ex.last_assistant:
        in_progress_new.append(f"- [ ] Last assistant reply: {ex.last_assistant}")
    in_progress = in_progress_new or [p for p in prev.get("### In Progress", []) if p != "- (none)"]
    blocked = _unique(ex.blocked, -3)
    decisions = _merge(
        prev.get("## Key Decisions", []), [f"- **Decision**: {d}" for d in _unique(ex.decisions, 5)]
    )
    next_steps = [f"1. Continue with: {ex.requests[-1]}"] if ex.requests else prev.get("## Next Steps", [])
    context = [f"- {p}" for p in _unique(ex.paths, 20)]
    context += [f"- Earlier summary: {_clip(s, 300)}" for s in ex.earlier_summaries[:2]]
    counted = ", ".join(f"{n} {kind.lower()}" for kind, n in sorted(ex.counts.items()))
    if counted:
        context.append(f"- Summarized transcript parts: {counted}")
    stale = "- Summarized transcript parts:"
    context = _merge([c for c in prev.get("## Critical Context", []) if not c.startswith(stale)], context)

    lines = [OFFLINE_SUMMARY_NOTICE, "", "## Goal"]
    lines += goal or ["(no user request in the summarized messages)"]
    lines += ["", "## Constraints & Preferences"] + (constraints or ["- (none)"])
    lines += ["", "## Progress", "### Done"] + (done or ["- [x] (none)"])
    lines += ["", "### In Progress"] + (in_progress or ["- [ ] (none)"])
    lines += ["", "### Blocked"] + _bullets(blocked)
    lines += ["", "## Key Decisions"] + (decisions or ["- (none)"])
    lines += ["", "## Next Steps"] + (next_steps or ["1. (none)"])
    lines += ["", "## Critical Context"] + (context or ["- (none)"])
    return "\n".join(lines)


def offline_turn_prefix_summary(request_text: str) -> str:
    """The split-turn format: the turn's request, what was done before the kept part, and context."""
    parsed = parse_summary_request(request_text)
    ex = _extract(parsed.parts)
    lines = [OFFLINE_SUMMARY_NOTICE, "", "## Original Request"]
    lines += [ex.requests[0]] if ex.requests else ["(not in the summarized part)"]
    lines += ["", "## Early Progress"] + _bullets(_unique(ex.done, -15))
    context = [f"- {p}" for p in _unique(ex.paths, 15)] + [f"- {b}" for b in _unique(ex.blocked, 3)]
    lines += ["", "## Context for Suffix"] + (context or ["- (none)"])
    return "\n".join(lines)
