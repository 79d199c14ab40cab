"""The stream events every provider yields (the ``StreamEvent`` union).

Deltas say what was added; :func:`~desktop_app.llm.accumulate.accumulate` turns them into the partial
assistant message, and the last event (:class:`Done` or :class:`ErrorEvent`) carries the complete one.
``index`` on text and thinking deltas is the block's position in the message's ``content`` when the
provider knows it (Anthropic does); ``None`` means "continue the last block of that kind".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "Done",
    "ErrorEvent",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "UsageUpdate",
]


@dataclass(frozen=True)
class TextDelta:
    text: str
    index: int | None = None


@dataclass(frozen=True)
class ThinkingDelta:
    text: str
    index: int | None = None
    signature: str | None = None
    """A fragment of the block's signature (appended to ``thinkingSignature``); ``""`` creates the key."""
    redacted: bool = False
    """The block is redacted thinking (its ``signature`` is the encrypted data)."""


@dataclass(frozen=True)
class ToolCallStart:
    index: int
    id: str
    name: str


@dataclass(frozen=True)
class ToolCallDelta:
    index: int
    arguments_json: str
    """A fragment of the arguments' JSON text, as the model streams it."""


@dataclass(frozen=True)
class ToolCallEnd:
    index: int
    tool_call: dict[str, Any]
    """The finished block: ``{type: "toolCall", id, name, arguments}``."""


@dataclass(frozen=True)
class UsageUpdate:
    usage: dict[str, Any]


@dataclass(frozen=True)
class Done:
    """The stream finished; ``message.stopReason`` is ``stop``, ``length`` or ``toolUse``."""

    message: dict[str, Any]


@dataclass(frozen=True)
class ErrorEvent:
    """The stream failed or was aborted; ``message.stopReason`` is ``error`` or ``aborted``.

    ``retry_after`` is the delay in seconds the server asked for (``retry-after``), when it said.
    """

    message: dict[str, Any]
    retry_after: float | None = None


StreamEvent = (
    TextDelta | ThinkingDelta | ToolCallStart | ToolCallDelta | ToolCallEnd | UsageUpdate | Done | ErrorEvent
)
