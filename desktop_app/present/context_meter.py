"""The context meter's number and what it says it counts (issue 9, Found item 6).

The number is pi's (pi-spec §5.3): the last reply's reported usage plus an estimate (about four
characters per token) of every message after it, or the estimate of every message when no reply
reported usage. Two sources can disagree: a session made with one model and continued with another
(or the offline model) read 1.4k, then 387 after a message was *added*. A context cannot shrink
while the conversation only grows, so while the active path only gets longer (no branch switch, no
compaction) the meter never shows less than it showed before, and its tooltip says so. A branch
switch or a compaction starts afresh.

Right after a compaction pi's footer shows ``?`` until the next reply reports usage (the kept
replies' usage counted the context before it was compacted). A meter reading "?" while the user
decides what to do next helps nobody (issue 22): it shows the estimate of every message instead,
marked as one (``~12k``), and says so in its tooltip.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from desktop_app.compaction.tokens import estimate_context_tokens, estimate_tokens_lenient
from desktop_app.session.kinds import EntryKind, kind_of

__all__ = ["ContextMeterState", "MeterReading", "format_tokens"]


def format_tokens(count: int | float) -> str:
    """pi's footer format: ``950``, ``1.2k``, ``143k``, ``1.5M``."""
    if count < 1000:
        return str(int(count))
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    if count < 10_000_000:
        return f"{count / 1_000_000:.1f}M"
    return f"{round(count / 1_000_000)}M"


@dataclass(frozen=True)
class MeterReading:
    """What the meter shows: ``tokens`` and why."""

    tokens: int | None
    explanation: str
    floored: bool  #: the sources reported less than before while the path only grew
    estimated: bool = False  #: just compacted: every message estimated, no reported usage in it


def _counts(messages: Sequence[Any]) -> str:
    estimate = estimate_context_tokens(list(messages))
    if estimate.last_usage_index is None:
        return (
            f"Counts the {len(messages)} message(s) the model receives at the active leaf, "
            "estimated at about 4 characters per token (no reply has reported usage yet)."
        )
    later = len(messages) - estimate.last_usage_index - 1
    return (
        f"Counts the {len(messages)} message(s) the model receives at the active leaf: "
        f"{format_tokens(estimate.usage_tokens)} reported by the model for its last reply "
        f"(input + output + cache), plus about {format_tokens(estimate.trailing_tokens)} estimated "
        f"for the {later} message(s) after it (about 4 characters per token)."
    )


class ContextMeterState:
    """Remembers the last reading and the path it was for, to keep the meter from jumping down."""

    def __init__(self) -> None:
        self._length = 0  #: entries on the path of the last reading
        self._ends: tuple[Any, Any] = (None, None)  #: that path's first and last ids
        self._tokens: int | None = None

    def reset(self) -> None:
        """Another session: nothing to compare with."""
        self._length = 0
        self._ends = (None, None)
        self._tokens = None

    def read(self, path: Sequence[Mapping[str, Any]], tokens: int | None, messages: Sequence[Any]) -> MeterReading:
        """The reading for the active path ``path`` (its entries, root → leaf, or the end of them the
        context is built from: ``get_context_branch``).

        ``tokens`` is the agent's count (``None`` right after a compaction); ``messages`` the
        context it counted, for the explanation. Whether the path only grew is told by its ends
        and what was added, not by comparing every id: a path is where its last entry's parent
        links lead, and at 100,000 entries the comparison cost 30 ms per reading.
        """
        length, before = self._length, self._tokens
        compaction = EntryKind.COMPACTION
        grew = (
            length > 0
            and len(path) >= length
            and (path[0].get("id"), path[length - 1].get("id")) == self._ends
            and not any(kind_of(entry) is compaction for entry in path[length:])
        )
        self._length = len(path)
        self._ends = (path[0].get("id"), path[-1].get("id")) if path else (None, None)
        if tokens is None:
            self._tokens = None  # an estimate is no floor for the reply that reports the real size
            estimate = sum((estimate_tokens_lenient(m) for m in messages), 0)  # NaN (pi's arithmetic) counts 0
            return MeterReading(
                int(estimate),
                f"Estimated: the context was just compacted, so the {len(messages)} message(s) the model "
                "receives at the active leaf are counted at about 4 characters per token until the next "
                "reply reports the real size.",
                False,
                estimated=True,
            )
        explanation = _counts(messages)
        if grew and before is not None and tokens < before:
            self._tokens = before
            return MeterReading(
                before,
                explanation
                + f" That came to {format_tokens(tokens)}, less than before although the conversation only grew"
                " (models count differently), so the meter keeps the larger number.",
                True,
            )
        self._tokens = tokens
        return MeterReading(tokens, explanation, False)
