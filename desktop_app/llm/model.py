"""What the engine knows about a model and about one request to it (no I/O, no provider code)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LLMRequest", "ModelInfo", "Purpose"]


@dataclass(frozen=True)
class ModelInfo:
    """What the engine needs to know about a model (pi's ``Model``, trimmed).

    Costs are US dollars per million tokens; ``reasoning`` says whether the model accepts a thinking
    level (compaction passes the session's level only to such models, pi-spec §5.8).
    """

    id: str
    provider: str
    api: str
    context_window: int = 200_000
    max_tokens: int = 32_000
    reasoning: bool = False
    input: tuple[str, ...] = ("text",)
    cost_input: float = 0.0
    cost_output: float = 0.0
    cost_cache_read: float = 0.0
    cost_cache_write: float = 0.0


class Purpose(enum.Enum):
    """Why a request is made. Providers that answer differently per kind of request (the offline
    model) look at this, never at the prompt text, so ``llm`` needs nothing from ``compaction``."""

    CHAT = "chat"
    COMPACTION = "compaction"
    """A compaction summary (the history before the cut, or an update of the previous summary)."""
    TURN_PREFIX = "turn_prefix"
    """The summary of the early part of a turn that a compaction cut in two."""
    BRANCH_SUMMARY = "branch_summary"
    """The summary of a branch being left (``/tree`` navigation)."""


@dataclass
class LLMRequest:
    """One model call: a system prompt, LLM-shaped messages (user/assistant/toolResult) and options.

    ``reasoning`` is a thinking level (``"minimal"`` … ``"xhigh"``) or ``None`` for no thinking;
    ``tools`` are tool definitions (``{name, description, parameters}``) or ``None``; ``purpose`` says
    what the request is for (see :class:`Purpose`).
    """

    system_prompt: str | None
    messages: list[dict[str, Any]]
    max_tokens: int | None = None
    reasoning: str | None = None
    tools: list[dict[str, Any]] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    purpose: Purpose = Purpose.CHAT
