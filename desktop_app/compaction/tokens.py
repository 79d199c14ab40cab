"""Token accounting exactly as pi does it (pi-spec §5.1–§5.4).

pi never tokenizes for its decisions: it estimates ``ceil(chars / 4)`` where ``chars`` is a JavaScript
string length (UTF-16 code units), and it trusts the provider's reported usage where there is one. Cut
points, ``tokensBefore`` and the auto-compaction threshold all hang on these numbers, so they are
reproduced to the unit, including JavaScript's arithmetic on missing fields (``undefined + 1`` is
``NaN``; ``null + 1`` is ``1``). ``NaN`` is ``float("nan")`` here and ``None`` in reports.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from desktop_app.llm.estimate import MISSING as _MISSING
from desktop_app.llm.estimate import NAN, estimate_tokens, estimate_tokens_lenient
from desktop_app.llm.estimate import js_number as _number
from desktop_app.llm.estimate import js_truthy as _truthy
from desktop_app.session.context import ProjectedEntry
from desktop_app.session.entries import Entry, Message
from desktop_app.session.kinds import EntryKind, Role, kind_of, role_of
from desktop_app.session.profile import PI_1_6_0, PiProfile
from desktop_app.session.system_prompt import current_system_message

__all__ = [
    "CompactionSettings",
    "DEFAULT_COMPACTION_SETTINGS",
    "ContextEstimate",
    "estimate_tokens",
    "estimate_tokens_lenient",
    "calculate_context_tokens",
    "get_assistant_usage",
    "get_last_assistant_usage",
    "estimate_context_tokens",
    "estimate_projected_context_tokens",
    "should_compact",
    "is_context_overflow",
    "nan_to_none",
]

@dataclass(frozen=True)
class CompactionSettings:
    """``compaction`` settings with pi's defaults (pi-spec §5.1)."""

    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000

    def to_json(self) -> dict[str, Any]:
        """As pi prints the settings object (its own key names and order)."""
        return {
            "enabled": self.enabled,
            "reserveTokens": self.reserve_tokens,
            "keepRecentTokens": self.keep_recent_tokens,
        }


DEFAULT_COMPACTION_SETTINGS = CompactionSettings()


def nan_to_none(value: Any) -> Any:
    """NaN as JSON writes it (``null``); everything else unchanged."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


# ------------------------------------------------------------------------------------ usage


def calculate_context_tokens(usage: dict[str, Any]) -> int | float:
    """``usage.totalTokens || input + output + cacheRead + cacheWrite`` (NaN if a field is missing)."""
    if not isinstance(usage, dict):
        if usage is None:
            raise TypeError("Cannot read properties of null (reading 'totalTokens')")
        return NAN
    total = usage.get("totalTokens", _MISSING)
    if isinstance(total, str):
        return NAN  # JS would concatenate; no count can come of it
    if _truthy(total):
        return total  # type: ignore[no-any-return]
    result: int | float = 0
    for key in ("input", "output", "cacheRead", "cacheWrite"):
        result = result + _number(usage.get(key, _MISSING))
    return result


def get_assistant_usage(message: Any, profile: PiProfile = PI_1_6_0) -> dict[str, Any] | None:
    """The usage of an assistant that finished normally (aborted and error stops don't count; with
    the profile's ``skip_zero_usage`` neither does a usage that says the context was empty)."""
    if role_of(message) is not Role.ASSISTANT or "usage" not in message:
        return None
    if message.get("stopReason") in ("aborted", "error"):
        return None
    usage: Any = message.get("usage")
    if not _truthy(usage):
        return None
    if profile.skip_zero_usage and not calculate_context_tokens(usage) > 0:  # NaN fails too
        return None
    return usage  # type: ignore[no-any-return]


def get_last_assistant_usage(entries: list[Entry], profile: PiProfile = PI_1_6_0) -> dict[str, Any] | None:
    """Usage of the last valid assistant message among ``entries`` (file/path order)."""
    for entry in reversed(entries):
        if kind_of(entry) is EntryKind.MESSAGE:
            usage = get_assistant_usage(entry.get("message"), profile)
            if usage is not None:
                return usage
    return None


@dataclass(frozen=True)
class ContextEstimate:
    """``estimateContextTokens``: last real usage plus estimates of what came after it."""

    tokens: int | float
    usage_tokens: int | float
    trailing_tokens: int | float
    last_usage_index: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens": nan_to_none(self.tokens),
            "usageTokens": nan_to_none(self.usage_tokens),
            "trailingTokens": nan_to_none(self.trailing_tokens),
            "lastUsageIndex": self.last_usage_index,
        }


