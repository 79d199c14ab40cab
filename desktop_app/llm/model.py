"""What the engine knows about a model and about one request to it (no I/O, no provider code)."""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

__all__ = ["LLMRequest", "ModelInfo", "Purpose", "TextPieces"]


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

    ``text_pieces`` (a summarizer's request, issue 28): the request is one user message with one text
    block whose text is ``"".join(text_pieces)`` (an iterable that can be iterated again, such as
    :class:`TextPieces`). A first compaction at 100,000 entries sends a ~44-million-character
    transcript: joined, it is a new string of 2 bytes a character as soon as one character is beyond
    Latin-1, where its pieces are mostly the session's own strings. A provider that can send the
    pieces as they come (the Anthropic provider encodes them one by one into the request's bytes)
    never joins them; ``messages`` is made from them the first time it is read (``messages`` given
    beside ``text_pieces`` is ignored).
    """

    system_prompt: str | None
    messages: list[dict[str, Any]]
    max_tokens: int | None = None
    reasoning: str | None = None
    tools: list[dict[str, Any]] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    purpose: Purpose = Purpose.CHAT
    text_pieces: Iterable[str] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.text_pieces is not None:
            del self.messages  # made on first read, by __getattr__

    if not TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            """``messages`` of a request given as ``text_pieces``: joined once, on first read."""
            if name == "messages" and self.__dict__.get("text_pieces") is not None:
                text = "".join(self.text_pieces)
                self.messages = [
                    {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": int(time.time() * 1000)}
                ]
                return self.messages
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


class TextPieces:
    """A text as the pieces ``make()`` yields, made anew each time it is iterated: nothing made for
    it is kept between uses (see ``LLMRequest.text_pieces``)."""

    def __init__(self, make: Callable[[], Iterable[str]]) -> None:
        self._make = make

    def __iter__(self) -> Iterator[str]:
        return iter(self._make())
