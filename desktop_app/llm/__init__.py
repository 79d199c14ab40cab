"""Model access for Arbor: one streaming protocol (``protocol``), the offline model (``offline``),
and a recording test double (``testing``). Providers live in their own modules; import them there.
"""

from .protocol import (
    Done,
    ErrorEvent,
    LLMRequest,
    ModelInfo,
    Provider,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
    complete,
)

__all__ = [
    "Done",
    "ErrorEvent",
    "LLMRequest",
    "ModelInfo",
    "Provider",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "UsageUpdate",
    "complete",
]