def estimate_context_tokens(messages: list[Message], profile: PiProfile = PI_1_6_0) -> ContextEstimate:
    """Context size: the last valid usage, plus ``estimate_tokens`` of every later message (§5.3)."""
    last_index: int | None = None
    usage: dict[str, Any] | None = None
    for i in range(len(messages) - 1, -1, -1):
        usage = get_assistant_usage(messages[i], profile)
        if usage is not None:
            last_index = i
            break
    if last_index is None or usage is None:
        total: int | float = 0
        for message in messages:
            total += estimate_tokens(message, profile)
        return ContextEstimate(total, 0, total, None)
    usage_tokens = calculate_context_tokens(usage)
    trailing: int | float = 0
    for message in messages[last_index + 1 :]:
        trailing += estimate_tokens(message, profile)
    return ContextEstimate(usage_tokens + trailing, usage_tokens, trailing, last_index)


def should_compact(
    context_tokens: int | float, context_window: int | float, settings: CompactionSettings
) -> bool:
    """Auto-compaction threshold: enabled and above ``window - reserve`` (NaN never triggers)."""
    if not settings.enabled:
        return False
    return bool(context_tokens > context_window - settings.reserve_tokens)


# ------------------------------------------------------------------------------------ overflow

_OVERFLOW_PATTERNS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"prompt is too long",
        r"request_too_large",
        r"input is too long for requested model",
        r"exceeds the context window",
        r"input token count.*exceeds the maximum",
        r"maximum prompt length is \d+",
        r"reduce the length of the messages",
        r"maximum context length is \d+ tokens",
        r"exceeds the limit of \d+",
        r"exceeds the available context size",
        r"greater than the context length",
        r"context window exceeds limit",
        r"exceeded model token limit",
        r"too large for model with \d+ maximum context length",
        r"model_context_window_exceeded",
        r"prompt too long; exceeded (?:max )?context length",
        r"context[_ ]length[_ ]exceeded",
        r"too many tokens",
        r"token limit exceeded",
    )
]
_NO_BODY = re.compile(r"^4(00|13)\s*(status code)?\s*\(no body\)", re.IGNORECASE)
_NOT_OVERFLOW = [
    re.compile(p, re.IGNORECASE)
    for p in (r"^(Throttling error|Service unavailable):", r"rate limit", r"too many requests")
]


def _usage_number(usage: Any, key: str) -> int | float:
    if not isinstance(usage, dict):
        raise TypeError(f"Cannot read properties of undefined (reading '{key}')")
    return _number(usage.get(key, _MISSING))


def is_context_overflow(message: Message, context_window: int | float | None = None) -> bool:
    """pi-ai's ``isContextOverflow`` (pi-spec §5.4): error texts, silent overflow, length stop.

    Rate-limit and throttling texts are excluded first: a throttling error that mentions "too many
    tokens" is not an overflow, and compacting would not help it.
    """
    stop = message.get("stopReason")
    if stop == "error":
        error = message.get("errorMessage")
        if isinstance(error, str) and error:
            if any(p.search(error) for p in _NOT_OVERFLOW):
                return False
            if any(p.search(error) for p in _OVERFLOW_PATTERNS) or _NO_BODY.search(error):
                return True
    if context_window and stop == "stop":
        usage = message.get("usage")
        if usage is not None:
            used = _usage_number(usage, "input") + _usage_number(usage, "cacheRead")
            if used > context_window:
                return True
    if context_window and stop == "length":
        usage = message.get("usage")
        if usage is not None and _usage_number(usage, "output") == 0:
            used = _usage_number(usage, "input") + _usage_number(usage, "cacheRead")
            if used >= 0.99 * context_window:
                return True
    return False


# ------------------------------------------------------------------------------------ pi 1.6.0


def estimate_projected_context_tokens(
    projected: list[ProjectedEntry], path_entries: list[Entry], profile: PiProfile = PI_1_6_0
) -> ContextEstimate:
    """pi 1.6.0's ``estimateProjectedContextTokens`` (pi16-delta.md §5.3): a compaction's ``tokensBefore``.

    The last usage says how big the context was when that reply came, which is only true now if no
    compaction or context edit has changed the context since. Otherwise the usage is stale and the
    whole projected context is estimated: the replayed system prompt plus every other message.
    """
    messages = [m for p in projected for m in p.messages]
    estimate = estimate_context_tokens(messages, profile)
    if estimate.last_usage_index is not None:
        holder = _holder(projected, estimate.last_usage_index)
        # The usage holds if its entry comes after the path's last compaction or context edit: walk
        # back from the leaf (a map of the whole path's positions was ~40 ms at 100,000 entries).
        for entry in reversed(path_entries):
            if kind_of(entry) in (EntryKind.CONTEXT_EDIT, EntryKind.COMPACTION):
                break
            if entry is holder:
                return estimate
    system = current_system_message(messages)
    tokens: int | float = estimate_tokens(system, profile) if system is not None else 0
    for message in messages:
        if role_of(message) is not Role.SYSTEM:  # an odd checkpoint (not an object) counts (0)
            tokens += estimate_tokens(message, profile)
    return ContextEstimate(tokens, 0, tokens, None)


def _holder(projected: list[ProjectedEntry], message_index: int) -> Entry | None:
    """The entry whose projected messages hold the ``message_index``-th message."""
    seen = 0
    for p in projected:
        seen += len(p.messages)
        if message_index < seen:
            return p.source
    return None
